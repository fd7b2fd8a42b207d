package jina_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/jina"
)

// fakeJina stands in for r.jina.ai and s.jina.ai: POST / reads a page,
// GET /?q=… searches, answering from testdata. Like Jina Search, it
// refuses a search without a key.
func fakeJina() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file := "testdata/reader_ok.json"
		if r.Method == http.MethodGet {
			if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = w.Write([]byte(`{"data":null,"code":401,"name":"AuthenticationRequiredError","status":40103,"message":"Authentication is required to use this endpoint."}`))
				return
			}
			file = "testdata/search_ok.json"
		}
		body, err := os.ReadFile(file)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
}

func Example() {
	api := fakeJina() // in production, leave ReaderURL and SearchURL empty
	defer api.Close()

	keys := provider.NewPool([]string{"jina_key-one"}, nil)
	client, err := jina.New(keys, &jina.Config{ReaderURL: api.URL, SearchURL: api.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	res, err := client.Search(ctx, provider.Query{Text: "go language", MaxResults: 2, Country: "us"})
	if err != nil {
		fmt.Println(provider.KindOf(err), err)
		return
	}
	for _, r := range res.Results {
		fmt.Printf("%.2f %s %s\n", r.Score, r.URL, r.Title)
	}
	// Output:
	// 1.00 https://go.dev/ The Go Programming Language
	// 0.50 https://en.wikipedia.org/wiki/Go_(programming_language) Go (programming language) - Wikipedia
}

func ExampleClient_Extract() {
	api := fakeJina()
	defer api.Close()

	// No keys: the reader works anonymously, at Jina's lower rate limit.
	client, err := jina.New(nil, &jina.Config{ReaderURL: api.URL, SearchURL: api.URL, RemoveSelector: "nav, footer"})
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

	// Search, unlike the reader, needs a key.
	_, err = client.Search(context.Background(), provider.Query{Text: "go language"})
	fmt.Println(provider.KindOf(err))
	// Output:
	// An article (markdown)
	// # An article
	//
	// The article's first paragraph.
	//
	// Its second paragraph.
	// auth
}
