package firecrawl

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

func TestChecker_ClassifiesByCodeThenStatus(t *testing.T) {
	for _, tc := range []struct {
		op     string
		status int
		body   string
		want   provider.Kind
	}{
		{opExtract, 500, `{"success":false,"code":"SCRAPE_ALL_ENGINES_FAILED","error":"x"}`, provider.KindUnsupported},
		{opSearch, 500, `{"success":false,"code":"SCRAPE_ALL_ENGINES_FAILED","error":"x"}`, provider.KindTransient},
		{opExtract, 500, `{"success":false,"code":"UNKNOWN_ERROR","error":"x"}`, provider.KindTransient},
		{opExtract, 408, `{"success":false,"code":"CONCURRENCY_QUEUE_TIMEOUT","error":"x"}`, provider.KindRateLimited},
		{opExtract, 400, `{"success":false,"code":"SCRAPE_JSON_CONTENT_TOO_LARGE","error":"x"}`, provider.KindUnsupported},
		{opSearch, 400, `{"success":false,"error":"Invalid request body","details":[{"path":["limit"]}]}`, provider.KindBadRequest},
		{opExtract, 404, `{"success":false,"code":"SCRAPE_NO_CACHED_DATA","error":"x"}`, provider.KindUnsupported},
		{opExtract, 404, `{"success":false,"error":"Cannot POST /v2/scrape"}`, provider.KindBadRequest},
		{opExtract, 403, `{"success":false,"code":"AGENT_INDEX_ONLY","error":"x"}`, provider.KindAuth},
		{opExtract, 403, `{"success":false,"error":"This website is no longer supported"}`, provider.KindUnsupported},
		{opSearch, 403, `{"success":false,"error":"Forbidden"}`, provider.KindAuth},
		{opSearch, 402, `{"success":false,"error":"unverified_credit_limit_reached","message":"This agent key has used its 50 unverified credits."}`, provider.KindQuota},
		{opSearch, 429, `not json`, provider.KindRateLimited},
		{opSearch, 200, `{"success":false,"code":"BAD_REQUEST","error":"x"}`, provider.KindBadRequest},
		{opSearch, 200, `{"success":"false"}`, provider.KindUnknown},
		{opExtract, 200, `{"success":false}`, provider.KindUnsupported},
		{opSearch, 501, `{}`, provider.KindUnknown},
	} {
		e := checker(tc.op)(&provider.Response{Status: tc.status, Body: []byte(tc.body)})
		if e == nil || e.Kind != tc.want || e.Message == "" {
			t.Errorf("%s HTTP %d %s: %+v, want kind %s with a message", tc.op, tc.status, tc.body, e, tc.want)
		}
	}
}

func TestChecker_AcceptsSuccessfulAnswers(t *testing.T) {
	for _, body := range []string{`{"success":true,"data":{}}`, `{"data":{"web":[]}}`, `{}`, `[]`, `not json`, ``} {
		for _, op := range []string{opSearch, opExtract} {
			if e := checker(op)(&provider.Response{Status: 200, Body: []byte(body)}); e != nil {
				t.Errorf("%s %q: %v, want success", op, body, e)
			}
		}
	}
}

func TestChecker_ReadsTheWaitFromTheBodyUnlessAHeaderGivesIt(t *testing.T) {
	body := []byte(`{"success":false,"error":"Rate limit exceeded. ... or please retry after 7s, resets at Tue Sep 08 2026"}`)
	e := checker(opSearch)(&provider.Response{Status: 429, Header: http.Header{}, Body: body})
	if e.RetryAfter != 7*time.Second {
		t.Errorf("RetryAfter = %v, want 7s from the message", e.RetryAfter)
	}
	e = checker(opSearch)(&provider.Response{Status: 429, Header: http.Header{"Retry-After": {"2"}}, Body: body})
	if e.RetryAfter != 0 {
		t.Errorf("RetryAfter = %v, want 0 so that the header's wait is used", e.RetryAfter)
	}
	e = checker(opSearch)(&provider.Response{Status: 402, Body: body})
	if e.Kind != provider.KindQuota || e.RetryAfter != 0 {
		t.Errorf("a quota failure got %+v; it is never waited for", e)
	}
}

func TestWait_ReadsTheFieldThenTheMessage(t *testing.T) {
	for body, want := range map[string]time.Duration{
		`{"retry_after_seconds":30,"error":"retry after 5s"}`: 30 * time.Second,
		`{"retry_after_seconds":"1.5"}`:                       1500 * time.Millisecond,
		`{"error":"please Retry After 12s, resets at x"}`:     12 * time.Second,
		`{"error":{"message":"retry after 3 s"}}`:             3 * time.Second,
		`{"message":"please retry after 4s"}`:                 4 * time.Second,
		`{"error":"retry after 1e9s"}`:                        0,
		`{"error":"retry after 99999999s"}`:                   maxWait,
		`{"error":"retry after 15 seconds"}`:                  0,
		`{"error":"slow down"}`:                               0,
		`{"retry_after_seconds":-3}`:                          0,
	} {
		var eb errorBody
		if err := json.Unmarshal([]byte(body), &eb); err != nil {
			t.Fatal(err)
		}
		if got := eb.wait(); got != want {
			t.Errorf("%s: wait = %v, want %v", body, got, want)
		}
	}
}

func TestTargetFailed(t *testing.T) {
	for _, tc := range []struct {
		status int
		err    string
		failed bool
	}{
		{200, "", false}, {301, "", false}, {0, "", false}, {200, "note", false},
		{404, "", true}, {500, "Internal", true}, {0, "net::ERR_NAME_NOT_RESOLVED", true}, {102, "x", true},
	} {
		failed, msg := metadata{StatusCode: number(tc.status), Error: text(tc.err)}.targetFailed()
		if failed != tc.failed || (failed && !strings.Contains(msg, "could not read")) {
			t.Errorf("status %d error %q: failed %v (%q), want %v", tc.status, tc.err, failed, msg, tc.failed)
		}
	}
}
