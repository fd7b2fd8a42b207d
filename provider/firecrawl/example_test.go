package firecrawl_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/firecrawl"
)

// Extract reads one page as Markdown through /v2/scrape. The fake server
// stands in for api.firecrawl.dev, or a self-hosted instance.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"success":true,"data":{"markdown":"# Go Concurrency Patterns: Context\n\nIn Go servers...",
		  "metadata":{"title":"Go Concurrency Patterns: Context - The Go Programming Language","sourceURL":"https://go.dev/blog/context",
		  "url":"https://go.dev/blog/context","statusCode":200,"contentType":"text/html; charset=utf-8"}}}`)
	}))
	defer srv.Close()

	keys := provider.NewPool([]string{"fc-example-key"}, nil)
	client, err := firecrawl.New(keys, &firecrawl.Config{BaseURL: srv.URL})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	page, err := client.Extract(context.Background(), provider.ExtractRequest{URL: "https://go.dev/blog/context"})
	if err != nil {
		fmt.Println(provider.KindOf(err))
		return
	}
	fmt.Println(page.Title)
	fmt.Println(page.Format, "via", page.Provider)
	// Output:
	// Go Concurrency Patterns: Context - The Go Programming Language
	// markdown via firecrawl
}

// Firecrawl answers 200 when the target page itself failed; the page's
// status code in the metadata makes the extraction unsupported, so a
// caller can try another extractor.
func ExampleClient_Extract_targetFailed() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"success":true,"data":{"markdown":"# Not Found","metadata":{"sourceURL":"https://example.org/gone","statusCode":404,"error":"Not Found"}}}`)
	}))
	defer srv.Close()

	client, _ := firecrawl.New(provider.NewPool([]string{"fc-example-key"}, nil), &firecrawl.Config{BaseURL: srv.URL})
	_, err := client.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.org/gone"})
	fmt.Println(provider.KindOf(err))
	fmt.Println(err)
	// Output:
	// unsupported
	// firecrawl extract: unsupported (HTTP 200): Firecrawl could not read the page (the site answered HTTP 404): Not Found
}

// Search returns web results; a spent plan is a quota failure, and the key
// never appears in the error.
func ExampleClient_Search() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") == "Bearer fc-spent-key" {
			w.WriteHeader(http.StatusPaymentRequired)
			fmt.Fprint(w, `{"success":false,"error":"Insufficient credits to perform this request."}`)
			return
		}
		fmt.Fprint(w, `{"success":true,"data":{"web":[{"url":"https://pkg.go.dev/context","title":"context package","description":"Package context defines the Context type."}]},"creditsUsed":2,"id":"01928a7e"}`)
	}))
	defer srv.Close()

	for _, key := range []string{"fc-good-key", "fc-spent-key"} {
		client, _ := firecrawl.New(provider.NewPool([]string{key}, nil), &firecrawl.Config{BaseURL: srv.URL, MaxResults: 3})
		res, err := client.Search(context.Background(), provider.Query{Text: "golang context", TimeRange: provider.PastYear})
		if err != nil {
			fmt.Println(provider.ClassOf(err), "-", err)
			continue
		}
		for _, r := range res.Results {
			fmt.Printf("%s <%s>\n", r.Title, r.URL)
		}
	}
	// Output:
	// context package <https://pkg.go.dev/context>
	// credit-or-quota-failed - firecrawl search: quota (HTTP 402): Insufficient credits to perform this request.
}
