package hooks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider/providertest"
)

// Keys of a two-key Tavily pool, distinctive so that a leak is easy to
// spot: the fake refuses the first as revoked.
const (
	revokedKey = "tvly-REVOKED-PROC-4d1c9e8b7a6f5e4d3c2b"
	workingKey = "tvly-WORKING-PROC-0a1b2c3d4e5f6a7b8c9d"
)

// tavilyAnswer is a Tavily /search answer with two results, both inside
// the allowed domains of claude-websearch-pre.json.
const tavilyAnswer = `{"query":"q","results":[
 {"title":"Tavily: context package","url":"https://pkg.go.dev/context","content":"Package context defines the Context type.","score":0.9},
 {"title":"Tavily: Go blog","url":"https://go.dev/blog/context","content":"Each request is handled in its own goroutine.","score":0.8}],
 "response_time":0.1,"request_id":"req-mem"}`

// tavilyFake is a fake Tavily API on 127.0.0.1 that records every request
// with its key (Authorization: Bearer) and answers with the function set
// last (by default: 200 and [tavilyAnswer] on POST /search).
type tavilyFake struct {
	*providertest.Server
	mu     sync.Mutex
	answer func(req providertest.Request) providertest.Answer
}

func newTavilyFake(t testing.TB) *tavilyFake {
	f := &tavilyFake{answer: func(providertest.Request) providertest.Answer { return providertest.Answer{Body: tavilyAnswer} }}
	f.Server = providertest.NewServer(t, func(r *http.Request) string {
		return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}, func(_ int, req providertest.Request) providertest.Answer {
		if req.Method != http.MethodPost || req.Path != "/search" {
			return providertest.Answer{Status: http.StatusNotFound, Body: `{"detail":{"error":"Not Found"}}`}
		}
		f.mu.Lock()
		fn := f.answer
		f.mu.Unlock()
		return fn(req)
	})
	return f
}

// answerWith makes fn answer every later /search request.
func (f *tavilyFake) answerWith(fn func(req providertest.Request) providertest.Answer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = fn
}

// CountKey returns how many requests carried key.
func (f *tavilyFake) CountKey(key string) int {
	n := 0
	for _, r := range f.Requests() {
		if r.Key == key {
			n++
		}
	}
	return n
}

// tavilyStatus is a Tavily error answer: status, with Retry-After when
// retryAfter is set, and a body that echoes the request's key, as some
// providers do.
func tavilyStatus(status int, retryAfter string) func(providertest.Request) providertest.Answer {
	return func(req providertest.Request) providertest.Answer {
		a := providertest.Answer{Status: status, Body: fmt.Sprintf(`{"detail":{"error":"refused key %s"}}`, req.Key)}
		if retryAfter != "" {
			a.Header = http.Header{"Retry-After": {retryAfter}}
		}
		return a
	}
}

// roomyStore gives every store call of a hook two seconds instead of the
// default 50 ms. Tests of what the memory remembers use it (every
// providerFake environment holds it), so that a busy
// machine does not turn them into tests of failing open: the first open
// of a SQLite store creates the file and its schema, which can take longer
// than 50 ms on a loaded machine. The tests of failing open keep the
// default.
const roomyStore = "WEBGATE_STORE_TIMEOUT=2s"

// memoryEnv returns the environment of a hook process with the memory
// under state (WEBGATE_STATE_DIR), an empty HOME (no configuration file),
// Tavily at the fake with keys (a "k1|k2" pool or one key; none when
// empty), and extra.
func memoryEnv(t testing.TB, state string, f *tavilyFake, keys string, extra ...string) []string {
	env := []string{
		"HOME=" + t.TempDir(),
		"PATH=/usr/bin:/bin",
		"WEBGATE_STATE_DIR=" + state,
		// The local browser has tests of its own (webpage/browser).
		"WEBGATE_BROWSER=off",
	}
	if f != nil {
		env = append(env, "TAVILY_BASE_URL="+f.URL)
	}
	if keys != "" {
		env = append(env, "TAVILY_API_KEY="+keys)
	}
	return append(env, extra...)
}

// searchPayload is a Claude Code PreToolUse WebSearch payload for query
// with the domain filters given.
func searchPayload(query string, allowed, blocked []string) []byte {
	in := map[string]any{"query": query}
	if allowed != nil {
		in["allowed_domains"] = allowed
	}
	if blocked != nil {
		in["blocked_domains"] = blocked
	}
	b, _ := json.Marshal(map[string]any{
		"session_id": "5e7d1c2a-0000-4b4b-8c8c-000000000007", "cwd": "/home/me/proj",
		"hook_event_name": "PreToolUse", "tool_name": "WebSearch", "tool_input": in, "tool_use_id": "toolu_mem",
	})
	return b
}

// search runs the websearch hook with a payload for query and the domain
// filters, and checks the invariants of every run (see runBinary) and that
// no key of the two-key pool leaked.
func search(t *testing.T, env []string, query string, allowed, blocked []string) result {
	t.Helper()
	r := runBinary(t, "websearch", bytes.NewReader(searchPayload(query, allowed, blocked)), env)
	wantNoSecret(t, r, revokedKey)
	wantNoSecret(t, r, workingKey)
	for _, l := range stderrLines(r) {
		if strings.HasPrefix(l, "webgate: webgate: ") {
			t.Errorf("stderr line with a doubled prefix: %q", l)
		}
	}
	return r
}

// stderrLines returns the non-empty lines of a run's stderr.
func stderrLines(r result) []string {
	var out []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// median returns the median of ds.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// redisServer is a private redis-server on a free 127.0.0.1 port, with
// persistence off, stopped by its PID.
type redisServer struct {
	URL string
	mu  sync.Mutex
	cmd *exec.Cmd
}

// startRedis starts a redis-server and stops it when the test ends.
// Without redis-server on PATH it skips the test, or fails it when
// CI=true.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed; CI requires the Redis tests")
		}
		t.Skip("redis-server is not installed; skipping the Redis test")
	}
	for range 5 {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		var log bytes.Buffer
		cmd := exec.Command(bin, "--save", "", "--appendonly", "no", "--port", strconv.Itoa(port),
			"--bind", "127.0.0.1", "--dir", t.TempDir(), "--daemonize", "no")
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		s := &redisServer{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), cmd: cmd}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if redisPing(addr) {
				t.Cleanup(s.Stop)
				return s
			}
		}
		s.Stop() // the port was taken meanwhile, or the server is slow: try again
	}
	t.Fatal("redis-server did not start")
	return nil
}

// redisPing reports whether a Redis server answers PING at addr.
func redisPing(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := io.WriteString(c, "PING\r\n"); err != nil {
		return false
	}
	buf := make([]byte, 7)
	n, _ := io.ReadFull(c, buf)
	return string(buf[:n]) == "+PONG\r\n"
}

// Stop kills the server by its PID and waits for it; calling it again
// does nothing.
func (s *redisServer) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// silentServer accepts connections on 127.0.0.1 and never answers, as a
// store server that hangs does; it returns its address.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String()
}
