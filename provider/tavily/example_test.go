package tavily_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/tavily"
)

// A program searches with one provider and decides what to do from the
// failure's kind, never from its message. The fake server stands in for
// api.tavily.com.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"query":"golang context","answer":null,"images":[],"response_time":0.5,
		  "results":[{"title":"context package","url":"https://pkg.go.dev/context","content":"Package context defines the Context type.","score":0.9}]}`)
	}))
	defer srv.Close()

	keys := provider.NewPool([]string{"tvly-example-key"}, nil)
	client, err := tavily.New(keys, &tavily.Config{BaseURL: srv.URL, MaxResults: 3})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	res, err := client.Search(context.Background(), provider.Query{Text: "golang context"})
	switch provider.KindOf(err) {
	case "":
		for _, r := range res.Results {
			fmt.Printf("%s <%s> via %s\n", r.Title, r.URL, r.Provider)
		}
	case provider.KindAuth, provider.KindQuota:
		fmt.Println("configure another key:", provider.ClassOf(err))
	default:
		fmt.Println("search failed:", err)
	}
	// Output:
	// context package <https://pkg.go.dev/context> via tavily
}

// Failures carry a kind and its user-facing class; the key never appears in
// the error.
func ExampleClient_Search_quota() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(432)
		fmt.Fprint(w, `{"detail":{"error":"This request exceeds your plan's set usage limit."}}`)
	}))
	defer srv.Close()

	client, _ := tavily.New(provider.NewPool([]string{"tvly-example-key"}, nil), &tavily.Config{BaseURL: srv.URL})
	_, err := client.Search(context.Background(), provider.Query{Text: "golang context"})
	fmt.Println(provider.KindOf(err), provider.ClassOf(err))
	fmt.Println(err)
	// Output:
	// quota credit-or-quota-failed
	// tavily search: quota (HTTP 432): This request exceeds your plan's set usage limit.
}

// Extract reads one page as Markdown; its title is the page's first heading.
func ExampleClient_Extract() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"results":[{"url":"https://go.dev/blog/context","raw_content":"# Go Concurrency Patterns: Context\n\nIn Go servers..."}],"failed_results":[]}`)
	}))
	defer srv.Close()

	client, _ := tavily.New(provider.NewPool([]string{"tvly-example-key"}, nil), &tavily.Config{BaseURL: srv.URL})
	page, err := client.Extract(context.Background(), provider.ExtractRequest{URL: "https://go.dev/blog/context"})
	if err != nil {
		fmt.Println(provider.KindOf(err))
		return
	}
	fmt.Println(page.Title, "|", page.Format)
	// Output:
	// Go Concurrency Patterns: Context | markdown
}
