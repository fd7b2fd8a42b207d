//go:build unix

package hooks_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runWithin runs a hook binary with stdin (closed at its end) and env, and
// fails the test when the process is still running after limit. It checks
// the exit code but nothing else.
func runWithin(t *testing.T, name string, stdin io.Reader, env []string, limit time.Duration) result {
	t.Helper()
	bin := binary(t, name) // built before the clock starts
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = coldEnv(env)
	cmd.Stdin = stdin
	cmd.WaitDelay = time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%s was still running after %v; stderr:\n%s", name, limit, r.stderr)
	}
	if err != nil {
		t.Fatalf("%s: %v; stderr:\n%s", name, err, r.stderr)
	}
	return r
}

// adversarialLimit is how long a hook with a small budget may take before
// the test gives up on it: far more than the budget, far less than the
// runtime's own hook timeout.
const adversarialLimit = 20 * time.Second

// wantNoDocsDeny checks that the docs route did not deny and that stderr
// says why the denial could not be recorded.
func wantNoDocsDeny(t *testing.T, r result, stderrHas ...string) {
	t.Helper()
	if strings.Contains(r.stdout, "Search the") {
		t.Errorf("the docs route denied without a recorded state:\n%s", r.stdout)
	}
	for _, s := range append([]string{"could not be recorded", "not denying"}, stderrHas...) {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

// TestAdversarialStateFileThatIsAFIFODoesNotBlockTheHook puts a named pipe
// where the session's state file goes. Reading it used to block the hook
// until the runtime killed it.
func TestAdversarialStateFileThatIsAFIFODoesNotBlockTheHook(t *testing.T) {
	f := newProviderFake(t, nil)
	env, state := routingEnv(t, f)
	env = append(env, "WEBGATE_HOOKS_WEBSEARCH_BUDGET=3s", fileState)
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(state, "docs-route-sess-fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	// Other sessions' stale files that are FIFOs are removed without being
	// opened.
	other := filepath.Join(state, "docs-route-old.json.lock")
	if err := syscall.Mkfifo(other, 0o600); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(other, past, past); err != nil {
		t.Fatal(err)
	}
	for _, hook := range []string{"websearch", "webgate-hook"} {
		t.Run(hook, func(t *testing.T) {
			var r result
			if hook == "webgate-hook" {
				r = runWorkerWithin(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-fifo", "kubectl rollout status"), env, adversarialLimit)
			} else {
				r = runWithin(t, hook, routingPayload(t, "routing-websearch-docs.json", "sess-fifo", "kubectl rollout status"), env, adversarialLimit)
			}
			wantNoDocsDeny(t, r, "not a regular file")
			if !strings.Contains(r.stderr, "no search provider has an API key") {
				t.Errorf("the hook did not go on without the state:\n%s", r.stderr)
			}
			if r.elapsed > 3*time.Second+2*time.Second {
				t.Errorf("the hook took %v with a 3s budget", r.elapsed)
			}
		})
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}

// runWorkerWithin runs the worker directly, as "webgate-hook hook".
func runWorkerWithin(t *testing.T, hook string, stdin io.Reader, env []string, limit time.Duration) result {
	t.Helper()
	bin := binary(t, "webgate-hook") // built before the clock starts
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, hook)
	cmd.Env = coldEnv(env)
	cmd.Stdin = stdin
	cmd.WaitDelay = time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("webgate-hook %s was still running after %v; stderr:\n%s", hook, limit, r.stderr)
	}
	if err != nil {
		t.Fatalf("webgate-hook %s: %v; stderr:\n%s", hook, err, r.stderr)
	}
	return r
}

// TestAdversarialSymlinkedStateFilesAreNotFollowed puts symbolic links
// where the session's lock and state files go. Opening the lock used to
// create the link's target; reading a state file linked to /dev/zero used
// to read until memory ran out.
func TestAdversarialSymlinkedStateFilesAreNotFollowed(t *testing.T) {
	f := newProviderFake(t, nil)
	cases := []struct {
		name   string
		file   string // in the state directory
		target func(dir string) string
	}{
		{"lock file", "docs-route-sess-link.json.lock", func(dir string) string { return filepath.Join(dir, "created-by-the-hook") }},
		{"lock file to a missing directory", "docs-route-sess-link.json.lock", func(dir string) string { return filepath.Join(dir, "missing", "lock") }},
		{"state file to /dev/zero", "docs-route-sess-link.json", func(string) string { return "/dev/zero" }},
		{"state file", "docs-route-sess-link.json", func(dir string) string { return filepath.Join(dir, "elsewhere.json") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, state := routingEnv(t, f)
			env = append(env, "WEBGATE_HOOKS_WEBSEARCH_BUDGET=3s", fileState)
			if err := os.MkdirAll(state, 0o700); err != nil {
				t.Fatal(err)
			}
			outside := t.TempDir()
			target := c.target(outside)
			if err := os.Symlink(target, filepath.Join(state, c.file)); err != nil {
				t.Fatal(err)
			}
			r := runWithin(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-link", "kubectl rollout status"), env, adversarialLimit)
			wantNoDocsDeny(t, r, "symbolic link")
			if strings.HasPrefix(target, outside) {
				if _, err := os.Lstat(target); err == nil {
					t.Errorf("the hook created the link's target %s", target)
				}
			}
			if fi, err := os.Lstat(filepath.Join(state, c.file)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v %v", fi, err)
			}
		})
	}
}

// TestAdversarialHeldLockCostsOnlyASliceOfTheBudget holds the session's
// lock from another process for the whole run. The hook used to wait two
// seconds for it twice; now it waits a small slice of its budget, then
// goes on to the providers without the state.
func TestAdversarialHeldLockCostsOnlyASliceOfTheBudget(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	env, state := routingEnv(t, f, "tavily")
	const budget = 2 * time.Second
	env = append(env, "WEBGATE_HOOKS_WEBSEARCH_BUDGET=2s", fileState)
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(state, "docs-route-sess-held.json.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	r := runWithin(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-held", "kubectl rollout status"), env, adversarialLimit)
	wantDeny(t, r, "PreToolUse", `Web search results for query "kubectl rollout status"`)
	wantNoDocsDeny(t, r, "lock")
	if r.elapsed > budget+1500*time.Millisecond {
		t.Errorf("the hook took %v with a %v budget", r.elapsed, budget)
	}
	if f.Hits("tavily") != 1 {
		t.Errorf("tavily hits = %d, want 1", f.Hits("tavily"))
	}
}

// TestAdversarialConfigurationFilesThatAreFIFOsStepAside names FIFOs as the
// configuration, docs and routes files of both hooks.
func TestAdversarialConfigurationFilesThatAreFIFOsStepAside(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok", "wsapi": "ok"})
	page := pages(t) + "/browser-render-required/vite-react-empty-root.html"
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	for _, p := range []string{fifo + ".toml", fifo + ".json"} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	cases := []struct {
		name, hook string
		payload    io.Reader
		env        []string
	}{
		{"config file, web search", "websearch", payload(t, "claude-websearch-pre.json", ""), []string{"WEBGATE_CONFIG=" + fifo + ".toml", "TAVILY_API_KEY=" + tavilyKey}},
		{"config file, web fetch", "webfetch", payload(t, "claude-webfetch-pre.json", page), []string{"WEBGATE_CONFIG=" + fifo + ".toml", "WEBSEARCHAPI_API_KEY=" + wsapiKey}},
		{"docs config", "websearch", routingPayload(t, "routing-websearch-docs.json", "s", "kubectl"), []string{"WEBGATE_DOCS_CONFIG=" + fifo + ".json"}},
		{"tool routes", "webfetch", payload(t, "claude-bash-pre.json", ""), []string{"WEBGATE_TOOL_ROUTES=" + fifo + ".json"}},
		{"key file", "websearch", payload(t, "claude-websearch-pre.json", ""), []string{"TAVILY_API_KEY=" + fifo + ".json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := append(f.env(t), "WEBGATE_HOOKS_WEBSEARCH_BUDGET=3s", "WEBGATE_HOOKS_WEBFETCH_BUDGET=3s")
			r := runWithin(t, c.hook, c.payload, append(env, c.env...), adversarialLimit)
			if !strings.Contains(r.stderr, "named pipe") {
				t.Errorf("stderr lacks the reason:\n%s", r.stderr)
			}
			if strings.Contains(r.stdout, `"deny"`) && c.name != "docs config" && c.name != "tool routes" {
				t.Errorf("denied with a configuration it could not read:\n%s", r.stdout)
			}
			if r.elapsed > 3*time.Second+2*time.Second {
				t.Errorf("the hook took %v with a 3s budget", r.elapsed)
			}
		})
	}
}
