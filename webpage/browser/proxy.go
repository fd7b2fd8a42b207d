package browser

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/webgate-dev/webgate/webpage"
)

// Stage says where a [Decision] was taken.
type Stage string

// The stages of a [Decision], in the order a request meets them.
const (
	// StageURL: the URL itself was refused before any lookup (a scheme
	// other than http, https, ws, wss, data, blob and about; credentials;
	// a malformed host; a request to the proxy itself).
	StageURL Stage = "url"
	// StageLiteral: the host is an IP address, checked before anything
	// was dialled.
	StageLiteral Stage = "literal"
	// StageLookup: the host name did not resolve (or the resolver refused
	// it); nothing was dialled.
	StageLookup Stage = "lookup"
	// StageConnect: a resolved address, checked on the socket right before
	// connect(2). A refused address is never sent a packet.
	StageConnect Stage = "connect"
	// StageNavigation: a navigation of the page was refused because the
	// page navigated more than Config.MaxNavigations times.
	StageNavigation Stage = "navigation"
)

// Decision is one check of a destination the browser asked for.
type Decision struct {
	// At is when the decision was taken, from the start of the render.
	At time.Duration
	// Stage says where it was taken.
	Stage Stage
	// URL is the request's URL when it is known: the full URL of http
	// requests and navigations, and "host:port" for tunnels (https, wss),
	// whose path the proxy cannot see.
	URL string
	// Host is the host name or address asked for.
	Host string
	// Addr is the address checked; invalid for StageURL and StageLookup.
	Addr netip.Addr
	// Allowed reports whether the destination was allowed.
	Allowed bool
	// Reason says why it was refused; empty when allowed.
	Reason string
	// Err is the refusal, wrapping the address rule's error when the rule
	// refused; nil when allowed.
	Err error `json:"-"`
}

// String renders the decision on one line.
func (d Decision) String() string {
	verdict := "allowed"
	if !d.Allowed {
		verdict = "refused (" + d.Reason + ")"
	}
	addr := ""
	if d.Addr.IsValid() {
		addr = " " + d.Addr.String()
	}
	return fmt.Sprintf("%s %s %s%s: %s", d.At.Round(time.Millisecond), d.Stage, d.URL, addr, verdict)
}

// maxDecisions bounds the decisions kept for one render; later ones are
// counted in Page.DecisionsDropped.
const maxDecisions = 2000

// decisionLog records decisions from the proxy and the page handlers.
type decisionLog struct {
	start   time.Time
	mu      sync.Mutex
	list    []Decision
	dropped int
}

func (l *decisionLog) add(d Decision) {
	d.At = time.Since(l.start)
	if d.Err != nil && d.Reason == "" {
		d.Reason = d.Err.Error()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) >= maxDecisions {
		l.dropped++
		return
	}
	l.list = append(l.list, d)
}

func (l *decisionLog) snapshot() ([]Decision, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Decision(nil), l.list...), l.dropped
}

// refusedFor returns the first refusal for host, if any.
func (l *decisionLog) refusedFor(host string) (Decision, bool) {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range l.list {
		h := strings.TrimSuffix(strings.ToLower(strings.Trim(d.Host, "[]")), ".")
		if !d.Allowed && h == host {
			return d, true
		}
	}
	return Decision{}, false
}

// proxy is the forward proxy the browser is forced to use for all its
// traffic: plain http requests in absolute form, and CONNECT tunnels for
// everything else (https, ws, wss). It dials every destination itself and
// applies the address rule on the socket, right before connect.
type proxy struct {
	// policy is the render's: its address rule, resolver, decision log
	// and context. A browser kept warm serves one render after another,
	// each with its own ([proxy.serve]).
	policy atomic.Pointer[proxyPolicy]

	ln        net.Listener
	self      netip.AddrPort
	srv       *http.Server
	transport *http.Transport
	rp        *httputil.ReverseProxy

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	clients map[net.Conn]struct{} // the browser's connections to the proxy
	closed  bool
	wg      sync.WaitGroup
}

// urlKey carries a request's URL to the dialer, for the decisions.
type urlKey struct{}

// proxyPolicy is what the proxy applies for one render.
type proxyPolicy struct {
	rule   func(netip.Addr) error
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	log    *decisionLog
	ctx    context.Context
}

// serve makes the proxy apply rule, lookup (nil: the system resolver) and
// the decision log dl, for the render whose context is ctx, from now on.
func (p *proxy) serve(ctx context.Context, rule func(netip.Addr) error, lookup func(context.Context, string) ([]netip.Addr, error), dl *decisionLog) {
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	p.policy.Store(&proxyPolicy{rule: rule, lookup: lookup, log: dl, ctx: ctx})
}

// cur returns the policy of the render under way.
func (p *proxy) cur() *proxyPolicy { return p.policy.Load() }

// polKey carries the policy a request started under.
type polKey struct{}

// policyOf returns the policy the request of ctx started under.
func (p *proxy) policyOf(ctx context.Context) *proxyPolicy {
	if pol, ok := ctx.Value(polKey{}).(*proxyPolicy); ok {
		return pol
	}
	return p.cur()
}

// drop closes every connection the proxy holds (the tunnels and requests
// of a render that is over) and keeps listening.
func (p *proxy) drop() {
	p.mu.Lock()
	conns := p.conns
	p.conns = map[net.Conn]struct{}{}
	for c := range p.clients {
		conns[c] = struct{}{}
	}
	p.mu.Unlock()
	for c := range conns {
		_ = c.Close()
	}
	p.transport.CloseIdleConnections()
}

// connState follows the browser's connections to the proxy, which drop
// closes (a hijacked one is tracked as a tunnel).
func (p *proxy) connState(c net.Conn, st http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch st {
	case http.StateNew:
		p.clients[c] = struct{}{}
	case http.StateClosed, http.StateHijacked:
		delete(p.clients, c)
	}
}

// startProxy listens on 127.0.0.1 on a free port and serves until close.
func startProxy(ctx context.Context, rule func(netip.Addr) error, lookup func(context.Context, string) ([]netip.Addr, error), dl *decisionLog) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the proxy: %w", err)
	}
	p := &proxy{
		ln:      ln,
		conns:   map[net.Conn]struct{}{},
		clients: map[net.Conn]struct{}{},
	}
	p.serve(ctx, rule, lookup, dl)
	p.self, _ = netip.ParseAddrPort(ln.Addr().String())
	p.transport = &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			u, _ := ctx.Value(urlKey{}).(string)
			return p.dial(ctx, addr, u)
		},
		DisableKeepAlives:      true,
		DisableCompression:     true,
		ResponseHeaderTimeout:  30 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.Host = pr.Out.URL.Host
		},
		Transport:     p.transport,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
		ErrorHandler:  p.proxyError,
	}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          log.New(io.Discard, "", 0),
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ConnState:         p.connState,
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = p.srv.Serve(ln)
	}()
	return p, nil
}

// addr is the proxy's address, for --proxy-server.
func (p *proxy) addr() string { return p.ln.Addr().String() }

// close stops the proxy and closes every connection it holds.
func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true // track refuses what comes after
	p.mu.Unlock()
	_ = p.srv.Close()
	p.drop()
	p.wg.Wait()
}

// track remembers c so that close can close it; it reports false (and
// closes c) when the proxy is already closed.
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.Close()
}

// ServeHTTP serves one request of the browser.
func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The request is the render's under way now, to its end: its rule,
	// resolver and log, and its context, which ends it with the render.
	pol := p.cur()
	ctx, cancel := context.WithCancel(context.WithValue(r.Context(), polKey{}, pol))
	defer cancel()
	stop := context.AfterFunc(pol.ctx, cancel)
	defer stop()
	r = r.WithContext(ctx)
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		pol.log.add(Decision{Stage: StageURL, URL: r.URL.String(), Host: r.Host, Err: errors.New("not a proxy request")})
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	if r.URL.Scheme != "http" {
		pol.log.add(Decision{Stage: StageURL, URL: r.URL.String(), Host: r.URL.Hostname(), Err: fmt.Errorf("scheme %q through the proxy", r.URL.Scheme)})
		p.refuse(w)
		return
	}
	if r.URL.User != nil {
		pol.log.add(Decision{Stage: StageURL, URL: redact(r.URL), Host: r.URL.Hostname(), Err: errors.New("credentials in the URL")})
		p.refuse(w)
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), urlKey{}, r.URL.String()))
	p.rp.ServeHTTP(w, r)
}

// proxyError answers a request the proxy could not forward (a refused
// destination, a host that does not answer) with no answer at all, so the
// browser sees a network error, as it would without the proxy, and never
// a response body it could take for the page.
func (p *proxy) proxyError(w http.ResponseWriter, _ *http.Request, _ error) {
	p.refuse(w)
}

// refuse drops the browser's connection without an answer.
func (p *proxy) refuse(w http.ResponseWriter) {
	c, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	_ = c.Close()
}

// tunnel serves a CONNECT request: it dials the destination and copies
// bytes both ways. A refused destination is answered 403, which the
// browser reports as a tunnel failure.
func (p *proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	target := r.Host
	if target == "" {
		target = r.URL.Host
	}
	up, err := p.dial(r.Context(), target, target)
	if err != nil {
		code := http.StatusBadGateway
		if errors.Is(err, ErrBlocked) {
			code = http.StatusForbidden
		}
		http.Error(w, "", code)
		return
	}
	if !p.track(up) {
		http.Error(w, "", http.StatusServiceUnavailable)
		return
	}
	defer p.untrack(up)
	c, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if !p.track(c) {
		return
	}
	defer p.untrack(c)
	if _, err := c.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(up, bufferedReader(brw.Reader, c))
		if tc, ok := up.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(c, up)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}()
	select {
	case <-done:
		<-done
	case <-r.Context().Done():
	}
}

// bufferedReader reads what the server's reader buffered, then c.
func bufferedReader(br *bufio.Reader, c net.Conn) io.Reader {
	if br == nil || br.Buffered() == 0 {
		return c
	}
	buf, _ := br.Peek(br.Buffered())
	return io.MultiReader(strings.NewReader(string(buf)), c)
}

// dial connects to hostport (host:port) for the request rawURL, applying
// the address rule: a host written as an address is checked before
// anything else; a name is resolved with the configured resolver; every
// address is checked again on the socket, right before connect, so the
// address checked is the address connected to.
func (p *proxy) dial(ctx context.Context, hostport, rawURL string) (net.Conn, error) {
	pol := p.policyOf(ctx)
	host, portStr, err := net.SplitHostPort(hostport)
	if err != nil {
		host, portStr = hostport, "80"
	}
	if rawURL == "" {
		rawURL = hostport
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil || port == 0 || host == "" {
		err := fmt.Errorf("%w: malformed destination %q", ErrBlocked, hostport)
		pol.log.add(Decision{Stage: StageURL, URL: rawURL, Host: host, Err: err})
		return nil, err
	}
	var addrs []netip.Addr
	if a, ok := webpage.HostAddr(host); ok {
		if rerr := pol.rule(a); rerr != nil {
			err := fmt.Errorf("%w: %w", ErrBlocked, rerr)
			pol.log.add(Decision{Stage: StageLiteral, URL: rawURL, Host: host, Addr: a, Err: err})
			return nil, err
		}
		addrs = []netip.Addr{a}
	} else {
		if !validHostname(host) {
			err := fmt.Errorf("%w: malformed host name %q", ErrBlocked, host)
			pol.log.add(Decision{Stage: StageURL, URL: rawURL, Host: host, Err: err})
			return nil, err
		}
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		addrs, err = pol.lookup(lctx, host)
		cancel()
		if err == nil && len(addrs) == 0 {
			err = errors.New("no address")
		}
		if err != nil {
			err := fmt.Errorf("%w: looking up %s: %w", ErrBlocked, host, err)
			pol.log.add(Decision{Stage: StageLookup, URL: rawURL, Host: host, Err: err})
			return nil, err
		}
	}
	var lastErr error
	for _, a := range addrs {
		d := &net.Dialer{
			Timeout: 10 * time.Second,
			Control: func(_, address string, _ syscall.RawConn) error {
				return p.checkSocket(pol, address, rawURL, host)
			},
		}
		c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(a.Unmap(), uint16(port)).String())
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// checkSocket applies the rule to the address a socket is about to connect
// to, and records the decision.
func (p *proxy) checkSocket(pol *proxyPolicy, address, rawURL, host string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		err := fmt.Errorf("%w: cannot parse %q", ErrBlocked, address)
		pol.log.add(Decision{Stage: StageConnect, URL: rawURL, Host: host, Err: err})
		return err
	}
	a := ap.Addr().WithZone("")
	if ap.Addr().Unmap() == p.self.Addr() && ap.Port() == p.self.Port() {
		err := fmt.Errorf("%w: the renderer's own proxy", ErrBlocked)
		pol.log.add(Decision{Stage: StageConnect, URL: rawURL, Host: host, Addr: a, Err: err})
		return err
	}
	if rerr := pol.rule(ap.Addr()); rerr != nil {
		err := fmt.Errorf("%w: %w", ErrBlocked, rerr)
		pol.log.add(Decision{Stage: StageConnect, URL: rawURL, Host: host, Addr: a, Err: err})
		return err
	}
	pol.log.add(Decision{Stage: StageConnect, URL: rawURL, Host: host, Addr: a, Allowed: true})
	return nil
}

// validHostname reports whether host is a plausible DNS name: letters,
// digits, hyphens, underscores and dots, at most 253 bytes.
func validHostname(host string) bool {
	if host == "" || len(host) > 253 {
		return false
	}
	for _, c := range host {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.', c == '_':
		default:
			return false
		}
	}
	return true
}

// redact returns u without its credentials.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}
