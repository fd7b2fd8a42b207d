package memory_test

import (
	"context"
	"fmt"
	"time"

	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// A search asked twice within the TTL is answered once by the provider;
// the second answer says when it was fetched.
func ExampleMemory_CacheSearcher() {
	ctx := context.Background()
	st, err := storeurl.Open(ctx, "memory:", nil)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	m := memory.New(&memory.Options{Store: st, Cache: memory.CacheConfig{SearchTTL: memory.DefaultSearchTTL}})

	backend := &searcher{name: "tavily"}
	s := m.CacheSearcher(m.Searcher(memory.Backend{Name: "tavily", Keys: []string{"tvly-…"}}, backend), []string{"tavily"})
	for range 2 {
		res, _ := s.Search(ctx, provider.Query{Text: "go generics"})
		fmt.Printf("%d result(s), from the cache: %v\n", len(res.Results), !res.Cached.IsZero())
	}
	fmt.Println("provider calls:", backend.calls.Load())
	// Output:
	// 1 result(s), from the cache: false
	// 1 result(s), from the cache: true
	// provider calls: 1
}

// A provider whose monthly budget is spent is skipped without a request.
func ExampleMemory_Searcher() {
	ctx := context.Background()
	st, _ := storeurl.Open(ctx, "memory:", nil)
	defer st.Close()
	m := memory.New(&memory.Options{Store: st, Budgets: map[string]int64{"exa": 1}, Now: func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }})
	s := m.Searcher(memory.Backend{Name: "exa", Keys: []string{"k"}}, &searcher{name: "exa"})
	s.Search(ctx, provider.Query{Text: "q"})
	_, err := s.Search(ctx, provider.Query{Text: "q"})
	fmt.Println(err)
	fmt.Println(m.Notices())
	// Output:
	// exa search: quota: skipped: monthly budget of 1 requests reached (1 used)
	// [exa reached its monthly budget of 1 requests and is skipped until next month]
}
