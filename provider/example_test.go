package provider_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/webgate-dev/webgate/provider"
)

// A caller decides what to do from an error's kind; the class is what a
// user is shown.
func ExampleKindOf() {
	errs := []error{
		&provider.Error{Provider: "tavily", Op: "search", Kind: provider.KindQuota, Status: 432},
		fmt.Errorf("fallback: %w", &provider.Error{Provider: "exa", Kind: provider.KindRateLimited, Status: 429}),
		context.Canceled,
		nil,
	}
	for _, err := range errs {
		k := provider.KindOf(err)
		fmt.Printf("%q retry=%v other-key=%v class=%s\n", k, k.Retryable(), k.Rotatable(), k.Class())
	}
	// Output:
	// "quota" retry=false other-key=true class=credit-or-quota-failed
	// "rate-limited" retry=true other-key=true class=rate-limited
	// "canceled" retry=false other-key=false class=unknown
	// "" retry=false other-key=false class=unknown
}

// A backend makes one call to HTTP.Do per logical request; Do rotates keys,
// retries and classifies. Here the first key is revoked and the second
// works.
func ExampleHTTP_Do() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer revoked-key" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"results":[]}`)
	}))
	defer srv.Close()

	keys := provider.NewPool([]string{"revoked-key", "good-key"}, &provider.PoolConfig{Order: provider.RoundRobin})
	h := provider.NewHTTP(nil)
	resp, err := h.Do(context.Background(), keys, provider.Request{
		Provider: "example", Op: "search", URL: srv.URL + "/search", Body: []byte(`{"query":"go"}`),
		Auth: func(h http.Header, k provider.Key) { h.Set("Authorization", "Bearer "+k.Secret()) },
	})
	if err != nil {
		fmt.Println(provider.KindOf(err))
		return
	}
	fmt.Println(resp.Status, resp.Key, resp.Attempts, keys.Outcomes(1))
	// Output:
	// 200 key#2 2 map[auth:1]
}

// ParseKeys reads the key specifications users write.
func ExampleParseKeys() {
	keys, _ := provider.ParseKeys("tvly-one|tvly-two")
	pool := provider.NewPool(keys, nil)
	fmt.Println(pool.Len(), pool.Keys(context.Background())[0].Index() > 0)
	// Output:
	// 2 true
}
