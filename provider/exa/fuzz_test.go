package exa

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/lenient"
)

// The seed corpora live in testdata/fuzz/FuzzDecodeSearch and
// testdata/fuzz/FuzzDecodeContents; the fixtures are added here too.

// FuzzDecodeSearch checks that no /search body panics the decoder or the
// mapping to results, and that the response check and the decoder agree on
// what a well-formed body is.
func FuzzDecodeSearch(f *testing.F) {
	for _, name := range []string{"search.json", "search_old_cost.json"} {
		f.Add(readFixture(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp := &provider.Response{Status: 200, Header: http.Header{}, Body: body}
		perr := checker(opSearch)(resp)
		if perr != nil && perr.Kind == "" {
			t.Fatalf("check returned an error without a kind: %+v", perr)
		}
		r, err := decodeSearch(body)
		if err != nil {
			return
		}
		_ = r.resolvedType()
		ans := r.Output.text()
		if utf8.Valid(body) && !utf8.ValidString(ans) {
			t.Fatalf("answer %q is not valid UTF-8", ans)
		}
		for _, res := range r.Results {
			s := snippet(res)
			if len([]rune(s)) > snippetRunes+1 && len(res.Highlights) == 0 && res.Summary == "" {
				t.Fatalf("snippet of %d runes from text", len([]rune(s)))
			}
			if strings.ContainsAny(s, "\n\t") {
				t.Fatalf("snippet %q holds unfolded white space", s)
			}
			_ = lenient.ParseDate(string(res.PublishedDate))
		}
	})
}

// FuzzDecodeContents checks that no /contents body panics the decoder, the
// status matching or the response check.
func FuzzDecodeContents(f *testing.F) {
	f.Add(readFixture(f, "contents.json"))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp := &provider.Response{Status: 200, Header: http.Header{}, Body: body}
		if perr := checker(opExtract)(resp); perr != nil && perr.Kind == "" {
			t.Fatalf("check returned an error without a kind: %+v", perr)
		}
		r, err := decodeContents(body)
		if err != nil {
			return
		}
		if st := statusFor(r.Statuses, "https://a.example/x"); st != nil && st.Error != nil {
			if k := crawlKind(string(st.Error.Tag)); k != provider.KindTransient && k != provider.KindUnsupported {
				t.Fatalf("crawl kind %q", k)
			}
		}
		_ = resultFor(r.Results, "https://a.example/x")
	})
}
