package gateway

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/webpage"
	"github.com/webgate-dev/webgate/webpage/browser"
)

// allowAddress is the reader's per-host address rule
// (webpage.ProbeConfig.AllowAddress): a private, loopback or link-local
// address may be read only for a host AllowPrivate names, or when it is
// itself an address or in a prefix AllowPrivate names. The probe asks it
// for the URL, every redirect and every address it dials, before it
// connects, so a redirect from a listed host to one that is not listed
// is refused before it is followed, and a listed name that resolves to
// loopback takes no other host with it.
func (s *Server) allowAddress(host string, addr netip.Addr) bool {
	if addr.IsValid() {
		a := addr.Unmap()
		if slices.ContainsFunc(s.private.prefixes, func(p netip.Prefix) bool { return p.Contains(a) }) || slices.Contains(s.private.addrs, a) {
			return true
		}
	}
	if _, err := netip.ParseAddr(host); err == nil || host == "" {
		return false // an address is judged by the address alone
	}
	return slices.ContainsFunc(s.private.suffixes, func(suf string) bool { return strings.HasSuffix(host, suf) }) ||
		slices.Contains(s.private.hosts, host)
}

// hostAllowed reports whether AllowPrivate names host (a URL's host).
func (s *Server) hostAllowed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	a, _ := webpage.HostAddr(host)
	return s.allowAddress(host, a)
}

// forToken returns the tools a read by tok uses: t, whose reader reads
// private addresses only as [Server.allowAddress] allows, with its cache
// kept apart for tok for every read that touched a private address.
func (s *Server) forToken(t *webtools.Tools, tok *Token) *webtools.Tools {
	if t.Reader == nil || t.Reader.Cache == nil {
		return t
	}
	t2 := *t
	r := *t.Reader
	r.Cache = privateCache{c: r.Cache, scope: "token=" + tok.ID + " ", private: s.touchesPrivate, scoped: !s.private.empty()}
	t2.Reader = &r
	return &t2
}

// touchesPrivate reports whether a read went through a private address
// or a host AllowPrivate names: its URL, a redirect, its final URL or an
// address it was read from.
func (s *Server) touchesPrivate(c *webpage.Cached) bool {
	for _, u := range append([]string{c.URL, c.FinalURL}, c.Redirects...) {
		if u == "" {
			continue
		}
		if webpage.CheckTarget(u, false) != nil {
			return true
		}
		if p, err := webpage.CheckURL(u); err == nil && s.hostAllowed(p.Hostname()) {
			return true
		}
	}
	return slices.ContainsFunc(c.Addrs, func(a netip.Addr) bool { return webpage.CheckAddress(a, false) != nil })
}

// privateCache keeps the reads of one token that touched a private
// address apart from everyone else's; the others are shared. A Get looks
// in the token's own entries first.
type privateCache struct {
	c       webpage.Cache
	scope   string
	private func(*webpage.Cached) bool
	// scoped: the gateway may read some private address, so a token may
	// own entries. Without, no read of the gateway's touches one, and a
	// Get asks the store once; entries others wrote (a hook that shares
	// the store and reads private addresses) are still not served.
	scoped bool
}

func (pc privateCache) Get(ctx context.Context, key string) (*webpage.Cached, time.Time, bool) {
	if pc.scoped {
		if p, at, ok := pc.c.Get(ctx, pc.scope+key); ok {
			return p, at, ok
		}
	}
	p, at, ok := pc.c.Get(ctx, key)
	if ok && p != nil && pc.private(p) {
		return nil, time.Time{}, false // not this token's to read
	}
	return p, at, ok
}

func (pc privateCache) Put(ctx context.Context, key string, page *webpage.Cached) {
	if page != nil && pc.private(page) {
		pc.c.Put(ctx, pc.scope+key, page)
		return
	}
	pc.c.Put(ctx, key, page)
}

// publicRenderer returns r reading public addresses only when it is the
// browser: the gateway's configuration may let a local browser read
// private addresses (hooks.webfetch.allow_private), and the browser,
// which follows a page's scripts and subresources, cannot be told which
// host an address was dialled for.
func publicRenderer(r webpage.Renderer) webpage.Renderer {
	if br, ok := r.(browser.Renderer); ok {
		br.Config.CheckAddress = func(a netip.Addr) error { return webpage.CheckAddress(a, false) }
		return br
	}
	return r
}
