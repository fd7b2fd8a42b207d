package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/redistest"
	"github.com/webgate-dev/webgate/memory"
)

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
// allocations per call; redis-server's own CPU is not counted.
func BenchmarkGatewayCPU(b *testing.B) {
	redis := redistest.Start(b)
	st := openStore(b, redis.URL)
	mem := memory.New(&memory.Options{Store: st, Cache: memory.CacheConfig{SearchTTL: time.Hour}})
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
		cpu := cpuTime()
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
