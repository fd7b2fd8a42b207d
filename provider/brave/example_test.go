package brave_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/brave"
)

// A program searches with Brave and decides what to do from the failure's
// kind, never from its message. The fake server stands in for
// api.search.brave.com.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"type":"search","query":{"original":"golang context"},
		  "web":{"type":"search","results":[{"title":"context package - context - Go Packages","url":"https://pkg.go.dev/context",
		  "description":"Package context defines the Context type.","page_age":"2025-03-04T09:00:00"}]}}`)
	}))
	defer srv.Close()

	keys := provider.NewPool([]string{"BSA-example-key"}, nil)
	client, err := brave.New(keys, &brave.Config{BaseURL: srv.URL, MaxResults: 5})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	res, err := client.Search(context.Background(), provider.Query{Text: "golang context", Country: "us"})
	switch provider.KindOf(err) {
	case "":
		for _, r := range res.Results {
			fmt.Printf("%s <%s> via %s, %s\n", r.Title, r.URL, r.Provider, r.Published.Format("2006-01-02"))
		}
	case provider.KindAuth, provider.KindQuota:
		fmt.Println("configure another key:", provider.ClassOf(err))
	default:
		fmt.Println("search failed:", err)
	}
	// Output:
	// context package - context - Go Packages <https://pkg.go.dev/context> via brave, 2025-03-04
}

// Brave answers both rate limiting and a spent quota with HTTP 429; the
// error code in the body tells them apart. The key never appears in the
// error.
func ExampleClient_Search_quota() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"type":"ErrorResponse","error":{"id":"4c1d","status":429,"code":"QUOTA_LIMITED",
		  "detail":"Request quota limit exceeded for plan.","meta":{"plan":"Free","rate_limit":1,"rate_current":1,"quota_limit":2000,"quota_current":2000}},"time":1725600000}`)
	}))
	defer srv.Close()

	client, _ := brave.New(provider.NewPool([]string{"BSA-example-key"}, nil), &brave.Config{BaseURL: srv.URL})
	_, err := client.Search(context.Background(), provider.Query{Text: "golang context"})
	fmt.Println(provider.KindOf(err), provider.ClassOf(err))
	fmt.Println(err)
	// Output:
	// quota credit-or-quota-failed
	// brave search: quota (HTTP 429 QUOTA_LIMITED): Request quota limit exceeded for plan. [request 4c1d]
}

// Brave has no domain filter parameter: the domains become site: operators
// in the query, and results outside them are dropped.
func ExampleClient_Search_domains() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("q =", r.URL.Query().Get("q"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"type":"search","web":{"results":[
		  {"title":"Go blog","url":"https://go.dev/blog/context"},
		  {"title":"Mirror","url":"https://mirror.example.com/context"}]}}`)
	}))
	defer srv.Close()

	client, _ := brave.New(provider.NewPool([]string{"BSA-example-key"}, nil), &brave.Config{BaseURL: srv.URL})
	res, err := client.Search(context.Background(), provider.Query{Text: "context", IncludeDomains: []string{"go.dev"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Results {
		fmt.Println(r.URL)
	}
	// Output:
	// q = context site:go.dev
	// https://go.dev/blog/context
}
