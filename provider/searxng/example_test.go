package searxng_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/searxng"
)

// fakeInstance answers GET /search?format=json from testdata, standing in
// for a SearXNG instance that serves JSON; with json disabled it answers
// 403 as SearXNG does.
func fakeInstance(jsonEnabled bool) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" {
			http.NotFound(w, r)
			return
		}
		if !jsonEnabled || r.URL.Query().Get("format") != "json" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		body, err := os.ReadFile("testdata/search_ok.json")
		if err != nil {
			http.Error(w, `{"error": "search error"}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
}

func Example() {
	instance := fakeInstance(true) // in production, the URL of your instance
	defer instance.Close()

	client, err := searxng.New(nil, &searxng.Config{BaseURL: instance.URL, Categories: []string{"general"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	res, err := client.Search(ctx, provider.Query{Text: "go language", Language: "en", TimeRange: provider.PastYear})
	if err != nil {
		fmt.Println(provider.KindOf(err), err)
		return
	}
	fmt.Println(res.Answer)
	for _, r := range res.Results {
		fmt.Printf("%.1f %s\n", r.Score, r.URL)
	}
	// Output:
	// Go is a programming language designed at Google.
	// 4.0 https://go.dev/
	// 0.5 https://en.wikipedia.org/wiki/Go_(programming_language)
}

func ExampleClient_Search_jsonDisabled() {
	instance := fakeInstance(false)
	defer instance.Close()

	client, err := searxng.New(nil, &searxng.Config{BaseURL: instance.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.Search(context.Background(), provider.Query{Text: "go language"})
	fmt.Println(provider.KindOf(err))
	fmt.Println(err)
	// Output:
	// bad-request
	// searxng search: bad-request (HTTP 403): the SearXNG instance does not serve JSON: enable the json format under search.formats in its settings.yml
}
