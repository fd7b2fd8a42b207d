package gateway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/redistest"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
)

// redisCalls returns how many commands clients have sent the
// redis-server at addr (INFO commandstats: the calls of EVALSHA, EVAL and
// every command but those the scripts run and INFO itself), each a round
// trip at most.
func redisCalls(b *testing.B, addr string) int64 {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "INFO commandstats\r\n"); err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReader(c)
	head, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, "$") {
		b.Fatalf("INFO: %q %v", head, err)
	}
	size, _ := strconv.Atoi(strings.TrimSpace(head[1:]))
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		b.Fatal(err)
	}
	var n int64
	for line := range strings.Lines(string(body)) {
		// cmdstat_evalsha:calls=12,usec=…; the scripts' own commands
		// (incrby, hmget, …) are counted too, so only the script calls
		// and the commands go-redis sends itself are summed.
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if !ok {
			continue
		}
		switch name {
		case "evalsha", "eval", "script|load", "mget", "scan", "ping", "hello", "client|setinfo", "select":
			calls, _, _ := strings.Cut(rest, ",")
			v, _ := strconv.ParseInt(calls, 10, 64)
			n += v
		}
	}
	return n
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGatewayCPU measures the CPU one /v1/search costs the process
// (gateway over a redis-server on 127.0.0.1, limits, search cache, audit
// log; the provider answers at once), not its latency: "handler" calls
// the handler directly (the gateway's own cost), "http" adds the HTTP
// round trip on loopback, client included. It reports CPU µs and
// allocations per call, the commands sent to redis-server per call (each
// a round trip, at most) and the calls whose settlement and audit
// entry were written before their answer because the queue was full;
// redis-server's own CPU is not counted.
func BenchmarkGatewayCPU(b *testing.B) {
	redis := redistest.Start(b)
	st := openStore(b, redis.URL)
	// The cache's store calls get all the time they need: a call slowed by
	// a busy machine past the default bound would leave the store alone
	// for a while, and the figures would count fewer round trips.
	mem := memory.New(&memory.Options{Store: st, Cache: memory.CacheConfig{SearchTTL: time.Hour}, OpTimeout: 10 * time.Second})
	search := &fakeSearcher{}
	tokens := &Tokens{Store: st}
	_, secret, err := tokens.Create(context.Background(), NewToken{Owner: "cpu", Team: "core"})
	if err != nil {
		b.Fatal(err)
	}
	srv := New(Options{Tools: &webtools.Tools{Searcher: mem.CacheSearcher(search, []string{"fake"})}, Tokens: tokens,
		Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 1 << 40}}, Audit: &Audit{Store: st}})
	b.Cleanup(func() { srv.Close(context.Background()) })
	var seq atomic.Int64
	run := func(b *testing.B, call func(body string) int) {
		b.ReportAllocs()
		b.SetParallelism(8)
		cpu, cmds := cpuTime(), redisCalls(b, redis.Addr)
		inline := srv.metrics.value("webgate_gateway_after_inline_total", series{})
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if code := call(fmt.Sprintf(`{"query":"q%d"}`, seq.Add(1))); code != 200 {
					b.Errorf("status %d", code)
					return
				}
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := srv.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		b.ReportMetric(float64(redisCalls(b, redis.Addr)-cmds)/float64(b.N), "redis-calls/op")
		b.ReportMetric(srv.metrics.value("webgate_gateway_after_inline_total", series{})-inline, "written-before-answer")
	}
	b.Run("handler", func(b *testing.B) {
		run(b, func(body string) int {
			r := httptest.NewRequest("POST", "/v1/search", strings.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+secret)
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, r)
			return w.Code
		})
	})
	b.Run("http", func(b *testing.B) {
		hs := httptest.NewServer(srv)
		defer hs.Close()
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
		run(b, func(body string) int {
			req, _ := http.NewRequest("POST", hs.URL+"/v1/search", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+secret)
			resp, err := client.Do(req)
			if err != nil {
				return 0
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode
		})
	})
}

// bigSearcher answers every query with ten hits with snippets of 300
// characters, as providers' are.
type bigSearcher struct{}

func (bigSearcher) Search(_ context.Context, q provider.Query) (*provider.Results, error) {
	res := &provider.Results{Query: q.Text, Provider: "fake"}
	for i := range 10 {
		res.Results = append(res.Results, provider.Result{Title: fmt.Sprintf("Result %d", i), URL: fmt.Sprintf("https://example.com/%d", i),
			Snippet: strings.Repeat("a long snippet ", 20), Provider: "fake"})
	}
	return res, nil
}

// BenchmarkGatewayMCPCPU measures the CPU and allocations of one MCP
// tools/call (web_search, ten results) through the handler, over
// an in-memory store: the gateway's own cost of an MCP call (auth,
// limits, metering, the outcome for the audit log, the audit entry).
func BenchmarkGatewayMCPCPU(b *testing.B) {
	st := openStore(b, "memory:")
	tokens := &Tokens{Store: st}
	_, secret, err := tokens.Create(context.Background(), NewToken{Owner: "cpu"})
	if err != nil {
		b.Fatal(err)
	}
	srv := New(Options{Tools: &webtools.Tools{Searcher: bigSearcher{}}, Tokens: tokens,
		Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 1 << 40}}, Audit: &Audit{Store: st}})
	b.Cleanup(func() { srv.Close(context.Background()) })
	b.ReportAllocs()
	cpu := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"q%d"}}}`, i, i)
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+secret)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != 200 || !strings.Contains(w.Body.String(), "a long snippet") {
			b.Fatalf("%d %.300s", w.Code, w.Body.String())
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkGatewayHookCPU measures the CPU and allocations of one call of
// the websearch hook endpoint (a distinct query each time, answered by a
// fake Tavily on 127.0.0.1, its configuration from the gateway's
// environment, as webgate serve's) through the handler, the fake
// provider's own CPU included.
func BenchmarkGatewayHookCPU(b *testing.B) {
	tavily, _ := tavilyFake(b)
	st := openStore(b, "memory:")
	tokens := &Tokens{Store: st}
	_, secret, err := tokens.Create(context.Background(), NewToken{Owner: "cpu"})
	if err != nil {
		b.Fatal(err)
	}
	warm := hookenv.NewWarm()
	b.Cleanup(warm.Close)
	srv := New(Options{Tools: &webtools.Tools{}, Tokens: tokens, Hooks: warm, HookEnv: append(hookEnvFor(b, tavily), "WEBGATE_STORE=memory:"),
		Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 1 << 40}}, Audit: &Audit{Store: st}})
	b.Cleanup(func() { srv.Close(context.Background()) })
	b.ReportAllocs()
	cpu := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		body := fmt.Sprintf(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"golang q%d"},"tool_use_id":"t%d"}`, i, i)
		r := httptest.NewRequest("POST", "/v1/hooks/websearch", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+secret)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != 200 || !strings.Contains(w.Body.String(), "Tavily") {
			b.Fatalf("%d %.300s", w.Code, w.Body.String())
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}
