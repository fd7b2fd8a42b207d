package policy_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

// fakeSearcher is an in-memory searcher with scripted latency and outcome.
// It ignores the query's domain filters (a "leaky" provider) but records
// the query it was given.
type fakeSearcher struct {
	name    string
	results []provider.Result
	answer  string
	err     error
	// delay is how long the search takes; the search honours ctx meanwhile.
	delay time.Duration
	// block makes the search wait for ctx to end (a hung provider that
	// honours its context).
	block bool
	// ignoreCtx, when set, makes the search wait on it whatever ctx does (a
	// hung provider that ignores its context). Tests close it on cleanup.
	ignoreCtx chan struct{}
	// panicWith makes the search panic with this value.
	panicWith any

	calls    atomic.Int32
	mu       sync.Mutex
	started  time.Time
	query    provider.Query
	ctxEnded chan struct{} // closed when the search saw ctx end
	endOnce  sync.Once
}

func newFake(name string, urls ...string) *fakeSearcher {
	f := &fakeSearcher{name: name, ctxEnded: make(chan struct{})}
	for _, u := range urls {
		f.results = append(f.results, provider.Result{Title: name + " " + u, URL: u, Snippet: "from " + name, Provider: name})
	}
	return f
}

func (f *fakeSearcher) Name() string { return f.name }

func (f *fakeSearcher) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.started, f.query = time.Now(), q
	f.mu.Unlock()
	if f.panicWith != nil {
		panic(f.panicWith)
	}
	if f.ignoreCtx != nil {
		<-f.ignoreCtx
		return nil, &provider.Error{Provider: f.name, Kind: provider.KindTransient, Message: "released"}
	}
	var wait <-chan time.Time
	switch {
	case f.block:
		// never answers on its own
	case f.delay > 0:
		wait = time.After(f.delay)
	default:
		c := make(chan time.Time, 1)
		c <- time.Time{}
		wait = c
	}
	select {
	case <-wait:
	case <-ctx.Done():
		f.endOnce.Do(func() { close(f.ctxEnded) })
		return nil, ctx.Err()
	}
	if f.err != nil {
		return nil, f.err
	}
	return &provider.Results{Query: q.Text, Results: append([]provider.Result(nil), f.results...), Answer: f.answer, Provider: f.name}, nil
}

func (f *fakeSearcher) startedAt() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started
}

func (f *fakeSearcher) lastQuery() provider.Query {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.query
}

// hangIgnoringContext makes f hang until the test ends, whatever its
// context says.
func (f *fakeSearcher) hangIgnoringContext(t *testing.T) *fakeSearcher {
	f.ignoreCtx = make(chan struct{})
	t.Cleanup(func() { close(f.ignoreCtx) })
	return f
}

// failing returns a fake that fails with kind k.
func failing(name string, k provider.Kind) *fakeSearcher {
	f := newFake(name)
	f.err = &provider.Error{Provider: name, Op: "search", Kind: k, Message: "scripted " + string(k)}
	return f
}

// fakeExtractor is an in-memory extractor with scripted latency and outcome.
type fakeExtractor struct {
	name      string
	content   string
	err       error
	block     bool
	ignoreCtx chan struct{}
	calls     atomic.Int32
}

func (f *fakeExtractor) Name() string { return f.name }

func (f *fakeExtractor) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	f.calls.Add(1)
	if f.ignoreCtx != nil {
		<-f.ignoreCtx
		return nil, &provider.Error{Provider: f.name, Kind: provider.KindTransient, Message: "released"}
	}
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if f.err != nil {
		return nil, f.err
	}
	return &provider.Page{URL: req.URL, Title: "t", Content: f.content, Format: provider.Markdown, Provider: f.name}, nil
}

// urlsOf lists the URLs of results, in order.
func urlsOf(rs []provider.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.URL
	}
	return out
}

// kindsOf lists the providers and kinds of failures, as "name:kind".
func kindsOf(fs []provider.Failure) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Provider + ":" + string(f.Kind)
	}
	return out
}

// recorder is an Observer that keeps every trace.
type recorder struct {
	mu     sync.Mutex
	traces []policy.Trace
}

func (r *recorder) observe(tr policy.Trace) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tr.Attempts = append([]policy.Attempt(nil), tr.Attempts...)
	r.traces = append(r.traces, tr)
}

func (r *recorder) only(t *testing.T) policy.Trace {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.traces) != 1 {
		t.Fatalf("observer called %d times, want 1", len(r.traces))
	}
	return r.traces[0]
}
