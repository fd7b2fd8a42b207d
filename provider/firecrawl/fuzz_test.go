package firecrawl

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// seeds adds the JSON fixtures of testdata matching pattern and
// providertest's awkward shapes to f; the committed corpus in testdata/fuzz
// adds Firecrawl's own odd shapes.
func seeds(f *testing.F, pattern string) {
	providertest.AddSeeds(f, filepath.Join("testdata", pattern))
	for _, b := range providertest.Seeds() {
		f.Add(b)
	}
}

// checkAll runs the response check of op over body for a range of
// statuses: none may panic, every failure has a kind of the closed set, a
// message, and a wait that is only set for a rate limit and never
// negative or over maxWait.
func checkAll(t *testing.T, op string, body []byte) {
	for _, status := range []int{200, 400, 402, 403, 408, 429, 500} {
		e := checker(op)(&provider.Response{Status: status, Body: body})
		if e == nil {
			if status != 200 {
				t.Fatalf("%s: check accepted HTTP %d", op, status)
			}
			continue
		}
		if !slices.Contains(provider.Kinds, e.Kind) || e.Kind == provider.KindCanceled || strings.TrimSpace(e.Message) == "" {
			t.Fatalf("%s HTTP %d: check gave %+v", op, status, e)
		}
		if e.RetryAfter < 0 || e.RetryAfter > maxWait || (e.RetryAfter > 0 && e.Kind != provider.KindRateLimited) {
			t.Fatalf("%s HTTP %d: RetryAfter %v with kind %s", op, status, e.RetryAfter, e.Kind)
		}
	}
}

// FuzzDecodeSearch feeds arbitrary bodies through everything the client
// does with a /v2/search answer: the status check, decoding and mapping
// with an exclusion list. Every mapped result must have a URL outside the
// excluded domains, a single-line title, a finite score and content within
// the cap.
func FuzzDecodeSearch(f *testing.F) {
	seeds(f, "search_*.json")
	exclude := []string{"example.com"}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAll(t, opSearch, body)
		sr, err := decodeSearch(body)
		if err != nil {
			return
		}
		res := toResults(sr, "q", exclude, 10)
		if res.Results == nil || res.Provider != Name {
			t.Fatalf("mapped %+v", res)
		}
		for _, r := range res.Results {
			if r.URL == "" || r.Title == "" || r.Provider != Name {
				t.Fatalf("mapped result %+v lacks a URL, title or provider", r)
			}
			if excluded(r.URL, exclude) {
				t.Fatalf("result %q is on an excluded domain", r.URL)
			}
			if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) || r.Score <= 0 || r.Score > 1 {
				t.Fatalf("result %q has score %v", r.URL, r.Score)
			}
			if utf8.ValidString(string(body)) && (strings.ContainsAny(r.Title, "\n\t") || utf8.RuneCountInString(r.Content) > 10) {
				t.Fatalf("title %q spans lines or content %q exceeds the cap", r.Title, r.Content)
			}
		}
	})
}

// FuzzDecodeScrape does the same for /v2/scrape answers: the check, the
// decoding, the target-failure test and the title derivation.
func FuzzDecodeScrape(f *testing.F) {
	seeds(f, "scrape_*.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAll(t, opExtract, body)
		sr, err := decodeScrape(body)
		if err != nil {
			return
		}
		failed, msg := sr.Data.Metadata.targetFailed()
		if failed && msg == "" {
			t.Fatal("a failed target has no message")
		}
		if code := int(sr.Data.Metadata.StatusCode); code >= 400 && !failed {
			t.Fatalf("status %d is not a failure", code)
		}
		title := firstOf(string(sr.Data.Metadata.Title), string(sr.Data.Metadata.OGTitle))
		if title == "" {
			title = backend.MarkdownTitle(string(sr.Data.Markdown))
		}
		if utf8.ValidString(string(body)) && strings.ContainsAny(oneLine(title), "\n\t") {
			t.Fatalf("title %q spans lines", title)
		}
	})
}

// FuzzRateLimitWait feeds arbitrary 429 messages and retry_after_seconds
// values to the wait computation: it never panics, and the wait is never
// negative nor longer than maxWait.
func FuzzRateLimitWait(f *testing.F) {
	f.Add("Rate limit exceeded. Consumed (req/min): 13, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after 15s, resets at Tue Sep 08 2026 03:16:17 GMT+0000", 0.0)
	f.Add("retry after 0.5s", 0.0)
	f.Add("retry after 99999999999999999999999999s", 0.0)
	f.Add("", 12.0)
	f.Add("retry after 3s", math.Inf(1))
	f.Add("", math.NaN())
	f.Fuzz(func(t *testing.T, msg string, secs float64) {
		eb := errorBody{Error: []byte(`""`), Message: text(msg), RetryAfterSeconds: number(secs)}
		if d := eb.wait(); d < 0 || d > maxWait {
			t.Fatalf("wait = %v for message %q and field %v", d, msg, secs)
		}
	})
}
