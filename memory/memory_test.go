package memory_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/memstore"
	"github.com/webgate-dev/webgate/webpage"
)

// clock is a settable time source shared by the memory and the store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newMemory(t *testing.T, opts memory.Options) (*memory.Memory, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	st := store.New(memstore.New(&memstore.Config{Now: c.now}), nil)
	t.Cleanup(func() { st.Close() })
	opts.Store, opts.Now = st, c.now
	if opts.Salt == nil {
		opts.Salt = []byte("test salt of sixteen bytes")
	}
	return memory.New(&opts), c
}

// searcher is a backend fake: it answers with results or fails with err,
// and counts its calls.
type searcher struct {
	name  string
	calls atomic.Int32
	err   error
	res   []provider.Result
	usage *provider.Usage
}

func (s *searcher) Name() string { return s.name }
func (s *searcher) Search(_ context.Context, q provider.Query) (*provider.Results, error) {
	s.calls.Add(1)
	if s.err != nil {
		return nil, s.err
	}
	res := s.res
	if res == nil {
		res = []provider.Result{{Title: "Go", URL: "https://go.dev/doc/"}}
	}
	return &provider.Results{Query: q.Text, Results: res, Provider: s.name, Usage: s.usage}, nil
}

func TestCache_SameQueryIsAnsweredOnceAndSaysWhen(t *testing.T) {
	m, c := newMemory(t, memory.Options{Cache: memory.CacheConfig{SearchTTL: 10 * time.Minute}})
	s := &searcher{name: "tavily"}
	cs := m.CacheSearcher(s, []string{"parallel", "tavily"})
	ctx := context.Background()
	first, err := cs.Search(ctx, provider.Query{Text: "Go  generics"})
	if err != nil || !first.Cached.IsZero() {
		t.Fatalf("first search: %+v, %v", first, err)
	}
	c.add(3 * time.Minute)
	second, err := cs.Search(ctx, provider.Query{Text: "go generics "})
	if err != nil {
		t.Fatal(err)
	}
	if s.calls.Load() != 1 {
		t.Errorf("provider called %d times, want 1", s.calls.Load())
	}
	if got := c.now().Sub(second.Cached); got != 3*time.Minute {
		t.Errorf("cached %v ago, want 3m", got)
	}
	if m.CacheHits() != 1 {
		t.Errorf("CacheHits = %d, want 1", m.CacheHits())
	}
	// Other filters or providers are other entries.
	if _, err := cs.Search(ctx, provider.Query{Text: "go generics", IncludeDomains: []string{"go.dev"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CacheSearcher(s, []string{"parallel", "exa"}).Search(ctx, provider.Query{Text: "go generics"}); err != nil {
		t.Fatal(err)
	}
	if s.calls.Load() != 3 {
		t.Errorf("provider called %d times, want 3 (filters and provider set are part of the key)", s.calls.Load())
	}
	c.add(10 * time.Minute)
	if _, err := cs.Search(ctx, provider.Query{Text: "go generics"}); err != nil {
		t.Fatal(err)
	}
	if s.calls.Load() != 4 {
		t.Errorf("an expired entry answered: %d calls", s.calls.Load())
	}
}

// An answer kept for a query whose backend ignored its domain filters
// never answers that query from the cache: its results must pass the
// filters as the policies apply them (a subdomain, "www." and "*." alike).
func TestCache_KeptAnswerOutsideTheFiltersDoesNotAnswer(t *testing.T) {
	m, _ := newMemory(t, memory.Options{Cache: memory.CacheConfig{SearchTTL: 10 * time.Minute}})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		q    provider.Query
		url  string
		hits bool
	}{
		{"excluded domain", provider.Query{Text: "a", ExcludeDomains: []string{"go.dev"}}, "https://go.dev/doc/", false},
		{"excluded subdomain", provider.Query{Text: "b", ExcludeDomains: []string{"*.go.dev"}}, "https://pkg.go.dev/x", false},
		{"excluded www", provider.Query{Text: "c", ExcludeDomains: []string{"www.go.dev"}}, "https://go.dev/doc/", false},
		{"outside the included", provider.Query{Text: "d", IncludeDomains: []string{"golang.org"}}, "https://go.dev/doc/", false},
		{"inside the included", provider.Query{Text: "e", IncludeDomains: []string{"go.dev"}}, "https://tip.go.dev/doc/", true},
		{"not excluded", provider.Query{Text: "f", ExcludeDomains: []string{"golang.org"}}, "https://go.dev/doc/", true},
	} {
		s := &searcher{name: "tavily", res: []provider.Result{{Title: "Go", URL: tc.url}}}
		cs := m.CacheSearcher(s, []string{"tavily"})
		for range 2 {
			if _, err := cs.Search(ctx, tc.q); err != nil {
				t.Fatal(err)
			}
		}
		want := int32(2)
		if tc.hits {
			want = 1
		}
		if got := s.calls.Load(); got != want {
			t.Errorf("%s: the backend was asked %d times, want %d", tc.name, got, want)
		}
	}
}

func TestCache_FailuresAndEmptyAnswersAreNotKept(t *testing.T) {
	m, _ := newMemory(t, memory.Options{Cache: memory.CacheConfig{SearchTTL: time.Hour}})
	s := &searcher{name: "exa", err: &provider.Error{Provider: "exa", Kind: provider.KindTransient}}
	cs := m.CacheSearcher(s, []string{"exa"})
	for range 2 {
		if _, err := cs.Search(context.Background(), provider.Query{Text: "q"}); err == nil {
			t.Fatal("a failure was answered from the cache")
		}
	}
	s.err, s.res = nil, []provider.Result{}
	for range 2 {
		cs.Search(context.Background(), provider.Query{Text: "q"})
	}
	if s.calls.Load() != 4 {
		t.Errorf("provider called %d times, want 4", s.calls.Load())
	}
}

// partial answers with results and a failed provider.
type partial struct{ searcher }

func (p *partial) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	r, _ := p.searcher.Search(ctx, q)
	r.Failures = []provider.Failure{{Provider: "exa", Kind: provider.KindTransient}}
	return r, nil
}

func TestCache_PartialResultsLiveShorter(t *testing.T) {
	m, c := newMemory(t, memory.Options{Cache: memory.CacheConfig{SearchTTL: 60 * time.Minute}})
	p := &partial{searcher{name: "parallel"}}
	cs := m.CacheSearcher(p, []string{"tavily", "exa"})
	cs.Search(context.Background(), provider.Query{Text: "q"})
	c.add(9 * time.Minute)
	r, _ := cs.Search(context.Background(), provider.Query{Text: "q"})
	if r.Cached.IsZero() || len(r.Failures) != 0 {
		t.Errorf("within a sixth of the TTL: want a cached answer without the old failures, got %+v", r)
	}
	c.add(2 * time.Minute)
	cs.Search(context.Background(), provider.Query{Text: "q"})
	if p.calls.Load() != 2 {
		t.Errorf("provider called %d times, want 2 (partial results expire after TTL/6)", p.calls.Load())
	}
}

func TestCache_OffWhenTTLIsZero(t *testing.T) {
	m, _ := newMemory(t, memory.Options{})
	s := &searcher{name: "tavily"}
	if got := m.CacheSearcher(s, nil); got != provider.Searcher(s) {
		t.Errorf("a zero search TTL still wraps the searcher")
	}
	if m.PageCache() != nil {
		t.Errorf("a zero fetch TTL still gives a page cache")
	}
}

func TestSearchKey_NormalisesTextAndDomains(t *testing.T) {
	a := memory.SearchKey(provider.Query{Text: "Go Generics", IncludeDomains: []string{"go.dev", "Pkg.go.dev."}}, []string{"tavily"})
	b := memory.SearchKey(provider.Query{Text: " go   generics", IncludeDomains: []string{"pkg.go.dev", "go.dev"}}, []string{"tavily"})
	if a != b {
		t.Errorf("equivalent queries have different keys")
	}
	if a == memory.SearchKey(provider.Query{Text: "go generics", ExcludeDomains: []string{"go.dev"}}, []string{"tavily"}) {
		t.Errorf("an exclude filter does not change the key")
	}
	general := memory.SearchKey(provider.Query{Text: "rates"}, []string{"tavily"})
	if general == memory.SearchKey(provider.Query{Text: "rates", Topic: "news"}, []string{"tavily"}) {
		t.Errorf("the topic does not change the key")
	}
	if !strings.HasPrefix(a, memory.CachePrefix) {
		t.Errorf("key %q outside the cache prefix", a)
	}
}

func TestPageCache_ReaderAnswersFromItWithoutProbing(t *testing.T) {
	m, c := newMemory(t, memory.Options{Cache: memory.CacheConfig{FetchTTL: 15 * time.Minute}})
	pc := m.PageCache()
	ctx := context.Background()
	// A public address, written as one: nothing resolves or dials it.
	const u = "https://93.184.215.14/app"
	first := &webpage.Reader{Cache: pc, Extractor: staticExtractor{}}
	if _, _, err := first.Extract(ctx, u, ""); err != nil {
		t.Fatal(err)
	}
	c.add(4 * time.Minute)
	r := &webpage.Reader{Cache: pc, Extractor: failingExtractor{}}
	page, _, err := r.Extract(ctx, u, "")
	if err != nil {
		t.Fatal(err)
	}
	if page.Content != "# App\n\nbody" || c.now().Sub(page.Cached) != 4*time.Minute {
		t.Errorf("page %+v", page)
	}
}

type staticExtractor struct{}

func (staticExtractor) Extract(_ context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	return &provider.Page{URL: req.URL, Content: "# App\n\nbody", Provider: "tavily"}, nil
}

type failingExtractor struct{}

func (failingExtractor) Extract(context.Context, provider.ExtractRequest) (*provider.Page, error) {
	return nil, errors.New("the extractor was called")
}

func TestHealth_RevokedKeyIsParkedAcrossMemories(t *testing.T) {
	m, c := newMemory(t, memory.Options{})
	ks := m.Keys("tavily", provider.NewPool([]string{"k1", "k2"}, &provider.PoolConfig{Order: provider.RoundRobin}))
	keys := ks.Keys(context.Background())
	if len(keys) != 2 {
		t.Fatalf("keys %v", keys)
	}
	var k1 provider.Key
	for _, k := range keys {
		if k.Secret() == "k1" {
			k1 = k
		}
	}
	ks.(provider.ErrorReporter).ReportError(k1, &provider.Error{Provider: "tavily", Kind: provider.KindAuth, Status: 401})
	// Another process: a fresh key source over the same store.
	other := memory.New(&memory.Options{Store: m.Store(), Salt: []byte("test salt of sixteen bytes"), Now: c.now})
	for range 3 {
		got := other.Keys("tavily", provider.NewPool([]string{"k1", "k2"}, nil)).Keys(context.Background())
		if len(got) != 1 || got[0].Secret() != "k2" {
			t.Fatalf("keys offered after k1 was revoked: %v", got)
		}
	}
	// A changed value is a new key.
	got := other.Keys("tavily", provider.NewPool([]string{"k1-new", "k2"}, nil)).Keys(context.Background())
	if len(got) != 2 {
		t.Errorf("a new key value is still parked: %v", got)
	}
	c.add(memory.DefaultAuthPark + time.Second)
	if got := other.Keys("tavily", provider.NewPool([]string{"k1", "k2"}, nil)).Keys(context.Background()); len(got) != 2 {
		t.Errorf("k1 still parked after the auth park: %v", got)
	}
}

func TestHealth_NothingSecretIsStored(t *testing.T) {
	m, _ := newMemory(t, memory.Options{Budgets: map[string]int64{"tavily": 10}})
	secret := "tvly-SECRETSECRETSECRET123"
	ks := m.Keys("tavily", provider.NewPool([]string{secret}, nil))
	k := ks.Keys(context.Background())[0]
	ks.(provider.ErrorReporter).ReportError(k, &provider.Error{Kind: provider.KindQuota})
	g := m.Searcher(memory.Backend{Name: "tavily", Keys: []string{secret}}, &searcher{name: "tavily"})
	g.Search(context.Background(), provider.Query{Text: "q"})
	m.Record(context.Background(), memory.Decision{Decision: "deny", Query: "find " + secret})
	for _, prefix := range []string{"health/", "cache/", "usage/", "month/"} {
		e, _ := m.Store().Get(context.Background(), "health/tavily")
		if strings.Contains(string(e.Value), secret) {
			t.Errorf("%s: the key is stored", prefix)
		}
		cs, _ := m.Store().Counters(context.Background(), prefix)
		for name := range cs {
			if strings.Contains(name, secret) {
				t.Errorf("counter %q names the key", name)
			}
		}
	}
	ds, err := m.Decisions(context.Background(), 10, time.Time{})
	if err != nil || len(ds) != 1 {
		t.Fatalf("decisions %v, %v", ds, err)
	}
	if strings.Contains(ds[0].Query, secret) || !strings.Contains(ds[0].Query, "[REDACTED:") {
		t.Errorf("logged query %q", ds[0].Query)
	}
}

func TestGuard_SkipsAProviderWhoseKeysAreAllParked(t *testing.T) {
	m, c := newMemory(t, memory.Options{})
	keys := []string{"a", "b"}
	ks := m.Keys("exa", provider.NewPool(keys, nil))
	for _, k := range ks.Keys(context.Background()) {
		ks.(provider.ErrorReporter).ReportError(k, &provider.Error{Kind: provider.KindRateLimited, RetryAfter: 20 * time.Second})
	}
	s := &searcher{name: "exa"}
	g := m.Searcher(memory.Backend{Name: "exa", Keys: keys}, s)
	_, err := g.Search(context.Background(), provider.Query{Text: "q"})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindRateLimited || !memory.IsSkip(err) {
		t.Fatalf("err = %v, want a rate-limited skip", err)
	}
	if pe.RetryAfter != 20*time.Second || !strings.Contains(err.Error(), "all 2 keys are parked") {
		t.Errorf("skip says %q, retry after %v", err, pe.RetryAfter)
	}
	if s.calls.Load() != 0 {
		t.Errorf("the provider was called")
	}
	if se := m.Skip(context.Background(), memory.Backend{Name: "exa", Keys: keys}, "search"); se == nil || se.Until.IsZero() {
		t.Errorf("Skip = %v, want the parked keys", se)
	}
	c.add(21 * time.Second)
	if se := m.Skip(context.Background(), memory.Backend{Name: "exa", Keys: keys}, "search"); se != nil {
		t.Errorf("Skip after the cooldown = %v", se)
	}
	if _, err := g.Search(context.Background(), provider.Query{Text: "q"}); err != nil || s.calls.Load() != 1 {
		t.Errorf("after the cooldown: %v, %d calls", err, s.calls.Load())
	}
}

func TestGuard_KeylessProviderCoolsDownAfterARateLimit(t *testing.T) {
	m, c := newMemory(t, memory.Options{})
	s := &searcher{name: "searxng", err: &provider.Error{Provider: "searxng", Kind: provider.KindRateLimited}}
	g := m.Searcher(memory.Backend{Name: "searxng"}, s)
	g.Search(context.Background(), provider.Query{Text: "q"})
	if _, err := g.Search(context.Background(), provider.Query{Text: "q"}); !memory.IsSkip(err) {
		t.Fatalf("second call: %v, want a skip", err)
	}
	c.add(memory.DefaultRateLimitCooldown + time.Second)
	s.err = nil
	if _, err := g.Search(context.Background(), provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	if s.calls.Load() != 2 {
		t.Errorf("%d calls, want 2", s.calls.Load())
	}
}

func TestGuard_CircuitBreakerOpensProbesOnceAndCloses(t *testing.T) {
	m, c := newMemory(t, memory.Options{Health: memory.HealthConfig{BreakerFailures: 3, BreakerCooldown: 10 * time.Second}})
	s := &searcher{name: "tavily", err: &provider.Error{Provider: "tavily", Kind: provider.KindTransient, Status: 503}}
	g := m.Searcher(memory.Backend{Name: "tavily", Keys: []string{"k"}}, s)
	ctx := context.Background()
	for range 3 {
		g.Search(ctx, provider.Query{Text: "q"})
	}
	if _, err := g.Search(ctx, provider.Query{Text: "q"}); !memory.IsSkip(err) || !strings.Contains(err.Error(), "circuit open") {
		t.Fatalf("after 3 failures: %v", err)
	}
	if s.calls.Load() != 3 {
		t.Fatalf("%d calls while open", s.calls.Load())
	}
	st, _ := m.Health(ctx, []string{"tavily"})
	if len(st) != 1 || st[0].OpenUntil.IsZero() {
		t.Errorf("health %+v", st)
	}
	c.add(11 * time.Second)
	// Half-open: the probe fails and the breaker opens again at once.
	g.Search(ctx, provider.Query{Text: "q"})
	if _, err := g.Search(ctx, provider.Query{Text: "q"}); !memory.IsSkip(err) {
		t.Fatalf("after a failed probe: %v", err)
	}
	c.add(11 * time.Second)
	// Another process holding the probe: only one call goes through.
	other := m.Searcher(memory.Backend{Name: "tavily", Keys: []string{"k"}}, s)
	s.err = nil
	before := s.calls.Load()
	if _, err := g.Search(ctx, provider.Query{Text: "q"}); err != nil {
		t.Fatalf("probe: %v", err)
	}
	if _, err := other.Search(ctx, provider.Query{Text: "q"}); err != nil {
		t.Fatalf("after a successful probe: %v", err)
	}
	if s.calls.Load() != before+2 {
		t.Errorf("calls %d, want %d", s.calls.Load(), before+2)
	}
	if st, _ := m.Health(ctx, []string{"tavily"}); len(st) != 0 {
		t.Errorf("breaker not closed: %+v", st)
	}
}

func TestBudget_WarnsOnceAt80AndSkipsAt100(t *testing.T) {
	m, _ := newMemory(t, memory.Options{Budgets: map[string]int64{"tavily": 5}})
	s := &searcher{name: "tavily"}
	g := m.Searcher(memory.Backend{Name: "tavily", Keys: []string{"k"}}, s)
	var notices []string
	for i := range 5 {
		if _, err := g.Search(context.Background(), provider.Query{Text: "q"}); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		notices = append(notices, m.Notices()...)
	}
	if len(notices) != 2 || !strings.Contains(notices[0], "80 %") || !strings.Contains(notices[1], "reached") {
		t.Errorf("notices %q", notices)
	}
	_, err := g.Search(context.Background(), provider.Query{Text: "q"})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindQuota || !memory.IsSkip(err) {
		t.Fatalf("over budget: %v", err)
	}
	if s.calls.Load() != 5 {
		t.Errorf("%d calls, want 5", s.calls.Load())
	}
	bs, _ := m.Budgets(context.Background())
	if len(bs) != 1 || bs[0].Used != 5 || bs[0].Percent() != 100 {
		t.Errorf("budgets %+v", bs)
	}
}

func TestUsage_CountsPerDayAndProvider(t *testing.T) {
	m, c := newMemory(t, memory.Options{})
	ok := m.Searcher(memory.Backend{Name: "tavily", Keys: []string{"k"}}, &searcher{name: "tavily"})
	bad := m.Searcher(memory.Backend{Name: "exa", Keys: []string{"k"}}, &searcher{name: "exa", err: &provider.Error{Kind: provider.KindQuota}})
	ctx := context.Background()
	ok.Search(ctx, provider.Query{Text: "q"})
	ok.Search(ctx, provider.Query{Text: "q"})
	bad.Search(ctx, provider.Query{Text: "q"})
	c.add(24 * time.Hour)
	ok.Search(ctx, provider.Query{Text: "q"})
	us, err := m.Usage(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		day, provider string
		requests      int64
		failures      int64
	}{{"2026-03-10", "exa", 1, 1}, {"2026-03-10", "tavily", 2, 0}, {"2026-03-11", "tavily", 1, 0}}
	if len(us) != len(want) {
		t.Fatalf("usage %+v", us)
	}
	for i, w := range want {
		u := us[i]
		if u.Day != w.day || u.Provider != w.provider || u.Requests != w.requests || u.Failures != w.failures {
			t.Errorf("usage[%d] = %+v, want %+v", i, u, w)
		}
	}
	if us[0].FailuresByKind[provider.KindQuota] != 1 || us[1].Results != 2 {
		t.Errorf("usage %+v", us)
	}
	if since, _ := m.Usage(ctx, c.now()); len(since) != 1 {
		t.Errorf("since today: %+v", since)
	}
}

// pageReader is an extractor fake that reads every page with usage.
type pageReader struct{ usage *provider.Usage }

func (p pageReader) Extract(_ context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	return &provider.Page{URL: req.URL, Content: "# Page", Usage: p.usage}, nil
}

func TestUsage_AddsUpTheCreditsCostAndTokensProvidersReport(t *testing.T) {
	m, c := newMemory(t, memory.Options{})
	ctx := context.Background()
	tavily := m.Searcher(memory.Backend{Name: "tavily", Keys: []string{"k"}}, &searcher{name: "tavily", usage: &provider.Usage{Credits: 2}})
	tavilyPages := m.Extractor(memory.Backend{Name: "tavily", Keys: []string{"k"}}, pageReader{usage: &provider.Usage{Credits: 0.2}})
	exa := m.Searcher(memory.Backend{Name: "exa", Keys: []string{"k"}}, &searcher{name: "exa", usage: &provider.Usage{CostUSD: 0.0075}})
	jina := m.Searcher(memory.Backend{Name: "jina"}, &searcher{name: "jina", usage: &provider.Usage{Tokens: 10000}})
	silent := m.Searcher(memory.Backend{Name: "brave", Keys: []string{"k"}}, &searcher{name: "brave"})
	odd := m.Searcher(memory.Backend{Name: "odd", Keys: []string{"k"}}, &searcher{name: "odd", usage: &provider.Usage{Credits: -1, CostUSD: math.NaN(), Tokens: -5}})
	for range 2 {
		tavily.Search(ctx, provider.Query{Text: "q"})
		exa.Search(ctx, provider.Query{Text: "q"})
		jina.Search(ctx, provider.Query{Text: "q"})
		silent.Search(ctx, provider.Query{Text: "q"})
		odd.Search(ctx, provider.Query{Text: "q"})
	}
	tavilyPages.Extract(ctx, provider.ExtractRequest{URL: "https://go.dev/doc/"})
	c.add(24 * time.Hour)
	tavily.Search(ctx, provider.Query{Text: "q"})

	us, err := m.Usage(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	type figures struct {
		credits, cost float64
		tokens        int64
	}
	got := map[string]figures{}
	for _, u := range us {
		got[u.Day+" "+u.Provider] = figures{u.Credits, u.CostUSD, u.Tokens}
	}
	want := map[string]figures{
		"2026-03-10 tavily": {credits: 4.2},
		"2026-03-10 exa":    {cost: 0.015},
		"2026-03-10 jina":   {tokens: 20000},
		"2026-03-10 brave":  {},
		"2026-03-10 odd":    {},
		"2026-03-11 tavily": {credits: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("usage %+v", us)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: credits, cost, tokens = %+v, want %+v", k, g, w)
		}
	}
	// Only the figures a provider reported are counters of its own.
	cs, err := m.Store().Counters(ctx, "usage/2026-03-10/")
	if err != nil {
		t.Fatal(err)
	}
	for name := range cs {
		if (strings.Contains(name, "/brave/") || strings.Contains(name, "/odd/")) &&
			(strings.HasSuffix(name, "credits_milli") || strings.HasSuffix(name, "cost_micro_usd") || strings.HasSuffix(name, "tokens")) {
			t.Errorf("counter %s kept for a provider that reported nothing usable", name)
		}
	}
	if cs["usage/2026-03-10/tavily/credits_milli"] != 4200 || cs["usage/2026-03-10/exa/cost_micro_usd"] != 15000 {
		t.Errorf("counters %v", cs)
	}
}

func TestRecord_KeepsQueriesAsConfigured(t *testing.T) {
	for _, tc := range []struct{ keep, want string }{
		{memory.KeepFull, "golang generics"},
		{memory.KeepHashed, "sha256:"},
		{memory.KeepNone, ""},
	} {
		m, _ := newMemory(t, memory.Options{Log: memory.LogConfig{Queries: tc.keep}})
		m.Record(context.Background(), memory.Decision{Decision: "deny", Query: "golang generics", Tool: "WebSearch"})
		ds, err := m.Decisions(context.Background(), 0, time.Time{})
		if err != nil || len(ds) != 1 {
			t.Fatalf("%s: %v, %v", tc.keep, ds, err)
		}
		if got := ds[0].Query; (tc.want == "" && got != "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: query kept as %q", tc.keep, got)
		}
	}
}

func TestRecord_RetentionBoundsTheLog(t *testing.T) {
	m, _ := newMemory(t, memory.Options{Log: memory.LogConfig{MaxRecords: 3}})
	for i := range 5 {
		m.Record(context.Background(), memory.Decision{Decision: "deny", Note: string(rune('a' + i))})
	}
	ds, _ := m.Decisions(context.Background(), 0, time.Time{})
	if len(ds) != 3 || ds[0].Note != "c" || ds[2].Note != "e" {
		t.Errorf("kept %+v", ds)
	}
}

// brokenStore fails every call, as a corrupt or unreachable store does.
func TestFailOpen_ABrokenStoreIsLeftAloneAfterItsFirstFailure(t *testing.T) {
	st := store.New(nil, nil) // closed: every call fails
	m := memory.New(&memory.Options{Store: st, Cache: memory.CacheConfig{SearchTTL: time.Minute}})
	s := &searcher{name: "tavily"}
	g := m.CacheSearcher(m.Searcher(memory.Backend{Name: "tavily", Keys: []string{"k"}}, s), []string{"tavily"})
	for range 2 {
		if _, err := g.Search(context.Background(), provider.Query{Text: "q"}); err != nil {
			t.Fatalf("search through a broken store: %v", err)
		}
	}
	if s.calls.Load() != 2 {
		t.Errorf("%d calls", s.calls.Load())
	}
	if m.Problem() == nil {
		t.Errorf("Problem() is nil after the store failed")
	}
	m.Record(context.Background(), memory.Decision{Decision: "deny"})
}

func TestNilMemory_ChangesNothing(t *testing.T) {
	var m *memory.Memory
	s := &searcher{name: "tavily"}
	if m.Searcher(memory.Backend{Name: "tavily"}, s) != provider.Searcher(s) || m.CacheSearcher(s, nil) != provider.Searcher(s) {
		t.Error("a nil Memory wraps")
	}
	if m.PageCache() != nil || m.Problem() != nil || m.Notices() != nil || m.CacheHits() != 0 {
		t.Error("a nil Memory reports something")
	}
	m.Record(context.Background(), memory.Decision{})
}
