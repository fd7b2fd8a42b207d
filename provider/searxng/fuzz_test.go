package searxng

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// FuzzDecodeSearch feeds arbitrary bodies to the /search decoder: it must
// never panic, and must either fail with a classified error that has a
// message, or return results that each have a URL and a finite score. The
// seed corpus is in testdata/fuzz/FuzzDecodeSearch, plus the fixtures the
// fake instance serves.
func FuzzDecodeSearch(f *testing.F) {
	providertest.AddSeeds(f, "testdata/search_*.json")
	for _, s := range providertest.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		d, e := decodeSearch(body)
		if (d == nil) == (e == nil) {
			t.Fatalf("decodeSearch returned %v and error %v; want exactly one", d, e)
		}
		if e != nil {
			if !slices.Contains([]provider.Kind{provider.KindUnknown, provider.KindTransient}, e.Kind) {
				t.Fatalf("decoder returned kind %q", e.Kind)
			}
			if strings.TrimSpace(e.Message) == "" {
				t.Fatal("decoder returned an error without a message")
			}
			return
		}
		if d.Results == nil {
			t.Fatal("Results is nil on success")
		}
		for i, r := range d.Results {
			if r.URL == "" {
				t.Fatalf("result %d has no URL", i)
			}
			if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
				t.Fatalf("result %d has score %v", i, r.Score)
			}
		}
	})
}

// FuzzCheckStatus feeds arbitrary error bodies to the status check: it
// must never panic, must accept exactly the 2xx statuses, and must
// classify the rest with a single-line message of at most 200 characters.
func FuzzCheckStatus(f *testing.F) {
	for _, s := range []struct {
		status int
		body   string
	}{
		{403, "<!doctype html><title>403 Forbidden</title>"},
		{429, "Too Many Requests"},
		{429, "IP is on BLOCKLIST - 203.0.113.7"},
		{400, `{"error":"No query"}`},
		{500, `{"error":"search error"}`},
		{502, ""},
	} {
		f.Add(s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 599 {
			return
		}
		e := checkStatus(&provider.Response{Status: status, Body: body})
		if (e == nil) != (status >= 200 && status < 300) {
			t.Fatalf("status %d: error %v", status, e)
		}
		if e == nil {
			return
		}
		if !slices.Contains(provider.Kinds, e.Kind) {
			t.Fatalf("kind %q", e.Kind)
		}
		if strings.Contains(e.Message, "\n") || len([]rune(e.Message)) > 201 {
			t.Fatalf("message %q is not a short single line", e.Message)
		}
		if status == 403 && e.Kind != provider.KindBadRequest {
			t.Fatalf("403 classified as %q", e.Kind)
		}
		if status == 429 && e.Kind != provider.KindRateLimited {
			t.Fatalf("429 classified as %q", e.Kind)
		}
	})
}
