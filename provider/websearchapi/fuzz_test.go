package websearchapi

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

var fuzzNow = time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)

// checkDecodeError asserts what every decoder failure must look like.
func checkDecodeError(t *testing.T, e *provider.Error) {
	t.Helper()
	if !slices.Contains(provider.Kinds, e.Kind) || e.Kind == provider.KindCanceled {
		t.Fatalf("decoder returned kind %q", e.Kind)
	}
	if strings.TrimSpace(e.Message) == "" {
		t.Fatal("decoder returned an error without a message")
	}
}

// FuzzDecodeSearch feeds arbitrary bodies to the /ai-search decoder: it
// must never panic, and must either fail with a classified error or return
// results that each have a URL, a finite score and a plausible date. The
// seed corpus is in testdata/fuzz/FuzzDecodeSearch.
func FuzzDecodeSearch(f *testing.F) {
	for _, s := range []string{
		`{"organic":[{"title":"a","url":"https://a.example","description":"d","position":1,"score":0.5,"date":"2024-03-05"}],"answer":"x","responseTime":1.2}`,
		`{"organic":null}`,
		`{"error":{"message":"m","code":429}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res, e := decodeSearch(body, fuzzNow)
		if (res == nil) == (e == nil) {
			t.Fatalf("decodeSearch returned results %v and error %v; want exactly one", res, e)
		}
		if e != nil {
			checkDecodeError(t, e)
			return
		}
		if res.Results == nil {
			t.Fatal("Results is nil on success")
		}
		for i, r := range res.Results {
			if r.URL == "" {
				t.Fatalf("result %d has no URL", i)
			}
			if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
				t.Fatalf("result %d has score %v", i, r.Score)
			}
			if !r.Published.IsZero() && (r.Published.Year() < 1970 || r.Published.After(fuzzNow.Add(48*time.Hour))) {
				t.Fatalf("result %d has implausible date %v", i, r.Published)
			}
		}
	})
}

// FuzzDecodeScrape feeds arbitrary bodies to the /scrape decoder: it must
// never panic, and must either fail with a classified error or return a
// page with content. The seed corpus is in testdata/fuzz/FuzzDecodeScrape.
func FuzzDecodeScrape(f *testing.F) {
	for _, s := range []string{
		`{"code":200,"data":{"title":"t","url":"https://a.example","content":"# x"}}`,
		`{"code":422,"message":"failed","data":null}`,
		`{"data":"text"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, e := decodeScrape(body)
		if (p == nil) == (e == nil) {
			t.Fatalf("decodeScrape returned page %v and error %v; want exactly one", p, e)
		}
		if e != nil {
			checkDecodeError(t, e)
			return
		}
		if strings.TrimSpace(p.Content) == "" {
			t.Fatal("decodeScrape succeeded with empty content")
		}
	})
}
