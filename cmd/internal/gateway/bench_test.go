package gateway

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkGatewayOverhead measures what the gateway adds to a search
// whose provider takes 50 ms (auth, limits reserved and settled, audit
// entry, metrics; SQLite store), with 50 parallel clients, and reports
// the p50 and p99 of the overhead in milliseconds.
func BenchmarkGatewayOverhead(b *testing.B) {
	const delay = 50 * time.Millisecond
	st := openStore(b, "sqlite://"+b.TempDir()+"/gw.db")
	f := newFixture(b, st, Options{Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 1 << 40}}, Audit: &Audit{Store: st}})
	f.search.delay = delay
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var mu sync.Mutex
	var over []time.Duration
	b.SetParallelism(25) // 25 × GOMAXPROCS(2) = 50 clients
	i := 0
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			i++
			q := fmt.Sprintf(`{"query":"q%d"}`, i)
			mu.Unlock()
			req, _ := http.NewRequest("POST", f.url+"/v1/search", strings.NewReader(q))
			req.Header.Set("Authorization", "Bearer "+f.secret)
			start := time.Now()
			resp, err := client.Do(req)
			d := time.Since(start)
			if err != nil || resp.StatusCode != 200 {
				b.Errorf("%v %v", resp, err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			over = append(over, d-delay)
			mu.Unlock()
		}
	})
	slices.Sort(over)
	if len(over) > 0 {
		b.ReportMetric(float64(over[len(over)/2])/1e6, "p50-overhead-ms")
		b.ReportMetric(float64(over[len(over)*99/100])/1e6, "p99-overhead-ms")
	}
}
