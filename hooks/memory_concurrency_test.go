package hooks_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite" // for PRAGMA integrity_check

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider/providertest"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// Many hook processes and an MCP server on one store, at the same time, as
// an agent running parallel tool calls next to an MCP client does: no
// update may be lost, no "database is locked" may surface, and the store
// must stay whole, even when a process is killed in the middle of a write.

var (
	webgateOnce sync.Once
	webgateBin  string
	webgateErr  error
)

// webgateBinary returns the webgate command (for `webgate mcp`), built
// once into the hooks' binary directory.
func webgateBinary(t testing.TB) string {
	t.Helper()
	webgateOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			webgateErr = fmt.Errorf("go command not found: %v", err)
			return
		}
		out := filepath.Join(binDir, "webgate")
		cmd := exec.Command(gobin, "build", "-o", out, "../cmd/webgate")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			webgateErr = fmt.Errorf("go build webgate: %v\n%s", err, msg)
			return
		}
		webgateBin = out
	})
	if webgateErr != nil {
		t.Fatal(webgateErr)
	}
	return webgateBin
}

// run is one hook process's output.
type run struct {
	stdout, stderr string
	err            error
}

// hookRush starts n websearch hook processes at once, the i-th searching
// query(i), and returns their outputs once all have ended.
func hookRush(t *testing.T, n int, env []string, query func(i int) string) []run {
	t.Helper()
	bin := binary(t, "websearch")
	runs := make([]run, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		in := searchPayload(query(i), goDomains, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			runs[i].stdout, runs[i].stderr, runs[i].err = rawRun(bin, bytes.NewReader(in), env)
		}()
	}
	close(start)
	wg.Wait()
	for i, r := range runs {
		if r.err != nil {
			t.Errorf("process %d: %v; stderr %s", i, r.err, r.stderr)
		}
	}
	return runs
}

// mcpClient is a `webgate mcp` server on the store, driven over stdio.
type mcpClient struct {
	cs     *mcp.ClientSession
	stderr *bytes.Buffer
}

func startMCP(t *testing.T, env []string) *mcpClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(webgateBinary(t), "mcp")
	cmd.Env = coldEnv(env)
	c := &mcpClient{stderr: &bytes.Buffer{}}
	cmd.Stderr = c.stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "concurrency-test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to webgate mcp: %v\nstderr: %s", err, c.stderr)
	}
	c.cs = cs
	return c
}

// search calls web_search and returns its text, or an error for a tool
// error.
func (c *mcpClient) search(query string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "web_search", Arguments: map[string]any{"query": query}})
	if err != nil {
		return "", err
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		return text, fmt.Errorf("tool error: %s", text)
	}
	return text, nil
}

// searches makes the web_search calls of queries one after another, as
// one client does, in the background; wait returns their errors.
func (c *mcpClient) searches(queries ...string) (wait func() []error) {
	done := make(chan []error, 1)
	go func() {
		var errs []error
		for _, q := range queries {
			text, err := c.search(q)
			if err == nil && !strings.Contains(text, "Tavily: context package") {
				err = fmt.Errorf("web_search %q: %s", q, text)
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
		done <- errs
	}()
	return func() []error { return <-done }
}

// storeReport is what a store holds after a run.
type storeReport struct {
	requests  int64 // tavily's usage counter, every day summed
	decisions []memory.Decision
}

// readStore opens the store at url ("" for the SQLite file in state) and
// reads tavily's usage and the decision log.
func readStore(t *testing.T, url, state string) storeReport {
	t.Helper()
	ctx := context.Background()
	st, err := storeurl.Open(ctx, url, &store.Options{DefaultPath: filepath.Join(state, config.StoreFile), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("the store does not open: %v", err)
	}
	defer st.Close()
	m := memory.New(&memory.Options{Store: st, OpTimeout: 10 * time.Second})
	us, err := m.Usage(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var rep storeReport
	for _, u := range us {
		if u.Provider == "tavily" {
			rep.requests += u.Requests
		}
	}
	if rep.decisions, err = m.Decisions(ctx, 0, time.Time{}); err != nil {
		t.Fatal(err)
	}
	return rep
}

// integrityCheck runs PRAGMA integrity_check on the SQLite file.
func integrityCheck(t *testing.T, file string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		t.Fatalf("integrity_check: %v", err)
	}
	if res != "ok" {
		t.Errorf("integrity_check = %q, want ok", res)
	}
}

// lockNoise returns the lines of text that mention a lock or a busy
// store.
func lockNoise(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if low := strings.ToLower(l); strings.Contains(low, "locked") || strings.Contains(low, "busy") {
			out = append(out, l)
		}
	}
	return out
}

// patientStore gives every store call ten seconds. On a small machine
// fifty processes at once starve each other of CPU, and at the default
// bound of 50 ms most of them would go on without the store, as they
// should (the tests of failing open cover that); here the store is given
// the time it needs, so that what is tested is what it does with it.
const patientStore = "WEBGATE_STORE_TIMEOUT=10s"

// rushCount is how many hook processes each rush starts.
func rushCount() int {
	if testing.Short() {
		return 10
	}
	return 50
}

// concurrencyRun runs the scenario against the store env names (storeURL,
// "" for SQLite in state): a warm-up call, then n hook processes with
// distinct queries (cache misses) while the MCP server searches, then n
// with the same queries again (cache hits) while the MCP server repeats
// its own; and checks what the store holds against what the provider saw.
//
// With warm set, the hooks run as installed, with the warm worker: the
// first call starts it, and the rushes are answered by it; otherwise every
// call is a worker process of its own.
func concurrencyRun(t *testing.T, storeURL string, warm bool) (state string) {
	n := rushCount()
	f := newTavilyFake(t)
	var env []string
	extra := []string{patientStore}
	if storeURL != "" {
		extra = append(extra, "WEBGATE_STORE="+storeURL)
	}
	if warm {
		state = warmState(t)
		env = warmEnv(t, state, f, tavilyKey, extra...)
	} else {
		state = t.TempDir()
		env = memoryEnv(t, state, f, tavilyKey, extra...)
	}

	// The store is created by a first call, as on a first run.
	wantDeny(t, search(t, env, "go context warm-up", goDomains, nil), "PreToolUse", "Tavily: context package")
	if warm {
		waitWarm(t, state)
	}

	srv := startMCP(t, env)
	query := func(i int) string { return fmt.Sprintf("go context cancellation %02d", i) }
	mcpQueries := []string{"mcp context deadlines", "mcp context values", "mcp context cancellation", "mcp errgroup"}

	t0 := time.Now()
	wait := srv.searches(mcpQueries...)
	misses := hookRush(t, n, env, query)
	for _, err := range wait() {
		t.Errorf("MCP server: %v", err)
	}
	t1 := time.Since(t0)
	afterMisses := f.Count()

	t0 = time.Now()
	wait = srv.searches(mcpQueries...)
	hits := hookRush(t, n, env, query)
	for _, err := range wait() {
		t.Errorf("MCP server, again: %v", err)
	}
	t2 := time.Since(t0)
	if err := srv.cs.Close(); err != nil {
		t.Errorf("closing the MCP session: %v", err)
	}
	t.Logf("%d hook processes and %d MCP calls: cache misses in %v, cache hits in %v; %d provider requests",
		n, len(mcpQueries), t1.Round(time.Millisecond), t2.Round(time.Millisecond), f.Count())

	var cached int
	for i, r := range append(misses, hits...) {
		if !strings.Contains(r.stdout, "Tavily: context package") {
			t.Errorf("process %d: no results in %q; stderr %q", i, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout, ", cached ") {
			cached++
		}
		for _, l := range lockNoise(r.stderr) {
			t.Errorf("process %d: %q", i, l)
		}
		for _, l := range stderrLines(result{stderr: r.stderr}) {
			t.Logf("process %d stderr: %s", i, l)
		}
	}
	for _, l := range lockNoise(srv.stderr.String()) {
		t.Errorf("MCP server: %q", l)
	}
	// Every first search asks the provider once; every repeated one is
	// answered by the cache.
	if want := 1 + n + len(mcpQueries); afterMisses != want || f.Count() != want {
		t.Errorf("provider requests: %d after the misses, %d in all; want %d and %d", afterMisses, f.Count(), want, want)
	}
	if cached != n {
		t.Errorf("%d cached answers, want %d", cached, n)
	}

	rep := readStore(t, storeURL, state)
	// The warm worker writes a call's decision just after answering it.
	for deadline := time.Now().Add(5 * time.Second); warm && len(rep.decisions) < 1+2*n && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		rep = readStore(t, storeURL, state)
	}
	if rep.requests != int64(f.Count()) {
		t.Errorf("usage counter says %d tavily requests, the provider saw %d: updates were lost", rep.requests, f.Count())
	}
	if len(rep.decisions) != 1+2*n {
		t.Errorf("%d decisions in the log, want one per hook process (%d)", len(rep.decisions), 1+2*n)
	}
	seen := map[string]int{}
	for _, d := range rep.decisions {
		seen[d.Query]++
	}
	for i := range n {
		if seen[query(i)] != 2 {
			t.Errorf("query %d has %d decisions, want 2", i, seen[query(i)])
		}
	}
	return state
}

func TestConcurrency_FiftyHookProcessesAndAnMCPServerShareOneSQLiteStore(t *testing.T) {
	state := concurrencyRun(t, "", false)
	integrityCheck(t, filepath.Join(state, config.StoreFile))
}

func TestConcurrency_FiftyHookProcessesAndAnMCPServerShareOneRedis(t *testing.T) {
	rs := startRedis(t)
	// The Redis store's own dial and I/O bounds (250 ms) are patient too,
	// through the URL's parameters.
	concurrencyRun(t, rs.URL+"?dial_timeout=10s&read_timeout=10s&write_timeout=10s&pool_timeout=10s", false)
}

// startHook starts the websearch hook for query without waiting for it.
func startHook(t *testing.T, env []string, query string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary(t, "websearch"))
	cmd.Env = coldEnv(env)
	cmd.Stdin = bytes.NewReader(searchPayload(query, goDomains, nil))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// killed reports whether cmd ended by SIGKILL.
func killed(cmd *exec.Cmd) bool {
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

func TestConcurrency_AHookKilledMidCallLeavesAUsableStore(t *testing.T) {
	f := newTavilyFake(t)
	state := t.TempDir()
	env := memoryEnv(t, state, f, tavilyKey, patientStore)
	warm := search(t, env, "go context warm-up", goDomains, nil)
	wantDeny(t, warm, "PreToolUse", "Tavily: context package")

	// A process waiting for a provider that stalls, with its store open,
	// is killed.
	stall := make(chan struct{})
	t.Cleanup(func() { close(stall) }) // before the fake closes
	f.answerWith(func(providertest.Request) providertest.Answer {
		select {
		case <-stall:
		case <-time.After(20 * time.Second):
		}
		return providertest.Answer{Body: tavilyAnswer}
	})
	cmd := startHook(t, env, "go context stalled")
	for deadline := time.Now().Add(20 * time.Second); f.Count() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hook never asked the provider")
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !killed(cmd) {
		t.Errorf("the stalled hook was not killed by SIGKILL: %v", cmd.ProcessState)
	}
	f.answerWith(func(providertest.Request) providertest.Answer { return providertest.Answer{Body: tavilyAnswer} })

	// Processes killed at random points of their call while others run
	// to the end: half at any point from their start, half just after the
	// provider answered them, when they write the usage, the cache entry
	// and the decision.
	rounds := 24
	if testing.Short() {
		rounds = 8
	}
	asked := func(query string) bool {
		for _, r := range f.Requests() {
			if bytes.Contains(r.Body, []byte(query)) {
				return true
			}
		}
		return false
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var kills int
	var noise []string
	for i := range rounds {
		q := fmt.Sprintf("go context killed %02d", i)
		victim := startHook(t, env, q)
		wg.Add(2)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				time.Sleep(time.Duration(rand.Int64N(int64(2 * warm.elapsed))))
			} else {
				for deadline := time.Now().Add(10 * time.Second); !asked(q) && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(time.Duration(rand.IntN(60)) * time.Millisecond)
			}
			_ = victim.Process.Signal(syscall.SIGKILL)
			_ = victim.Wait()
			if killed(victim) {
				mu.Lock()
				kills++
				mu.Unlock()
			}
		}()
		go func() {
			defer wg.Done()
			_, serr, err := rawRun(binary(t, "websearch"), bytes.NewReader(searchPayload(fmt.Sprintf("go context survivor %02d", i), goDomains, nil)), env)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				noise = append(noise, err.Error())
			}
			noise = append(noise, lockNoise(serr)...)
		}()
	}
	wg.Wait()
	t.Logf("%d of %d processes killed before they ended (a call takes %v alone)", kills, rounds, warm.elapsed.Round(time.Millisecond))
	for _, l := range noise {
		t.Errorf("a process next to the killed ones: %s", l)
	}

	integrityCheck(t, filepath.Join(state, config.StoreFile))
	// The store opens and works: the warm-up is still cached, a new
	// search is counted and cached, nothing about the store on stderr.
	r := search(t, env, "go context warm-up", goDomains, nil)
	if !saysCached(t, r) {
		t.Errorf("the warm-up search is no longer cached: %s", r.stdout)
	}
	before := f.Count()
	for range 2 {
		r = search(t, env, "go context after the kills", goDomains, nil)
		wantDeny(t, r, "PreToolUse", "Tavily: context package")
		for _, l := range stderrLines(r) {
			t.Errorf("stderr after the kills: %q", l)
		}
	}
	if f.Count() != before+1 {
		t.Errorf("%d provider requests for a search made twice, want 1", f.Count()-before)
	}
	rep := readStore(t, "", state)
	if rep.requests == 0 || len(rep.decisions) < 2+rounds {
		t.Errorf("usage %d, %d decisions: the store does not record", rep.requests, len(rep.decisions))
	}
	victims := 0
	for _, d := range rep.decisions {
		if strings.HasPrefix(d.Query, "go context killed ") {
			victims++
		}
	}
	t.Logf("%d killed processes got as far as their decision; the provider saw %d requests, the usage counter %d", victims, f.Count(), rep.requests)
}
