package websearchapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/websearchapi"
)

// fakeWebSearchAPI answers /ai-search and /scrape from testdata, standing
// in for https://api.websearchapi.ai.
func fakeWebSearchAPI() *httptest.Server {
	files := map[string]string{"/ai-search": "testdata/search_ok.json", "/scrape": "testdata/scrape_ok.json"}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := os.ReadFile(files[r.URL.Path])
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
}

func Example() {
	api := fakeWebSearchAPI() // in production, leave BaseURL empty
	defer api.Close()

	keys := provider.NewPool([]string{"key-one", "key-two"}, nil)
	client, err := websearchapi.New(keys, &websearchapi.Config{BaseURL: api.URL, IncludeAnswer: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	res, err := client.Search(ctx, provider.Query{Text: "go language", MaxResults: 2, TimeRange: provider.PastYear})
	if err != nil {
		fmt.Println(provider.KindOf(err), err)
		return
	}
	fmt.Println(res.Answer)
	for _, r := range res.Results {
		fmt.Printf("%.2f %s %s\n", r.Score, r.URL, r.Published.Format(time.DateOnly))
	}
	// Output:
	// Go is an open source programming language designed at Google.
	// 0.93 https://go.dev/ 2024-03-05
	// 0.50 https://en.wikipedia.org/wiki/Go_(programming_language) 2024-03-05
}

func ExampleClient_Extract() {
	api := fakeWebSearchAPI()
	defer api.Close()

	client, err := websearchapi.New(provider.NewPool([]string{"key-one"}, nil), &websearchapi.Config{
		BaseURL:        api.URL,
		ScrapeEngine:   "direct",
		RemoveSelector: "nav, footer",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	page, err := client.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.org/article"})
	switch provider.KindOf(err) {
	case "":
		fmt.Printf("%s (%s)\n%s\n", page.Title, page.Format, page.Content)
	case provider.KindUnsupported:
		fmt.Println("the page could not be read; try another extractor")
	default:
		fmt.Println(err)
	}
	// Output:
	// An article (markdown)
	// # An article
	//
	// The article's first paragraph.
	//
	// Its second paragraph.
}
