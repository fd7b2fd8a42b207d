package providertest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// The HTTP settings the suite builds every backend with; see [HTTPConfig].
const (
	// MaxAttempts is the number of attempts per key.
	MaxAttempts = 3
	// AttemptTimeout bounds one attempt. It is far above every bound the
	// suite asserts, so a backend that ignores the caller's context fails
	// the suite instead of passing slowly.
	AttemptTimeout = 3 * time.Second
	// MaxRetryAfter is the longest Retry-After the backend waits for.
	MaxRetryAfter = 5 * time.Second
	// MaxBodyBytes is the response cap used by the oversize cases.
	MaxBodyBytes = 4 << 10
)

// Time bounds asserted by the suite. They are hang detectors, not
// performance targets: loopback answers take milliseconds.
const (
	// quick bounds a case that involves no deliberate wait.
	quick = 1500 * time.Millisecond
	// deadline is the caller's deadline in the hang cases, and slack how
	// long after it the call may return.
	deadline = 300 * time.Millisecond
	slack    = 500 * time.Millisecond
)

// HTTPConfig returns the HTTP settings the suite builds backends with:
// [MaxAttempts] attempts, backoff between 1ms and 5ms, [AttemptTimeout] and
// [MaxRetryAfter]. Backend tests can use it for their own fast fakes.
func HTTPConfig() provider.HTTPConfig {
	return provider.HTTPConfig{
		AttemptTimeout: AttemptTimeout,
		MaxAttempts:    MaxAttempts,
		MinBackoff:     time.Millisecond,
		MaxBackoff:     5 * time.Millisecond,
		MaxRetryAfter:  MaxRetryAfter,
	}
}

// Secrets are the API key values the suite puts in its key pools. A test
// that builds its own pool can use them with [CheckNoSecrets].
var Secrets = []string{
	"wgtest-7f3a9c1e-alpha-SECRET",
	"wgtest-2b8d4e6f-beta-SECRET",
	"wgtest-9c0a5d3b-gamma-SECRET",
}

// op is one operation (search or extract) the suite exercises.
type op struct {
	name     string
	path     string
	validate func([]byte) error
	// validateRequest checks the whole request; nil skips the check.
	validateRequest func(Request) error
	// keys is how the operation uses API keys.
	keys KeyMode
	ok   Answer
	// build makes the backend against baseURL and returns a function that
	// runs the operation once.
	build   func(baseURL string, keys provider.KeySource, hc provider.HTTPConfig) func(ctx context.Context) (any, error)
	checkOK func(t *testing.T, out any)
}

// Run runs the conformance suite for the backend w describes. Each case
// starts its own fake provider on 127.0.0.1; see the package documentation
// for the cases. The search and extract groups run in parallel, so they
// finish after the calling test function returns: call Run last.
func Run(t *testing.T, w Wire) {
	t.Helper()
	if w.Name == "" {
		t.Fatal("providertest: Wire.Name is empty")
	}
	if w.KeyOf == nil && ((w.NewSearcher != nil && w.SearchKeys != KeyNone) || (w.NewExtractor != nil && w.ExtractKeys != KeyNone)) {
		t.Fatal("providertest: Wire.KeyOf is nil, and an operation uses keys")
	}
	if w.ErrorBody == nil {
		w.ErrorBody = func(_ int, msg string) string { return fmt.Sprintf(`{"error":%q}`, msg) }
	}
	if w.NewSearcher == nil && w.NewExtractor == nil {
		t.Fatal("providertest: Wire has neither NewSearcher nor NewExtractor")
	}
	// The operations run in parallel with each other, so their waits for
	// Retry-After overlap; their cases start once the caller's test
	// function returns.
	if w.NewSearcher != nil {
		o := searchOp(w)
		t.Run(o.name, func(t *testing.T) { t.Parallel(); runOp(t, w, o) })
	}
	if w.NewExtractor != nil {
		o := extractOp(w)
		t.Run(o.name, func(t *testing.T) { t.Parallel(); runOp(t, w, o) })
	}
}

// query is the query the suite searches for.
var query = provider.Query{Text: "conformance suite query", MaxResults: 5}

// fullQuery sets every field of provider.Query.
var fullQuery = provider.Query{
	Text:           "conformance suite query with every filter",
	MaxResults:     7,
	IncludeDomains: []string{"go.dev", "example.org"},
	ExcludeDomains: []string{"example.com"},
	TimeRange:      provider.PastMonth,
	Country:        "us",
	Language:       "en",
}

func searchOp(w Wire) op {
	return op{
		name:            "search",
		path:            w.SearchPath,
		validate:        w.ValidateSearch,
		validateRequest: w.ValidateSearchRequest,
		keys:            w.SearchKeys,
		ok:              w.SearchOK,
		build: func(baseURL string, keys provider.KeySource, hc provider.HTTPConfig) func(context.Context) (any, error) {
			s := w.NewSearcher(baseURL, keys, hc)
			return func(ctx context.Context) (any, error) {
				r, err := s.Search(ctx, query)
				return r, err
			}
		},
		checkOK: func(t *testing.T, out any) {
			t.Helper()
			r, _ := out.(*provider.Results)
			if r == nil {
				t.Fatal("Search returned nil Results and no error")
			}
			if r.Provider != w.Name {
				t.Errorf("Results.Provider = %q, want %q", r.Provider, w.Name)
			}
			if len(r.Results) < 2 {
				t.Fatalf("got %d results, want at least 2 (Wire.SearchOK has at least two)", len(r.Results))
			}
			for i, res := range r.Results {
				if strings.TrimSpace(res.Title) == "" || strings.TrimSpace(res.URL) == "" {
					t.Errorf("result %d has title %q and URL %q; both must be set", i, res.Title, res.URL)
				}
				if res.Provider != w.Name {
					t.Errorf("result %d: Provider = %q, want %q", i, res.Provider, w.Name)
				}
			}
		},
	}
}

func extractOp(w Wire) op {
	url := w.ExtractURL
	if url == "" {
		url = "https://example.org/article"
	}
	return op{
		name:            "extract",
		path:            w.ExtractPath,
		validate:        w.ValidateExtract,
		validateRequest: w.ValidateExtractRequest,
		keys:            w.ExtractKeys,
		ok:              w.ExtractOK,
		build: func(baseURL string, keys provider.KeySource, hc provider.HTTPConfig) func(context.Context) (any, error) {
			e := w.NewExtractor(baseURL, keys, hc)
			return func(ctx context.Context) (any, error) {
				p, err := e.Extract(ctx, provider.ExtractRequest{URL: url})
				return p, err
			}
		},
		checkOK: func(t *testing.T, out any) {
			t.Helper()
			p, _ := out.(*provider.Page)
			if p == nil {
				t.Fatal("Extract returned a nil Page and no error")
			}
			if strings.TrimSpace(p.Content) == "" {
				t.Error("Page.Content is empty")
			}
			if p.URL == "" {
				t.Error("Page.URL is empty")
			}
			if p.Provider != w.Name {
				t.Errorf("Page.Provider = %q, want %q", p.Provider, w.Name)
			}
			if p.Format != provider.Markdown {
				t.Errorf("Page.Format = %q, want %q (the default)", p.Format, provider.Markdown)
			}
		},
	}
}

// suite holds what every case of one operation needs.
type suite struct {
	w Wire
	o op
}

// start builds the backend against a fake server and returns the server and
// the operation.
func (s suite) start(t *testing.T, keys provider.KeySource, hc provider.HTTPConfig, serve func(i int, req Request, w http.ResponseWriter, r *http.Request)) (*Server, func(context.Context) (any, error)) {
	t.Helper()
	srv := newServer(t, s.w.KeyOf, serve)
	return srv, s.o.build(srv.URL, keys, hc)
}

// answers serves a fixed answer to every request.
func answers(a Answer) func(int, Request, http.ResponseWriter, *http.Request) {
	return func(_ int, _ Request, w http.ResponseWriter, _ *http.Request) { writeAnswer(w, a) }
}

// sequence serves first to the first request and then to all others.
func sequence(first func(req Request) Answer, then Answer) func(int, Request, http.ResponseWriter, *http.Request) {
	return func(i int, req Request, w http.ResponseWriter, _ *http.Request) {
		if i == 0 {
			writeAnswer(w, first(req))
			return
		}
		writeAnswer(w, then)
	}
}

func onePool() *provider.Pool { return provider.NewPool(Secrets[:1], nil) }

func roundRobin(n int) *provider.Pool {
	return provider.NewPool(Secrets[:n], &provider.PoolConfig{Order: provider.RoundRobin})
}

// succeed runs call and fails t unless it succeeds with the operation's
// OK answer; why, when not empty, says why it should. It returns how long
// the call took.
func (s suite) succeed(t *testing.T, ctx context.Context, call func(context.Context) (any, error), why string) time.Duration {
	t.Helper()
	out, err, took := timed(ctx, call)
	if err != nil {
		CheckNoSecrets(t, err, Secrets...)
		if why != "" {
			why = " (" + why + ")"
		}
		t.Fatalf("%s failed: %v%s", s.o.name, err, why)
	}
	s.o.checkOK(t, out)
	return took
}

// failsOnce serves a to the operation (with hc) and checks that it fails
// promptly with kind after exactly one request; why, when not empty, says
// why it is not retried.
func (s suite) failsOnce(t *testing.T, ctx context.Context, hc provider.HTTPConfig, a Answer, kind provider.Kind, why string) {
	t.Helper()
	srv, call := s.start(t, onePool(), hc, answers(a))
	_, err, took := timed(ctx, call)
	s.expect(t, err, kind)
	wantRequests(t, srv, 1, why)
	within(t, took, quick)
}

// wantRequests reports an error unless srv received want requests; why,
// when not empty, says why that many.
func wantRequests(t *testing.T, srv *Server, want int, why string) {
	t.Helper()
	if n := srv.Count(); n != want {
		if why != "" {
			why = " (" + why + ")"
		}
		t.Errorf("server received %d requests, want %d%s", n, want, why)
	}
}

// timed runs call with ctx and returns its result and how long it took.
func timed(ctx context.Context, call func(context.Context) (any, error)) (any, error, time.Duration) {
	start := time.Now()
	out, err := call(ctx)
	return out, err, time.Since(start)
}

// stalls runs the operation under the caller's deadline against a server
// that answers every request with begin (nothing when nil) and then hangs
// until the test ends, and fails t unless the call returns transient
// within the deadline; it returns the server.
func (s suite) stalls(t *testing.T, ctx context.Context, hc provider.HTTPConfig, begin func(w http.ResponseWriter)) *Server {
	t.Helper()
	quit := make(chan struct{})
	srv, call := s.start(t, onePool(), hc, func(_ int, _ Request, w http.ResponseWriter, r *http.Request) {
		if begin != nil {
			begin(w)
		}
		hang(r, quit)
	})
	t.Cleanup(func() { close(quit) }) // runs before the server closes
	cctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	_, err, took := timed(cctx, call)
	s.expect(t, err, provider.KindTransient)
	within(t, took, deadline+slack)
	return srv
}

func runOp(t *testing.T, w Wire, o op) {
	s := suite{w: w, o: o}
	if o.path == "" {
		t.Fatalf("providertest: Wire.%sPath is empty", map[string]string{"search": "Search", "extract": "Extract"}[o.name])
	}
	ctx := context.Background()
	hc := HTTPConfig()

	carrying := "carrying the key"
	if o.keys == KeyNone {
		carrying = "carrying no key"
	}
	t.Run("succeeds and sends a valid request "+carrying, func(t *testing.T) {
		srv, call := s.start(t, onePool(), hc, answers(o.ok))
		took := s.succeed(t, ctx, call, "")
		wantRequests(t, srv, 1, "")
		s.checkRequest(t, srv.Last(), Secrets[0])
		within(t, took, quick)
	})

	if o.name == "search" {
		t.Run("returns empty results and no error when the provider finds nothing", func(t *testing.T) {
			srv, call := s.start(t, onePool(), hc, answers(w.SearchEmpty))
			out, err, _ := timed(ctx, call)
			if err != nil {
				CheckNoSecrets(t, err, Secrets...)
				t.Fatalf("search failed: %v (want empty results and no error)", err)
			}
			r, _ := out.(*provider.Results)
			if r == nil {
				t.Fatal("Search returned nil Results and no error")
			}
			if len(r.Results) != 0 {
				t.Errorf("got %d results, want 0", len(r.Results))
			}
			if r.Provider != w.Name {
				t.Errorf("Results.Provider = %q, want %q", r.Provider, w.Name)
			}
			wantRequests(t, srv, 1, "")
		})

		t.Run("sends a valid request for a query that sets every field", func(t *testing.T) {
			srv := newServer(t, w.KeyOf, answers(w.SearchOK))
			sr := w.NewSearcher(srv.URL, onePool(), hc)
			_, err := sr.Search(ctx, fullQuery)
			CheckNoSecrets(t, err, Secrets...)
			if err != nil {
				// A backend may refuse a filter it cannot honour, but then
				// it must say so before spending a request.
				if k := provider.KindOf(err); k != provider.KindUnsupported && k != provider.KindBadRequest {
					t.Fatalf("search failed with kind %q: %v", k, err)
				}
				if n := srv.Count(); n != 0 {
					t.Errorf("backend refused the query with %v after sending %d requests; want 0", err, n)
				}
				return
			}
			if n := srv.Count(); n != 1 {
				t.Fatalf("server received %d requests, want 1", n)
			}
			s.checkRequest(t, srv.Last(), Secrets[0])
		})
	}

	for _, f := range w.Faults {
		t.Run(fmt.Sprintf("reports %s for %s", f.Kind, f.Name), func(t *testing.T) {
			srv, call := s.start(t, onePool(), hc, answers(f.Answer))
			_, err, took := timed(ctx, call)
			pe := s.expect(t, err, f.Kind)
			n := srv.Count()
			if f.Kind.Retryable() {
				if n < 1 || n > MaxAttempts {
					t.Errorf("server received %d requests, want 1 to %d", n, MaxAttempts)
				}
			} else if n != 1 {
				t.Errorf("server received %d requests for a %s failure, want exactly 1 (no retry)", n, f.Kind)
			}
			checkAttempts(t, pe, n)
			within(t, took, quick)
		})
	}

	for _, ra := range []struct {
		form       string
		value      func() string
		least, max time.Duration
		asked      string
	}{
		{"in seconds", func() string { return "1" }, 900 * time.Millisecond, time.Second, "a 1s wait"},
		// HTTP dates have whole seconds: two seconds from now is between
		// one and two seconds away once truncated.
		{"as an HTTP date", func() string { return time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat) },
			800 * time.Millisecond, 2 * time.Second, "a wait of at least 1s"},
	} {
		t.Run("retries a 429 after a Retry-After "+ra.form+" and then succeeds", func(t *testing.T) {
			t.Parallel()
			srv, call := s.start(t, onePool(), hc, sequence(func(req Request) Answer {
				return s.errorAnswer(http.StatusTooManyRequests, req.Key, http.Header{"Retry-After": {ra.value()}})
			}, o.ok))
			took := s.succeed(t, ctx, call, "want success after one retry")
			wantRequests(t, srv, 2, "")
			if took < ra.least {
				t.Errorf("returned after %v; the provider asked for %s", took, ra.asked)
			}
			within(t, took, ra.max+quick)
		})
	}

	t.Run("reports rate-limited after every attempt when the provider answers 429 forever", func(t *testing.T) {
		srv, call := s.start(t, onePool(), hc, func(_ int, req Request, w http.ResponseWriter, _ *http.Request) {
			writeAnswer(w, s.errorAnswer(http.StatusTooManyRequests, req.Key, nil))
		})
		_, err, took := timed(ctx, call)
		pe := s.expect(t, err, provider.KindRateLimited)
		wantRequests(t, srv, MaxAttempts, "")
		checkAttempts(t, pe, srv.Count())
		within(t, took, quick)
	})

	t.Run("reports rate-limited at once when Retry-After exceeds the longest allowed wait", func(t *testing.T) {
		srv, call := s.start(t, onePool(), hc, func(_ int, req Request, w http.ResponseWriter, _ *http.Request) {
			writeAnswer(w, s.errorAnswer(http.StatusTooManyRequests, req.Key, http.Header{"Retry-After": {"3600"}}))
		})
		_, err, took := timed(ctx, call)
		pe := s.expect(t, err, provider.KindRateLimited)
		wantRequests(t, srv, 1, "")
		if pe != nil && pe.RetryAfter != time.Hour {
			t.Errorf("Error.RetryAfter = %v, want 1h (from the header)", pe.RetryAfter)
		}
		within(t, took, quick)
	})

	t.Run("reports rate-limited at once when Retry-After would pass the caller's deadline", func(t *testing.T) {
		srv, call := s.start(t, onePool(), hc, func(_ int, req Request, w http.ResponseWriter, _ *http.Request) {
			writeAnswer(w, s.errorAnswer(http.StatusTooManyRequests, req.Key, http.Header{"Retry-After": {"4"}}))
		})
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_, err, took := timed(cctx, call)
		s.expect(t, err, provider.KindRateLimited)
		wantRequests(t, srv, 1, "")
		within(t, took, time.Second)
	})

	for _, status := range []int{500, 502, 503, 504} {
		t.Run(fmt.Sprintf("reports transient after every attempt for HTTP %d", status), func(t *testing.T) {
			srv, call := s.start(t, onePool(), hc, func(_ int, req Request, w http.ResponseWriter, _ *http.Request) {
				writeAnswer(w, s.errorAnswer(status, req.Key, nil))
			})
			_, err, took := timed(ctx, call)
			pe := s.expect(t, err, provider.KindTransient)
			wantRequests(t, srv, MaxAttempts, "")
			checkAttempts(t, pe, srv.Count())
			within(t, took, quick)
		})
	}

	t.Run("reports transient when the connection is refused", func(t *testing.T) {
		call := o.build("http://"+RefusedAddr(t), onePool(), hc)
		_, err, took := timed(ctx, call)
		s.expect(t, err, provider.KindTransient)
		within(t, took, quick)
	})

	t.Run("returns transient within the caller's deadline when the server hangs", func(t *testing.T) {
		t.Parallel()
		if srv := s.stalls(t, ctx, hc, nil); srv.Count() < 1 {
			t.Error("server received no request")
		}
	})

	t.Run("returns transient within the caller's deadline when the body stalls", func(t *testing.T) {
		t.Parallel()
		s.stalls(t, ctx, hc, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"results":[{"title":"partial`))
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		})
	})

	t.Run("reports unknown for malformed JSON in a 200 answer", func(t *testing.T) {
		s.failsOnce(t, ctx, hc, Answer{Status: 200, Header: jsonHeader(), Body: `{"results": [{"title": "cut off`}, provider.KindUnknown, "a malformed answer is not retried")
	})

	t.Run("reports unknown for a body larger than MaxBodyBytes", func(t *testing.T) {
		small := hc
		small.MaxBodyBytes = MaxBodyBytes
		body := `{"padding":"` + strings.Repeat("x", 4*MaxBodyBytes) + `"}`
		s.failsOnce(t, ctx, small, Answer{Status: 200, Header: jsonHeader(), Body: body}, provider.KindUnknown, "an oversize answer is not retried")
	})

	t.Run("returns promptly with unknown for an endless body", func(t *testing.T) {
		small := hc
		small.MaxBodyBytes = MaxBodyBytes
		quit := make(chan struct{})
		_, call := s.start(t, onePool(), small, func(_ int, _ Request, w http.ResponseWriter, r *http.Request) {
			stream(w, r, quit)
		})
		t.Cleanup(func() { close(quit) }) // runs before the server closes
		_, err, took := timed(ctx, call)
		s.expect(t, err, provider.KindUnknown)
		within(t, took, quick)
	})

	if o.name == "extract" && !zero(w.ExtractPartial) {
		t.Run("reports unsupported when the provider lists the URL as failed", func(t *testing.T) {
			s.failsOnce(t, ctx, hc, w.ExtractPartial, provider.KindUnsupported, "")
		})
	}

	if o.name == "search" && !zero(w.OKWithError.Answer) {
		f := w.OKWithError
		t.Run(fmt.Sprintf("reports %s for a 200 answer carrying an error (%s)", f.Kind, f.Name), func(t *testing.T) {
			srv, call := s.start(t, onePool(), hc, answers(f.Answer))
			_, err, took := timed(ctx, call)
			s.expect(t, err, f.Kind)
			if n := srv.Count(); n < 1 || (!f.Kind.Retryable() && n != 1) {
				t.Errorf("server received %d requests", n)
			}
			within(t, took, quick)
		})
	}

	if o.keys != KeyNone {
		s.keyPoolCases(t)
	}

	switch o.keys {
	case KeyRequired:
		t.Run("reports auth without sending a request when no key is configured", func(t *testing.T) {
			srv, call := s.start(t, provider.NewPool(nil, nil), hc, answers(o.ok))
			_, err, took := timed(ctx, call)
			s.expect(t, err, provider.KindAuth)
			wantRequests(t, srv, 0, "")
			within(t, took, quick)
		})
	default:
		t.Run("succeeds without sending a key when no key is configured", func(t *testing.T) {
			srv, call := s.start(t, provider.NewPool(nil, nil), hc, answers(o.ok))
			took := s.succeed(t, ctx, call, "the backend does not need a key")
			if n := srv.Count(); n != 1 {
				t.Fatalf("server received %d requests, want 1", n)
			}
			s.checkRequest(t, srv.Last(), "")
			within(t, took, quick)
		})
	}

	t.Run("reports canceled without sending a request when the context is already canceled", func(t *testing.T) {
		srv, call := s.start(t, onePool(), hc, answers(o.ok))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err, took := timed(cctx, call)
		s.expect(t, err, provider.KindCanceled)
		wantRequests(t, srv, 0, "")
		within(t, took, quick)
	})

	t.Run("is safe for concurrent use", func(t *testing.T) {
		const n = 8
		srv, call := s.start(t, roundRobin(3), hc, answers(o.ok))
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = call(ctx)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				CheckNoSecrets(t, err, Secrets...)
				t.Errorf("call %d failed: %v", i, err)
			}
		}
		if got := srv.Count(); got != n {
			t.Errorf("server received %d requests, want %d", got, n)
		}
	})
}

// keyPoolCases runs the cases about a pool of several keys: a revoked
// key, a rate-limited key, and every key out of quota.
func (s suite) keyPoolCases(t *testing.T) {
	t.Helper()
	w, o := s.w, s.o
	ctx := context.Background()
	hc := HTTPConfig()

	t.Run("moves past a revoked key to the next key in the pool", func(t *testing.T) {
		pool := roundRobin(2)
		srv, call := s.start(t, pool, hc, func(_ int, req Request, w http.ResponseWriter, _ *http.Request) {
			if req.Key == Secrets[0] {
				writeAnswer(w, s.errorAnswer(http.StatusUnauthorized, req.Key, nil))
				return
			}
			writeAnswer(w, o.ok)
		})
		took := s.succeed(t, ctx, call, "want success with the second key")
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("server received %d requests, want 2", len(reqs))
		}
		if reqs[0].Key != Secrets[0] || reqs[1].Key != Secrets[1] {
			t.Errorf("requests carried keys #%d then #%d, want the revoked key #1 then #2", keyIndex(reqs[0].Key), keyIndex(reqs[1].Key))
		}
		if got := pool.Outcomes(1)[provider.KindAuth]; got != 1 {
			t.Errorf("pool recorded %d auth failures for key #1, want 1", got)
		}
		if got := pool.Outcomes(2)["ok"]; got != 1 {
			t.Errorf("pool recorded %d successes for key #2, want 1", got)
		}
		within(t, took, quick)
	})

	t.Run("moves past a rate-limited key to the next key without waiting", func(t *testing.T) {
		srv, call := s.start(t, roundRobin(2), hc, func(_ int, req Request, w http.ResponseWriter, _ *http.Request) {
			if req.Key == Secrets[0] {
				writeAnswer(w, s.errorAnswer(http.StatusTooManyRequests, req.Key, http.Header{"Retry-After": {"4"}}))
				return
			}
			writeAnswer(w, o.ok)
		})
		took := s.succeed(t, ctx, call, "want success with the second key")
		wantRequests(t, srv, 2, "")
		within(t, took, quick)
	})

	t.Run("reports quota after trying each key once when every key is exhausted", func(t *testing.T) {
		var quota *Fault
		for i := range w.Faults {
			if w.Faults[i].Kind == provider.KindQuota {
				quota = &w.Faults[i]
				break
			}
		}
		if quota == nil {
			t.Skip("Wire.Faults has no quota fault")
		}
		srv, call := s.start(t, roundRobin(3), hc, answers(quota.Answer))
		_, err, took := timed(ctx, call)
		pe := s.expect(t, err, provider.KindQuota)
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("server received %d requests, want 3 (one per key)", len(reqs))
		}
		seen := map[string]bool{}
		for _, r := range reqs {
			seen[r.Key] = true
		}
		for i, k := range Secrets[:3] {
			if !seen[k] {
				t.Errorf("key #%d was never tried", i+1)
			}
		}
		checkAttempts(t, pe, 3)
		within(t, took, quick)
	})
}

// checkRequest checks what the backend sent for the operation. key is the
// key the request must carry; an operation that uses no keys must carry
// none whatever key is given, and an empty key means none.
func (s suite) checkRequest(t *testing.T, req Request, key string) {
	t.Helper()
	if req.Path != s.o.path {
		t.Errorf("request path = %q, want %q", req.Path, s.o.path)
	}
	if s.o.keys == KeyNone {
		key = ""
	}
	switch {
	case key == "":
		if req.Key != "" {
			t.Errorf("request carried key #%d, want no key", keyIndex(req.Key))
		}
		checkNoKeySent(t, req)
	case req.Key != key:
		t.Errorf("request carried key #%d, want #%d", keyIndex(req.Key), keyIndex(key))
	}
	if ua := req.Header.Get("User-Agent"); !strings.HasPrefix(ua, "webgate/") {
		t.Errorf("User-Agent = %q, want it to start with webgate/", ua)
	}
	if s.o.validate != nil {
		if err := s.o.validate(req.Body); err != nil {
			t.Errorf("request body does not match the provider's schema: %v\nbody: %s", err, req.Body)
		}
	}
	if s.o.validateRequest != nil {
		if err := s.o.validateRequest(req); err != nil {
			t.Errorf("request does not match the provider's wire format: %v\nrequest: %s %s?%s", err, req.Method, req.Path, req.RawQuery)
		}
	}
}

// checkNoKeySent fails t when any of [Secrets] appears anywhere in req: a
// header, the path, the query string or the body.
func checkNoKeySent(t *testing.T, req Request) {
	t.Helper()
	for i, k := range Secrets {
		for name, vs := range req.Header {
			for _, v := range vs {
				if strings.Contains(v, k) {
					t.Errorf("request header %s carries key #%d; want no key", name, i+1)
				}
			}
		}
		if strings.Contains(req.Path, k) || strings.Contains(req.RawQuery, k) || strings.Contains(string(req.Body), k) {
			t.Errorf("request URL or body carries key #%d; want no key", i+1)
		}
	}
}

// expect asserts that err has kind want, is (or wraps) a *provider.Error
// naming the backend, and holds no secret. It returns the *provider.Error.
func (s suite) expect(t *testing.T, err error, want provider.Kind) *provider.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("%s succeeded, want an error of kind %q", s.o.name, want)
	}
	CheckNoSecrets(t, err, Secrets...)
	if got := provider.KindOf(err); got != want {
		t.Errorf("KindOf(err) = %q, want %q; err: %v", got, want, err)
	}
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Errorf("error %v (%T) is not a *provider.Error", err, err)
		return nil
	}
	if pe.Provider != s.w.Name {
		t.Errorf("Error.Provider = %q, want %q", pe.Provider, s.w.Name)
	}
	return pe
}

// errorAnswer renders the provider's error envelope for status. The message
// echoes the request's key, as some providers do, so that the suite checks
// backends scrub it from their errors.
func (s suite) errorAnswer(status int, key string, h http.Header) Answer {
	msg := fmt.Sprintf("%s (request with key %s)", http.StatusText(status), key)
	if h == nil {
		h = http.Header{}
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	return Answer{Status: status, Header: h, Body: s.w.ErrorBody(status, msg)}
}

func checkAttempts(t *testing.T, pe *provider.Error, requests int) {
	t.Helper()
	if pe != nil && pe.Attempts != requests {
		t.Errorf("Error.Attempts = %d, but the server received %d requests", pe.Attempts, requests)
	}
}

func within(t *testing.T, took, bound time.Duration) {
	t.Helper()
	if took > bound {
		t.Errorf("call took %v, want at most %v", took.Round(time.Millisecond), bound)
	}
}

func keyIndex(k string) int {
	for i, s := range Secrets {
		if s == k {
			return i + 1
		}
	}
	return 0
}

func jsonHeader() http.Header { return http.Header{"Content-Type": {"application/json"}} }

func zero(a Answer) bool { return a.Status == 0 && a.Body == "" && len(a.Header) == 0 }

// hang blocks until the client goes away or the test ends.
func hang(r *http.Request, quit <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-quit:
	}
}

// stream writes an endless JSON-looking body until the client goes away or
// the test ends.
func stream(w http.ResponseWriter, r *http.Request, quit <-chan struct{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	chunk := []byte(`{"results":[` + strings.Repeat(`{"title":"t","url":"https://example.org/"},`, 256))
	for {
		select {
		case <-r.Context().Done():
			return
		case <-quit:
			return
		default:
		}
		if _, err := w.Write(chunk); err != nil {
			return
		}
		if f != nil {
			f.Flush()
		}
	}
}

// CheckNoSecrets fails t if any of the secrets appears in err: in its
// message, in its fmt %v, %+v and %#v forms, in any error it wraps, or in
// any field of a *provider.Error in its chain. A nil err passes.
func CheckNoSecrets(t testing.TB, err error, secrets ...string) {
	t.Helper()
	if err == nil {
		return
	}
	texts := map[string]string{
		"Error()": err.Error(),
		"%v":      fmt.Sprintf("%v", err),
		"%+v":     fmt.Sprintf("%+v", err),
		"%#v":     fmt.Sprintf("%#v", err),
	}
	walkErrors(err, func(e error) {
		texts[fmt.Sprintf("wrapped %T Error()", e)] = e.Error()
		if pe, ok := e.(*provider.Error); ok {
			texts["*provider.Error fields"] = errorFields(pe)
			texts["provider.Error %#v"] = fmt.Sprintf("%#v", *pe)
		}
	})
	for where, text := range texts {
		for _, s := range secrets {
			if s != "" && strings.Contains(text, s) {
				t.Errorf("an API key appears in the error's %s: the backend must scrub keys from errors", where)
			}
		}
	}
}

// walkErrors calls fn for err and every error it wraps.
func walkErrors(err error, fn func(error)) {
	seen := 0
	var walk func(error)
	walk = func(e error) {
		if e == nil || seen > 100 {
			return
		}
		seen++
		fn(e)
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
}

// errorFields renders every field of pe, string fields verbatim.
func errorFields(pe *provider.Error) string {
	var b strings.Builder
	v := reflect.ValueOf(*pe)
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.CanInterface() {
			continue
		}
		fmt.Fprintf(&b, "%s=%v\n", v.Type().Field(i).Name, f.Interface())
	}
	return b.String()
}
