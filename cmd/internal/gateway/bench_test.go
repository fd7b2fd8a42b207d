package gateway

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/redistest"
)

// benchDelay is the fake provider's latency in the benchmarks.
const benchDelay = 50 * time.Millisecond

// BenchmarkGatewayOverhead measures what one gateway adds to a search
// whose provider takes 50 ms (auth, limits reserved and settled, audit
// entry, metrics), with 50 parallel clients, on SQLite and on a
// redis-server on 127.0.0.1, and reports the p50 and p99 of the overhead
// in milliseconds. "floor" is the same without limits and audit log: what
// HTTP, JSON and scheduling cost on the machine that runs it.
func BenchmarkGatewayOverhead(b *testing.B) {
	for _, name := range []string{"sqlite", "redis", "floor"} {
		b.Run(name, func(b *testing.B) {
			url := "sqlite://" + b.TempDir() + "/gw.db"
			if strings.HasPrefix(name, "redis") {
				url = redistest.Start(b).URL
			}
			st := openStore(b, url)
			o := Options{Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 1 << 40}}, Audit: &Audit{Store: st}}
			if name == "floor" {
				o = Options{} // no limits, no audit: what HTTP and the fake provider cost on this machine
			}
			f := newFixture(b, st, o)
			f.search.delay = benchDelay
			var mu sync.Mutex
			var over []time.Duration
			var i atomic.Int64
			b.SetParallelism(25) // 25 × GOMAXPROCS(2) = 50 clients
			b.RunParallel(func(pb *testing.PB) {
				client := agentClient()
				defer client.CloseIdleConnections()
				for pb.Next() {
					d, err := benchSearch(client, f.url, f.secret, i.Add(1))
					if err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					over = append(over, d)
					mu.Unlock()
				}
			})
			b.StopTimer()
			f.flush(b)
			reportOverhead(b, over)
		})
	}
}

// BenchmarkGatewayLoad is the bounded load test: 50 clients, spread over
// two gateways sharing one redis-server on 127.0.0.1 (tokens, limits,
// search cache, audit log), ask distinct searches of fake providers that
// take about 50 ms, for WEBGATE_LOAD_SECONDS seconds (3 unless set; 10
// for the README's figures), in these patterns:
//
//   - spread (as agents run): the clients' first calls are spread over
//     one provider latency (client i starts after i × 50 ms / 50), and
//     each search takes 50 ms ± 10 %, drawn uniformly from its query;
//   - lockstep: every client starts at once and every search takes
//     exactly 50 ms, so that the calls arrive in waves of 50 within a few
//     hundred microseconds, every 50 ms, and queue for the CPU together;
//   - spread-processes: spread, each replica in a process of its own (as
//     webgate serve runs), so that the clients' garbage collection and
//     scheduling do not land on the servers (its CPU per call counts the
//     replica processes' start too);
//   - spread-floor: spread, the replicas without limits, audit log or
//     search cache, so that no call makes a store round trip: what the
//     machine gives any HTTP service under this load;
//   - spread-reservation: the floor and the reservation before each
//     provider call, the one store round trip a call cannot do without.
//
// It fails on any error and reports the requests served and the p50 and
// p99 of the gateway's overhead in milliseconds: as the clients see it
// (their latency minus the time the provider took for that call), and as
// the servers do (the time in the handler minus the time in the
// provider: the gateway's code and store calls, without HTTP or client);
// and how many other calls were in the gateways' code (not waiting for
// their provider) when a call arrived, p50 and p99.
//
//	WEBGATE_LOAD_SECONDS=10 go test -run '^$' -bench GatewayLoad -benchtime 1x ./cmd/internal/gateway
func BenchmarkGatewayLoad(b *testing.B) {
	dur := 3 * time.Second
	if v := os.Getenv("WEBGATE_LOAD_SECONDS"); v != "" {
		var secs int
		if _, err := fmt.Sscan(v, &secs); err != nil || secs <= 0 {
			b.Fatalf("WEBGATE_LOAD_SECONDS=%q: want a positive number of seconds", v)
		}
		dur = time.Duration(secs) * time.Second
	}
	b.Run("spread", func(b *testing.B) { benchLoad(b, dur, loadPattern{spread: true}) })
	b.Run("lockstep", func(b *testing.B) { benchLoad(b, dur, loadPattern{}) })
	b.Run("spread-processes", func(b *testing.B) { benchLoad(b, dur, loadPattern{spread: true, procs: true}) })
	b.Run("spread-floor", func(b *testing.B) { benchLoad(b, dur, loadPattern{spread: true, floor: floorNoStore}) })
	b.Run("spread-reservation", func(b *testing.B) { benchLoad(b, dur, loadPattern{spread: true, floor: floorReservation}) })
}

// loadPattern is how a run of BenchmarkGatewayLoad loads its replicas:
// calls spread or in lockstep, replicas in processes of their own, and
// which of the gateway's store calls they make ([loadFloor]).
type loadPattern struct {
	spread, procs bool
	floor         loadFloor
}

// loadFloor is what a load run's replicas leave out, to show what the
// rest costs under the same load on the machine that runs it.
type loadFloor int

const (
	// floorNone: the whole gateway.
	floorNone loadFloor = iota
	// floorNoStore: no limits, no audit log, no search cache (the token
	// is checked from each replica's own cache), so that a call makes no
	// store round trip: HTTP, JSON, the token check, metrics, logs and
	// the scheduling of the clients, both replicas and the fake
	// providers.
	floorNoStore
	// floorReservation: the floor and the one store call a call cannot
	// do without, its reservation before the provider call (limits
	// checked atomically in the store; the settlement after the answer).
	floorReservation
)

// benchLoad runs BenchmarkGatewayLoad for dur, its calls spread or in
// lockstep, against two replicas in this process or, with procs, each in
// a process of its own (this test binary again, see
// TestLoadReplicaProcess), so that the clients' garbage collection and
// scheduling do not land on the servers.
func benchLoad(b *testing.B, dur time.Duration, pattern loadPattern) {
	spread := pattern.spread
	const clients = 50
	redis := redistest.Start(b)
	st := openStore(b, redis.URL)
	_, secret, err := (&Tokens{Store: st}).Create(context.Background(), NewToken{Owner: "load", Team: "core"})
	if err != nil {
		b.Fatal(err)
	}
	var urls []string
	var finish func() loadServerSide
	if pattern.procs {
		urls, finish = startReplicaProcesses(b, redis.URL, spread)
	} else {
		urls, finish = startLoadReplicas(b, redis.URL, spread, pattern.floor)
	}
	cpu, cmds := cpuTime(), redisCalls(b, redis.Addr)
	var over []time.Duration
	var errs atomic.Int64
	var seq atomic.Int64
	b.ResetTimer()
	for range b.N {
		var mu sync.Mutex
		var wg sync.WaitGroup
		begin := time.Now()
		stop := begin.Add(dur)
		for c := range clients {
			wg.Go(func() {
				client := agentClient()
				defer client.CloseIdleConnections()
				if spread {
					time.Sleep(time.Until(begin.Add(time.Duration(c) * benchDelay / clients)))
				}
				var mine []time.Duration
				for time.Now().Before(stop) {
					d, err := benchSearch(client, urls[c%2], secret, seq.Add(1))
					if err != nil {
						if errs.Add(1) <= 3 {
							b.Error(err)
						}
						continue
					}
					mine = append(mine, d)
				}
				mu.Lock()
				over = append(over, mine...)
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	b.StopTimer()
	server := finish()
	// Per call: the CPU of the clients and both gateways (the replicas'
	// processes included) and the commands sent to redis-server (each a
	// round trip at most).
	b.ReportMetric(float64((cpuTime()-cpu+server.cpu).Microseconds())/float64(len(over)), "cpu-µs/call")
	b.ReportMetric(float64(redisCalls(b, redis.Addr)-cmds)/float64(len(over)), "redis-calls/call")
	if n, err := (&Audit{Store: st}).Verify(context.Background()); pattern.floor != floorNone && (err != nil || n != 0) {
		b.Errorf("audit after the floor's load: %d entries, %v; want none", n, err)
	} else if pattern.floor == floorNone && (err != nil || n != len(over)) {
		b.Errorf("audit after the load: %d entries, %v; want %d", n, err, len(over))
	}
	b.ReportMetric(server.inline, "written-before-answer")
	// A replica whose store call took longer than its bound (50 ms, as
	// webgate serve's default store.timeout) went on without the search
	// cache for a while: its calls made fewer round trips, and the
	// figures are not those of a gateway with its cache.
	b.ReportMetric(float64(server.cacheOff), "replicas-without-cache")
	b.ReportMetric(float64(len(over)), "requests")
	b.ReportMetric(float64(errs.Load()), "errors")
	reportOverhead(b, over)
	server.times.report(b)
}

// loadServerSide is what the replicas of a load run tell of it once
// flushed: their handlers' times, the calls written before their answers,
// how many went without their search cache, and the CPU of their
// processes (0 in this process: counted with the clients').
type loadServerSide struct {
	times    *handlerTimes
	inline   float64
	cacheOff int
	cpu      time.Duration
}

// startLoadReplicas starts the two replicas of a load run in this
// process; finish flushes them and reads what they tell.
func startLoadReplicas(b *testing.B, redisURL string, spread bool, floor loadFloor) (urls []string, finish func() loadServerSide) {
	server := &handlerTimes{}
	rs := startReplicas(b, redisURL, 2, Limits{RequestsPerDay: 1 << 40}, benchDelay, replicaExtra{
		options: func(o *Options) {
			// As webgate serve: one JSON log line per request.
			o.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
			if floor != floorNone {
				o.Audit = nil
			}
			if floor == floorNoStore {
				o.Limiter = nil
			}
		},
		wrap:     server.wrap,
		uncached: floor != floorNone,
	})
	for _, r := range rs {
		if spread {
			r.search.jitter = 0.1
		}
		urls = append(urls, r.url)
	}
	return urls, func() loadServerSide {
		flushAll(b, rs)
		out := loadServerSide{times: server}
		for _, r := range rs {
			out.inline += r.srv.metrics.value("webgate_gateway_after_inline_total", series{})
			if r.mem.Skipped() != "" {
				out.cacheOff++
			}
		}
		return out
	}
}

// benchCallKey keys the context value (a *benchCall) through which the
// fake provider tells the benchmarks the time it took.
type benchCallKey struct{}

// benchCall is one request of a benchmark, as its handler and its fake
// provider see it.
type benchCall struct {
	provider atomic.Int64  // the nanoseconds the provider took
	inCode   *atomic.Int64 // the calls in the gateways' code, not in a provider
}

// enterProvider marks the call as waiting for its provider; a nil
// benchCall (outside the load benchmark) does nothing.
func (bc *benchCall) enterProvider() {
	if bc != nil && bc.inCode != nil {
		bc.inCode.Add(-1)
	}
}

// leaveProvider marks the call back in the gateway's code, its provider
// having taken d.
func (bc *benchCall) leaveProvider(d time.Duration) {
	if bc == nil {
		return
	}
	bc.provider.Add(int64(d))
	if bc.inCode != nil {
		bc.inCode.Add(1)
	}
}

// providerHeader is the response header in which the load benchmark's
// handler tells its client how long the provider took (nanoseconds).
const providerHeader = "X-Bench-Provider-Ns"

// handlerTimes keeps the gateway's side of the overhead: for each
// request, the time in its handler minus the time in its provider, and
// how many other calls were in the gateways' code when it arrived.
type handlerTimes struct {
	mu     sync.Mutex
	over   []time.Duration
	ahead  []int64
	inCode atomic.Int64
}

func (ht *handlerTimes) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bc := &benchCall{inCode: &ht.inCode}
		ahead := ht.inCode.Add(1) - 1
		r = r.WithContext(context.WithValue(r.Context(), benchCallKey{}, bc))
		start := time.Now()
		h.ServeHTTP(&providerTimeWriter{ResponseWriter: w, bc: bc}, r)
		d := time.Since(start) - time.Duration(bc.provider.Load())
		ht.inCode.Add(-1)
		ht.mu.Lock()
		ht.over = append(ht.over, d)
		ht.ahead = append(ht.ahead, ahead)
		ht.mu.Unlock()
	})
}

// providerTimeWriter adds the provider's time to the response's headers.
type providerTimeWriter struct {
	http.ResponseWriter
	bc    *benchCall
	wrote bool
}

func (w *providerTimeWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		w.Header().Set(providerHeader, strconv.FormatInt(w.bc.provider.Load(), 10))
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *providerTimeWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(200)
	}
	return w.ResponseWriter.Write(p)
}

// report reports the p50 and p99 of the handlers' overhead in
// milliseconds: what the gateway's code and its store calls take, without
// the HTTP round trip, the client or the provider; and of the calls
// ahead of each.
func (ht *handlerTimes) report(b *testing.B) {
	ht.mu.Lock()
	defer ht.mu.Unlock()
	slices.Sort(ht.over)
	slices.Sort(ht.ahead)
	if n := len(ht.over); n > 0 {
		b.ReportMetric(float64(ht.over[n/2])/1e6, "server-p50-ms")
		b.ReportMetric(float64(ht.over[n*99/100])/1e6, "server-p99-ms")
		b.ReportMetric(float64(ht.ahead[n/2]), "ahead-p50")
		b.ReportMetric(float64(ht.ahead[n*99/100]), "ahead-p99")
	}
}

// agentClient returns the HTTP client of one simulated agent: its own
// connection, kept alive, as each agent's process has, so that the
// clients do not queue for one shared pool's lock.
func agentClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
}

// benchSearch asks the gateway at url one distinct search and returns
// how long the answer took beyond the provider's time: the time the
// handler reports, else benchDelay.
func benchSearch(client *http.Client, url, secret string, i int64) (time.Duration, error) {
	req, _ := http.NewRequest("POST", url+"/v1/search", strings.NewReader(fmt.Sprintf(`{"query":"q%d"}`, i)))
	req.Header.Set("Authorization", "Bearer "+secret)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	// Read to the end, so that the connection is used again: a body
	// closed unread closes its connection, and every call would pay a
	// new one.
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != 200 {
		return 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	provider := benchDelay
	if v := resp.Header.Get(providerHeader); v != "" {
		ns, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %q", providerHeader, v)
		}
		provider = time.Duration(ns)
	}
	return d - provider, nil
}

func reportOverhead(b *testing.B, over []time.Duration) {
	slices.Sort(over)
	if len(over) > 0 {
		b.ReportMetric(float64(over[len(over)/2])/1e6, "p50-overhead-ms")
		b.ReportMetric(float64(over[len(over)*99/100])/1e6, "p99-overhead-ms")
	}
}
