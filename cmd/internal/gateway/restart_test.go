//go:build unix

package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/redistest"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// restartHangGuard bounds each call of the Redis restart tests: far above
// the store's call timeout, so only a call that hangs reaches it.
const restartHangGuard = 60 * time.Second

// restartStoreTimeout is the store's call timeout in these tests.
const restartStoreTimeout = 2 * time.Second

// redisGateway is a gateway over a private redis-server, with a token.
type redisGateway struct {
	redis  *redistest.Server
	url    string
	secret string
	client *http.Client
}

func newRedisGateway(t *testing.T, failOpen bool) *redisGateway {
	t.Helper()
	redis := redistest.Start(t)
	st, err := storeurl.Open(context.Background(), redis.URL, &store.Options{Timeout: restartStoreTimeout, OpenTimeout: restartStoreTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tokens := &Tokens{Store: st}
	_, secret, err := tokens.Create(context.Background(), NewToken{Owner: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	// The token outlives a restart, as in a Redis that persists its data.
	redis.Save(t)
	if failOpen {
		// As webgate serve sets it: known callers are still known while
		// the store is away.
		tokens.StaleIfError = DefaultTokenStaleIfError
	}
	srv := httptest.NewServer(New(Options{Tools: &webtools.Tools{Searcher: &fakeSearcher{}}, Tokens: tokens,
		Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 1000}, FailOpen: failOpen}, Audit: &Audit{Store: st}}))
	t.Cleanup(srv.Close)
	return &redisGateway{redis: redis, url: srv.URL, secret: secret, client: &http.Client{Timeout: restartHangGuard}}
}

// search makes one /v1/search call and returns its status; a call that
// does not answer within restartHangGuard fails the test.
func (g *redisGateway) search(t *testing.T, query string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", g.url+"/v1/search", strings.NewReader(fmt.Sprintf(`{"query":%q}`, query)))
	req.Header.Set("Authorization", "Bearer "+g.secret)
	start := time.Now()
	resp, err := g.client.Do(req)
	if err != nil {
		t.Fatalf("search %q: %v (after %s): the call hung", query, err, time.Since(start).Round(time.Millisecond))
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// searches makes n calls and returns their statuses.
func (g *redisGateway) searches(t *testing.T, phase string, n int) []int {
	t.Helper()
	var out []int
	for i := range n {
		out = append(out, g.search(t, fmt.Sprintf("%s %d", phase, i)))
	}
	return out
}

// recovered calls until one is answered 200, and fails the test when none
// is within restartHangGuard. It returns how long that took.
func (g *redisGateway) recovered(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	for i := 0; ; i++ {
		code := g.search(t, fmt.Sprintf("recovering %d", i))
		if code == 200 {
			return time.Since(start)
		}
		if code != 503 {
			t.Errorf("a call while the gateway reconnects answered %d, want 503 or 200", code)
		}
		if time.Since(start) > restartHangGuard {
			t.Fatalf("the gateway did not recover within %s of redis-server's return", restartHangGuard)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (g *redisGateway) readyz(t *testing.T) int {
	t.Helper()
	resp, err := g.client.Get(g.url + "/readyz")
	if err != nil {
		t.Fatalf("/readyz: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// metric returns the value of the sample named name (labels included) on
// /metrics, or 0 when there is none.
func (g *redisGateway) metric(t *testing.T, name string) float64 {
	t.Helper()
	req, _ := http.NewRequest("GET", g.url+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+g.secret)
	resp, err := g.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

func allCodes(codes []int, want int) bool {
	for _, c := range codes {
		if c != want {
			return false
		}
	}
	return true
}

// With gateway.limits_fail_open false, a redis-server that hangs or goes
// away under a running gateway makes its calls answer 503 at once or
// within the store's timeout, never hang, and count as store errors; once
// the server answers again, or is started again on the same address, the
// same gateway answers 200 again, with no restart.
func TestServer_RedisHangsStopsAndComesBack(t *testing.T) {
	g := newRedisGateway(t, false)
	if got := g.searches(t, "before", 3); !allCodes(got, 200) {
		t.Fatalf("calls before: %v, want 200s", got)
	}

	g.redis.Pause()
	start := time.Now()
	if got := g.searches(t, "hung", 2); !allCodes(got, 503) {
		t.Errorf("calls while redis-server hangs: %v, want 503s", got)
	}
	t.Logf("2 calls answered in %s while redis-server hung (store timeout %s)", time.Since(start).Round(time.Millisecond), restartStoreTimeout)
	g.redis.Resume()
	t.Logf("answering again %s after redis-server resumed", g.recovered(t).Round(time.Millisecond))

	g.redis.Stop()
	start = time.Now()
	if got := g.searches(t, "down", 5); !allCodes(got, 503) {
		t.Errorf("calls while redis-server is down: %v, want 503s", got)
	}
	t.Logf("5 calls answered in %s while redis-server was down", time.Since(start).Round(time.Millisecond))
	if got := g.readyz(t); got != 503 {
		t.Errorf("/readyz while redis-server is down: %d, want 503", got)
	}
	g.redis.Restart(t)
	t.Logf("answering again %s after redis-server restarted", g.recovered(t).Round(time.Millisecond))
	if got := g.searches(t, "after", 3); !allCodes(got, 200) {
		t.Errorf("calls after redis-server came back: %v, want 200s", got)
	}
	if got := g.readyz(t); got != 200 {
		t.Errorf("/readyz after redis-server came back: %d, want 200", got)
	}
	if n := g.metric(t, "webgate_gateway_store_errors_total"); n < 7 {
		t.Errorf("webgate_gateway_store_errors_total = %v, want at least the 7 calls answered 503", n)
	}
}

// With gateway.limits_fail_open true, a redis-server that goes away under
// a running gateway does not refuse its calls: they are admitted (and
// counted), and the gateway goes on after the server comes back.
func TestServer_RedisDownLimitsFailOpen(t *testing.T) {
	g := newRedisGateway(t, true)
	if got := g.searches(t, "before", 3); !allCodes(got, 200) {
		t.Fatalf("calls before: %v, want 200s", got)
	}
	g.redis.Stop()
	down := g.searches(t, "down", 5)
	for _, c := range down {
		if c != 200 && c != 503 {
			t.Errorf("calls while redis-server is down: %v, want 200 or 503 each", down)
			break
		}
	}
	g.redis.Restart(t)
	t.Logf("answering again %s after redis-server restarted", g.recovered(t).Round(time.Millisecond))
	if got := g.searches(t, "after", 3); !allCodes(got, 200) {
		t.Errorf("calls after redis-server came back: %v, want 200s", got)
	}
	if !allCodes(down, 200) {
		// Failing open, a token read before the outage is still accepted
		// and the limits admit the call unchecked.
		t.Errorf("calls while redis-server is down: %v; want 200s", down)
	}
}
