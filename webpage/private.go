package webpage

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
)

// lookupTimeout bounds the resolution of a host name by the extraction
// tier's address rule.
const lookupTimeout = 2 * time.Second

// privateError says why a URL is not sent to an extraction provider; it
// wraps the address rule's error, which wraps [ErrBlockedAddress].
type privateError struct {
	host string
	err  error
}

func (e *privateError) Error() string {
	msg := e.err.Error()
	if i := strings.Index(msg, ErrBlockedAddress.Error()+": "); i >= 0 {
		msg = msg[i+len(ErrBlockedAddress.Error())+2:]
	}
	switch {
	case strings.HasPrefix(msg, e.host+" "):
		return msg
	case strings.HasPrefix(msg, "a "), strings.HasPrefix(msg, "an "):
		return e.host + " is " + msg
	}
	return e.host + " (" + msg + ")"
}

func (e *privateError) Unwrap() error { return e.err }

// targets returns the URLs a plan's page was read at: the one asked for,
// every redirect and the final one.
func (p *Plan) targets() []string {
	out := []string{p.URL}
	for _, u := range append(slices.Clone(p.hops), p.FinalURL) {
		if u != "" && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// privateTarget returns why none of urls may be sent to an extraction
// provider, or nil: one of them names a host the probe's address rule
// refuses when private addresses are not allowed — an address (in any
// spelling) or a name reserved for local use ([CheckTarget]) — or known,
// the addresses the probe dialled for them, holds such an address
// ([CheckAddress]), or, when the probe dialled none, a host name resolves
// to one. A name that does not resolve here names no address here and is
// not refused. ProbeConfig.AllowPrivate plays no part: it lets webgate read
// a private page itself, never hand it to a third party. With
// [Reader.PrivateExtractor] only the addresses refused even when private
// ones are allowed (cloud metadata, …) are.
func (r *Reader) privateTarget(ctx context.Context, urls []string, known []netip.Addr) error {
	allow := r.PrivateExtractor
	var names []string
	for _, raw := range urls {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Hostname() == "" {
			continue
		}
		if err := CheckTarget(raw, allow); err != nil {
			return &privateError{host: u.Hostname(), err: err}
		}
		if _, literal := HostAddr(u.Hostname()); !literal && !slices.Contains(names, u.Hostname()) {
			names = append(names, u.Hostname())
		}
	}
	for _, a := range known {
		if err := CheckAddress(a, allow); err != nil {
			return &privateError{host: a.String(), err: err}
		}
	}
	if len(known) > 0 {
		return nil
	}
	for _, host := range names {
		if unresolvable(host) {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
		addrs, err := net.DefaultResolver.LookupNetIP(lctx, "ip", strings.TrimSuffix(host, "."))
		cancel()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if err := CheckAddress(a, allow); err != nil {
				return &privateError{host: host, err: err}
			}
		}
	}
	return nil
}

// unresolvable reports whether host is under a top-level domain reserved
// never to resolve (RFC 2606, RFC 6761: .example, .invalid, .test), which
// is not worth a DNS query.
func unresolvable(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, tld := range []string{"example", "invalid", "test"} {
		if h == tld || strings.HasSuffix(h, "."+tld) {
			return true
		}
	}
	return false
}
