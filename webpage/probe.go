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
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/provider"
)

// Defaults of [ProbeConfig].
const (
	DefaultProbeMaxBytes = 4 << 20
	// DefaultDocumentMaxBytes caps a document (a PDF) the probe reads
	// whole, since a cut document cannot be read.
	DefaultDocumentMaxBytes = 32 << 20
	DefaultProbeTimeout     = 6 * time.Second
	MaxRedirects            = 5
)

// DefaultRenderTimeout bounds one rendering by a [Renderer], start and
// cleanup included, unless configured otherwise (fetch.render_timeout); it
// is package webpage/browser's default too.
const DefaultRenderTimeout = 30 * time.Second

// ProbeConfig configures how the web fetch hook reads a page itself before
// deciding whether the native tool can handle it. The zero value means the
// defaults.
type ProbeConfig struct {
	// MaxBytes caps how much of a page's body is read; default 4 MiB.
	MaxBytes int64 `koanf:"max_bytes"`
	// MaxDocumentBytes caps the body of a PDF, which is read whole;
	// default 32 MiB.
	MaxDocumentBytes int64 `koanf:"max_document_bytes"`
	// Timeout bounds the probe, redirects and body included; default 6s.
	Timeout time.Duration `koanf:"timeout"`
	// AllowPrivate lets the probe connect to loopback, private, link-local,
	// unique-local and CGNAT addresses. Cloud metadata endpoints stay
	// refused even then.
	AllowPrivate bool `koanf:"allow_private"`
	// AllowAddress, when set and AllowPrivate is not, lets the probe read
	// some of the addresses AllowPrivate would let it read: an address
	// (or a name reserved for local use) is allowed when
	// AllowAddress(host, addr) reports true, where host is the host name
	// of the URL being read (lower case, without a trailing dot) and addr
	// the address dialled for it, or the host's own address when the URL
	// spells one, or the zero Addr for a name not yet resolved. It is
	// asked for the URL, for every redirect and for every address dialled,
	// before connecting, so a redirect from a host it allows to one it
	// does not is refused before any packet reaches the second. Cloud
	// metadata endpoints stay refused. It must be safe for concurrent use.
	AllowAddress func(host string, addr netip.Addr) bool `koanf:"-"`
	// UserAgent overrides the honest default
	// "webgate/<version> (+https://github.com/webgate-dev/webgate)".
	UserAgent string `koanf:"user_agent"`
	// TLSConfig, when set, is used for https connections (tests use it to
	// trust a loopback server's certificate).
	TLSConfig *tls.Config `koanf:"-"`
}

// WithDefaults returns c with every zero field set to its default.
func (c ProbeConfig) WithDefaults() ProbeConfig {
	c.MaxDocumentBytes = defaults.Positive(c.MaxDocumentBytes, DefaultDocumentMaxBytes)
	c.MaxBytes = defaults.Positive(c.MaxBytes, DefaultProbeMaxBytes)
	c.Timeout = defaults.Positive(c.Timeout, DefaultProbeTimeout)
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
	// Redirects are the URLs the probe was redirected to, in order (the
	// last is URL); empty without a redirect.
	Redirects []string
	// Addrs are the addresses the probe dialled, every one of them
	// checked by [CheckAddress], in order.
	Addrs []netip.Addr
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
// error: the result carries it. A nil cfg means defaults (private
// addresses refused).
func Probe(ctx context.Context, rawURL string, cfg *ProbeConfig) (*ProbeResult, error) {
	var c ProbeConfig
	if cfg != nil {
		c = *cfg
	}
	return probe(ctx, rawURL, c, &probeTrail{})
}

// probeTrail is what a probe went through, kept even when it fails: the
// URLs it was redirected to and the addresses it dialled.
type probeTrail struct {
	mu    sync.Mutex
	hops  []string
	addrs []netip.Addr
}

func (t *probeTrail) addAddr(a netip.Addr) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.addrs = append(t.addrs, a)
}

func (t *probeTrail) addHop(u string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hops = append(t.hops, u)
}

// seen returns the hops and addresses so far.
func (t *probeTrail) seen() ([]string, []netip.Addr) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.hops), slices.Clone(t.addrs)
}

// CheckTarget applies the probe's address rule to a URL without fetching
// it, with the functions [Probe] applies before it connects: the URL must
// pass [CheckURL], and a host written as an IP address or a name reserved
// for local use is judged as the probe judges it. A host name is not
// resolved here: the probe checks the address it dials ([CheckAddress]).
// The error wraps [ErrUnsupportedURL] or [ErrBlockedAddress].
func CheckTarget(rawURL string, allowPrivate bool) error {
	u, err := CheckURL(rawURL)
	if err != nil {
		return err
	}
	return checkLiteralHost(u, allowPrivate)
}

// checkTarget is [CheckTarget] under c's address rule: AllowPrivate, or
// AllowAddress for the URL's host.
func (c ProbeConfig) checkTarget(rawURL string) error {
	err := CheckTarget(rawURL, c.AllowPrivate)
	if err == nil || c.AllowPrivate || c.AllowAddress == nil || CheckTarget(rawURL, true) != nil {
		return err
	}
	u, _ := CheckURL(rawURL)
	host := hostKey(u.Hostname())
	a, _ := HostAddr(u.Hostname())
	if c.AllowAddress(host, a) {
		return nil
	}
	return err
}

// checkAddress is [CheckAddress] of a, dialled for host, under c's
// address rule.
func (c ProbeConfig) checkAddress(host string, a netip.Addr) error {
	err := CheckAddress(a, c.AllowPrivate)
	if err == nil || c.AllowPrivate || c.AllowAddress == nil || CheckAddress(a, true) != nil {
		return err
	}
	if c.AllowAddress(hostKey(host), a.WithZone("")) {
		return nil
	}
	return err
}

// hostKey is host as [ProbeConfig].AllowAddress is given it.
func hostKey(host string) string {
	return strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
}

func probe(ctx context.Context, rawURL string, cfg ProbeConfig, trail *probeTrail) (*ProbeResult, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.checkTarget(rawURL); err != nil {
		return nil, err
	}
	u, _ := CheckURL(rawURL)
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	// Each connection is checked for the host it is dialled for.
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		d := &net.Dialer{Timeout: cfg.Timeout, Control: dialControlFor(cfg, host, trail.addAddr)}
		return d.DialContext(ctx, network, addr)
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dial,
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
			trail.addHop(req.URL.String())
			return cfg.checkTarget(req.URL.String())
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
	limit := cfg.MaxBytes
	if MediaType(resp.Header.Get("Content-Type"), nil) == "application/pdf" && cfg.MaxDocumentBytes > limit {
		limit = cfg.MaxDocumentBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil && len(body) == 0 {
		return nil, probeError(fmt.Errorf("reading the page: %w", err))
	}
	r := &ProbeResult{URL: resp.Request.URL.String(), Status: resp.StatusCode, Body: body}
	r.Redirects, r.Addrs = trail.seen()
	if int64(len(body)) > limit {
		r.Body, r.Truncated = body[:limit], true
	}
	r.ContentType = MediaType(resp.Header.Get("Content-Type"), r.Body)
	return r, nil
}

// dialControl returns the dialer's Control function: it runs after the
// socket is created and before it connects, and refuses any address
// [CheckAddress] refuses, whatever name or redirect led to it. Each
// address it lets through is passed to dialled.
func dialControl(allowPrivate bool, dialled func(netip.Addr)) func(network, address string, _ syscall.RawConn) error {
	return dialControlFor(ProbeConfig{AllowPrivate: allowPrivate}, "", dialled)
}

// dialControlFor is dialControl under cfg's address rule for a
// connection dialled for host.
func dialControlFor(cfg ProbeConfig, host string, dialled func(netip.Addr)) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot parse %q", ErrBlockedAddress, address)
		}
		if err := cfg.checkAddress(host, ap.Addr()); err != nil {
			return err
		}
		dialled(ap.Addr().WithZone("").Unmap())
		return nil
	}
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

// CheckURL parses raw and accepts it only as an absolute http or https URL
// with a host and no credentials; otherwise the error wraps
// [ErrUnsupportedURL]. It does not look at the host's address.
func CheckURL(raw string) (*url.URL, error) {
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
//
// Names reserved for local use are refused the same way: they resolve, if
// at all, to an address of the machine or network that resolves them
// (see [specialName]).
func checkLiteralHost(u *url.URL, allowPrivate bool) error {
	a, ok := HostAddr(u.Hostname())
	if !ok {
		if endsInNumber(u.Hostname()) {
			// "0x.0x.0x.1x" or "1.2.3.4.5": not an address here, and a
			// name to nobody; another fetcher may read it as an address.
			return fmt.Errorf("%w: host %q ends in a number but is no IPv4 address", ErrUnsupportedURL, u.Hostname())
		}
		if why := specialName(u.Hostname(), allowPrivate); why != "" {
			return fmt.Errorf("%s: %w: %s", u.Hostname(), ErrBlockedAddress, why)
		}
		return nil
	}
	if err := CheckAddress(a, allowPrivate); err != nil {
		return fmt.Errorf("%s: %w", u.Hostname(), err)
	}
	return nil
}

// localSuffixes are the special-use domain names that only ever name
// something local, with what they name: their subdomains are refused
// unless private addresses are allowed. "localhost" itself is left to the
// check of the dialled address: every system resolves it, to loopback.
var localSuffixes = []struct{ suffix, name string }{
	{"localhost", "a loopback name (RFC 6761)"},
	{"local", "a link-local multicast DNS name (RFC 6762)"},
	{"home.arpa", "a home network name (RFC 8375)"},
	{"internal", "a private-use name (.internal)"},
}

// metadataNames are cloud metadata host names, refused always.
var metadataNames = []string{"metadata.google.internal", "metadata.goog"}

// specialName returns why host, a name, must not be fetched, or "": a
// cloud metadata name (always), or a name reserved for local use unless
// allowPrivate. Such a name may not resolve here, and the hook would then
// hand the URL to an extraction provider, whose fetcher resolves it in its
// own network.
func specialName(host string, allowPrivate bool) string {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, m := range metadataNames {
		if h == m {
			return "a cloud metadata name"
		}
	}
	if allowPrivate {
		return ""
	}
	for _, l := range localSuffixes {
		if h == l.suffix && h != "localhost" || strings.HasSuffix(h, "."+l.suffix) {
			return l.name
		}
	}
	return ""
}

// LoopbackHost reports whether a URL's host is on this machine's
// loopback: "localhost" or a name under it (RFC 6761), or a loopback
// address in any form [HostAddr] reads (an IPv4-mapped one included),
// case and one trailing dot aside. Traffic to such a host never leaves
// the machine, so plain http to it exposes nothing on a network.
func LoopbackHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	a, ok := HostAddr(h)
	return ok && a.Unmap().IsLoopback()
}

// HostAddr returns the address a URL's host spells: an IP literal (with or
// without brackets), or an IPv4 address in the inet_aton forms resolvers
// and browsers accept but Go's dialer takes for a name ("127.1",
// "0x7f000001", "2130706433", "0177.0.0.1"), with or without one trailing
// dot. It reports false for a host name.
func HostAddr(host string) (netip.Addr, bool) {
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
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

// inetPart parses one part of an IPv4 address as the URL Standard's IPv4
// number parser (and inet_aton) does: "0x" or "0X" then hex digits (none
// means 0), a leading "0" then octal digits, else decimal; leading zeros
// do not limit its length. A value past 32 bits is returned as 1<<33, which
// every caller's range check refuses.
func inetPart(p string) (uint64, bool) {
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if p == "" {
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
		if v < 1<<33 {
			v = min(v*uint64(base)+uint64(d), 1<<33)
		}
	}
	return v, true
}

// endsInNumber reports whether host's last label (one trailing dot
// aside) is a number, decimal or "0x" hex: the URL Standard then parses
// the host as an IPv4 address and refuses the URL when that fails, and
// resolvers read it in their own ways. Such a host is never a name.
func endsInNumber(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if len(last) >= 2 && (last[:2] == "0x" || last[:2] == "0X") {
		return strings.Trim(last[2:], "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// metadataAddrs are cloud metadata and platform endpoints, refused even
// when private addresses are allowed.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, …
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("169.254.169.253"), // AWS DNS
	netip.MustParseAddr("169.254.169.123"), // AWS time sync
	netip.MustParseAddr("169.254.0.23"),    // Tencent Cloud
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("192.0.0.192"),     // Oracle Cloud
	netip.MustParseAddr("168.63.129.16"),   // Azure WireServer (a public address)
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("fd00:ec2::23"),    // AWS DNS over IPv6
	netip.MustParseAddr("fd20:ce::254"),    // GCP over IPv6
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
	// A local-use NAT64 prefix reaches IPv4 through the operator's own
	// translator; where the IPv4 address sits depends on a prefix length
	// only the operator knows.
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
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
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated (SIIT)"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001:2::/48"), "benchmarking"},
	{netip.MustParsePrefix("2001:10::/28"), "ORCHID"},
	{netip.MustParsePrefix("2001:20::/28"), "ORCHIDv2"},
	{netip.MustParsePrefix("5f00::/16"), "SRv6 SID"},
}

// CheckAddress returns nil when the probe may connect to a, and an error
// wrapping [ErrBlockedAddress] otherwise. Refused: cloud metadata endpoints
// (always), multicast, reserved, documentation and other special-purpose
// ranges that never serve a web page (always, the IPv4-translated range
// ::ffff:0:0:0/96 included), and, unless allowPrivate, loopback, private
// (RFC 1918), link-local, unique-local IPv6, CGNAT, this-network, the
// local-use NAT64 prefix and other special-purpose ranges. An IPv6 address
// that carries an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64 with
// the well-known or the local-use prefix, 6to4, Teredo server and client,
// ISATAP) is refused whenever a carried IPv4 address is; for the local-use
// NAT64 prefix every RFC 6052 layout is tried. Zones are ignored.
func CheckAddress(a netip.Addr, allowPrivate bool) error {
	if !a.IsValid() {
		return fmt.Errorf("%w: invalid address", ErrBlockedAddress)
	}
	a = a.WithZone("").Unmap()
	if err := checkRanges(a, allowPrivate); err != nil {
		return err
	}
	for _, e := range embeddedV4(a) {
		if err := checkRanges(e.addr, allowPrivate); err != nil {
			return fmt.Errorf("%w (carried by %s, %s)", err, a, e.how)
		}
	}
	return nil
}

// checkRanges applies the metadata, always-refused and private lists to a
// single address, without looking inside it.
func checkRanges(a netip.Addr, allowPrivate bool) error {
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

// rfc6052Lengths are the prefix lengths RFC 6052 defines an IPv4 position
// for.
var rfc6052Lengths = []int{32, 40, 48, 56, 64, 96}

// rfc6052 returns the IPv4 address an IPv4-embedded IPv6 address carries
// behind a prefix of length n (one of [rfc6052Lengths]); bits 64 to 71 are
// skipped.
func rfc6052(b [16]byte, n int) netip.Addr {
	var v [4]byte
	switch n {
	case 32:
		v = [4]byte{b[4], b[5], b[6], b[7]}
	case 40:
		v = [4]byte{b[5], b[6], b[7], b[9]}
	case 48:
		v = [4]byte{b[6], b[7], b[9], b[10]}
	case 56:
		v = [4]byte{b[7], b[9], b[10], b[11]}
	case 64:
		v = [4]byte{b[9], b[10], b[11], b[12]}
	default:
		v = [4]byte{b[12], b[13], b[14], b[15]}
	}
	return netip.AddrFrom4(v)
}

// carried is an IPv4 address found inside an IPv6 address, and the scheme
// that put it there.
type carried struct {
	addr netip.Addr
	how  string
}

// embeddedV4 returns the IPv4 addresses an IPv6 address may carry:
// IPv4-compatible (::a.b.c.d), NAT64 with the well-known prefix
// (64:ff9b::/96) or the local-use prefix (64:ff9b:1::/48, every RFC 6052
// layout, since the operator's prefix length is unknown), 6to4
// (2002::/16), Teredo (2001::/32: the server and the obfuscated client)
// and ISATAP (interface identifier 0000:5efe or 0200:5efe). An IPv4-mapped
// address is handled by Unmap, and the IPv4-translated range is refused
// outright.
func embeddedV4(a netip.Addr) []carried {
	if !a.Is6() || a.Is4In6() {
		return nil
	}
	b := a.As16()
	var out []carried
	switch {
	case nat64.Contains(a):
		out = append(out, carried{rfc6052(b, 96), "NAT64"})
	case nat64l.Contains(a):
		for _, n := range rfc6052Lengths {
			out = append(out, carried{rfc6052(b, n), fmt.Sprintf("local-use NAT64 /%d", n)})
		}
	case sixTo4.Contains(a):
		out = append(out, carried{netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4"})
	case teredo.Contains(a):
		out = append(out,
			carried{netip.AddrFrom4([4]byte{b[4], b[5], b[6], b[7]}), "Teredo server"},
			carried{netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), "Teredo client"})
	case compatV.Contains(a) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback():
		out = append(out, carried{rfc6052(b, 96), "IPv4-compatible"})
	}
	// ISATAP (RFC 5214): any /64 prefix, interface identifier
	// 0000:5efe:a.b.c.d with the universal/local and group bits free.
	if b[8]&^0x03 == 0 && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe {
		out = append(out, carried{rfc6052(b, 96), "ISATAP"})
	}
	return out
}
