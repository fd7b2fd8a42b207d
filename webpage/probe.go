package webpage

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// Defaults of [ProbeConfig].
const (
	DefaultProbeMaxBytes = 4 << 20
	DefaultProbeTimeout  = 6 * time.Second
	MaxRedirects         = 5
)

// ProbeConfig configures how the web fetch hook reads a page itself before
// deciding whether the native tool can handle it. The zero value means the
// defaults.
type ProbeConfig struct {
	// MaxBytes caps how much of the body is read; default 2 MiB.
	MaxBytes int64 `koanf:"max_bytes"`
	// Timeout bounds the probe, redirects and body included; default 6s.
	Timeout time.Duration `koanf:"timeout"`
	// AllowPrivate lets the probe connect to loopback, private, link-local,
	// unique-local and CGNAT addresses. Cloud metadata endpoints stay
	// refused even then.
	AllowPrivate bool `koanf:"allow_private"`
	// UserAgent overrides the honest default
	// "webgate/<version> (+https://github.com/webgate-dev/webgate)".
	UserAgent string `koanf:"user_agent"`
	// TLSConfig, when set, is used for https connections (tests use it to
	// trust a loopback server's certificate).
	TLSConfig *tls.Config `koanf:"-"`
}

func (c ProbeConfig) withDefaults() ProbeConfig {
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultProbeMaxBytes
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultProbeTimeout
	}
	if c.UserAgent == "" {
		c.UserAgent = provider.DefaultUserAgent()
	}
	return c
}

// ProbeResult is what the probe read.
type ProbeResult struct {
	// URL is the final URL, after redirects.
	URL string
	// Status is the HTTP status code.
	Status int
	// ContentType is the media type, from the header or sniffed from the
	// body when the header has none.
	ContentType string
	// Body is the start of the body, at most MaxBytes.
	Body []byte
	// Truncated reports that the body was longer than MaxBytes.
	Truncated bool
}

// HTML reports whether the page is HTML.
func (r *ProbeResult) HTML() bool {
	return r.ContentType == "text/html" || r.ContentType == "application/xhtml+xml"
}

// ErrBlockedAddress is wrapped by probe errors caused by a refused
// destination address (loopback, private, metadata, …).
var ErrBlockedAddress = errors.New("destination address not allowed")

// ErrUnsupportedURL is wrapped by probe errors for URLs that are not
// absolute http or https URLs.
var ErrUnsupportedURL = errors.New("unsupported URL")

// Probe fetches rawURL with a GET (Accept: text/html, an honest
// User-Agent, at most [MaxRedirects] redirects, only http and
// https) and reads at most cfg.MaxBytes of the body. Every connection is
// checked on the address actually dialled, so neither DNS answers nor
// redirects can reach a refused address (see [CheckAddress]). Proxy
// settings are ignored for the same reason. A non-2xx status is not an
// error: the result carries it.
func Probe(ctx context.Context, rawURL string, cfg ProbeConfig) (*ProbeResult, error) {
	cfg = cfg.withDefaults()
	u, err := checkURL(rawURL)
	if err != nil {
		return nil, err
	}
	if err := checkLiteralHost(u, cfg.AllowPrivate); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	dialer := &net.Dialer{
		Timeout: cfg.Timeout,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: cannot parse %q", ErrBlockedAddress, address)
			}
			return CheckAddress(ap.Addr(), cfg.AllowPrivate)
		},
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       cfg.TLSConfig,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		DisableKeepAlives:     true,
		ForceAttemptHTTP2:     true,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return errTooManyRedirects
			}
			if _, err := checkURL(req.URL.String()); err != nil {
				return err
			}
			return checkLiteralHost(req.URL, cfg.AllowPrivate)
		},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupportedURL, err)
	}
	req.Header.Set("User-Agent", cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
	resp, err := client.Do(req)
	if err != nil {
		return nil, probeError(unwrapURL(err))
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, cfg.MaxBytes+1))
	if err != nil && len(body) == 0 {
		return nil, probeError(fmt.Errorf("reading the page: %w", err))
	}
	r := &ProbeResult{URL: resp.Request.URL.String(), Status: resp.StatusCode, Body: body}
	if int64(len(body)) > cfg.MaxBytes {
		r.Body, r.Truncated = body[:cfg.MaxBytes], true
	}
	r.ContentType = MediaType(resp.Header.Get("Content-Type"), r.Body)
	return r, nil
}

// MediaType returns the lower-case media type of a Content-Type header, or
// the sniffed type of body when the header is missing or unparsable.
func MediaType(header string, body []byte) string {
	if header != "" {
		if mt, _, err := mime.ParseMediaType(header); err == nil {
			return strings.ToLower(mt)
		}
	}
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	return mt
}

func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupportedURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: scheme %q (only http and https)", ErrUnsupportedURL, u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: no host", ErrUnsupportedURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: credentials in the URL", ErrUnsupportedURL)
	}
	return u, nil
}

// checkLiteralHost applies [CheckAddress] to a host written as an IP
// address in any of the forms resolvers and browsers accept but Go's dialer
// takes for a name ("127.1", "0x7f000001", "2130706433", "0177.0.0.1", a
// trailing dot). Such a name fails to resolve here, and the hook would then
// hand the URL to an extraction provider, whose fetcher reads it as the
// address it spells.
func checkLiteralHost(u *url.URL, allowPrivate bool) error {
	a, ok := hostAddr(u.Hostname())
	if !ok {
		return nil
	}
	if err := CheckAddress(a, allowPrivate); err != nil {
		return fmt.Errorf("%s: %w", u.Hostname(), err)
	}
	return nil
}

// hostAddr returns the address host spells: an IP literal, or an IPv4
// address in the inet_aton forms (one to four parts, each decimal, octal
// with a leading 0, or hexadecimal with 0x), with or without one trailing
// dot.
func hostAddr(host string) (netip.Addr, bool) {
	host = strings.TrimSuffix(host, ".")
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := inetPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// inetPart parses one part of an inet_aton address.
func inetPart(p string) (uint64, bool) {
	base := 10
	switch {
	case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, p = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if p == "" || len(p) > 12 {
		return 0, false
	}
	var v uint64
	for _, c := range p {
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*uint64(base) + uint64(d)
	}
	return v, true
}

// metadataAddrs are cloud metadata endpoints, refused even when private
// addresses are allowed.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, …
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("169.254.169.253"), // AWS DNS
	netip.MustParseAddr("169.254.169.123"), // AWS time sync
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("192.0.0.192"),     // Oracle Cloud
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("fd00:ec2::23"),    // AWS DNS over IPv6
}

// privatePrefixes are the ranges refused unless private addresses are
// allowed, with the name used in the error.
var privatePrefixes = []struct {
	p    netip.Prefix
	name string
}{
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fc00::/7"), "unique-local"},
	{netip.MustParsePrefix("100.64.0.0/10"), "CGNAT"},
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

// alwaysBlocked are ranges that are never a web page.
var alwaysBlocked = []struct {
	p    netip.Prefix
	name string
}{
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
}

// CheckAddress returns nil when the probe may connect to a, and an error
// wrapping [ErrBlockedAddress] otherwise. Refused: cloud metadata endpoints
// (always), multicast, reserved and documentation ranges (always), and,
// unless allowPrivate, loopback, private (RFC 1918), link-local, unique-local
// IPv6, CGNAT, this-network and other special-purpose ranges. IPv4 addresses
// embedded in IPv6 (mapped, NAT64, 6to4) are checked as IPv4.
func CheckAddress(a netip.Addr, allowPrivate bool) error {
	if !a.IsValid() {
		return fmt.Errorf("%w: invalid address", ErrBlockedAddress)
	}
	a = a.WithZone("")
	for _, v4 := range embeddedV4(a) {
		if err := CheckAddress(v4, allowPrivate); err != nil {
			return err
		}
	}
	a = a.Unmap()
	for _, m := range metadataAddrs {
		if a == m {
			return fmt.Errorf("%w: %s is a cloud metadata endpoint", ErrBlockedAddress, a)
		}
	}
	for _, r := range alwaysBlocked {
		if r.p.Contains(a) {
			return fmt.Errorf("%w: %s is a %s address", ErrBlockedAddress, a, r.name)
		}
	}
	if allowPrivate {
		return nil
	}
	if a == netip.IPv4Unspecified() || a.Is4() && a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return fmt.Errorf("%w: %s is not a unicast address", ErrBlockedAddress, a)
	}
	for _, r := range privatePrefixes {
		if r.p.Contains(a) {
			return fmt.Errorf("%w: %s is a %s address", ErrBlockedAddress, a, r.name)
		}
	}
	return nil
}

var (
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	nat64l  = netip.MustParsePrefix("64:ff9b:1::/48")
	sixTo4  = netip.MustParsePrefix("2002::/16")
	teredo  = netip.MustParsePrefix("2001::/32")
	compatV = netip.MustParsePrefix("::/96")
)

// embeddedV4 returns IPv4 addresses carried inside an IPv6 address by
// translation schemes (NAT64, 6to4, Teredo, IPv4-compatible); an
// IPv4-mapped address is handled by Unmap.
func embeddedV4(a netip.Addr) []netip.Addr {
	if !a.Is6() || a.Is4In6() {
		return nil
	}
	b := a.As16()
	switch {
	case nat64.Contains(a), nat64l.Contains(a):
		return []netip.Addr{netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})}
	case sixTo4.Contains(a):
		return []netip.Addr{netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})}
	case teredo.Contains(a):
		return []netip.Addr{netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})}
	case compatV.Contains(a) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback():
		return []netip.Addr{netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})}
	}
	return nil
}
