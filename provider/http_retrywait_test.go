package provider_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// A Retry-After that fits before the deadline but would leave the retry
// almost no time is not waited for: the request ends at once as rate
// limited instead of sleeping most of the caller's time away.
func TestHTTP_DoesNotWaitWhenTheRetryWouldHaveNoTimeLeft(t *testing.T) {
	srv := newRecorder(t, status(429, "Retry-After", "0.7"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := do(ctx, fastHTTP(), onePool(), srv.URL)
	took := time.Since(start)
	if k := provider.KindOf(err); k != provider.KindRateLimited {
		t.Errorf("kind %q, want rate-limited: %v", k, err)
	}
	// Under the 0.7 s a wait would take, with room for a busy machine.
	if took > 600*time.Millisecond || srv.count() != 1 {
		t.Errorf("returned after %v and %d request(s), want at once after 1", took, srv.count())
	}
}

// A wait that leaves the retry as much time again is still taken.
func TestHTTP_WaitsWhenTheRetryKeepsTime(t *testing.T) {
	srv := newRecorder(t, func(i int, _ string, w http.ResponseWriter) {
		if i == 0 {
			w.Header().Set("Retry-After", "0.3")
			w.WriteHeader(429)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	resp, err := do(ctx, fastHTTP(), onePool(), srv.URL)
	if err != nil || resp.Attempts != 2 {
		t.Fatalf("err %v, response %+v; want success after a retry", err, resp)
	}
}
