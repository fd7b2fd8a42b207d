package hooks_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestProcess_AByteOrderMarkBeforeThePayloadIsAccepted(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	r := runBinary(t, "websearch", payload(t, "claude-websearch-pre-bom.json", ""), f.env(t, "tavily"))
	wantDeny(t, r, "PreToolUse", "Tavily: context package")
}

// runOpenStdin runs a hook binary with data written to a stdin that is
// never closed, and returns when the process exits (or fails the test
// after limit).
func runOpenStdin(t *testing.T, name string, data []byte, env []string, limit time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t, name), args...)
	cmd.Env = coldEnv(env)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd.Stdin = pr
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	if _, err := pw.Write(data); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v with stdin left open; stderr:\n%s", name, limit, r.stderr)
	}
	if err != nil {
		t.Fatalf("%s: %v; stderr:\n%s", name, err, r.stderr)
	}
	return r
}

func TestProcess_AStdinLeftOpenDoesNotHangTheHook(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the stdin timeout")
	}
	t.Parallel()
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	full, err := io.ReadAll(payload(t, "claude-websearch-pre.json", ""))
	if err != nil {
		t.Fatal(err)
	}
	// A complete payload is answered without waiting for EOF, through the
	// front and by the worker registered directly.
	r := runOpenStdin(t, "websearch", full, f.env(t, "tavily"), 8*time.Second)
	wantDeny(t, r, "PreToolUse", "Tavily: context package")
	r = runOpenStdin(t, "webgate-hook", full, f.env(t, "tavily"), 8*time.Second, "websearch")
	wantDeny(t, r, "PreToolUse", "Tavily: context package")
	// Run without its argument, the worker reads the payload and steps
	// aside.
	r = runOpenStdin(t, "webgate-hook", full, f.env(t, "tavily"), 8*time.Second)
	wantNothing(t, r)
	if !strings.Contains(r.stderr, "needs websearch or webfetch") {
		t.Errorf("worker without argument: stderr %q", r.stderr)
	}
	// Half a payload on an open stdin ends with a message, within the wait.
	r = runOpenStdin(t, "webfetch", full[:len(full)/2], f.env(t, "tavily"), 20*time.Second)
	wantNothing(t, r)
	if !strings.Contains(r.stderr, "stdin was not closed") || !strings.Contains(r.stderr, "passing through") {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestProcess_ConfigurationPathsNamingSpecialFilesStepAside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or /dev/zero")
	}
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	dir := t.TempDir()
	fifo := filepath.Join(dir, "keys.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := syscall.Mkfifo(fifo+".toml", 0o600); err != nil {
		t.Fatal(err)
	}
	zeroToml := filepath.Join(dir, "config.toml")
	if err := os.Symlink("/dev/zero", zeroToml); err != nil {
		t.Fatal(err)
	}
	// Before, a FIFO blocked the hook until the runtime killed it, and
	// /dev/zero was read until the process died of memory exhaustion with
	// exit code 2, which blocks the tool.
	cases := map[string]struct {
		env  []string
		want string
	}{
		"key file is a FIFO":       {[]string{"TAVILY_API_KEY=" + fifo}, "named pipe"},
		"key file is /dev/zero":    {[]string{"TAVILY_API_KEY=/dev/zero"}, "a device"},
		"config is a FIFO":         {[]string{"TAVILY_API_KEY=" + tavilyKey, "WEBGATE_CONFIG=" + fifo + ".toml"}, "named pipe"},
		"config links /dev/zero":   {[]string{"TAVILY_API_KEY=" + tavilyKey, "WEBGATE_CONFIG=" + zeroToml}, "a device"},
		"docs config is a FIFO":    {[]string{"TAVILY_API_KEY=" + tavilyKey, "WEBGATE_DOCS_CONFIG=" + fifo}, "named pipe"},
		"routes file is /dev/zero": {[]string{"TAVILY_API_KEY=" + tavilyKey, "WEBGATE_TOOL_ROUTES=/dev/zero"}, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), append(f.env(t), c.env...))
			if strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("crashed:\n%s", r.stderr)
			}
			if c.want != "" && !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, r.stderr)
			}
		})
	}
}

func TestProcess_WebFetchRefusesInternalAddressesSpelledAsNames(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "ok", "tavily": "ok"})
	for _, u := range []string{"http://127.1/", "http://0x7f000001/", "http://2130706433/", "http://017700000001/", "http://127.0.0.1./", "http://169.254.169.254./latest/meta-data/"} {
		r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", u), f.env(t, "wsapi", "tavily"))
		if strings.Contains(u, "169.254") {
			wantNothing(t, r)
		} else {
			wantStepAside(t, r, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1")
		}
		if !strings.Contains(r.stderr, "not probing") || !strings.Contains(r.stderr, "destination address not allowed") {
			t.Errorf("%s: stderr %q", u, r.stderr)
		}
	}
	if n := f.Hits("wsapi") + f.Hits("tavily"); n != 0 {
		t.Errorf("an extraction provider was asked %d times for an internal address", n)
	}
}

// A stdin left open is not waited for past the hook's budget, counted
// from its start, whether the budget is set in the environment or the
// configuration file, and whatever runs the hook: the front, the worker
// registered directly, or the worker forwarding to a team gateway. The
// wait without a budget is 10 s; the budget here is 1 s.
func TestProcess_AStdinLeftOpenIsNotWaitedForPastTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the stdin timeout")
	}
	t.Parallel()
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	full, err := io.ReadAll(payload(t, "claude-websearch-pre.json", ""))
	if err != nil {
		t.Fatal(err)
	}
	half := full[:len(full)/2]
	file := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(file, []byte("[hooks.webfetch]\nbudget = \"1s\"\n\n[hooks.websearch]\nbudget = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inEnv := append(f.env(t, "tavily"), "WEBGATE_HOOKS_WEBSEARCH_BUDGET=1s", "WEBGATE_HOOKS_WEBFETCH_BUDGET=1s")
	inFile := append(f.env(t, "tavily"), "WEBGATE_CONFIG="+file)
	gateway := append(slices.Clone(inEnv), "WEBGATE_GATEWAY_URL=http://127.0.0.1:1", "WEBGATE_GATEWAY_TOKEN=t")
	for _, c := range []struct {
		name, bin string
		env       []string
		args      []string
	}{
		{"front, budget in the environment", "websearch", inEnv, nil},
		{"front, budget in the file", "webfetch", inFile, nil},
		{"front, search budget in the file", "websearch", inFile, nil},
		{"worker, budget in the environment", "webgate-hook", inEnv, []string{"webfetch"}},
		{"worker, budget in the file", "webgate-hook", inFile, []string{"websearch"}},
		{"worker forwarding to a gateway", "webgate-hook", gateway, []string{"websearch"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			binary(t, c.bin) // built before the clock starts
			// Well short of the 10 s wait, generous for a loaded machine.
			r := runOpenStdin(t, c.bin, half, c.env, 7*time.Second, c.args...)
			wantNothing(t, r)
			if !strings.Contains(r.stderr, "stdin was not closed") || !strings.Contains(r.stderr, "passing through") {
				t.Errorf("stderr %q", r.stderr)
			}
		})
	}
}
