package provider_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// recorder is a fake provider that answers each request with answer(i, key)
// and records the keys and headers it saw.
type recorder struct {
	*httptest.Server
	mu      sync.Mutex
	keys    []string
	headers []http.Header
}

func newRecorder(t *testing.T, answer func(i int, key string, w http.ResponseWriter)) *recorder {
	t.Helper()
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		rec.mu.Lock()
		i := len(rec.keys)
		rec.keys = append(rec.keys, key)
		rec.headers = append(rec.headers, r.Header.Clone())
		rec.mu.Unlock()
		answer(i, key, w)
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.keys)
}

func (r *recorder) header(i int) http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.headers[i]
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.keys...)
}

func status(code int, header ...string) func(int, string, http.ResponseWriter) {
	return func(_ int, _ string, w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		fmt.Fprint(w, `{}`)
	}
}

func fastHTTP() provider.HTTPConfig {
	return provider.HTTPConfig{AttemptTimeout: 3 * time.Second, MaxAttempts: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRetryAfter: 5 * time.Second}
}

func bearerAuth(h http.Header, k provider.Key) { h.Set("Authorization", "Bearer "+k.Secret()) }

func do(ctx context.Context, cfg provider.HTTPConfig, keys provider.KeySource, url string) (*provider.Response, error) {
	return provider.NewHTTP(&cfg).Do(ctx, keys, provider.Request{
		Provider: "fake", Op: "search", URL: url, Body: []byte(`{"q":1}`), Auth: bearerAuth,
		RequestIDHeader: "X-Request-Id",
	})
}

func onePool() *provider.Pool { return provider.NewPool([]string{"key-one-SECRET"}, nil) }

func TestHTTP_RetriesOnlyTransientAndRateLimitedFailures(t *testing.T) {
	for _, tc := range []struct {
		status   int
		kind     provider.Kind
		attempts int
	}{
		{500, provider.KindTransient, 3},
		{502, provider.KindTransient, 3},
		{503, provider.KindTransient, 3},
		{504, provider.KindTransient, 3},
		{408, provider.KindTransient, 3},
		{429, provider.KindRateLimited, 3},
		{400, provider.KindBadRequest, 1},
		{401, provider.KindAuth, 1},
		{402, provider.KindQuota, 1},
		{403, provider.KindAuth, 1},
		{404, provider.KindBadRequest, 1},
		{422, provider.KindBadRequest, 1},
		{501, provider.KindUnknown, 1},
	} {
		t.Run(fmt.Sprintf("HTTP %d", tc.status), func(t *testing.T) {
			srv := newRecorder(t, status(tc.status))
			_, err := do(context.Background(), fastHTTP(), onePool(), srv.URL)
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *provider.Error", err)
			}
			if pe.Kind != tc.kind || pe.Status != tc.status || pe.Provider != "fake" || pe.Op != "search" {
				t.Errorf("error = %+v, want kind %s status %d", pe, tc.kind, tc.status)
			}
			if n := srv.count(); n != tc.attempts || pe.Attempts != tc.attempts {
				t.Errorf("server saw %d requests, Attempts = %d; want %d", n, pe.Attempts, tc.attempts)
			}
		})
	}
}

func TestHTTP_SucceedsAfterATransientFailure(t *testing.T) {
	srv := newRecorder(t, func(i int, _ string, w http.ResponseWriter) {
		if i == 0 {
			w.WriteHeader(503)
			return
		}
		fmt.Fprint(w, `{"ok":true}`)
	})
	resp, err := do(context.Background(), fastHTTP(), onePool(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Attempts != 2 || resp.Status != 200 || string(resp.Body) != `{"ok":true}` || resp.Key.Index() != 1 {
		t.Errorf("response = %+v", resp)
	}
}

func TestHTTP_WaitsForAShortRetryAfter(t *testing.T) {
	srv := newRecorder(t, func(i int, _ string, w http.ResponseWriter) {
		if i == 0 {
			w.Header().Set("Retry-After", "0.2")
			w.WriteHeader(429)
			return
		}
		fmt.Fprint(w, `{}`)
	})
	start := time.Now()
	resp, err := do(context.Background(), fastHTTP(), onePool(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 190*time.Millisecond {
		t.Errorf("retried after %v, before the 200ms the provider asked for", took)
	}
	if resp.Attempts != 2 {
		t.Errorf("Attempts = %d, want 2", resp.Attempts)
	}
}

func TestHTTP_NeverSleepsPastTheContextDeadline(t *testing.T) {
	srv := newRecorder(t, status(429, "Retry-After", "10"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := do(ctx, fastHTTP(), onePool(), srv.URL)
	if k := provider.KindOf(err); k != provider.KindRateLimited {
		t.Errorf("kind %q, want rate-limited: %v", k, err)
	}
	// Had Do slept towards the 10s wait, the deadline would have passed.
	if ctx.Err() != nil {
		t.Error("Do returned only after the deadline")
	}
	var pe *provider.Error
	if errors.As(err, &pe) && pe.RetryAfter != 10*time.Second {
		t.Errorf("RetryAfter = %v, want 10s", pe.RetryAfter)
	}
	if srv.count() != 1 {
		t.Errorf("server saw %d requests, want 1", srv.count())
	}
}

func TestHTTP_GivesUpWhenRetryAfterExceedsTheLongestWait(t *testing.T) {
	srv := newRecorder(t, status(429, "Retry-After", "60"))
	_, err := do(context.Background(), fastHTTP(), onePool(), srv.URL)
	if k := provider.KindOf(err); k != provider.KindRateLimited || srv.count() != 1 {
		t.Errorf("kind %q after %d requests, want rate-limited after 1", k, srv.count())
	}
}

func TestHTTP_ReturnsCanceledWhenTheContextIsCanceledDuringAnAttempt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	srv := newRecorder(t, func(int, string, http.ResponseWriter) {
		cancel()
		<-release
	})
	defer close(release)
	_, err := do(ctx, fastHTTP(), onePool(), srv.URL)
	if k := provider.KindOf(err); k != provider.KindCanceled {
		t.Errorf("kind %q, want canceled: %v", k, err)
	}
}

func TestHTTP_CapsTheResponseBody(t *testing.T) {
	const limit = 100
	for _, tc := range []struct {
		size int
		kind provider.Kind
	}{{limit, ""}, {limit + 1, provider.KindUnknown}, {64 << 10, provider.KindUnknown}} {
		srv := newRecorder(t, func(_ int, _ string, w http.ResponseWriter) { fmt.Fprint(w, strings.Repeat("x", tc.size)) })
		cfg := fastHTTP()
		cfg.MaxBodyBytes = limit
		resp, err := do(context.Background(), cfg, onePool(), srv.URL)
		if k := provider.KindOf(err); k != tc.kind {
			t.Errorf("%d-byte body: kind %q, want %q", tc.size, k, tc.kind)
		}
		if err == nil && len(resp.Body) != tc.size {
			t.Errorf("%d-byte body read as %d bytes", tc.size, len(resp.Body))
		}
		if err != nil && srv.count() != 1 {
			t.Errorf("%d-byte body: %d requests, want 1 (no retry)", tc.size, srv.count())
		}
	}
}

func TestHTTP_SendsTheWebgateUserAgentAndJSONHeaders(t *testing.T) {
	srv := newRecorder(t, status(200))
	if _, err := do(context.Background(), fastHTTP(), onePool(), srv.URL); err != nil {
		t.Fatal(err)
	}
	h := srv.header(0)
	if ua := h.Get("User-Agent"); !strings.HasPrefix(ua, "webgate/") || ua != provider.DefaultUserAgent() {
		t.Errorf("User-Agent = %q, want %q", ua, provider.DefaultUserAgent())
	}
	if h.Get("Content-Type") != "application/json" || h.Get("Accept") != "application/json" {
		t.Errorf("Content-Type %q, Accept %q; want application/json", h.Get("Content-Type"), h.Get("Accept"))
	}
	cfg := fastHTTP()
	cfg.UserAgent = "custom/1.0"
	if _, err := do(context.Background(), cfg, onePool(), srv.URL); err != nil {
		t.Fatal(err)
	}
	if ua := srv.header(1).Get("User-Agent"); ua != "custom/1.0" {
		t.Errorf("User-Agent = %q, want the configured one", ua)
	}
}

func TestHTTP_RotatesPastARevokedKeyAndReportsOutcomes(t *testing.T) {
	pool := provider.NewPool([]string{"revoked-SECRET", "good-SECRET"}, &provider.PoolConfig{Order: provider.RoundRobin})
	srv := newRecorder(t, func(_ int, key string, w http.ResponseWriter) {
		if key == "revoked-SECRET" {
			w.WriteHeader(401)
			return
		}
		fmt.Fprint(w, `{}`)
	})
	resp, err := do(context.Background(), fastHTTP(), pool, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.seen(); len(got) != 2 || got[0] != "revoked-SECRET" || got[1] != "good-SECRET" {
		t.Errorf("keys tried = %q, want the revoked key then the good one", got)
	}
	if resp.Key.Index() != 2 || resp.Attempts != 2 {
		t.Errorf("succeeded with key #%d after %d attempts, want #2 after 2", resp.Key.Index(), resp.Attempts)
	}
	if pool.Outcomes(1)[provider.KindAuth] != 1 || pool.Outcomes(2)["ok"] != 1 {
		t.Errorf("outcomes = %v, %v", pool.Outcomes(1), pool.Outcomes(2))
	}
}

func TestHTTP_RotatesPastARateLimitedKeyWithoutWaiting(t *testing.T) {
	pool := provider.NewPool([]string{"busy-SECRET", "idle-SECRET"}, &provider.PoolConfig{Order: provider.RoundRobin})
	srv := newRecorder(t, func(_ int, key string, w http.ResponseWriter) {
		if key == "busy-SECRET" {
			w.Header().Set("Retry-After", "4")
			w.WriteHeader(429)
			return
		}
		fmt.Fprint(w, `{}`)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := do(ctx, fastHTTP(), pool, srv.URL); err != nil {
		t.Fatal(err)
	}
	if srv.count() != 2 {
		t.Errorf("server saw %d requests, want 2", srv.count())
	}
}

func TestHTTP_TriesEveryKeyOnceWhenAllAreOutOfQuota(t *testing.T) {
	pool := provider.NewPool([]string{"a-SECRET", "b-SECRET", "c-SECRET"}, nil)
	srv := newRecorder(t, status(402))
	_, err := do(context.Background(), fastHTTP(), pool, srv.URL)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindQuota || pe.Attempts != 3 {
		t.Fatalf("error %+v, want quota after 3 attempts", pe)
	}
	seen := map[string]int{}
	for _, k := range srv.seen() {
		seen[k]++
	}
	if len(seen) != 3 || seen["a-SECRET"] != 1 || seen["b-SECRET"] != 1 || seen["c-SECRET"] != 1 {
		t.Errorf("keys tried = %v, want each once", seen)
	}
}

func TestHTTP_StopsAtANonRotatableFailure(t *testing.T) {
	pool := provider.NewPool([]string{"a", "b"}, nil)
	srv := newRecorder(t, status(400))
	_, err := do(context.Background(), fastHTTP(), pool, srv.URL)
	if provider.KindOf(err) != provider.KindBadRequest || srv.count() != 1 {
		t.Errorf("kind %q after %d requests, want bad-request after 1", provider.KindOf(err), srv.count())
	}
}

func TestHTTP_FailsAsAuthWithoutARequestWhenNoKeyIsConfigured(t *testing.T) {
	srv := newRecorder(t, status(200))
	for _, keys := range []provider.KeySource{nil, provider.NewPool(nil, nil)} {
		_, err := do(context.Background(), fastHTTP(), keys, srv.URL)
		if provider.KindOf(err) != provider.KindAuth || !errors.Is(err, provider.ErrNoKeys) {
			t.Errorf("error %v, want auth wrapping ErrNoKeys", err)
		}
	}
	if srv.count() != 0 {
		t.Errorf("server saw %d requests, want 0", srv.count())
	}
}

func TestHTTP_SendsAKeylessRequestOnceWithoutAuthorization(t *testing.T) {
	srv := newRecorder(t, status(200))
	resp, err := provider.NewHTTP(new(fastHTTP())).Do(context.Background(), nil, provider.Request{Provider: "fake", Method: http.MethodGet, URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if srv.header(0).Get("Authorization") != "" || resp.Attempts != 1 {
		t.Errorf("Authorization %q, attempts %d", srv.header(0).Get("Authorization"), resp.Attempts)
	}
}

func TestHTTP_KeepsTheRequestIDHeaderOnErrors(t *testing.T) {
	srv := newRecorder(t, status(400, "X-Request-Id", "req-77"))
	_, err := do(context.Background(), fastHTTP(), onePool(), srv.URL)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.RequestID != "req-77" {
		t.Errorf("error %+v, want request id req-77", pe)
	}
}

func TestHTTP_ReportsTransientWhenTheConnectionIsRefused(t *testing.T) {
	_, err := do(context.Background(), fastHTTP(), onePool(), "http://"+providertest.RefusedAddr(t))
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindTransient || pe.Attempts != 3 {
		t.Errorf("error %+v, want transient after 3 attempts", pe)
	}
	if strings.Contains(fmt.Sprintf("%v %+v %#v", err, err, err), "key-one-SECRET") {
		t.Error("the error shows the key")
	}
}

func TestHTTP_ReportsBadRequestForAnInvalidURL(t *testing.T) {
	_, err := do(context.Background(), fastHTTP(), onePool(), "http://[::1]:namedport")
	if k := provider.KindOf(err); k != provider.KindBadRequest {
		t.Errorf("kind %q, want bad-request: %v", k, err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"  ", 0},
		{"1", time.Second},
		{" 30 ", 30 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"0", 0},
		{"-5", 0},
		{"86400", 24 * time.Hour},
		{"86401", 0},
		{"soon", 0},
		{"Sun, 01 Mar 2026 12:00:10 GMT", 10 * time.Second},
		{"Sunday, 01-Mar-26 12:01:00 GMT", time.Minute},
		{"Sun Mar  1 12:00:05 2026", 5 * time.Second},
		{"Sun, 01 Mar 2026 11:59:00 GMT", 0},
		{"Sun, 01 Mar 2026 12:00:00 GMT", 0},
	} {
		if got := provider.ParseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestStatusKind(t *testing.T) {
	for status, want := range map[int]provider.Kind{
		200: "", 204: "", 400: provider.KindBadRequest, 401: provider.KindAuth, 402: provider.KindQuota,
		403: provider.KindAuth, 404: provider.KindBadRequest, 408: provider.KindTransient, 422: provider.KindBadRequest,
		429: provider.KindRateLimited, 432: provider.KindBadRequest, 500: provider.KindTransient, 501: provider.KindUnknown,
		502: provider.KindTransient, 503: provider.KindTransient, 504: provider.KindTransient, 302: provider.KindUnknown,
	} {
		if got := provider.StatusKind(status); got != want {
			t.Errorf("StatusKind(%d) = %q, want %q", status, got, want)
		}
	}
}

func TestMessage_RedactsSecretsCollapsesSpaceAndCuts(t *testing.T) {
	if got := provider.Message("bad key  tvly-123\n\tfor tvly-123", "tvly-123", ""); got != "bad key [redacted] for [redacted]" {
		t.Errorf("Message = %q", got)
	}
	long := strings.Repeat("é", 300)
	got := provider.Message(long)
	if want := strings.Repeat("é", 200) + "…"; got != want {
		t.Errorf("Message of 300 runes has %d runes, want 200 and an ellipsis", len([]rune(got)))
	}
}

func TestHTTP_DoesNotFollowARedirectAndKeepsTheKeyAtHome(t *testing.T) {
	elsewhere := newRecorder(t, status(200))
	// A different host name for the same loopback server family: net/http
	// would forward custom key headers such as x-api-key there.
	target := strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1) + "/steal"
	for _, code := range []int{301, 302, 307, 308} {
		srv := newRecorder(t, func(_ int, _ string, w http.ResponseWriter) {
			w.Header().Set("Location", target)
			w.WriteHeader(code)
		})
		_, err := provider.NewHTTP(new(fastHTTP())).Do(context.Background(), onePool(), provider.Request{
			Provider: "fake", Op: "search", URL: srv.URL, Body: []byte(`{}`),
			Auth: func(h http.Header, k provider.Key) { h.Set("x-api-key", k.Secret()) },
		})
		var pe *provider.Error
		if !errors.As(err, &pe) || pe.Kind != provider.KindUnknown || pe.Status != code || !strings.Contains(pe.Message, "redirect") {
			t.Errorf("HTTP %d: err = %v, want an unknown failure naming the redirect", code, err)
		}
	}
	if n := elsewhere.count(); n != 0 {
		t.Errorf("the redirect target was asked %d times", n)
	}
}

func TestHTTP_ScrubsAnEchoedKeyFromEveryErrorField(t *testing.T) {
	srv := newRecorder(t, func(_ int, key string, w http.ResponseWriter) {
		w.Header().Set("X-Request-Id", "req-"+key)
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":"bad key %s"}`, key)
	})
	_, err := provider.NewHTTP(new(fastHTTP())).Do(context.Background(), onePool(), provider.Request{
		Provider: "fake", Op: "search", URL: srv.URL, Body: []byte(`{}`), Auth: bearerAuth, RequestIDHeader: "X-Request-Id",
		Check: func(r *provider.Response) *provider.Error {
			// A careless backend copying the body into every field.
			return &provider.Error{Kind: provider.KindAuth, Message: string(r.Body), Tag: string(r.Body)}
		},
	})
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v", err)
	}
	for name, v := range map[string]string{"Error()": err.Error(), "Message": pe.Message, "Tag": pe.Tag, "RequestID": pe.RequestID} {
		if strings.Contains(v, "key-one-SECRET") {
			t.Errorf("%s holds the key: %q", name, v)
		}
	}
	if pe.RequestID != "req-[redacted]" {
		t.Errorf("RequestID = %q, want the id with the key redacted", pe.RequestID)
	}
}

// TestMessage_ScrubsTheSameSecretsAsEveryFrontend checks that backends
// scrub by the one rule (internal/textfmt): a secret of four bytes or
// more, trimmed of space, is replaced; a shorter one is left alone.
func TestMessage_ScrubsTheSameSecretsAsEveryFrontend(t *testing.T) {
	got := provider.Message("abcd xyz sk-live-123456", "abcd", "xyz", " sk-live-123456\n")
	if want := "[redacted] xyz [redacted]"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
}
