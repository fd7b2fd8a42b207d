//go:build linux || darwin

package hooks_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// busyMachine keeps every CPU busy with a spinning loop, as a parallel
// build does, until the returned function is called.
func busyMachine() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				if n%1_000_000 == 0 {
					select {
					case <-done:
						return
					default:
					}
				}
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}

// storeSkips runs the web search hook b.N times, whole processes, on a
// busy machine (busyMachine), with the default store bounds: each query
// is asked twice in a row, so every second run repeats the search of the
// run before in a fresh process. It reports the share of runs that went
// on without the store ("skips/call": the hook says so on stderr), the
// share of repeats the cache did not answer ("misses/repeat"), and the
// median wall time. ready, when not nil, is called after the warm-up run.
func storeSkips(b *testing.B, f *tavilyFake, env []string, ready func()) {
	bin := binary(b, "websearch")
	run := func(p []byte) (time.Duration, string) {
		cmd := exec.Command(bin)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(p)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("run websearch: %v", err)
		}
		if !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
			b.Fatalf("websearch did not answer: %s\nstderr: %s", out.String(), errb.String())
		}
		return time.Since(start), errb.String()
	}
	query := func(i int) []byte {
		return searchPayload(fmt.Sprintf("go context cancellation %d", i/2), goDomains, nil)
	}
	run(searchPayload("warm-up", goDomains, nil))
	if ready != nil {
		ready()
	}
	stop := busyMachine()
	defer stop()
	walls := make([]time.Duration, 0, b.N)
	skips, repeats, misses := 0, 0, 0
	b.ResetTimer()
	for i := range b.N {
		asked := f.Count()
		wall, stderr := run(query(i))
		walls = append(walls, wall)
		if strings.Contains(stderr, "going on without it") {
			skips++
		}
		if i%2 == 1 {
			repeats++
			if f.Count() != asked {
				misses++
			}
		}
	}
	b.StopTimer()
	slices.Sort(walls)
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(skips)/float64(b.N), "skips/call")
	if repeats > 0 {
		b.ReportMetric(float64(misses)/float64(repeats), "misses/repeat")
	}
}

// BenchmarkProcessWebSearch_StoreSkipsBusyWorkerOff measures how often a
// hook call goes on without the store on a busy machine, each call its own
// worker process (hooks.worker off), which opens the store. Target: at
// most 0.01 skips/call, and every repeated search a cache hit.
func BenchmarkProcessWebSearch_StoreSkipsBusyWorkerOff(b *testing.B) {
	f := newTavilyFake(b)
	storeSkips(b, f, memoryBenchEnv(b, f, "WEBGATE_HOOKS_WORKER=off"), nil)
}

// BenchmarkProcessWebSearch_StoreSkipsBusy is the same through the warm
// worker (as installed), which keeps the store open across calls.
func BenchmarkProcessWebSearch_StoreSkipsBusy(b *testing.B) {
	f := newTavilyFake(b)
	env, ready := warmBenchEnv(b, f)
	storeSkips(b, f, env, ready)
}
