//go:build linux

package hooks_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/proctest"
	"github.com/webgate-dev/webgate/webpage/browser"
)

// The warm worker, tested as processes: the first call runs the worker,
// which starts a warm one; later calls are answered by it, each with its
// own environment; one that is killed, stopped or turned off costs no
// answer, and nothing is left running.

// warmEnv is memoryEnv with the warm worker on, a short idle time, and a
// home directory of state's (a warm worker serves one home directory).
func warmEnv(t *testing.T, state string, f *tavilyFake, keys string, extra ...string) []string {
	// The store gets a patient bound: these tests follow the warm worker,
	// and a store slower than 50ms on a loaded machine would be left alone
	// and the call answered without it.
	env := memoryEnv(t, state, f, keys, append([]string{"WEBGATE_HOOKS_WORKER=warm", "WEBGATE_HOOKS_WORKER_IDLE=30s", roomyStore}, extra...)...)
	for i, kv := range env {
		if strings.HasPrefix(kv, "HOME=") {
			env[i] = "HOME=" + filepath.Join(state, "home")
		}
	}
	return env
}

// shortDir returns a new directory with a short path, as state
// directories are, since a socket's path is limited to about 100 bytes
// (t.TempDir's paths carry the test's name).
func shortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// warmPID returns the pid of the warm worker serving state, other than
// other, waiting up to 10 s for one to be up (its socket there and its pid
// file written), or 0.
func warmPID(t testing.TB, state string, other int) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if pid := proctest.WarmWorker(worker.StateLayout(state).Serving(), other); pid != 0 {
			return pid
		}
	}
	return 0
}

// stopWarmWorkers kills every warm worker of state, by the pids they
// wrote, when the test ends (before its directories are removed).
func stopWarmWorkers(t testing.TB, state string) {
	t.Cleanup(func() {
		pids, _ := filepath.Glob(filepath.Join(state, "run", "*.pid"))
		for _, p := range pids {
			b, _ := os.ReadFile(p)
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 && proctest.Runs(pid, "webgate-hook", "serve") {
				_ = syscall.Kill(pid, syscall.SIGCONT)
				_ = syscall.Kill(pid, syscall.SIGKILL)
				waitGone(t, pid)
			}
		}
	})
}

// waitGone waits up to 10 s for process pid to end.
func waitGone(t testing.TB, pid int) {
	t.Helper()
	if !proctest.WaitGone(pid, 10*time.Second) {
		t.Errorf("process %d is still running", pid)
	}
}

func searchDenied(t *testing.T, env []string, query string) result {
	t.Helper()
	r := runBinary(t, "websearch", bytes.NewReader(searchPayload(query, goDomains, nil)), env)
	if !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stdout, "Tavily: context package") {
		t.Fatalf("search %q not answered: stdout %s\nstderr %s", query, r.stdout, r.stderr)
	}
	return r
}

func TestWarmWorker_AnswersLaterCallsWithEachCallsEnvironment(t *testing.T) {
	f := newTavilyFake(t)
	state := shortDir(t)
	stopWarmWorkers(t, state)
	searchDenied(t, warmEnv(t, state, f, workingKey), "first call")
	pid := warmPID(t, state, 0)
	if pid == 0 {
		t.Fatal("no warm worker started after the first call")
	}
	// It was started with no key: each call brings its own.
	if environ, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err != nil {
		t.Fatal(err)
	} else if bytes.Contains(environ, []byte(workingKey)) || bytes.Contains(environ, []byte("TAVILY")) || !bytes.Contains(environ, []byte("HOME=")) {
		t.Errorf("the warm worker's environment: %q", bytes.ReplaceAll(environ, []byte{0}, []byte(" ")))
	}
	db := filepath.Join(state, "webgate.db")
	if proctest.Holds(pid, db) {
		t.Fatal("the warm worker holds the store before answering any call")
	}
	// A call with another key: answered by the warm worker (which then
	// holds the store open), with that call's key.
	searchDenied(t, warmEnv(t, state, f, revokedKey), "second call")
	if got := f.CountKey(revokedKey); got != 1 {
		t.Errorf("the second call's key reached the provider %d times, want 1", got)
	}
	if !proctest.Holds(pid, db) {
		t.Error("the second call was not answered by the warm worker (it does not hold the store)")
	}
	// The same search again: from the cache, no provider request.
	before := f.Count()
	searchDenied(t, warmEnv(t, state, f, workingKey), "second call")
	if f.Count() != before {
		t.Errorf("the repeated search reached the provider (%d requests, was %d)", f.Count(), before)
	}
	if p := warmPID(t, state, 0); p != pid {
		t.Errorf("warm worker %d replaced by %d", pid, p)
	}
}

// startWarm makes a first call with the warm worker on (and extra in the
// environment) and returns the fake provider, the state directory, the
// environment and the pid of the warm worker that call started.
func startWarm(t *testing.T, extra ...string) (f *tavilyFake, state string, env []string, pid int) {
	t.Helper()
	f = newTavilyFake(t)
	state = shortDir(t)
	stopWarmWorkers(t, state)
	env = warmEnv(t, state, f, workingKey, extra...)
	searchDenied(t, env, "start it")
	if pid = warmPID(t, state, 0); pid == 0 {
		t.Fatal("no warm worker started")
	}
	return f, state, env, pid
}

func TestWarmWorker_KilledIsReplacedWithoutLosingACall(t *testing.T) {
	_, state, env, pid := startWarm(t)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	// Its socket is left behind: the front finds no one there, runs the
	// worker, and that starts a new warm worker.
	r := searchDenied(t, env, "after the kill")
	if r.stderr != "" {
		t.Errorf("stderr after a killed warm worker: %s", r.stderr)
	}
	if p := warmPID(t, state, pid); p == 0 {
		t.Error("no new warm worker after the old one was killed")
	}
}

func TestWarmWorker_StoppedIsRetiredAndTheCallAnswered(t *testing.T) {
	_, state, env, pid := startWarm(t)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Each of its threads stops when it is next scheduled: on a busy
	// machine one could still answer the call below.
	if !proctest.WaitStopped(pid, 10*time.Second) {
		t.Fatalf("warm worker %d did not stop", pid)
	}
	// The stopped worker takes the connection but never answers: the
	// front gives up on it, removes its socket and runs the worker.
	searchDenied(t, env, "while it is stopped")
	socks, _ := filepath.Glob(filepath.Join(state, "run", "*.sock"))
	if len(socks) != 0 {
		t.Errorf("the stopped warm worker's socket is still there: %v", socks)
	}
	// Once it runs again it sees its socket gone and exits.
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

func TestWarmWorker_OffStartsNone(t *testing.T) {
	f := newTavilyFake(t)
	for name, env := range map[string]func(state string) []string{
		"environment": func(state string) []string {
			return memoryEnv(t, state, f, workingKey, "WEBGATE_HOOKS_WORKER=off")
		},
		"configuration file": func(state string) []string {
			cfg := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(cfg, []byte("[hooks]\nworker = \"off\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			// Not set in the environment: only the file turns it off.
			return memoryEnv(t, state, f, workingKey, "WEBGATE_CONFIG="+cfg)
		},
	} {
		t.Run(name, func(t *testing.T) {
			state := shortDir(t)
			stopWarmWorkers(t, state)
			e := env(state)
			r := runBinary(t, "websearch", bytes.NewReader(searchPayload("off", goDomains, nil)), e)
			if !strings.Contains(r.stdout, `"permissionDecision":"deny"`) {
				t.Fatalf("not answered: %s\n%s", r.stdout, r.stderr)
			}
			time.Sleep(300 * time.Millisecond) // a warm worker would be up by now
			if socks, _ := filepath.Glob(filepath.Join(state, "run", "*")); len(socks) != 0 {
				t.Errorf("warm worker files with the worker off: %v", socks)
			}
		})
	}
}

func TestWarmWorker_ExitsWhenIdle(t *testing.T) {
	_, state, _, pid := startWarm(t, "WEBGATE_HOOKS_WORKER_IDLE=1s")
	waitGone(t, pid)
	if socks, _ := filepath.Glob(filepath.Join(state, "run", "*.sock")); len(socks) != 0 {
		t.Errorf("an idle warm worker left its socket: %v", socks)
	}
}

func TestWarmWorker_ExitsWhenItsSocketIsRemoved(t *testing.T) {
	_, state, _, pid := startWarm(t)
	if err := os.RemoveAll(filepath.Join(state, "run")); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

// warmState is a short state directory whose warm workers are stopped
// when the test ends.
func warmState(t *testing.T) string {
	state := shortDir(t)
	stopWarmWorkers(t, state)
	return state
}

// waitWarm waits for the warm worker of state to be up.
func waitWarm(t *testing.T, state string) {
	t.Helper()
	if warmPID(t, state, 0) == 0 {
		t.Fatal("no warm worker started")
	}
}

func TestConcurrency_FiftyHookCallsThroughTheWarmWorkerAndAnMCPServerShareOneSQLiteStore(t *testing.T) {
	state := concurrencyRun(t, "", true)
	integrityCheck(t, filepath.Join(state, "webgate.db"))
}

// warmBenchEnv is memoryBenchEnv with the warm worker on (as installed), in
// a short state directory whose warm worker is stopped at the end.
func warmBenchEnv(b *testing.B, f *tavilyFake, extra ...string) ([]string, func()) {
	state := shortDir(b)
	stopWarmWorkers(b, state)
	env := benchEnv(b, append([]string{"TAVILY_API_KEY=" + tavilyKey, "TAVILY_BASE_URL=" + f.URL, "WEBGATE_STATE_DIR=" + state, "WEBGATE_HOOKS_WORKER=warm"}, extra...)...)
	return env, func() {
		if warmPID(b, state, 0) == 0 {
			b.Fatal("no warm worker started after the warm-up run")
		}
	}
}

// BenchmarkProcessWebSearch_CacheHit times a web search answered from the
// SQLite cache (the warm-up run fills it and starts the warm worker), the
// whole process, as installed: the front hands the call to the warm
// worker. Target: median ≤ 10 ms.
func BenchmarkProcessWebSearch_CacheHit(b *testing.B) {
	f := newTavilyFake(b)
	env, ready := warmBenchEnv(b, f)
	memoryStatsAfter(b, sameSearch, env, ready)
	if f.Count() != 1 {
		b.Errorf("the provider was asked %d times, want once (the warm-up run)", f.Count())
	}
}

// BenchmarkProcessWebSearch_StoreMiss times a search the cache does not
// hold (a new query each run) through the warm worker, which keeps the
// store open. Target: median ≤ 2 ms over BenchmarkProcessWebSearch_StoreOff.
func BenchmarkProcessWebSearch_StoreMiss(b *testing.B) {
	f := newTavilyFake(b)
	env, ready := warmBenchEnv(b, f)
	memoryStatsAfter(b, newSearchEachTime, env, ready)
	if f.Count() != b.N+1 {
		b.Errorf("the provider was asked %d times, want %d", f.Count(), b.N+1)
	}
}

// BenchmarkProcessWebSearch_StoreOff times the same search with the store
// off (WEBGATE_STORE=off) through the warm worker: every run asks the
// local fake provider.
func BenchmarkProcessWebSearch_StoreOff(b *testing.B) {
	f := newTavilyFake(b)
	env, ready := warmBenchEnv(b, f, "WEBGATE_STORE=off")
	memoryStatsAfter(b, sameSearch, env, ready)
	if f.Count() != b.N+1 {
		b.Errorf("the provider was asked %d times, want %d", f.Count(), b.N+1)
	}
}

func TestWarmWorker_TermLeavesNothingBehind(t *testing.T) {
	_, state, _, pid := startWarm(t)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	if left, _ := filepath.Glob(filepath.Join(state, "run", "*")); len(left) != 0 {
		t.Errorf("a stopped warm worker left %v", left)
	}
}

// BenchmarkProcess_SearchSubstitutionWarm is BenchmarkProcess_SearchSubstitution
// (three loopback providers answering after 20 ms, parallel mode) through
// the warm worker, as installed. Target: ≤ 10 ms over the slowest provider.
func BenchmarkProcess_SearchSubstitutionWarm(b *testing.B) {
	f := delayedFake(b, 20*time.Millisecond)
	state := shortDir(b)
	stopWarmWorkers(b, state)
	env := benchEnv(b,
		"TAVILY_API_KEY="+tavilyKey, "EXA_API_KEY="+exaKey, "WEBSEARCHAPI_API_KEY="+wsapiKey,
		"TAVILY_BASE_URL="+f.URL+"/tavily", "EXA_BASE_URL="+f.URL+"/exa", "WEBSEARCHAPI_BASE_URL="+f.URL+"/wsapi",
		"WEBGATE_STATE_DIR="+state, "WEBGATE_HOOKS_WORKER=warm", "WEBGATE_CACHE_SEARCH_TTL=0")
	processStatsAfter(b, "websearch", benchPayload(b, "claude-websearch-pre.json"), env, func() {
		if warmPID(b, state, 0) == 0 {
			b.Fatal("no warm worker started after the warm-up run")
		}
	})
}

// renderEnv is the environment of a web fetch with no provider key and
// the local browser on PATH, through the warm worker of state.
func renderEnv(state string) []string {
	return []string{
		"HOME=" + filepath.Join(state, "home"),
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"WEBGATE_STATE_DIR=" + state,
		"WEBGATE_BROWSER=auto",
		"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1",
		"WEBGATE_STORE=off",
		"WEBGATE_HOOKS_WORKER=warm",
	}
}

// browsersOf returns the browser processes whose parent is pid.
func browsersOf(pid int) []int {
	var out []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		child, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		if cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/cmdline"); bytes.Contains(cmd, []byte("webgate-browser-")) {
			out = append(out, child)
		}
	}
	return out
}

func TestWarmWorker_KeepsTheLocalBrowserBetweenWebFetches(t *testing.T) {
	if _, err := browser.Find("auto"); err != nil {
		t.Skipf("no local browser: %v", err)
	}
	base := appShellServer(t)
	state := shortDir(t)
	stopWarmWorkers(t, state)
	env := renderEnv(state)
	fetch := func(path string) {
		t.Helper()
		url := base + path
		r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", url), env)
		wantDeny(t, r, "PreToolUse", "Content of "+url, "rendered in a browser", "RENDERED-MARKER: the report is due on Friday")
	}
	fetch("/first")
	pid := warmPID(t, state, 0)
	if pid == 0 {
		t.Fatal("no warm worker started")
	}
	fetch("/second")
	kept := browsersOf(pid)
	if len(kept) != 1 {
		t.Fatalf("the warm worker keeps %d browsers after a render, want 1", len(kept))
	}
	fetch("/third")
	if again := browsersOf(pid); len(again) != 1 || again[0] != kept[0] {
		t.Errorf("the third render used browsers %v, not the kept %v", again, kept)
	}
	// Stopped, the warm worker takes its browser with it.
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	waitGone(t, kept[0])
}

// BenchmarkProcess_WebFetchRenderWarm times the web fetch hook answering an
// app shell with no provider key from the local browser, as installed:
// the warm worker keeps the browser between calls.
func BenchmarkProcess_WebFetchRenderWarm(b *testing.B) {
	if _, err := browser.Find("auto"); err != nil {
		b.Skipf("no local browser: %v", err)
	}
	base := appShellServer(b)
	state := shortDir(b)
	stopWarmWorkers(b, state)
	p := bytes.ReplaceAll(benchPayload(b, "claude-webfetch-pre.json"), []byte("{{URL}}"), []byte(base+"/app"))
	processStatsAfter(b, "webfetch", p, renderEnv(state), func() {
		if warmPID(b, state, 0) == 0 {
			b.Fatal("no warm worker started after the warm-up run")
		}
	})
}

// BenchmarkProcess_WebFetchRenderWorkerOff is the same with the warm worker
// off: every call starts the worker and a browser.
func BenchmarkProcess_WebFetchRenderWorkerOff(b *testing.B) {
	if _, err := browser.Find("auto"); err != nil {
		b.Skipf("no local browser: %v", err)
	}
	base := appShellServer(b)
	state := shortDir(b)
	env := append(renderEnv(state), "WEBGATE_HOOKS_WORKER=off")
	p := bytes.ReplaceAll(benchPayload(b, "claude-webfetch-pre.json"), []byte("{{URL}}"), []byte(base+"/app"))
	processStats(b, "webfetch", p, env)
}
