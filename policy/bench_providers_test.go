package policy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/brave"
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/firecrawl"
	"github.com/webgate-dev/webgate/provider/jina"
	"github.com/webgate-dev/webgate/provider/searxng"
	"github.com/webgate-dev/webgate/provider/tavily"
	"github.com/webgate-dev/webgate/provider/websearchapi"
)

// wireFake is one provider's search endpoint on 127.0.0.1: it answers
// method and path, after delay, with a fixture in the provider's own wire
// format, and counts the searches it answered.
type wireFake struct {
	URL      string
	answered atomic.Int64
}

// newWireFake starts a fake answering method path with the fixture file
// (relative to the module's provider directory) after delay.
func newWireFake(b *testing.B, method, path, fixture string, delay time.Duration) *wireFake {
	b.Helper()
	body, err := os.ReadFile(filepath.Join("..", "provider", filepath.FromSlash(fixture)))
	if err != nil {
		b.Fatal(err)
	}
	f := &wireFake{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Method != method || r.URL.Path != path {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
		f.answered.Add(1)
	}))
	b.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// backendSpec is how to reach one real search backend's fake: its
// endpoint, fixtures, and how to build the backend against a base URL.
type backendSpec struct {
	name                string
	method, path        string
	okFixture, noResult string
	build               func(base string, keys provider.KeySource, hc *http.Client) (provider.Searcher, error)
}

// sevenBackends lists every search backend webgate ships.
var sevenBackends = []backendSpec{
	{"tavily", http.MethodPost, "/search", "tavily/testdata/search_ok.json", "tavily/testdata/search_empty.json",
		func(base string, keys provider.KeySource, hc *http.Client) (provider.Searcher, error) {
			cfg := tavily.DefaultConfig()
			cfg.BaseURL, cfg.HTTP.Client = base, hc
			return tavily.New(keys, &cfg)
		}},
	{"websearchapi", http.MethodPost, "/ai-search", "websearchapi/testdata/search_ok.json", "websearchapi/testdata/search_empty.json",
		func(base string, keys provider.KeySource, hc *http.Client) (provider.Searcher, error) {
			cfg := websearchapi.DefaultConfig()
			cfg.BaseURL, cfg.HTTP.Client = base, hc
			return websearchapi.New(keys, &cfg)
		}},
	{"brave", http.MethodGet, "/res/v1/web/search", "brave/testdata/search_ok.json", "brave/testdata/search_empty.json",
		func(base string, keys provider.KeySource, hc *http.Client) (provider.Searcher, error) {
			cfg := brave.DefaultConfig()
			cfg.BaseURL, cfg.HTTP.Client = base, hc
			return brave.New(keys, &cfg)
		}},
	{"searxng", http.MethodGet, "/search", "searxng/testdata/search_ok.json", "searxng/testdata/search_empty.json",
		func(base string, _ provider.KeySource, hc *http.Client) (provider.Searcher, error) {
			cfg := searxng.DefaultConfig()
			cfg.BaseURL, cfg.HTTP.Client = base, hc
			return searxng.New(nil, &cfg)
		}},
	{"jina", http.MethodGet, "/", "jina/testdata/search_ok.json", "jina/testdata/search_empty.json",
		func(base string, keys provider.KeySource, hc *http.Client) (provider.Searcher, error) {
			cfg := jina.DefaultConfig()
			cfg.SearchURL, cfg.HTTP.Client = base, hc
			return jina.New(keys, &cfg)
		}},
	{"firecrawl", http.MethodPost, "/v2/search", "firecrawl/testdata/search_ok.json", "firecrawl/testdata/search_empty.json",
		func(base string, keys provider.KeySource, hc *http.Client) (provider.Searcher, error) {
			cfg := firecrawl.DefaultConfig()
			cfg.BaseURL, cfg.HTTP.Client = base, hc
			return firecrawl.New(keys, &cfg)
		}},
	// Exa comes last: it has no empty fixture, and the fallback case needs
	// the last provider to find something.
	{"exa", http.MethodPost, "/search", "exa/testdata/search.json", "",
		func(base string, keys provider.KeySource, hc *http.Client) (provider.Searcher, error) {
			cfg := exa.DefaultConfig()
			cfg.BaseURL, cfg.HTTP.Client = base, hc
			return exa.New(keys, &cfg)
		}},
}

// sevenProviders starts a fake for each backend, answering after
// 5, 10, …, 35ms in the order of sevenBackends, and returns the backends
// and their fakes. With empty set, every backend but the last answers
// with no results.
func sevenProviders(b *testing.B, empty bool) ([]provider.Searcher, []*wireFake, []time.Duration) {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	b.Cleanup(client.CloseIdleConnections)
	var (
		ps     []provider.Searcher
		fakes  []*wireFake
		delays []time.Duration
	)
	for i, spec := range sevenBackends {
		// 50ms to 150ms, evenly spread.
		delay := 50*time.Millisecond + time.Duration(i)*100*time.Millisecond/time.Duration(len(sevenBackends)-1)
		fixture := spec.okFixture
		if empty && spec.noResult != "" {
			fixture = spec.noResult
		}
		f := newWireFake(b, spec.method, spec.path, fixture, delay)
		s, err := spec.build(f.URL, provider.NewPool([]string{"bench-key-" + spec.name}, nil), client)
		if err != nil {
			b.Fatalf("%s: %v", spec.name, err)
		}
		ps = append(ps, s)
		fakes = append(fakes, f)
		delays = append(delays, delay)
	}
	return ps, fakes, delays
}

// runSevenBench searches through s until b is done and reports how far
// each search ran beyond target, the time the providers' delays alone
// take. Every search must succeed with results and no provider failure,
// and every fake must have answered every search.
func runSevenBench(b *testing.B, s provider.Searcher, fakes []*wireFake, target time.Duration) {
	b.Helper()
	q := provider.Query{Text: "go context cancellation"}
	check := func(res *provider.Results, err error) {
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Results) == 0 || len(res.Failures) > 0 {
			b.Fatalf("got %d results and failures %+v", len(res.Results), res.Failures)
		}
	}
	// Warm up the connections so that dialling is not measured.
	check(s.Search(context.Background(), q))
	var total, worst time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		res, err := s.Search(context.Background(), q)
		over := time.Since(start) - target
		check(res, err)
		total += over
		worst = max(worst, over)
		n++
	}
	for i, f := range fakes {
		if got := f.answered.Load(); got != int64(n+1) {
			b.Errorf("%s answered %d searches, want %d", sevenBackends[i].name, got, n+1)
		}
	}
	mean := total / time.Duration(n)
	b.ReportMetric(float64(mean.Microseconds())/1000, "overhead-ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-overhead-ms")
	b.ReportMetric(float64(target.Microseconds())/1000, "target-ms")
	if mean > 10*time.Millisecond {
		b.Errorf("mean overhead %v, want within 10ms of %v", mean, target)
	}
}

// BenchmarkSevenProviders measures the search policies over the seven
// real search backends, each against a fake on 127.0.0.1 that answers in
// its own wire format after a delay from 50 to 150ms.
//
//   - parallel-N: the first N backends at once; the target is the slowest
//     one's delay. The overhead stays flat as N grows.
//   - fallback-through-empty: the backends in turn, each of the first six
//     answering with no results so that the next is tried; the target is
//     the sum of the delays (700ms).
func BenchmarkSevenProviders(b *testing.B) {
	for _, n := range []int{1, 3, 7} {
		b.Run(fmt.Sprintf("parallel-%d", n), func(b *testing.B) {
			ps, fakes, delays := sevenProviders(b, false)
			// The n slowest, so that the target stays the 150ms one.
			ps, fakes = ps[len(ps)-n:], fakes[len(fakes)-n:]
			p, err := policy.NewParallel(ps, &policy.SearchConfig{PerProvider: 2 * time.Second})
			if err != nil {
				b.Fatal(err)
			}
			runSevenBench(b, p, fakes, slices.Max(delays))
		})
	}
	b.Run("fallback-through-empty", func(b *testing.B) {
		ps, fakes, delays := sevenProviders(b, true)
		f, err := policy.NewFallback(ps, nil)
		if err != nil {
			b.Fatal(err)
		}
		var sum time.Duration
		for _, d := range delays {
			sum += d
		}
		runSevenBench(b, f, fakes, sum)
	})
}
