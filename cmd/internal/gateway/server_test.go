package gateway

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/redistest"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
	"github.com/webgate-dev/webgate/webpage"
)

// fakeSearcher answers every query with one hit after delay, counting
// the calls. With jitter (a fraction, 0.1 for ±10 %) each query waits
// delay × (1 ± jitter), drawn uniformly from the query's text: the same
// query waits the same time in every run.
type fakeSearcher struct {
	delay  time.Duration
	jitter float64
	calls  atomic.Int64
}

// latency returns how long the provider takes to answer query.
func (f *fakeSearcher) latency(query string) time.Duration {
	if f.jitter == 0 {
		return f.delay
	}
	h := fnv.New64a()
	h.Write([]byte(query))
	u := float64(h.Sum64()>>11) / (1 << 53) // uniform in [0, 1)
	return time.Duration(float64(f.delay) * (1 + f.jitter*(2*u-1)))
}

func (f *fakeSearcher) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	f.calls.Add(1)
	if f.delay > 0 {
		d := f.latency(q.Text)
		// The benchmarks take the provider's time out of the call's.
		bc, _ := ctx.Value(benchCallKey{}).(*benchCall)
		bc.enterProvider()
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			bc.leaveProvider(0)
			return nil, ctx.Err()
		}
		bc.leaveProvider(d)
	}
	return &provider.Results{Query: q.Text, Provider: "fake", Results: []provider.Result{
		{Title: "Result for " + q.Text, URL: "https://example.com/a", Snippet: "a snippet", Provider: "fake"}}}, nil
}

// mapCache is a webpage.Cache in memory.
type mapCache struct {
	mu sync.Mutex
	m  map[string]*webpage.Cached
}

func (c *mapCache) Get(_ context.Context, key string) (*webpage.Cached, time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[key]
	return p, time.Now(), ok
}

func (c *mapCache) Put(_ context.Context, key string, page *webpage.Cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*webpage.Cached{}
	}
	c.m[key] = page
}

type fixture struct {
	url    string
	tokens *Tokens
	secret string
	tok    *Token
	search *fakeSearcher
	cache  *mapCache
	srv    *Server
}

// flush waits until the server has written what its answered calls left.
func (f *fixture) flush(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := f.srv.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func newFixture(t testing.TB, st *store.Store, o Options) *fixture {
	t.Helper()
	f := &fixture{search: &fakeSearcher{}, cache: &mapCache{}, tokens: &Tokens{Store: st}}
	if o.Tools == nil {
		o.Tools = &webtools.Tools{Searcher: f.search, Reader: &webpage.Reader{Cache: f.cache, Probe: webpage.ProbeConfig{AllowPrivate: true}}}
	}
	o.Tokens = f.tokens
	var err error
	f.tok, f.secret, err = f.tokens.Create(context.Background(), NewToken{Owner: "ana", Team: "core"})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = New(o)
	srv := httptest.NewServer(f.srv)
	t.Cleanup(func() {
		srv.Close()
		f.srv.Close(context.Background())
	})
	f.url = srv.URL
	return f
}

func post(t testing.TB, url, secret, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestServer_Auth(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, "memory:")
	f := newFixture(t, st, Options{})
	expired, expiredSecret, _ := f.tokens.Create(ctx, NewToken{Owner: "old", TTL: time.Second})
	_ = expired
	revoked, revokedSecret, _ := f.tokens.Create(ctx, NewToken{Owner: "gone"})
	f.tokens.Revoke(ctx, revoked.ID)
	f.tokens.Now = nil
	time.Sleep(1100 * time.Millisecond) // the expired token's second passes
	for name, secret := range map[string]string{"missing": "", "invalid": "wg_nope", "expired": expiredSecret, "revoked": revokedSecret} {
		for _, path := range []string{"/v1/search", "/v1/fetch", "/mcp"} {
			resp, _ := post(t, f.url+path, secret, `{"query":"x"}`)
			if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s token on %s: %d %q, want 401 with WWW-Authenticate: Bearer", name, path, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
		}
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(f.url + path)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("%s without a token: %v %v", path, resp, err)
		}
	}
	if f.search.calls.Load() != 0 {
		t.Fatal("an unauthenticated call reached the provider")
	}
}

func TestServer_SearchAndQuota(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, "memory:")
	audit := &Audit{Store: st}
	f := newFixture(t, st, Options{Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 2}}, Audit: audit})
	for range 2 {
		resp, body := post(t, f.url+"/v1/search", f.secret, `{"query":"golang context"}`)
		if resp.StatusCode != 200 || !strings.Contains(body, "Result for golang context") {
			t.Fatalf("search: %d %s", resp.StatusCode, body)
		}
	}
	resp, body := post(t, f.url+"/v1/search", f.secret, `{"query":"golang context"}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third search of a budget of 2: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if f.search.calls.Load() != 2 {
		t.Fatalf("provider called %d times, want 2", f.search.calls.Load())
	}
	if resp, body := post(t, f.url+"/v1/search", f.secret, `{"query":""}`); resp.StatusCode != 429 {
		t.Fatalf("over quota: %d %s", resp.StatusCode, body)
	}
	f.flush(t)
	entries, _ := audit.Entries(ctx)
	if len(entries) != 4 || entries[0].Decision != "answered" || entries[0].Credits != 1 || entries[2].Decision != "limited" || entries[0].TokenID != f.tok.ID {
		t.Fatalf("audit entries %+v", entries)
	}
	if _, err := audit.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", f.url+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+f.secret)
	mresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := io.ReadAll(mresp.Body)
	for _, want := range []string{`webgate_gateway_requests_total{route="/v1/search",code="200"} 2`, `webgate_gateway_limits_hit_total{limit="token requests per day"} 2`,
		`webgate_gateway_request_seconds_bucket{route="/v1/search",le="+Inf"} 4`, `webgate_gateway_provider_calls_total{provider="fake"} 2`} {
		if !strings.Contains(string(mb), want) {
			t.Errorf("metrics lack %s:\n%s", want, mb)
		}
	}
}

func TestServer_BadRequests(t *testing.T) {
	f := newFixture(t, openStore(t, "memory:"), Options{MaxBodyBytes: 100})
	if resp, body := post(t, f.url+"/v1/search", f.secret, `{"query":"`+strings.Repeat("x", 200)+`"}`); resp.StatusCode != 413 {
		t.Errorf("large body: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, f.url+"/v1/search", f.secret, `{"qery":"x"}`); resp.StatusCode != 400 {
		t.Errorf("unknown field: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, f.url+"/v1/search", f.secret, `{"query":""}`); resp.StatusCode != 400 || !strings.Contains(body, "bad-input") {
		t.Errorf("empty query: %d %s", resp.StatusCode, body)
	}
}

// A shared server reads no private address unless the allow list names
// it, and a page read so is cached for its token only.
func TestServer_FetchPrivateAllowListAndScopedCache(t *testing.T) {
	var version atomic.Int64
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>Internal</title></head><body><article><h1>Runbook</h1><p>%s</p></article></body></html>",
			strings.Repeat(fmt.Sprintf("Version %d of the internal runbook says how to restart the service safely. ", version.Load()), 20))
	}))
	defer page.Close()
	ctx := context.Background()
	st := openStore(t, "memory:")
	strict := newFixture(t, st, Options{})
	resp, body := post(t, strict.url+"/v1/fetch", strict.secret, `{"url":"`+page.URL+`/"}`)
	if resp.StatusCode != 400 || strings.Contains(body, "runbook") {
		t.Fatalf("loopback page without an allow list: %d %s", resp.StatusCode, body)
	}

	f := newFixture(t, st, Options{AllowPrivate: []string{"127.0.0.1"}})
	_, other, _ := f.tokens.Create(ctx, NewToken{Owner: "bo"})
	resp, body = post(t, f.url+"/v1/fetch", f.secret, `{"url":"`+page.URL+`/"}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "Version 0") {
		t.Fatalf("allowed page: %d %s", resp.StatusCode, body)
	}
	version.Store(1)
	// The first token is answered from its cache; the second reads the
	// page itself and never sees the first token's read.
	_, body = post(t, f.url+"/v1/fetch", f.secret, `{"url":"`+page.URL+`/"}`)
	if !strings.Contains(body, "Version 0") {
		t.Fatalf("same token, second read not from its cache: %s", body)
	}
	_, body = post(t, f.url+"/v1/fetch", other, `{"url":"`+page.URL+`/"}`)
	if !strings.Contains(body, "Version 1") {
		t.Fatalf("another token was served the first token's cached private page: %s", body)
	}
}

func TestServer_MCPOverHTTP(t *testing.T) {
	st := openStore(t, "memory:")
	audit := &Audit{Store: st}
	f := newFixture(t, st, Options{Audit: audit, Limiter: &Limiter{Store: st}})
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	hc := &http.Client{Transport: bearerTransport{f.secret}}
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tools, err := sess.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("ListTools = %v, %v", tools, err)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "web_search", Arguments: map[string]any{"query": "mcp over http"}})
	if err != nil || res.IsError {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "Result for mcp over http") {
		t.Fatalf("answer: %s", text)
	}
	// A tool call that fails is audited as failed, not as answered.
	bad, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "web_fetch", Arguments: map[string]any{"url": "ftp://example.com/x"}})
	if err != nil || !bad.IsError {
		t.Fatalf("CallTool(ftp URL) = %+v, %v; want a tool error", bad, err)
	}
	f.flush(t)
	entries, _ := audit.Entries(ctx)
	if len(entries) != 2 || entries[0].Tool != "web_search" || entries[0].Credits != 1 || entries[0].Decision != "answered" {
		t.Fatalf("audit: %+v", entries)
	}
	if entries[1].Tool != "web_fetch" || entries[1].Decision != "failed:tool" {
		t.Fatalf("the failed call's audit entry: %+v", entries[1])
	}
	// A call the server refuses (no such tool) is audited as a JSON-RPC
	// failure.
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil {
		t.Fatal("CallTool(no_such_tool) succeeded")
	}
	f.flush(t)
	if entries, _ = audit.Entries(ctx); len(entries) != 3 || entries[2].Tool != "no_such_tool" || entries[2].Decision != "failed:rpc" {
		t.Fatalf("the refused call's audit entry: %+v", entries[len(entries)-1])
	}
	// Calls of two tokens at once are each metered and recorded as their
	// own, though one MCP server answers them all.
	other, otherSecret, _ := f.tokens.Create(ctx, NewToken{Owner: "bo"})
	sess2, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{otherSecret}},
		DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess2.Close()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			s := sess
			if i%2 == 1 {
				s = sess2
			}
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "web_search", Arguments: map[string]any{"query": fmt.Sprintf("parallel %d", i)}})
			if err != nil || res.IsError {
				t.Errorf("parallel call %d: %+v, %v", i, res, err)
			}
		})
	}
	wg.Wait()
	f.flush(t)
	entries, _ = audit.Entries(ctx)
	byToken := map[string]int{}
	for _, e := range entries[3:] {
		if e.Decision != "answered" || e.Credits != 1 {
			t.Errorf("parallel call's entry: %+v", e)
		}
		byToken[e.TokenID]++
	}
	if byToken[f.tok.ID] != 8 || byToken[other.ID] != 8 {
		t.Errorf("parallel calls by token: %v, want 8 each", byToken)
	}
	// Without the token, no MCP.
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: f.url + "/mcp", DisableStandaloneSSE: true, MaxRetries: -1}, nil); err == nil {
		t.Fatal("connected without a token")
	}
}

type bearerTransport struct{ secret string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.secret)
	return http.DefaultTransport.RoundTrip(r)
}

// replicaExtra changes the replicas of startReplicas: their options, and
// a handler around each.
type replicaExtra struct {
	options func(*Options)
	wrap    func(http.Handler) http.Handler
	// uncached has the replica search its provider without the search
	// cache.
	uncached bool
}

// replica is one gateway over a shared store: its server, URL and
// provider.
type replica struct {
	srv    *Server
	url    string
	search *fakeSearcher
	tokens *Tokens
	mem    *memory.Memory
}

// startReplicas starts n gateways on 127.0.0.1, each with its own
// connection to the redis-server at url, its own provider, and the
// search cache, tokens, limits and audit log in that server.
//
// extra, when given, changes each replica's options and wraps its
// handler.
func startReplicas(t testing.TB, url string, n int, team Limits, delay time.Duration, extra ...replicaExtra) []*replica {
	t.Helper()
	var out []*replica
	for range n {
		st := openStore(t, url)
		mem := memory.New(&memory.Options{Store: st, Cache: memory.CacheConfig{SearchTTL: time.Hour}})
		r := &replica{search: &fakeSearcher{delay: delay}, tokens: &Tokens{Store: st}, mem: mem}
		o := Options{Tools: &webtools.Tools{Searcher: mem.CacheSearcher(r.search, []string{"fake"})}, Tokens: r.tokens,
			Limiter: &Limiter{Store: st, Team: team}, Audit: &Audit{Store: st}}
		for _, e := range extra {
			if e.options != nil {
				e.options(&o)
			}
			if e.uncached {
				o.Tools = &webtools.Tools{Searcher: r.search}
			}

		}
		r.srv = New(o)
		var h http.Handler = r.srv
		for _, e := range extra {
			if e.wrap != nil {
				h = e.wrap(h)
			}
		}
		hs := httptest.NewServer(h)
		t.Cleanup(func() {
			hs.Close()
			r.srv.Close(context.Background())
		})
		r.url = hs.URL
		out = append(out, r)
	}
	return out
}

func flushAll(t testing.TB, rs []*replica) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, r := range rs {
		if err := r.srv.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// What the tools leave to write after their answers (webgate serve's
// memory: provider usage counters, key health, decision log entries) is
// written by the gateway's writer after the answer, not before it, even
// with no limits and no audit log: a call is answered while that write
// is held, and the write follows.
func TestServer_AfterWritesFollowTheAnswer(t *testing.T) {
	release := make(chan struct{})
	var writes atomic.Int64
	f := newFixture(t, openStore(t, "memory:"), Options{AfterWrites: func(context.Context) error {
		<-release
		writes.Add(1)
		return nil
	}})
	answered := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", f.url+"/v1/search", strings.NewReader(`{"query":"q"}`))
		req.Header.Set("Authorization", "Bearer "+f.secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	select {
	case code := <-answered:
		if code != 200 {
			t.Fatalf("status %d", code)
		}
	case <-time.After(time.Minute): // only a call that waits for the held write gets here
		close(release)
		t.Fatal("the answer waited for the tools' writes")
	}
	close(release)
	f.flush(t)
	if writes.Load() == 0 {
		t.Fatal("the tools' writes were never made")
	}
}

// Two gateways over one redis-server share tokens, revocations, the
// search cache, limits and the audit chain: a budget of N admits exactly
// N of 50 parallel callers spread over both.
func TestServer_TwoReplicasOverRedis(t *testing.T) {
	const n, callers = 12, 50
	redis := redistest.Start(t)
	ctx := context.Background()
	rs := startReplicas(t, redis.URL, 2, Limits{RequestsPerDay: n}, 0)
	a, b := rs[0], rs[1]

	// A token created through one replica is accepted by the other.
	tok, secret, err := a.tokens.Create(ctx, NewToken{Owner: "ana", Team: "core"})
	if err != nil {
		t.Fatal(err)
	}
	_, other, err := b.tokens.Create(ctx, NewToken{Owner: "bo"})
	if err != nil {
		t.Fatal(err)
	}
	// Fetched through A, answered from the shared cache through B.
	if resp, body := post(t, a.url+"/v1/search", other, `{"query":"shared cache"}`); resp.StatusCode != 200 {
		t.Fatalf("search through A: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, b.url+"/v1/search", other, `{"query":"shared cache"}`); resp.StatusCode != 200 || !strings.Contains(body, "Result for shared cache") {
		t.Fatalf("search through B: %d %s", resp.StatusCode, body)
	}
	if a.search.calls.Load() != 1 || b.search.calls.Load() != 0 {
		t.Fatalf("provider calls A %d, B %d: want 1 and 0 (B answers from the cache A filled)", a.search.calls.Load(), b.search.calls.Load())
	}
	a.search.calls.Store(0)

	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			resp, body := post(t, rs[i%2].url+"/v1/search", secret, fmt.Sprintf(`{"query":"q%d"}`, i))
			switch resp.StatusCode {
			case 200:
				ok.Add(1)
			case 429:
				limited.Add(1)
			default:
				t.Errorf("%d %s", resp.StatusCode, body)
			}
		})
	}
	wg.Wait()
	if ok.Load() != n || limited.Load() != callers-n {
		t.Fatalf("%d answered, %d limited; want %d and %d", ok.Load(), limited.Load(), n, callers-n)
	}
	// Which replica admits the N is a race (all of them may be one's):
	// the budget is shared when the two together asked the provider N
	// times, once per call admitted.
	if got := a.search.calls.Load() + b.search.calls.Load(); got != n {
		t.Fatalf("provider calls A %d + B %d = %d, want %d", a.search.calls.Load(), b.search.calls.Load(), got, n)
	}
	flushAll(t, rs)
	if got, err := (&Audit{Store: a.tokens.Store}).Verify(ctx); err != nil || got != callers+2 {
		t.Fatalf("audit over both replicas: %d entries, %v; want %d", got, err, callers+2)
	}

	// Revoked through B, refused by A within the documented bound.
	if _, err := b.tokens.Revoke(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if resp, _ := post(t, b.url+"/v1/search", secret, `{"query":"after"}`); resp.StatusCode != 401 {
		t.Fatalf("revoked token through the replica that revoked it: %d", resp.StatusCode)
	}
	time.Sleep(DefaultTokenCacheFor)
	if resp, _ := post(t, a.url+"/v1/search", secret, `{"query":"after"}`); resp.StatusCode != 401 {
		t.Fatalf("revoked token through the other replica %v later: %d", DefaultTokenCacheFor, resp.StatusCode)
	}
}

// What calls leave to write after their answers (settlements, audit
// entries) is all written: by the writer, by the callers themselves when
// its queue is full, and by Close at shutdown; a call answered after
// Close writes its own.
func TestServer_AfterAnswerWritesNothingLost(t *testing.T) {
	const calls = 40
	ctx := context.Background()
	st := openStore(t, "memory:")
	audit := &Audit{Store: st}
	lim := &Limiter{Store: st, Token: Limits{CreditsPerDay: 1 << 20}}
	f := newFixture(t, st, Options{Limiter: lim, Audit: audit, AfterQueue: 1, ReserveCredits: 5})
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			if resp, body := post(t, f.url+"/v1/search", f.secret, fmt.Sprintf(`{"query":"q%d"}`, i)); resp.StatusCode != 200 {
				t.Errorf("%d %s", resp.StatusCode, body)
			}
		})
	}
	wg.Wait()
	if err := f.srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if resp, _ := post(t, f.url+"/v1/search", f.secret, `{"query":"after close"}`); resp.StatusCode != 200 {
		t.Fatalf("after Close: %d", resp.StatusCode)
	}
	n, err := audit.Verify(ctx)
	if err != nil || n != calls+1 {
		t.Fatalf("audit: %d entries, %v; want %d", n, err, calls+1)
	}
	usage, _ := lim.Usage(ctx)
	found := false
	for name, v := range usage {
		if strings.Contains(name, "/token/") && strings.Contains(name, "/credits/day/") {
			found = true
			if v != calls+1 {
				t.Fatalf("%s = %d after settling, want %d (one provider call each)", name, v, calls+1)
			}
		}
	}
	if !found {
		t.Fatalf("no credit counter in %v", usage)
	}
}

// Each token's requests, credits and cache hits are counted in the store
// (for webgate stats) and in /metrics by token ID.
func TestServer_UsagePerToken(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, "memory:")
	mem := memory.New(&memory.Options{Store: st, Cache: memory.CacheConfig{SearchTTL: time.Hour}})
	provider := &fakeSearcher{}
	f := newFixture(t, st, Options{Tools: &webtools.Tools{Searcher: mem.CacheSearcher(provider, []string{"fake"})},
		Limiter: &Limiter{Store: st}, Audit: &Audit{Store: st}})
	bo, boSecret, err := f.tokens.Create(ctx, NewToken{Owner: "bo", Label: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ secret, query string }{{f.secret, "x"}, {f.secret, "x"}, {boSecret, "y"}} {
		if resp, body := post(t, f.url+"/v1/search", c.secret, `{"query":"`+c.query+`"}`); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	}
	f.flush(t)
	rows, err := ReadUsage(ctx, st, time.Now().Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC().Format("2006-01-02")
	want := []TokenUsage{
		{Day: day, Token: f.tok.ID, Owner: "ana", Team: "core", Requests: 2, Credits: 1, CacheHits: 1},
		{Day: day, Token: bo.ID, Owner: "bo", Label: "ci", Requests: 1, Credits: 1},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("usage\n got %+v\nwant %+v", rows, want)
	}
	if rows, _ := ReadUsage(ctx, st, time.Now().Add(48*time.Hour)); len(rows) != 0 {
		t.Fatalf("usage from a later day: %+v", rows)
	}
	req, _ := http.NewRequest("GET", f.url+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+f.secret)
	mresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := io.ReadAll(mresp.Body)
	for _, line := range []string{
		`webgate_gateway_token_calls_total{token="` + f.tok.ID + `"} 2`,
		`webgate_gateway_token_credits_total{token="` + f.tok.ID + `"} 1`,
		`webgate_gateway_token_cache_hits_total{token="` + f.tok.ID + `"} 1`,
		`webgate_gateway_token_credits_total{token="` + bo.ID + `"} 1`,
	} {
		if !strings.Contains(string(mb), line) {
			t.Errorf("metrics lack %s", line)
		}
	}
	if strings.Contains(string(mb), f.secret) || strings.Contains(string(mb), boSecret) {
		t.Fatal("a secret in the metrics")
	}
}

// While the store does not answer, the gateway fails as configured:
// failing open it admits the callers it has seen (their tokens as last
// read, the limits unchecked, both counted), else it answers 503; and
// once the store answers again the limits hold again, without a restart.
func TestServer_StoreOutageFailsAsConfiguredAndRecovers(t *testing.T) {
	for _, failOpen := range []bool{true, false} {
		t.Run(fmt.Sprintf("fail_open=%v", failOpen), func(t *testing.T) {
			ctx := context.Background()
			redis := redistest.Start(t)
			st, err := storeurl.Open(ctx, redis.URL, &store.Options{Timeout: 300 * time.Millisecond, OpenTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			var skew atomic.Int64
			tokens := &Tokens{Store: st, Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }}
			if failOpen {
				tokens.StaleIfError = DefaultTokenStaleIfError
			}
			provider := &fakeSearcher{}
			srv := New(Options{Tools: &webtools.Tools{Searcher: provider}, Tokens: tokens,
				Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 3}, FailOpen: failOpen}, Audit: &Audit{Store: st}})
			hs := httptest.NewServer(srv)
			t.Cleanup(func() {
				hs.Close()
				srv.Close(ctx)
			})
			_, secret, err := tokens.Create(ctx, NewToken{Owner: "ana"})
			if err != nil {
				t.Fatal(err)
			}
			if resp, body := post(t, hs.URL+"/v1/search", secret, `{"query":"before"}`); resp.StatusCode != 200 {
				t.Fatalf("before the outage: %d %s", resp.StatusCode, body)
			}

			redis.Pause()
			skew.Store(int64(2 * DefaultTokenCacheFor)) // the token's cached read is past CacheFor
			want := 503
			if failOpen {
				want = 200
			}
			for i := range 3 {
				if resp, body := post(t, hs.URL+"/v1/search", secret, fmt.Sprintf(`{"query":"during %d"}`, i)); resp.StatusCode != want {
					t.Fatalf("store down, call %d: %d %s; want %d", i, resp.StatusCode, body, want)
				}
			}
			req, _ := http.NewRequest("GET", hs.URL+"/metrics", nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			if failOpen {
				mresp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				mb, _ := io.ReadAll(mresp.Body)
				for _, line := range []string{"webgate_gateway_limits_failed_open_total 3", "webgate_gateway_tokens_stale_total 4"} {
					if !strings.Contains(string(mb), line) {
						t.Errorf("metrics lack %q:\n%s", line, mb)
					}
				}
			}

			redis.Resume()
			fctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			if err := srv.Flush(fctx); err != nil {
				t.Fatal(err)
			}
			// The budget of 3 holds again: one was used before the outage.
			// The calls admitted unchecked during it may count or not (a
			// hung store applies the increments it received once it
			// resumes), so at most 2 more are answered, and then 429.
			answered, limited := 0, false
			for i := range 4 {
				resp, body := post(t, hs.URL+"/v1/search", secret, fmt.Sprintf(`{"query":"after %d"}`, i))
				switch {
				case resp.StatusCode == 200 && !limited:
					answered++
				case resp.StatusCode == 429:
					limited = true
				default:
					t.Fatalf("store back, call %d: %d %s", i, resp.StatusCode, body)
				}
			}
			if !limited || answered > 2 || (!failOpen && answered != 2) {
				t.Fatalf("store back: %d answered before the budget's 429 (seen: %v); want at most 2 (exactly 2 failing closed)", answered, limited)
			}
		})
	}
}

// A client that waits for each answer is never refused by a credit
// budget its earlier calls left room for: with a budget of 5 credits and
// 4 reserved per call, a second call after a first that used 1 fits.
func TestServer_CreditBudgetSettledBeforeTheNextCall(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, "memory:")
	f := newFixture(t, st, Options{Limiter: &Limiter{Store: st, Token: Limits{CreditsPerDay: 5}}, ReserveCredits: 4})
	for i := range 30 {
		_, secret, err := f.tokens.Create(ctx, NewToken{Owner: fmt.Sprint("user", i)})
		if err != nil {
			t.Fatal(err)
		}
		for j, want := range []int{200, 200, 429} {
			if resp, body := post(t, f.url+"/v1/search", secret, fmt.Sprintf(`{"query":"q%d-%d"}`, i, j)); resp.StatusCode != want {
				t.Fatalf("token %d, call %d: %d %s; want %d", i, j, resp.StatusCode, body, want)
			}
		}
	}
}
