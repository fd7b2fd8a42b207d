package webtools_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/provider"
)

// searcherFunc is a provider.Searcher made of a function.
type searcherFunc func(ctx context.Context, q provider.Query) (*provider.Results, error)

func (f searcherFunc) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	return f(ctx, q)
}

func TestSearch_CleansEveryTextAndDropsResultsThatAreNotWebLinks(t *testing.T) {
	tools := &webtools.Tools{Searcher: searcherFunc(func(context.Context, provider.Query) (*provider.Results, error) {
		return &provider.Results{Provider: "fake\x1b[31m", Results: []provider.Result{
			{Title: "\x1b[1mBold\x1b[0m \u202etitle", URL: " https://ok.example/a ", Snippet: "line\none \x1b]0;t\a\u2066x\u2069", Providers: []string{"p\x1b[2J"}},
			{Title: "js", URL: "javascript:alert(1)"},
			{Title: "data", URL: "data:text/html,x"},
			{Title: "file", URL: "file:///etc/passwd"},
			{Title: "relative", URL: "/x"},
			{Title: "creds", URL: "https://u:p@ok.example/"},
			{Title: "second", URL: "http://ok.example/b", Content: "content \x08\x08used"},
		}}, nil
	})}
	res, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q\x1b[31m", MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 {
		t.Fatalf("results = %+v, want the two web links", res.Results)
	}
	h := res.Results[0]
	if h.Title != "Bold title" || h.URL != "https://ok.example/a" || h.Snippet != "line one x" || h.Providers[0] != "p" {
		t.Errorf("first hit = %+v", h)
	}
	if res.Results[1].URL != "http://ok.example/b" || res.Results[1].Snippet != "content used" {
		t.Errorf("second hit = %+v", res.Results[1])
	}
	if res.Query != "q" || res.Provider != "fake" {
		t.Errorf("query %q, provider %q", res.Query, res.Provider)
	}
	if text := res.Text(); sanitize.Text(text) != text {
		t.Errorf("text is not clean: %q", text)
	}
}

func TestSearch_AnswersWithinItsDeadlineEvenWhenTheSearcherIgnoresIt(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	tools := &webtools.Tools{SearchTimeout: 200 * time.Millisecond, Searcher: searcherFunc(func(context.Context, provider.Query) (*provider.Results, error) {
		<-release
		return nil, nil
	})}
	start := time.Now()
	_, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q"})
	if took := time.Since(start); took > time.Second {
		t.Errorf("answered after %v with a 200ms deadline", took)
	}
	e := reasonOf(t, err)
	if !e.TimedOut || !strings.HasPrefix(e.Message, "The web search did not finish within its 200ms deadline.") {
		t.Errorf("error = %+v", e)
	}
}

func TestSearch_ADeadlineErrorNamesTheProvidersThatFailed(t *testing.T) {
	tools := &webtools.Tools{SearchTimeout: 100 * time.Millisecond, Searcher: searcherFunc(func(ctx context.Context, _ provider.Query) (*provider.Results, error) {
		<-ctx.Done()
		return nil, &provider.Error{Provider: "slowpoke", Op: "search", Kind: provider.KindTransient, Err: ctx.Err(), Message: "deadline exceeded"}
	})}
	_, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q"})
	e := reasonOf(t, err)
	if !e.TimedOut || e.Reason != webtools.ProviderFailed || !strings.Contains(e.Message, "within its 100ms deadline") || !strings.Contains(e.Message, "slowpoke (transient-provider-failed)") {
		t.Errorf("error = %+v", e)
	}
}

func TestSearch_ACallersCancellationIsNoTimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	tools := &webtools.Tools{Searcher: searcherFunc(func(ctx context.Context, _ provider.Query) (*provider.Results, error) {
		cancel()
		<-ctx.Done()
		return nil, &provider.Error{Provider: "p", Op: "search", Kind: provider.KindCanceled, Err: ctx.Err()}
	})}
	_, err := tools.Search(ctx, webtools.SearchRequest{Query: "q"})
	if e := reasonOf(t, err); e.TimedOut {
		t.Errorf("error = %+v, want no timeout", e)
	}
}

func TestSearch_APanickingSearcherIsAnError(t *testing.T) {
	tools := &webtools.Tools{Searcher: searcherFunc(func(context.Context, provider.Query) (*provider.Results, error) {
		panic("boom")
	})}
	_, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q"})
	if e := reasonOf(t, err); e.Class != provider.ClassUnknown {
		t.Errorf("error = %+v", e)
	}
}
