package jina

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
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
	if strings.Contains(e.Message, "\n") {
		t.Fatalf("message %q has a line break", e.Message)
	}
}

// FuzzDecodeReader feeds arbitrary bodies to the reader decoder, for each
// format: it must never panic, and must either fail with a classified
// error or return a page with content. The seed corpus is in
// testdata/fuzz/FuzzDecodeReader, plus the fixtures the fake reader serves.
func FuzzDecodeReader(f *testing.F) {
	providertest.AddSeeds(f, "testdata/reader_*")
	for _, s := range providertest.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, rw := range ReturnFormats {
			p, e := decodeReader(body, rw)
			if (p == nil) == (e == nil) {
				t.Fatalf("decodeReader(%s) returned page %v and error %v; want exactly one", rw, p, e)
			}
			if e != nil {
				checkDecodeError(t, e)
				continue
			}
			if strings.TrimSpace(p.Content) == "" {
				t.Fatalf("decodeReader(%s) succeeded with empty content", rw)
			}
		}
	})
}

// FuzzDecodeSearch feeds arbitrary bodies to the search decoder: it must
// never panic, and must either fail with a classified error or return
// results that each have a URL, a score in (0, 1] falling with rank, and a
// plausible date. The seed corpus is in testdata/fuzz/FuzzDecodeSearch.
func FuzzDecodeSearch(f *testing.F) {
	providertest.AddSeeds(f, "testdata/search_*.json")
	for _, s := range providertest.Seeds() {
		f.Add(s)
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
		prev := math.Inf(1)
		for i, r := range res.Results {
			if r.URL == "" {
				t.Fatalf("result %d has no URL", i)
			}
			if !(r.Score > 0 && r.Score <= 1 && r.Score < prev) {
				t.Fatalf("result %d has score %v after %v", i, r.Score, prev)
			}
			prev = r.Score
			if !r.Published.IsZero() && (r.Published.Year() < 1970 || r.Published.After(fuzzNow.Add(48*time.Hour))) {
				t.Fatalf("result %d has implausible date %v", i, r.Published)
			}
		}
	})
}

// FuzzCheckStatus feeds arbitrary error answers to the status check for
// both operations: it must never panic, must accept exactly the 2xx
// statuses, and must classify the rest with a non-negative wait and a
// short single-line message.
func FuzzCheckStatus(f *testing.F) {
	for _, s := range []struct {
		status int
		body   string
	}{
		{429, `{"data":null,"code":429,"name":"RateLimitTriggeredError","status":42903,"message":"Per IP rate limit exceeded","retryAfter":2,"retryAfterDate":"2030-01-01T00:00:00.000Z"}`},
		{402, `{"data":null,"code":402,"name":"InsufficientBalanceError","status":40203,"message":"Account balance not enough to run this query, please recharge."}`},
		{409, `{"code":409,"name":"BudgetExceededError","status":40904,"message":"Token budget exceeded"}`},
		{422, `{"code":422,"name":"DownstreamServiceFailureError","status":42205,"message":"x"}`},
		{401, "Unauthorized"},
		{503, "<html>503</html>"},
	} {
		f.Add(s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 599 {
			return
		}
		for _, op := range []string{opSearch, opExtract} {
			e := checkStatus(&provider.Response{Status: status, Body: body}, op)
			if (e == nil) != (status >= 200 && status < 300) {
				t.Fatalf("status %d: error %v", status, e)
			}
			if e == nil {
				continue
			}
			if !slices.Contains(provider.Kinds, e.Kind) || e.RetryAfter < 0 {
				t.Fatalf("status %d: kind %q, wait %v", status, e.Kind, e.RetryAfter)
			}
			if strings.Contains(e.Message, "\n") || len([]rune(e.Message)) > 201 {
				t.Fatalf("message %q is not a short single line", e.Message)
			}
			if status == 429 && e.Kind != provider.KindRateLimited {
				t.Fatalf("429 classified as %q", e.Kind)
			}
		}
	})
}
