package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// A key's health record is updated atomically, even when several hook
// processes report failures at once. The key is named by its fingerprint.
func ExampleStore_Update() {
	ctx := context.Background()
	s, _ := storeurl.Open(ctx, "memory:", nil)
	defer s.Close()

	type health struct {
		Failures int    `json:"failures"`
		Status   string `json:"status"`
	}
	key := "health/tavily/" + store.Fingerprint([]byte("tvly-example-key"), []byte("installation salt"))
	for range 3 {
		_, err := s.Update(ctx, key, time.Hour, func(cur []byte, found bool) ([]byte, error) {
			var h health
			if found {
				if err := json.Unmarshal(cur, &h); err != nil {
					return nil, err
				}
			}
			h.Failures++
			if h.Failures >= 3 {
				h.Status = "cooldown"
			}
			return json.Marshal(h)
		})
		if err != nil {
			fmt.Println(err)
		}
	}
	e, _ := s.Get(ctx, key)
	fmt.Println(string(e.Value))
	// Output:
	// {"failures":3,"status":"cooldown"}
}

// One call's usage is recorded in one atomic batch; a day's counters
// expire on their own.
func ExampleStore_IncrMany() {
	ctx := context.Background()
	s, _ := storeurl.Open(ctx, "memory:", nil)
	defer s.Close()
	for _, results := range []int64{5, 3} {
		_, err := s.IncrMany(ctx, map[string]int64{
			"usage/2026-03-01/tavily/requests":   1,
			"usage/2026-03-01/tavily/results":    results,
			"usage/2026-03-01/tavily/latency_ms": 400,
		}, 40*24*time.Hour)
		if err != nil {
			fmt.Println(err)
		}
	}
	usage, _ := s.Counters(ctx, "usage/2026-03-01/tavily/")
	fmt.Println(usage)
	// Output:
	// map[usage/2026-03-01/tavily/latency_ms:800 usage/2026-03-01/tavily/requests:2 usage/2026-03-01/tavily/results:8]
}

// The decision log keeps the newest records; List shows the last few.
func ExampleStore_List() {
	ctx := context.Background()
	s, _ := storeurl.Open(ctx, "memory:", nil)
	defer s.Close()
	keep := store.Retention{MaxRecords: 1000, MaxAge: 7 * 24 * time.Hour}
	for _, d := range []string{"search: tavily", "search: exa (tavily cooling down)", "fetch: cache hit"} {
		if _, err := s.Append(ctx, "decisions", []byte(d), keep); err != nil {
			fmt.Println(err)
		}
	}
	recent, _ := s.List(ctx, "decisions", store.ListQuery{Limit: 2})
	for _, r := range recent {
		fmt.Println(r.ID, string(r.Data))
	}
	// Output:
	// 2 search: exa (tavily cooling down)
	// 3 fetch: cache hit
}

// A cache bounded to 2 entries keeps the newest.
func ExampleBound() {
	ctx := context.Background()
	s, _ := storeurl.Open(ctx, "memory:", &store.Options{Bounds: []store.Bound{{Prefix: "cache/", MaxEntries: 2}}})
	defer s.Close()
	for _, q := range []string{"a", "b", "c"} {
		s.Set(ctx, "cache/"+q, []byte("results for "+q), time.Hour)
	}
	for _, q := range []string{"a", "b", "c"} {
		_, err := s.Get(ctx, "cache/"+q)
		fmt.Println(q, err == nil)
	}
	// Output:
	// a false
	// b true
	// c true
}

// Failed separates the store's failures, after which a caller proceeds
// without it, from its answers.
func ExampleFailed() {
	ctx := context.Background()
	s, _ := storeurl.Open(ctx, "memory:", nil)
	_, miss := s.Get(ctx, "cache/none")
	s.Close()
	_, closed := s.Get(ctx, "cache/none")
	fmt.Println(store.Failed(miss), store.Failed(closed))
	fmt.Println(closed)
	// Output:
	// false true
	// store memory get: closed
}

// Clear empties a namespace, as `webgate cache clear` does.
func ExampleStore_Clear() {
	ctx := context.Background()
	s, _ := storeurl.Open(ctx, "memory:", nil)
	defer s.Close()
	s.Set(ctx, "cache/search/1", []byte("…"), time.Hour)
	s.Set(ctx, "cache/search/2", []byte("…"), time.Hour)
	s.Set(ctx, "health/exa", []byte("ok"), 0)
	n, err := s.Clear(ctx, "cache/")
	fmt.Println(n, err)
	// Output:
	// 2 <nil>
}
