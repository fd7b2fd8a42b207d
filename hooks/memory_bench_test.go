//go:build linux || darwin

package hooks_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// memoryStats runs the web search hook b.N times, the i-th run with
// payloadOf(i), after one warm-up run with payloadOf(-1). It reports the
// median wall time ("ms-median"), the 90th percentile ("ms-p90"), the
// median CPU time, user and system, of the hook's processes ("ms-cpu-median",
// which a busy machine inflates less than the wall time), and how many
// timed runs wrote to stderr ("runs-with-stderr": a store that could not be
// used within its timeout says so there).
func memoryStats(b *testing.B, payloadOf func(i int) []byte, env []string) {
	memoryStatsAfter(b, payloadOf, env, nil)
}

// memoryStatsAfter is memoryStats calling ready, when not nil, after the
// warm-up run.
func memoryStatsAfter(b *testing.B, payloadOf func(i int) []byte, env []string, ready func()) {
	bin := binary(b, "websearch")
	run := func(p []byte) (wall, cpu time.Duration, stderr string) {
		cmd := exec.Command(bin)
		cmd.Env = coldEnv(env)
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
		wall = time.Since(start)
		// The front execs the worker in place (one process), so the CPU time
		// is the whole hook's.
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), errb.String()
	}
	run(payloadOf(-1))
	if ready != nil {
		ready()
	}
	walls := make([]time.Duration, 0, b.N)
	cpus := make([]time.Duration, 0, b.N)
	noisy := 0
	b.ResetTimer()
	for i := range b.N {
		wall, cpu, stderr := run(payloadOf(i))
		walls, cpus = append(walls, wall), append(cpus, cpu)
		if stderr != "" {
			noisy++
		}
	}
	b.StopTimer()
	slices.Sort(walls)
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(walls[len(walls)*9/10].Microseconds())/1000, "ms-p90")
	b.ReportMetric(float64(median(cpus).Microseconds())/1000, "ms-cpu-median")
	b.ReportMetric(float64(noisy), "runs-with-stderr")
}

// memoryBenchEnv is the environment of the memory benchmarks: Tavily at
// the fake, state in a new directory, and extra.
func memoryBenchEnv(b *testing.B, f *tavilyFake, extra ...string) []string {
	return benchEnv(b, append([]string{"TAVILY_API_KEY=" + tavilyKey, "TAVILY_BASE_URL=" + f.URL, "WEBGATE_STATE_DIR=" + b.TempDir()}, extra...)...)
}

func sameSearch(int) []byte { return searchPayload("go context cancellation", goDomains, nil) }

func newSearchEachTime(i int) []byte {
	return searchPayload(fmt.Sprintf("go context cancellation %d", i), goDomains, nil)
}

// BenchmarkProcessWebSearch_CacheHitWorkerOff times a web search answered
// from the SQLite cache (the warm-up run fills it), the whole process,
// with the warm worker off: the worker starts for every call.
func BenchmarkProcessWebSearch_CacheHitWorkerOff(b *testing.B) {
	f := newTavilyFake(b)
	memoryStats(b, sameSearch, memoryBenchEnv(b, f, "WEBGATE_HOOKS_WORKER=off"))
	if f.Count() != 1 {
		b.Errorf("the provider was asked %d times, want once (the warm-up run)", f.Count())
	}
}

// BenchmarkProcessWebSearch_StoreOffWorkerOff times the same search with
// the store off (WEBGATE_STORE=off) and the warm worker off: every run
// starts the worker and asks the local fake provider.
func BenchmarkProcessWebSearch_StoreOffWorkerOff(b *testing.B) {
	f := newTavilyFake(b)
	memoryStats(b, sameSearch, memoryBenchEnv(b, f, "WEBGATE_STORE=off", "WEBGATE_HOOKS_WORKER=off"))
	if f.Count() != b.N+1 {
		b.Errorf("the provider was asked %d times, want %d", f.Count(), b.N+1)
	}
}

// BenchmarkProcessWebSearch_StoreMissWorkerOff times a search the SQLite
// cache does not hold (a new query each run), with the warm worker off:
// the store is opened, read, and written (the cache entry, usage, the
// decision log) around the provider's answer.
func BenchmarkProcessWebSearch_StoreMissWorkerOff(b *testing.B) {
	f := newTavilyFake(b)
	memoryStats(b, newSearchEachTime, memoryBenchEnv(b, f, "WEBGATE_HOOKS_WORKER=off"))
	if f.Count() != b.N+1 {
		b.Errorf("the provider was asked %d times, want %d", f.Count(), b.N+1)
	}
}
