package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

// jsonSearcher is a minimal searcher over HTTP for benchmarks: GET
// {base}/search?q=… answered with {"results":[{"title","url","snippet"}]}.
type jsonSearcher struct {
	name, base string
	client     *http.Client
}

func (s *jsonSearcher) Name() string { return s.name }

func (s *jsonSearcher) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/search?q="+url.QueryEscape(q.Text), nil)
	if err != nil {
		return nil, &provider.Error{Provider: s.name, Op: "search", Kind: provider.KindBadRequest, Err: err}
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, &provider.Error{Provider: s.name, Op: "search", Kind: provider.KindOf(err), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &provider.Error{Provider: s.name, Op: "search", Status: resp.StatusCode, Kind: provider.StatusKind(resp.StatusCode)}
	}
	var body struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Snippet string `json:"snippet"`
		} `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, &provider.Error{Provider: s.name, Op: "search", Kind: provider.KindUnknown, Err: err}
	}
	res := &provider.Results{Query: q.Text, Provider: s.name}
	for _, r := range body.Results {
		res.Results = append(res.Results, provider.Result{Title: r.Title, URL: r.URL, Snippet: r.Snippet, Provider: s.name})
	}
	return res, nil
}

// loopbackSearcher starts a fake provider on 127.0.0.1 that answers after
// delay with ten results (five shared with the other fakes), or never when
// hung, and returns a jsonSearcher for it.
func loopbackSearcher(b *testing.B, name string, delay time.Duration, hung bool, client *http.Client) provider.Searcher {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wait := time.After(delay)
		if hung {
			wait = nil
		}
		select {
		case <-wait:
		case <-r.Context().Done():
			return
		}
		var out struct {
			Results []map[string]string `json:"results"`
		}
		for i := range 10 {
			u := fmt.Sprintf("https://%s.example/%d", name, i)
			if i%2 == 0 {
				u = fmt.Sprintf("https://shared.example/%d", i)
			}
			out.Results = append(out.Results, map[string]string{"title": "t", "url": u, "snippet": "snippet from " + name})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	b.Cleanup(srv.Close)
	return &jsonSearcher{name: name, base: srv.URL, client: client}
}

// runParallelBench searches through p until b is done and reports how far
// each search ran beyond target, the time it cannot beat.
// timedOut names the provider that must be reported as timed out, if any;
// on a loaded machine others may time out too.
func runParallelBench(b *testing.B, p *policy.Parallel, target time.Duration, timedOut string) {
	b.Helper()
	q := provider.Query{Text: "loopback", MaxResults: 10}
	// Warm up the connections so that dialling is not measured.
	if _, err := p.Search(context.Background(), q); err != nil {
		b.Fatal(err)
	}
	var total, worst time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		res, err := p.Search(context.Background(), q)
		over := time.Since(start) - target
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Results) == 0 || !reportsTimeout(res.Failures, timedOut) {
			b.Fatalf("got %d results and failures %+v", len(res.Results), res.Failures)
		}
		total += over
		worst = max(worst, over)
		n++
	}
	mean := total / time.Duration(n)
	b.ReportMetric(float64(mean.Microseconds())/1000, "overhead-ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-overhead-ms")
	if mean > 10*time.Millisecond {
		b.Errorf("mean overhead %v, want within 10ms of %v", mean, target)
	}
}

// reportsTimeout reports whether failures hold name as timed out, or is
// true for an empty name.
func reportsTimeout(failures []provider.Failure, name string) bool {
	if name == "" {
		return true
	}
	for _, f := range failures {
		if f.Provider == name && f.TimedOut {
			return true
		}
	}
	return false
}

// BenchmarkParallel_Loopback measures how long Parallel takes beyond its
// slowest provider (150ms), with three providers on loopback HTTP.
func BenchmarkParallel_Loopback(b *testing.B) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	b.Cleanup(client.CloseIdleConnections)
	var ps []provider.Searcher
	for i, d := range []time.Duration{50, 100, 150} {
		ps = append(ps, loopbackSearcher(b, fmt.Sprintf("p%d", i), d*time.Millisecond, false, client))
	}
	p, err := policy.NewParallel(ps, &policy.SearchConfig{PerProvider: 2 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	runParallelBench(b, p, 150*time.Millisecond, "")
}

// BenchmarkParallel_OneHung measures how long Parallel takes beyond its
// per-provider deadline (200ms) when one of three providers never answers.
func BenchmarkParallel_OneHung(b *testing.B) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	b.Cleanup(client.CloseIdleConnections)
	ps := []provider.Searcher{
		loopbackSearcher(b, "p0", 50*time.Millisecond, false, client),
		loopbackSearcher(b, "p1", 100*time.Millisecond, false, client),
		loopbackSearcher(b, "hung", 0, true, client),
	}
	p, err := policy.NewParallel(ps, &policy.SearchConfig{PerProvider: 200 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	runParallelBench(b, p, 200*time.Millisecond, "hung")
}

// BenchmarkParallel_InMemory measures the policy's own cost: three
// in-memory providers answering at once with ten results each, merged.
func BenchmarkParallel_InMemory(b *testing.B) {
	var ps []provider.Searcher
	for i := range 3 {
		var urls []string
		for j := range 10 {
			urls = append(urls, fmt.Sprintf("https://ex%d.example/%d?utm_source=x", (i+j)%4, j))
		}
		ps = append(ps, newFake(fmt.Sprintf("p%d", i), urls...))
	}
	p, err := policy.NewParallel(ps, nil)
	if err != nil {
		b.Fatal(err)
	}
	q := provider.Query{Text: "q", ExcludeDomains: []string{"ex3.example"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Search(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
}
