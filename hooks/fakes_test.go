package hooks

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/webgate-dev/webgate/provider"
)

// fakeSearcher answers every search with fn.
type fakeSearcher struct {
	name  string
	fn    func(ctx context.Context, q provider.Query) (*provider.Results, error)
	calls atomic.Int32
	last  atomic.Pointer[provider.Query]
}

func (f *fakeSearcher) Name() string { return f.name }

func (f *fakeSearcher) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	f.calls.Add(1)
	f.last.Store(&q)
	return f.fn(ctx, q)
}

func resultsOf(n int) *provider.Results {
	res := &provider.Results{Provider: "fake"}
	for i := 1; i <= n; i++ {
		res.Results = append(res.Results, provider.Result{
			Title:   fmt.Sprintf("Result number %d", i),
			URL:     fmt.Sprintf("https://example.com/r/%d", i),
			Snippet: fmt.Sprintf("Snippet\n\n for   result %d with some words.", i),
		})
	}
	return res
}

func okSearcher(n int) *fakeSearcher {
	return &fakeSearcher{name: "fake", fn: func(context.Context, provider.Query) (*provider.Results, error) { return resultsOf(n), nil }}
}

// fakeExtractor answers every extraction with fn.
type fakeExtractor struct {
	fn    func(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error)
	calls atomic.Int32
	last  atomic.Pointer[provider.ExtractRequest]
}

func (f *fakeExtractor) Name() string { return "fakex" }

func (f *fakeExtractor) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	f.calls.Add(1)
	f.last.Store(&req)
	return f.fn(ctx, req)
}

func pageExtractor(title, content string) *fakeExtractor {
	return &fakeExtractor{fn: func(_ context.Context, req provider.ExtractRequest) (*provider.Page, error) {
		return &provider.Page{URL: req.URL, Title: title, Content: content, Provider: "fakex"}, nil
	}}
}

// servePage serves h on a loopback test server for the probe.
func servePage(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}
