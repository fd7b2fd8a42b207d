package brave

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

func TestRateLimitWait_IsTheResetOfTheShortestSpentWindow(t *testing.T) {
	for _, tc := range []struct {
		name                            string
		limit, policy, remaining, reset string
		want                            time.Duration
	}{
		{"per-second window spent", "1, 15000", "1;w=1, 15000;w=2592000", "0, 1000", "1, 1419704", time.Second},
		{"monthly window spent", "1, 15000", "1;w=1, 15000;w=2592000", "1, 0", "1, 1419704", 1419704 * time.Second},
		{"both spent: the shorter window wins", "1, 15000", "1;w=1, 15000;w=2592000", "0, 0", "1, 1419704", time.Second},
		{"policy lists the long window first", "15000, 1", "15000;w=2592000, 1;w=1", "0, 0", "1419704, 1", time.Second},
		{"no policy: documented order", "1, 15000", "", "0, 0", "2, 1419704", 2 * time.Second},
		{"unlimited monthly window", "1, 0", "1;w=1, 0;w=2592000", "1, 0", "1, 1419704", 0},
		{"nothing spent", "1, 15000", "", "1, 1000", "1, 1419704", 0},
		{"fractional reset", "", "", "0", "0.25", 250 * time.Millisecond},
		{"garbage", "x", "y;w=z", "a, b", "c", 0},
		{"no headers", "", "", "", "", 0},
		{"reset past the cap", "", "", "0", "1e30", maxReset},
		{"negative reset", "", "", "0", "-5", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for name, v := range map[string]string{"X-RateLimit-Limit": tc.limit, "X-RateLimit-Policy": tc.policy,
				"X-RateLimit-Remaining": tc.remaining, "X-RateLimit-Reset": tc.reset} {
				if v != "" {
					h.Set(name, v)
				}
			}
			if got := rateLimitWait(h); got != tc.want {
				t.Errorf("rateLimitWait = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCheck_LeavesTheWaitToARetryAfterHeader(t *testing.T) {
	h := http.Header{"Retry-After": {"2"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"7"}}
	e := check(&provider.Response{Status: 429, Header: h, Body: []byte(`{"type":"ErrorResponse","error":{"code":"RATE_LIMITED"}}`)})
	if e == nil || e.Kind != provider.KindRateLimited || e.RetryAfter != 0 {
		t.Fatalf("check = %+v; want rate-limited with RetryAfter left to the header", e)
	}
	h.Set("Retry-After", "soon")
	e = check(&provider.Response{Status: 429, Header: h, Body: []byte(`{"type":"ErrorResponse","error":{"code":"RATE_LIMITED"}}`)})
	if e == nil || e.RetryAfter != 7*time.Second {
		t.Fatalf("check = %+v; want RetryAfter 7s from X-RateLimit-Reset when Retry-After is unreadable", e)
	}
}

func TestCheck_SetsNoWaitForQuota(t *testing.T) {
	h := http.Header{"X-Ratelimit-Remaining": {"0, 0"}, "X-Ratelimit-Reset": {"1, 100"}}
	e := check(&provider.Response{Status: 429, Header: h, Body: []byte(`{"type":"ErrorResponse","error":{"code":"QUOTA_LIMITED"}}`)})
	if e == nil || e.Kind != provider.KindQuota || e.RetryAfter != 0 {
		t.Fatalf("check = %+v; want quota without a wait", e)
	}
}

func TestCheck_AcceptsSuccessfulAnswers(t *testing.T) {
	for _, body := range []string{`{"type":"search","web":{"results":[]}}`, `{}`, `not json`, ``} {
		if e := check(&provider.Response{Status: 200, Body: []byte(body)}); e != nil {
			t.Errorf("check(%q) = %v, want success", body, e)
		}
	}
}

func TestCheck_ScrubsTheKeyFromEveryField(t *testing.T) {
	body := `{"type":"ErrorResponse","error":{"id":"id-SECRETKEY","code":"X-SECRETKEY","detail":"bad key SECRETKEY"}}`
	e := check(&provider.Response{Status: 422, Body: []byte(body), Key: provider.NewPool([]string{"SECRETKEY"}, nil).Keys(t.Context())[0]})
	for _, s := range []string{e.Message, e.Tag, e.RequestID} {
		if s == "" || strings.Contains(s, "SECRETKEY") {
			t.Errorf("field %q holds the key or is empty", s)
		}
	}
}
