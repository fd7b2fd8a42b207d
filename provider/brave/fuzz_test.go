package brave

import (
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// FuzzDecodeSearch feeds arbitrary bodies through everything the client
// does with a web search answer: the status check, decoding and mapping
// with a domain filter. None may panic; every error has a kind; every
// mapped result has a URL inside the filter, a title, a finite score and
// single-line text. The committed corpus in testdata/fuzz adds Brave's odd
// shapes to the fixtures.
func FuzzDecodeSearch(f *testing.F) {
	providertest.AddSeeds(f, filepath.Join("testdata", "search_*.json"))
	for _, b := range providertest.Seeds() {
		f.Add(b)
	}
	filter := domainFilter{include: []string{"go.dev", "example.org", "search.brave.com"}, exclude: []string{"blog.go.dev"}}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, status := range []int{200, 404, 422, 429, 500} {
			e := check(&provider.Response{Status: status, Body: body})
			if e != nil && !slices.Contains(provider.Kinds, e.Kind) {
				t.Fatalf("check gave kind %q for HTTP %d", e.Kind, status)
			}
			if status != 200 && e == nil {
				t.Fatalf("check accepted HTTP %d", status)
			}
		}
		sr, err := decodeSearch(body)
		if err != nil {
			return
		}
		res := toResults(sr, "q", filter)
		if res.Results == nil || res.Provider != Name {
			t.Fatalf("mapped %+v", res)
		}
		for _, r := range res.Results {
			if r.URL == "" || r.Title == "" || r.Provider != Name {
				t.Fatalf("mapped result %+v lacks a URL, title or provider", r)
			}
			if !filter.keeps(r.URL) {
				t.Fatalf("result %q is outside the domain filter", r.URL)
			}
			if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) || r.Score <= 0 || r.Score > 1 {
				t.Fatalf("result %q has score %v", r.URL, r.Score)
			}
			if utf8.ValidString(string(body)) && (strings.ContainsAny(r.Title, "\n\t") || strings.ContainsAny(r.Snippet, "\n\t")) {
				t.Fatalf("title %q or snippet %q spans lines", r.Title, r.Snippet)
			}
			if !r.Published.IsZero() && r.Published.Year() < 1970 {
				t.Fatalf("result %q has date %v", r.URL, r.Published)
			}
		}
	})
}

// FuzzRateLimitWait feeds arbitrary X-RateLimit-* header values to the
// wait computation: it must never panic, and the wait is never negative
// nor longer than maxReset.
func FuzzRateLimitWait(f *testing.F) {
	f.Add("1, 15000", "1;w=1, 15000;w=2592000", "0, 1000", "1, 1419704")
	f.Add("1, 0", "1;w=1, 0;w=2592000", "1, 0", "1, 1419704")
	f.Add("", "", "0", "1e309")
	f.Add("NaN", ";w=;w=-1,,", "-0, +0, 0x1p-2", "Inf, 9e18, 0.0000001")
	f.Fuzz(func(t *testing.T, limit, policy, remaining, reset string) {
		h := http.Header{}
		h.Set("X-RateLimit-Limit", limit)
		h.Set("X-RateLimit-Policy", policy)
		h.Set("X-RateLimit-Remaining", remaining)
		h.Set("X-RateLimit-Reset", reset)
		d := rateLimitWait(h)
		if d < 0 || d > maxReset {
			t.Fatalf("rateLimitWait = %v for limit %q policy %q remaining %q reset %q", d, limit, policy, remaining, reset)
		}
		e := check(&provider.Response{Status: 429, Header: h, Body: []byte(`{"type":"ErrorResponse","error":{"code":"RATE_LIMITED"}}`)})
		if e.Kind != provider.KindRateLimited || e.RetryAfter != d {
			t.Fatalf("check = %+v, want rate-limited with RetryAfter %v", e, d)
		}
	})
}
