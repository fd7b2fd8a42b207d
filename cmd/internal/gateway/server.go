package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webgate-dev/webgate/cmd/internal/mcpserver"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/webpage"
)

// Defaults of [Options].
const (
	// DefaultMaxBodyBytes caps a request's body.
	DefaultMaxBodyBytes = 1 << 20
	// DefaultReserveCredits is how many credits a call reserves before it
	// runs: the most provider calls a search or a read is expected to make.
	DefaultReserveCredits = 4
)

// Options configure a [Server].
type Options struct {
	// Tools search and read pages: built by the same path as the CLI's
	// and the MCP server's (assemble.Build). Required. The server reads
	// private addresses only for the hosts AllowPrivate names, whatever
	// the tools' reader allows, and hands no private URL to an
	// extraction provider, even a self-hosted one.
	Tools *webtools.Tools
	// Tokens authenticate callers. Required.
	Tokens *Tokens
	// OIDC, when set, also accepts JSON Web Tokens from an OpenID Connect
	// issuer and publishes the protected-resource metadata; nil accepts
	// the gateway's own tokens only.
	OIDC *OIDC
	// Limiter enforces rates and budgets; nil means none.
	Limiter *Limiter
	// Audit records each call; nil means no audit log.
	Audit *Audit
	// AllowPrivate lists the hosts whose private, loopback or link-local
	// addresses may be read: a host name ("wiki.corp"), every subdomain of
	// a domain ("*.corp"), or an address or prefix for URLs that give an
	// address ("10.1.0.0/16"). Cloud metadata addresses stay refused.
	// Pages read so are cached for the token that read them only.
	AllowPrivate []string
	// MaxBodyBytes caps a request's body; 0 means [DefaultMaxBodyBytes].
	MaxBodyBytes int64
	// ReserveCredits is what each call reserves; 0 means
	// [DefaultReserveCredits].
	ReserveCredits int64
	// MaxChars caps an MCP web_fetch answer; 0 means the MCP server's
	// default.
	MaxChars int
	// Hooks answers the hook endpoints (/v1/hooks/websearch,
	// /v1/hooks/webfetch): the handler a local warm worker serves
	// (hookenv.Warm in webgate serve). Nil means no hook endpoints.
	Hooks worker.Handler
	// HookEnv is the environment ("NAME=value") the hook calls load the
	// configuration from, the gateway's own; HookCwd their working
	// directory. The gateway adds [StrictHookEnv].
	HookEnv []string
	HookCwd string
	// Version is announced to MCP clients and in /healthz.
	Version string
	// Logger receives one JSON line per request; nil means none.
	Logger *slog.Logger
	// AfterQueue bounds the calls whose settlement and audit entry wait
	// to be written after their answers; 0 means [DefaultAfterQueue].
	// Past it a call writes its own before it answers.
	AfterQueue int
	// AfterWrites, when set, writes what Tools left to write after the
	// answers: webgate serve's memory keeps its provider usage counters,
	// key health and decision log entries for it (memory.Memory's
	// DeferWrites and Flush), so that a call makes no round trip to the
	// store for them before its answer. The gateway calls it after each
	// batch of settlements and audit entries (every call queues one), and
	// at Close; a failure is counted and logged.
	AfterWrites func(context.Context) error
}

// Server is the gateway's http.Handler:
//
//	GET  /healthz     200 while the process runs (no auth)
//	GET  /readyz      200 when the store answers, else 503 (no auth)
//	POST /v1/search   {"query", "allowed_domains", "blocked_domains",
//	                  "max_results", "time_range", "topic"} → the CLI's
//	                  search --json answer
//	POST /v1/fetch    {"url", "prompt"} → the CLI's fetch --json answer
//	POST /v1/hooks/websearch, /v1/hooks/webfetch
//	                  a runtime's raw hook payload → the decision JSON the
//	                  local hook would print (see [HookPath])
//	POST /mcp         the MCP tools web_search and web_fetch, streamable
//	                  HTTP, stateless (any replica answers any request)
//	GET  /metrics     Prometheus text format
//
// Every endpoint but /healthz and /readyz takes "Authorization: Bearer
// wg_…" and answers 401 with WWW-Authenticate without it. A call past a
// limit is answered 429 with Retry-After. Every call is recorded in the
// audit log.
//
// A call's reservation is taken before it runs; its settlement (the
// credits it did not use given back) and its audit entry are written
// after its answer, in batches, by one goroutine: [Server.Close] writes
// what is left at shutdown, and a process that dies loses at most the
// calls still queued (see [Options].AfterQueue).
type Server struct {
	o       Options
	private privateList
	mux     *http.ServeMux
	metrics *metrics
	mcp     *mcp.StreamableHTTPHandler
	after   *after
}

// New returns a Server.
func New(o Options) *Server {
	o.MaxBodyBytes = defaults.Positive(o.MaxBodyBytes, DefaultMaxBodyBytes)
	o.AfterQueue = defaults.Positive(o.AfterQueue, DefaultAfterQueue)
	o.ReserveCredits = defaults.Positive(o.ReserveCredits, DefaultReserveCredits)
	// A shared server is strict: no private address unless listed.
	t := *o.Tools
	r := webpage.Reader{}
	if t.Reader != nil {
		r = *t.Reader
	}
	r.Probe.AllowPrivate = false
	// A self-hosted extractor reads in the gateway's network: handed a
	// private URL, it would read what allow_private refuses.
	r.PrivateExtractor = false
	r.Renderer = publicRenderer(r.Renderer)
	t.Reader = &r
	t.PrivateHint = func(rawURL string) string {
		if webpage.CheckTarget(rawURL, true) != nil {
			return "" // a metadata endpoint: nothing lifts the refusal
		}
		return "the gateway reads a private address only for a host its gateway.allow_private setting names"
	}
	o.Tools = &t
	s := &Server{o: o, private: parsePrivateList(o.AllowPrivate), mux: http.NewServeMux(), metrics: newMetrics()}
	r.Probe.AllowAddress = s.allowAddress
	s.after = newAfter(s, o.AfterQueue)
	// One MCP server for every call (building one, its tools' schemas
	// inferred and resolved, cost more CPU than the rest of a call): each
	// request's tools, metered and scoped to its token, go through its
	// context, and each tools/call the server dispatches is admitted by
	// [Server.admitTools].
	ms := mcpserver.New(o.Tools, &mcpserver.Options{Version: o.Version, MaxChars: o.MaxChars,
		ToolsFor: func(ctx context.Context) *webtools.Tools {
			if mc, _ := ctx.Value(mcpCallKey{}).(*mcpCall); mc != nil {
				return mc.c.tools
			}
			return nil
		}})
	ms.AddReceivingMiddleware(s.admitTools)
	s.mcp = mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if mc, _ := r.Context().Value(mcpCallKey{}).(*mcpCall); mc == nil {
			return nil
		}
		return ms
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	if o.OIDC != nil {
		s.mux.HandleFunc("GET "+ProtectedResourcePath, o.OIDC.serveMetadata)
		s.mux.HandleFunc("GET "+ProtectedResourcePath+"/{path...}", o.OIDC.serveMetadata)
	}
	s.mux.Handle("POST /v1/search", s.authed("search", s.search))
	s.mux.Handle("POST /v1/fetch", s.authed("fetch", s.fetch))
	s.mux.Handle("POST "+HookPath+"{hook}", s.authed("hook", s.hook))
	s.mux.Handle("/mcp", s.authed("mcp", s.serveMCP))
	s.mux.Handle("GET /metrics", s.authed("metrics", func(w http.ResponseWriter, r *http.Request, _ *call) {
		s.metrics.set("webgate_gateway_tokens_stale_total", "Calls whose token was taken as read earlier because the store failed.", series{}, float64(s.o.Tokens.StaleUses()))
		s.metrics.write(w)
	}))
	return s
}

// ServeHTTP serves the gateway's endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w, status: 200}
	r.Body = http.MaxBytesReader(sw, r.Body, s.bodyLimit(r.URL.Path))
	s.mux.ServeHTTP(sw, r)
	d := time.Since(start)
	route := routeOf(r.URL.Path)
	s.metrics.add("webgate_gateway_requests_total", "Requests by route and status.", labels("route", route, "code", statusCode(sw.status)), 1)
	s.metrics.observe("webgate_gateway_request_seconds", "Request latency by route.", labels("route", route), d.Seconds())
	if s.o.Logger != nil {
		s.o.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("method", r.Method), slog.String("route", route),
			slog.Int("status", sw.status), slog.Duration("duration", d), slog.String("token", sw.token))
	}
}

// statusCodes are the HTTP status codes as text, made once.
var statusCodes = func() (out [600]string) {
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}()

// statusCode returns code as text.
func statusCode(code int) string {
	if code >= 0 && code < len(statusCodes) {
		return statusCodes[code]
	}
	return strconv.Itoa(code)
}

func routeOf(p string) string {
	switch p {
	case "/healthz", "/readyz", "/v1/search", "/v1/fetch", "/mcp", "/metrics":
		return p
	}
	if r, ok := hookRoute(p); ok {
		return r
	}
	return "other"
}

type statusWriter struct {
	http.ResponseWriter
	status int
	token  string
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Flush lets the MCP handler stream.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, map[string]string{"status": "ok", "version": s.o.Version})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	_, err := s.o.Tokens.Store.Get(ctx, tokenIndexKey)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		writeJSON(w, 503, map[string]string{"status": "store unavailable"})
		return
	}
	writeJSON(w, 200, map[string]string{"status": "ready"})
}

// call is one authenticated request: its token and the tools it uses,
// which count the provider calls it makes.
type call struct {
	token *Token
	tools *webtools.Tools
	meter *meter
}

// authed wraps h with bearer authentication.
func (s *Server) authed(name string, h func(http.ResponseWriter, *http.Request, *call)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			s.unauthorized(w, "")
			return
		}
		var tok *Token
		var err error
		if s.o.OIDC != nil && looksLikeJWT(secret) {
			tok, err = s.o.OIDC.Verify(r.Context(), secret)
		} else {
			tok, err = s.o.Tokens.Verify(r.Context(), secret)
		}
		switch {
		case errors.Is(err, ErrUnknownToken), errors.Is(err, ErrRevokedToken), errors.Is(err, ErrExpiredToken):
			s.unauthorized(w, err.Error())
			return
		case errors.Is(err, ErrIssuerUnavailable):
			s.metrics.add("webgate_gateway_oidc_errors_total", "JSON Web Tokens not checked because the issuer could not be read.", series{}, 1)
			if s.o.Logger != nil {
				s.o.Logger.Warn("oidc", slog.String("error", err.Error()))
			}
			w.Header().Set("Retry-After", strconv.Itoa(int(oidcRetry/time.Second)))
			writeError(w, 503, "unavailable", "the identity provider is unavailable")
			return
		case err != nil:
			s.metrics.add("webgate_gateway_store_errors_total", "Store failures seen by the gateway.", series{}, 1)
			writeError(w, 503, "unavailable", "the gateway's store is unavailable")
			return
		}
		if sw, ok := w.(*statusWriter); ok {
			sw.token = tok.ID
		}
		// The call and its meter in one allocation.
		cm := &struct {
			call
			m meter
		}{}
		cm.call = call{token: tok, tools: s.o.Tools, meter: &cm.m}
		h(w, r, &cm.call)
	})
}

// bearer returns the token of an "Authorization: Bearer" header.
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

func (s *Server) unauthorized(w http.ResponseWriter, why string) {
	v := `Bearer realm="webgate"`
	if why != "" {
		v += `, error="invalid_token"`
	}
	if s.o.OIDC != nil {
		// Where an MCP client finds the authorisation server (RFC 9728
		// section 5.1).
		v += `, resource_metadata="` + s.o.OIDC.metadataURL() + `"`
	}
	w.Header().Set("WWW-Authenticate", v)
	writeError(w, http.StatusUnauthorized, "unauthorized", "a valid bearer token is required")
}

// admit reserves the call's request and credits, or answers the refusal
// and returns nil.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, c *call, tool string) (*Reservation, bool) {
	if s.o.Limiter == nil {
		return nil, true
	}
	res, err := s.reserve(r.Context(), c, tool)
	var le *LimitError
	switch {
	case errors.As(err, &le):
		w.Header().Set("Retry-After", strconv.FormatInt(le.RetryAfterSeconds(), 10))
		writeError(w, http.StatusTooManyRequests, "rate-limited", le.Error())
		return nil, false
	case err != nil:
		writeError(w, 503, "unavailable", "the gateway's limits are unavailable")
		return nil, false
	}
	return res, true
}

// reserve reserves c's request and credits for tool, counting what
// happened: a refusal by a limit (a *LimitError, recorded in the audit
// log), a store failure (another error), or an admission unchecked.
func (s *Server) reserve(ctx context.Context, c *call, tool string) (*Reservation, error) {
	res, err := s.o.Limiter.Reserve(ctx, c.token, s.o.ReserveCredits)
	var le *LimitError
	switch {
	case errors.As(err, &le):
		s.metrics.add("webgate_gateway_limits_hit_total", "Calls refused by a limit.", labels("limit", le.Limit), 1)
		s.record(ctx, c, tool, "limited", "", "")
	case err != nil:
		s.metrics.add("webgate_gateway_store_errors_total", "Store failures seen by the gateway.", series{}, 1)
	case res.FailedOpen():
		s.metrics.add("webgate_gateway_store_errors_total", "Store failures seen by the gateway.", series{}, 1)
		s.metrics.add("webgate_gateway_limits_failed_open_total", "Calls admitted unchecked because the store failed (limits_fail_open).", series{}, 1)
	}
	return res, err
}

// settle counts the call in the metrics and leaves its settlement and
// audit entry to be written after the answer (ctx is the request's; the
// writes outlive it). A reservation under a credit limit is settled
// before the answer, so that the caller's next call, on any replica,
// finds the credits this one did not use.
func (s *Server) settle(ctx context.Context, res *Reservation, c *call, tool, decision, query, rawURL string) {
	credits, providers := c.meter.read()
	s.metrics.add("webgate_gateway_decisions_total", "Calls by tool and decision.", labels("tool", tool, "decision", decision), 1)
	s.metrics.add("webgate_gateway_credits_total", "Provider calls made for callers.", series{}, float64(credits))
	for _, p := range providers {
		s.metrics.add("webgate_gateway_provider_calls_total", "Provider calls by provider.", labels("provider", p), 1)
	}
	tl := labels("token", c.token.ID)
	s.metrics.add("webgate_gateway_token_calls_total", "Calls admitted, by token ID (one series per token issued).", tl, 1)
	s.metrics.add("webgate_gateway_token_credits_total", "Provider calls made, by token ID.", tl, float64(credits))
	hit := credits == 0 && decision == "answered"
	if hit {
		s.metrics.add("webgate_gateway_cache_hits_total", "Calls answered without a provider call (cache or local read).", labels("tool", tool), 1)
		s.metrics.add("webgate_gateway_token_cache_hits_total", "Calls answered without a provider call, by token ID.", tl, 1)
	}
	if res.CreditLimited() {
		if err := res.Settle(context.WithoutCancel(ctx), credits); err != nil {
			s.metrics.add("webgate_gateway_store_errors_total", "Store failures seen by the gateway.", series{}, 1)
			s.logError("settle", err)
		}
	}
	s.recordUsed(res, c, tool, decision, query, rawURL, credits, providers, hit)
}

func (s *Server) record(_ context.Context, c *call, tool, decision, query, rawURL string) {
	s.recordUsed(nil, c, tool, decision, query, rawURL, 0, nil, false)
}

func (s *Server) recordUsed(res *Reservation, c *call, tool, decision, query, rawURL string, credits int64, providers []string, hit bool) {
	w := afterWork{res: res, used: credits}
	if hit && s.o.Limiter != nil {
		w.hit = cacheHitCounter(c.token.ID, s.o.Limiter.now())
	}
	if a := s.o.Audit; a != nil {
		now := time.Now
		if a.Now != nil {
			now = a.Now
		}
		w.entry = &AuditEntry{TokenID: c.token.ID, Tool: tool, Decision: decision,
			Providers: providers, Credits: credits, Query: query, URL: rawURL, Time: now().UTC()}
	}
	s.after.add(w)
}

// searchRequest is the body of /v1/search.
type searchRequest struct {
	Query          string   `json:"query"`
	AllowedDomains []string `json:"allowed_domains,omitempty"`
	BlockedDomains []string `json:"blocked_domains,omitempty"`
	MaxResults     int      `json:"max_results,omitempty"`
	TimeRange      string   `json:"time_range,omitempty"`
	Topic          string   `json:"topic,omitempty"`
}

// fetchRequest is the body of /v1/fetch.
type fetchRequest struct {
	URL    string `json:"url"`
	Prompt string `json:"prompt,omitempty"`
}

func (s *Server) search(w http.ResponseWriter, r *http.Request, c *call) {
	var req searchRequest
	res, ok := s.begin(w, r, c, "web_search", &req)
	if !ok {
		return
	}
	tools := c.metered(s.o.Tools)
	out, err := tools.Search(r.Context(), webtools.SearchRequest{Query: req.Query, AllowedDomains: req.AllowedDomains, BlockedDomains: req.BlockedDomains,
		MaxResults: req.MaxResults, TimeRange: provider.TimeRange(req.TimeRange), Topic: provider.Topic(req.Topic)})
	s.answer(w, r, res, c, "web_search", req.Query, "", out, err)
}

func (s *Server) fetch(w http.ResponseWriter, r *http.Request, c *call) {
	var req fetchRequest
	res, ok := s.begin(w, r, c, "web_fetch", &req)
	if !ok {
		return
	}
	tools := c.metered(s.forToken(s.o.Tools, c.token))
	out, err := tools.Fetch(r.Context(), webtools.FetchRequest{URL: req.URL, Prompt: req.Prompt})
	s.answer(w, r, res, c, "web_fetch", "", req.URL, out, err)
}

// begin starts a /v1 call of tool: it decodes the request body into req
// and admits the call under the token's limits. It returns false, having
// answered, when either fails.
func (s *Server) begin(w http.ResponseWriter, r *http.Request, c *call, tool string, req any) (*Reservation, bool) {
	if !decode(w, r, req) {
		return nil, false
	}
	return s.admit(w, r, c, tool)
}

// answer ends a /v1 call of tool (about query or rawURL): it settles the
// reservation with the call's decision and writes out, or err as the
// tool's error.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, res *Reservation, c *call, tool, query, rawURL string, out any, err error) {
	if err != nil {
		s.settle(r.Context(), res, c, tool, decisionOf(err), query, rawURL)
		writeToolError(w, err)
		return
	}
	s.settle(r.Context(), res, c, tool, "answered", query, rawURL)
	writeJSON(w, 200, out)
}

// privateList is [Options].AllowPrivate parsed once: the addresses and
// prefixes, the "*.domain" suffixes and the host names it names.
type privateList struct {
	prefixes []netip.Prefix
	addrs    []netip.Addr
	suffixes []string // ".corp" for "*.corp"
	hosts    []string
}

// empty reports whether the list names nothing.
func (l privateList) empty() bool {
	return len(l.prefixes) == 0 && len(l.addrs) == 0 && len(l.suffixes) == 0 && len(l.hosts) == 0
}

func parsePrivateList(entries []string) privateList {
	var l privateList
	for _, a := range entries {
		a = strings.ToLower(strings.TrimSpace(a))
		if p, err := netip.ParsePrefix(a); err == nil {
			l.prefixes = append(l.prefixes, p)
		}
		if b, err := netip.ParseAddr(a); err == nil {
			l.addrs = append(l.addrs, b)
		}
		if strings.HasPrefix(a, "*.") {
			l.suffixes = append(l.suffixes, a[1:])
		}
		l.hosts = append(l.hosts, a)
	}
	return l
}

// meter counts the provider calls of one request.
type meter struct {
	mu        sync.Mutex
	credits   int64
	providers []string
}

func (m *meter) add(names ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range names {
		if n == "" {
			continue
		}
		m.credits++
		if !slices.Contains(m.providers, n) {
			m.providers = append(m.providers, n)
		}
	}
}

func (m *meter) read() (int64, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.credits, slices.Clone(m.providers)
}

// metered returns a copy of t whose searcher and extractor count the
// provider calls into c's meter: one per provider that answered or
// failed; nothing for an answer from the cache.
func (c *call) metered(t *webtools.Tools) *webtools.Tools {
	// The tools and their metered searcher in one allocation.
	mt := &struct {
		t webtools.Tools
		s meteredSearcher
	}{t: *t}
	t2 := &mt.t
	if t.Searcher != nil {
		mt.s = meteredSearcher{t.Searcher, c.meter}
		t2.Searcher = &mt.s
	}
	if t.Reader != nil && t.Reader.Extractor != nil {
		r := *t.Reader
		r.Extractor = meteredExtractor{t.Reader.Extractor, c.meter}
		t2.Reader = &r
	}
	return t2
}

type meteredSearcher struct {
	provider.Searcher
	m *meter
}

func (ms meteredSearcher) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	m := meterOf(ctx, ms.m)
	res, err := ms.Searcher.Search(ctx, q)
	if res != nil && !res.Cached.IsZero() {
		return res, err
	}
	var names []string
	if res != nil {
		for _, h := range res.Results {
			names = append(names, h.Provider)
			names = append(names, h.Providers...)
		}
		for _, f := range res.Failures {
			names = append(names, f.Provider)
		}
	}
	var ae *policy.AllFailedError
	if errors.As(err, &ae) {
		for _, f := range ae.Failures {
			names = append(names, f.Provider)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 && (err != nil || res != nil) {
		names = []string{"search"}
	}
	m.add(names...)
	return res, err
}

type meteredExtractor struct {
	provider.Extractor
	m *meter
}

func (me meteredExtractor) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	m := meterOf(ctx, me.m)
	p, err := me.Extractor.Extract(ctx, req)
	switch {
	case p != nil && !p.Cached.IsZero():
	case p != nil && p.Provider != "":
		m.add(p.Provider)
	default:
		m.add("extract")
	}
	return p, err
}

// decisionOf names a failed call's decision for the audit log.
func decisionOf(err error) string {
	var we *webtools.Error
	if errors.As(err, &we) && we.TimedOut {
		return "timeout"
	}
	return "failed:" + string(webtools.ReasonOf(err))
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, "bad-input", fmt.Sprintf("the request body is larger than %d bytes", mbe.Limit))
			return false
		}
		writeError(w, http.StatusBadRequest, "bad-input", "the request body is not the JSON expected: "+err.Error())
		return false
	}
	return true
}

// writeToolError answers a failed search or fetch with the status its
// reason maps to and the CLI's --json error object.
func writeToolError(w http.ResponseWriter, err error) {
	status := http.StatusBadGateway
	var we *webtools.Error
	switch reason := webtools.ReasonOf(err); {
	case errors.As(err, &we) && we.TimedOut:
		status = http.StatusGatewayTimeout
	case reason == webtools.BadInput:
		status = http.StatusBadRequest
	case reason == webtools.NotConfigured:
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, toolErrorBody(err))
}

func writeError(w http.ResponseWriter, status int, reason, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"reason": reason, "message": msg}})
}

// jsonContentType is the Content-Type of every JSON answer, one slice for
// all (net/http only reads it).
var jsonContentType = []string{"application/json"}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
