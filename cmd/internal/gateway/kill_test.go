package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/redistest"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/store"
)

// killHangGuard bounds each call of the replica-kill tests: only a call
// that hangs reaches it.
const killHangGuard = time.Minute

// stoppable is a gateway replica with its own HTTP server and its own
// connection to the shared store, so that it can be stopped as a process
// is: gracefully (SIGTERM: Shutdown, then Close) or killed (SIGKILL).
type stoppable struct {
	srv    *Server
	hs     *http.Server
	st     *store.Store
	url    string
	search *fakeSearcher
}

func startStoppable(t *testing.T, redisURL string, delay time.Duration) *stoppable {
	t.Helper()
	st := openStore(t, redisURL)
	mem := memory.New(&memory.Options{Store: st, Cache: memory.CacheConfig{SearchTTL: time.Hour}})
	r := &stoppable{st: st, search: &fakeSearcher{delay: delay}}
	r.srv = New(Options{Tools: &webtools.Tools{Searcher: mem.CacheSearcher(r.search, []string{"fake"})}, Tokens: &Tokens{Store: st},
		Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 1 << 40}}, Audit: &Audit{Store: st, Clear: true}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.hs = &http.Server{Handler: r.srv, ReadHeaderTimeout: killHangGuard}
	go r.hs.Serve(ln)
	r.url = "http://" + ln.Addr().String()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop shuts the replica down as SIGTERM does (webgate serve): no new
// connection, the calls under way finish, then what they left to write
// is written.
func (r *stoppable) stop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), killHangGuard)
	defer cancel()
	if err := r.hs.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	if err := r.srv.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
}

// kill stops the replica as SIGKILL does: the listener and every
// connection are closed at once, calls under way get no answer, and its
// connection to the store is closed, so that nothing it has not written
// yet (the settlements and audit entries queued after their answers, the
// writes of the calls under way) reaches the store. Only what a process
// would have written before it died is there.
func (r *stoppable) kill() {
	r.hs.Close()
	r.st.Close()
}

// answered is a call a client got a 200 for: its query, the replica
// that answered it, and whether it was tried on the other one first.
type answered struct {
	query   string
	replica int
	retried bool
}

// failoverClients runs clients that each ask distinct searches of the
// replicas in turn, the next call of each client on the next replica, and
// retry a call on the other replica when the first cannot be reached or
// gives no answer (what a load balancer, or the CLI's user, does), until
// stop is closed. It returns the calls answered 200, how many were tried
// again on the other replica, and any other answer as an error.
func failoverClients(t *testing.T, rs []*stoppable, secret string, clients int, stop <-chan struct{}, progress *atomic.Int64) (ok []answered, retried int64) {
	t.Helper()
	client := &http.Client{Timeout: killHangGuard, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var seq, again atomic.Int64
	for c := range clients {
		wg.Go(func() {
			for i := c; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				q := fmt.Sprintf("kill q%d", seq.Add(1))
				first := i % len(rs)
				code, err := searchOnce(client, rs[first].url, secret, q)
				by := first
				if err != nil {
					again.Add(1)
					by = (first + 1) % len(rs)
					code, err = searchOnce(client, rs[by].url, secret, q)
				}
				if err != nil || code != 200 {
					t.Errorf("%s: %d %v, after trying both replicas", q, code, err)
					return
				}
				mu.Lock()
				ok = append(ok, answered{q, by, by != first})
				mu.Unlock()
				progress.Add(1)
			}
		})
	}
	wg.Wait()
	return ok, again.Load()
}

// searchOnce asks one search; an error means no answer came.
func searchOnce(client *http.Client, base, secret, query string) (int, error) {
	req, _ := http.NewRequest("POST", base+"/v1/search", strings.NewReader(fmt.Sprintf(`{"query":%q}`, query)))
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

// waitFor waits until progress reaches n and reports whether it did, an
// error of the test when it did not within killHangGuard.
func waitFor(t *testing.T, progress *atomic.Int64, n int64) bool {
	t.Helper()
	for start := time.Now(); progress.Load() < n; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > killHangGuard || t.Failed() {
			t.Errorf("%d calls answered, want %d", progress.Load(), n)
			return false
		}
	}
	return true
}

// requestsCounted sums the token's requests in the usage counters.
func requestsCounted(t *testing.T, st *store.Store, tokenID string) int64 {
	t.Helper()
	rows, err := ReadUsage(context.Background(), st, time.Now().Add(-48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, r := range rows {
		if r.Token == tokenID {
			n += r.Requests
		}
	}
	return n
}

// killMidLoad runs 20 clients over two replicas on one redis-server,
// stops replica 1 (by stopReplica) once 150 calls are answered, and goes
// on until 150 more are, all by replica 0. It returns the answered calls,
// the calls tried again, the shared store, the token and what replica 1
// answered before it stopped.
func killMidLoad(t *testing.T, stopReplica func(*stoppable)) (ok []answered, retried int64, st *store.Store, tok *Token) {
	t.Helper()
	redis := redistest.Start(t)
	rs := []*stoppable{startStoppable(t, redis.URL, 20*time.Millisecond), startStoppable(t, redis.URL, 20*time.Millisecond)}
	st = openStore(t, redis.URL)
	tok, secret, err := (&Tokens{Store: st}).Create(context.Background(), NewToken{Owner: "ana", Team: "core"})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var progress atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		ok, retried = failoverClients(t, rs, secret, 20, stop, &progress)
	}()
	if waitFor(t, &progress, 150) {
		stopReplica(rs[1])
		waitFor(t, &progress, progress.Load()+150)
	}
	close(stop) // the clients stop before the test can end
	<-done
	rs[0].stop(t)
	return ok, retried, st, tok
}

// A replica stopped gracefully mid-load (SIGTERM) loses nothing: the
// clients' calls are answered by it or, once it stops taking
// connections, by the other replica; every call answered is counted
// once in the token's usage and has its audit entry, and the chain is
// whole.
func TestServer_ReplicaStoppedMidLoadLosesNothing(t *testing.T) {
	ok, retried, st, tok := killMidLoad(t, func(r *stoppable) { r.stop(t) })
	if t.Failed() {
		return
	}
	t.Logf("%d calls answered, %d tried again on the other replica", len(ok), retried)
	if n := requestsCounted(t, st, tok.ID); n != int64(len(ok)) {
		t.Errorf("requests counted %d, want the %d calls answered", n, len(ok))
	}
	audit := &Audit{Store: st}
	n, err := audit.Verify(context.Background())
	if err != nil || n != len(ok) {
		t.Errorf("audit: %d entries, %v; want %d, intact", n, err, len(ok))
	}
	entries, _ := audit.Entries(context.Background())
	logged := map[string]int{}
	for _, e := range entries {
		logged[e.Query]++
	}
	for _, a := range ok {
		if logged[a.query] != 1 {
			t.Errorf("%s (answered by replica %d) is in the audit log %d times, want once", a.query, a.replica, logged[a.query])
		}
	}
}

// A replica killed mid-load (SIGKILL) makes no client fail: a call it
// does not answer is answered by the other replica, and no call is
// answered with a 5xx. The store has every answered call's request
// counted (reservations are written before the call, so a budget is
// never overshot), and every audit entry of the surviving replica; what
// the killed one loses is the audit entries of calls it answered but had
// not written yet, which Verify reports as missing from the chain when
// the chain had been moved past them.
func TestServer_ReplicaKilledMidLoadFailsOverAndKeepsTheCounts(t *testing.T) {
	var hook struct{ stdout, diag string }
	ok, retried, st, tok := killMidLoad(t, func(r *stoppable) {
		r.kill()
		// A hook whose gateway was killed passes through and says why.
		out, diag := hookenv.Forward(context.Background(), "websearch", []byte(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"x"}}`),
			r.url, "wg_killed", time.Now(), 0)
		hook.stdout, hook.diag = string(out), diag
	})
	if t.Failed() {
		return
	}
	if hook.stdout != "" || !strings.Contains(hook.diag, "not reachable") || !strings.Contains(hook.diag, "passing through") {
		t.Errorf("a hook forwarded to the killed replica: stdout %q, diag %q; want nothing and why", hook.stdout, hook.diag)
	}
	byKilled := 0
	for _, a := range ok {
		if a.replica == 1 {
			byKilled++
		}
	}
	t.Logf("%d calls answered (%d by the killed replica), %d tried again on the other replica", len(ok), byKilled, retried)
	if retried == 0 {
		t.Error("no call was tried again on the other replica: the kill was not mid-load")
	}
	// Each call tried on the killed replica may have reserved its request
	// there before it died, and is counted again on the other.
	if n := requestsCounted(t, st, tok.ID); n < int64(len(ok)) || n > int64(len(ok))+retried {
		t.Errorf("requests counted %d, want from the %d calls answered to %d (those tried again counted twice at most)", n, len(ok), int64(len(ok))+retried)
	}
	audit := &Audit{Store: st}
	entries, err := audit.Entries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]int{}
	for _, e := range entries {
		logged[e.Query]++
	}
	lost := 0
	for _, a := range ok {
		switch n := logged[a.query]; {
		case n > 2 || n == 2 && !a.retried:
			// A call tried on the killed replica first may have run there
			// to its end, its answer lost with the connection.
			t.Errorf("%s is in the audit log %d times (tried again: %v)", a.query, n, a.retried)
		case n == 0 && a.replica == 0:
			t.Errorf("%s, answered by the replica that was not killed, is not in the audit log", a.query)
		case n == 0:
			lost++
		}
	}
	t.Logf("audit entries lost with the killed replica: %d of its %d answers", lost, byKilled)
	if _, err := audit.Verify(context.Background()); err != nil && (!errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "missing")) {
		t.Errorf("Verify after the kill: %v; want the chain intact, or entries reported missing", err)
	} else if err != nil {
		t.Logf("Verify after the kill: %v", err)
	}
}
