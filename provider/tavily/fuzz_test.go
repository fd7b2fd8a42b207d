package tavily

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// seeds adds the JSON fixtures of testdata and providertest's awkward
// shapes to f; the committed corpus in testdata/fuzz adds Tavily's own odd
// shapes.
func seeds(f *testing.F, pattern string) {
	providertest.AddSeeds(f, filepath.Join("testdata", pattern))
	for _, b := range providertest.Seeds() {
		f.Add(b)
	}
}

// FuzzDecodeSearch feeds arbitrary bodies through everything the client does
// with a /search answer: the status check, decoding and mapping. None may
// panic, and every mapped result must have a URL and a title.
func FuzzDecodeSearch(f *testing.F) {
	seeds(f, "search_*.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, status := range []int{200, 429, 432, 500} {
			if e := check(&provider.Response{Status: status, Body: body}); e != nil && e.Kind == "" {
				t.Fatalf("check gave an error without a kind for HTTP %d", status)
			}
		}
		sr, err := decodeSearch(body)
		if err != nil {
			return
		}
		res := toResults(sr, "q", 10)
		for _, r := range res.Results {
			if r.URL == "" || r.Title == "" || r.Provider != Name {
				t.Fatalf("mapped result %+v lacks a URL, title or provider", r)
			}
			if utf8.ValidString(string(body)) && utf8.RuneCountInString(r.Content) > 10 {
				t.Fatalf("content %q exceeds the 10-character cap", r.Content)
			}
		}
	})
}

// FuzzDecodeExtract does the same for /extract answers, including the
// matching of the requested URL and the title derivation.
func FuzzDecodeExtract(f *testing.F) {
	seeds(f, "extract_*.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = check(&provider.Response{Status: 200, Body: body})
		xr, err := decodeExtract(body)
		if err != nil {
			return
		}
		res, _ := xr.find("https://example.org/article")
		if res == nil {
			return
		}
		content := string(res.RawContent)
		title := backend.MarkdownTitle(content)
		if strings.ContainsAny(title, "\n") {
			t.Fatalf("title %q spans lines", title)
		}
		if c := provider.CapRunes(content, 7); len(c) > len(content) || (utf8.ValidString(content) && utf8.RuneCountInString(c) > 7) {
			t.Fatalf("provider.CapRunes(%q, 7) = %q", content, c)
		}
	})
}
