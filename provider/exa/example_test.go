package exa_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/exa"
)

// A stand-in for api.exa.ai, answering on 127.0.0.1.
func exampleServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/search":
			io.WriteString(w, `{"requestId":"req-1","searchType":"neural","results":[
				{"url":"https://go.dev/doc/","title":"Documentation - The Go Programming Language","score":0.71,
				 "publishedDate":null,"text":"The Go programming language is an open source project."}],
				"costDollars":{"total":0.006}}`)
		case "/contents":
			io.WriteString(w, `{"requestId":"req-2","results":[
				{"id":"https://go.dev/doc/","url":"https://go.dev/doc/","title":"Documentation","text":"The Go programming language is an open source project."}],
				"statuses":[{"id":"https://go.dev/doc/","status":"success","source":"cached"}]}`)
		}
	}))
}

func Example() {
	srv := exampleServer()
	defer srv.Close()

	keys := provider.NewPool([]string{"your-exa-key"}, nil)
	client, err := exa.New(keys, &exa.Config{BaseURL: srv.URL, NumResults: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	res, err := client.Search(ctx, provider.Query{Text: "go documentation", TimeRange: provider.PastYear})
	if err != nil {
		fmt.Println(provider.KindOf(err), err)
		return
	}
	for _, r := range res.Results {
		fmt.Printf("%s\n  %s\n  %s\n", r.Title, r.URL, r.Snippet)
	}

	page, err := client.Extract(ctx, provider.ExtractRequest{URL: "https://go.dev/doc/"})
	if err != nil {
		fmt.Println(provider.KindOf(err), err)
		return
	}
	fmt.Printf("%s (%s): %s\n", page.Title, page.Format, page.Content)
	// Output:
	// Documentation - The Go Programming Language
	//   https://go.dev/doc/
	//   The Go programming language is an open source project.
	// Documentation (markdown): The Go programming language is an open source project.
}
