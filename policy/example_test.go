package policy_test

import (
	"context"
	"fmt"
	"time"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

// staticSearcher answers every query with fixed URLs, or fails with a
// fixed kind.
type staticSearcher struct {
	name string
	urls []string
	kind provider.Kind
}

func (s staticSearcher) Name() string { return s.name }

func (s staticSearcher) Search(_ context.Context, q provider.Query) (*provider.Results, error) {
	if s.kind != "" {
		return nil, &provider.Error{Provider: s.name, Op: "search", Kind: s.kind}
	}
	res := &provider.Results{Query: q.Text, Provider: s.name}
	for _, u := range s.urls {
		res.Results = append(res.Results, provider.Result{URL: u, Title: u, Provider: s.name})
	}
	return res, nil
}

// staticExtractor returns fixed content for every URL.
type staticExtractor struct{ name, content string }

func (s staticExtractor) Name() string { return s.name }

func (s staticExtractor) Extract(_ context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	return &provider.Page{URL: req.URL, Content: s.content, Provider: s.name}, nil
}

func ExampleParallel() {
	tavily := staticSearcher{name: "tavily", urls: []string{"https://go.dev/doc/", "https://pkg.go.dev/context"}}
	wsa := staticSearcher{name: "websearchapi", urls: []string{"https://go.dev/doc", "https://evil.example/", "https://pkg.go.dev/context?utm_source=x"}}
	exa := staticSearcher{name: "exa", kind: provider.KindQuota}

	search, err := policy.NewParallel([]provider.Searcher{tavily, wsa, exa}, &policy.SearchConfig{PerProvider: 5 * time.Second})
	if err != nil {
		panic(err)
	}
	res, err := search.Search(context.Background(), provider.Query{
		Text:           "go context",
		ExcludeDomains: []string{"evil.example"}, // enforced even if a provider ignores it
	})
	if err != nil {
		panic(err)
	}
	for _, r := range res.Results {
		fmt.Printf("%s %v %.4f\n", r.URL, r.Providers, r.Score)
	}
	for _, f := range res.Failures {
		fmt.Println("failed:", f.Provider, f.Kind)
	}
	// Output:
	// https://go.dev/doc/ [tavily websearchapi] 0.0328
	// https://pkg.go.dev/context [tavily websearchapi] 0.0323
	// failed: exa quota
}

func ExampleFallback() {
	tavily := staticSearcher{name: "tavily", kind: provider.KindRateLimited}
	wsa := staticSearcher{name: "websearchapi", urls: []string{"https://go.dev/blog/"}}

	debug := func(t policy.Trace) {
		for _, a := range t.Attempts {
			fmt.Printf("tried %s: kind=%q results=%d\n", a.Provider, a.Kind, a.Results)
		}
	}
	search, err := policy.NewSearch(policy.ModeFallback, []provider.Searcher{tavily, wsa}, &policy.SearchConfig{
		Hedge:    time.Second, // start the next provider if one is slow
		Observer: debug,
	})
	if err != nil {
		panic(err)
	}
	res, err := search.Search(context.Background(), provider.Query{Text: "go blog"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Provider, res.Results[0].URL)
	fmt.Println("failed before:", res.Failures[0].Provider, res.Failures[0].Kind)
	// Output:
	// tried tavily: kind="rate-limited" results=0
	// tried websearchapi: kind="" results=1
	// websearchapi https://go.dev/blog/
	// failed before: tavily rate-limited
}

func ExampleExtraction() {
	blank := staticExtractor{name: "tavily", content: "   "}
	exa := staticExtractor{name: "exa", content: "# Context\n\nPackage context defines the Context type."}

	// Without a primary the first extractor is picked at random for each
	// call; here tavily is the primary, and its blank page counts as a
	// failure.
	extract, err := policy.NewExtraction([]provider.Extractor{blank, exa}, &policy.ExtractConfig{Primary: "tavily"})
	if err != nil {
		panic(err)
	}
	page, err := extract.Extract(context.Background(), provider.ExtractRequest{URL: "https://pkg.go.dev/context"})
	if err != nil {
		panic(err)
	}
	fmt.Println(page.Provider)
	fmt.Println(page.Content)
	// Output:
	// exa
	// # Context
	//
	// Package context defines the Context type.
}

func ExampleFilterDomains() {
	results := []provider.Result{
		{URL: "https://docs.github.com/en"},
		{URL: "https://notgithub.com/"},
		{URL: "https://www.github.com/golang/go"},
	}
	for _, r := range policy.FilterDomains(results, []string{"github.com"}, nil) {
		fmt.Println(r.URL)
	}
	// Output:
	// https://docs.github.com/en
	// https://www.github.com/golang/go
}
