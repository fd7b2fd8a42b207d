package setup

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests run the plugin's launcher, scripts/run-hook, as Claude Code
// does, with a fake Go toolchain on PATH whose build sleeps, fails or
// succeeds as the test says, and fake hook binaries.

// pluginRig is a plugin root holding the launcher, its data directory, and
// a directory with the fake go command.
type pluginRig struct {
	t                 *testing.T
	root, data, tools string
}

const (
	sessionStart = `{"hook_event_name":"SessionStart","source":"startup"}`
	preToolUse   = `{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"x"}}`
)

// fakeGo builds the three hooks as small scripts after sleeping
// $FAKE_GO_SLEEP seconds, or fails with a compiler-like message (a
// terminal escape sequence in it) when $FAKE_GO_FAIL is set. Each hook
// prints one JSON object naming itself.
const fakeGo = `#!/bin/sh
sleep "${FAKE_GO_SLEEP:-0}"
if [ -n "${FAKE_GO_FAIL:-}" ]; then
	echo "# github.com/webgate-dev/webgate/cmd/websearch"
	printf 'cmd/websearch/main.go:3:1: \033[31msyntax error\033[0m: "unexpected" token\n'
	exit 1
fi
out=""
while [ $# -gt 0 ]; do
	[ "$1" = "-o" ] && out="$2"
	shift
done
for h in websearch webfetch webgate-hook; do
	printf '#!/bin/sh\ncat >/dev/null\necho %s\n' "'{\"hookSpecificOutput\":{\"additionalContext\":\"FAKE-$h\"}}'" >"$out$h"
	chmod +x "$out$h"
done
`

func newPluginRig(t *testing.T) *pluginRig {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the launcher is a POSIX shell script")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	r := &pluginRig{t: t, root: t.TempDir(), data: t.TempDir(), tools: t.TempDir()}
	for _, d := range []string{"scripts", ".claude-plugin"} {
		if err := os.MkdirAll(filepath.Join(r.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script, err := os.ReadFile("../../../scripts/run-hook")
	if err != nil {
		t.Fatal(err)
	}
	writeExec(t, filepath.Join(r.root, "scripts", "run-hook"), string(script))
	writeExec(t, filepath.Join(r.root, ".claude-plugin", "plugin.json"), `{"name":"webgate"}`)
	writeExec(t, filepath.Join(r.tools, "go"), fakeGo)
	// The builder must be done before the temporary directories go.
	t.Cleanup(func() { r.waitState("ready", "failed") })
	return r
}

func writeExec(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

type hookRun struct {
	stdout, stderr string
	elapsed        time.Duration
}

// run runs the launcher with payload on stdin, in a process group of its
// own, and then kills that whole group as Claude Code does when a hook's
// time is up: only a builder in a session of its own survives.
func (r *pluginRig) run(payload string, env ...string) hookRun {
	r.t.Helper()
	cmd := exec.Command(filepath.Join(r.root, "scripts", "run-hook"), "websearch")
	cmd.Env = append([]string{"PATH=" + r.tools + ":/usr/bin:/bin", "HOME=" + r.t.TempDir(),
		"CLAUDE_PLUGIN_ROOT=" + r.root, "CLAUDE_PLUGIN_DATA=" + r.data}, env...)
	cmd.Stdin = strings.NewReader(payload)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		r.t.Fatalf("run-hook: %v (stderr %q)", err, stderr.String())
	}
	return hookRun{stdout.String(), stderr.String(), elapsed}
}

// state returns the build state the launcher recorded.
func (r *pluginRig) state() string {
	b, _ := os.ReadFile(filepath.Join(r.data, "build.state"))
	return strings.TrimSpace(string(b))
}

// waitState waits up to 20 s for the build state to become one of want and
// the lock to be gone, and returns the state.
func (r *pluginRig) waitState(want ...string) string {
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := r.state()
		_, lockErr := os.Stat(filepath.Join(r.data, "bin", ".build.lock"))
		for _, w := range want {
			if s == w && os.IsNotExist(lockErr) {
				return s
			}
		}
		if time.Now().After(deadline) {
			r.t.Errorf("build state %q after 20s, want one of %q", s, want)
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// systemMessage decodes the launcher's stdout as one JSON object and
// returns it and its systemMessage.
func systemMessage(t *testing.T, stdout string) (map[string]any, string) {
	t.Helper()
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%q", err, stdout)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value: %q", stdout)
	}
	msg, _ := v["systemMessage"].(string)
	return v, msg
}

func oneLine(t *testing.T, stderr, want string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "webgate: ") || !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want one line with %q", stderr, want)
	}
}

func TestRunHook_ColdStartBuildsInTheBackgroundAndSaysWhenReady(t *testing.T) {
	r := newPluginRig(t)
	// The build takes longer than the hook may: the session starts at once
	// and is told once. It outlasts the two runs below (2 s each at most),
	// so that the state is still "building" when looked at.
	got := r.run(sessionStart, "FAKE_GO_SLEEP=6")
	if got.elapsed > 2*time.Second {
		t.Errorf("SessionStart took %v: it waited for the build", got.elapsed)
	}
	_, msg := systemMessage(t, got.stdout)
	if !strings.Contains(msg, "building its hooks in the background") || !strings.Contains(msg, filepath.Join(r.data, "build.log")) {
		t.Errorf("systemMessage %q", msg)
	}
	oneLine(t, got.stderr, "being built in the background")

	// A tool call while it builds passes through at once, silently.
	got = r.run(preToolUse)
	if got.stdout != "" || got.elapsed > 2*time.Second {
		t.Errorf("a call during the build: stdout %q after %v, want nothing, fast", got.stdout, got.elapsed)
	}
	oneLine(t, got.stderr, "being built in the background")
	if r.state() != "building" {
		t.Fatalf("state %q during the build", r.state())
	}

	// The hook runs that started it were killed with their process
	// groups; the build still ends.
	if s := r.waitState("ready", "failed"); s != "ready" {
		t.Fatalf("build state %q, want ready; log:\n%s", s, r.log())
	}
	got = r.run(preToolUse)
	v, msg := systemMessage(t, got.stdout)
	if !strings.Contains(msg, "ready") {
		t.Errorf("first call after the build: systemMessage %q, want it to say webgate is ready", msg)
	}
	if hso, _ := v["hookSpecificOutput"].(map[string]any); hso["additionalContext"] != "FAKE-websearch" {
		t.Errorf("the hook's own answer was lost: %q", got.stdout)
	}
	// Said once: the next call is the hook's answer alone.
	got = r.run(preToolUse)
	if strings.TrimSpace(got.stdout) != `{"hookSpecificOutput":{"additionalContext":"FAKE-websearch"}}` || got.stderr != "" {
		t.Errorf("later call: stdout %q, stderr %q", got.stdout, got.stderr)
	}
}

func (r *pluginRig) log() string {
	b, _ := os.ReadFile(filepath.Join(r.data, "build.log"))
	return string(b)
}

func TestRunHook_SaysWhatFailedOnceAndRetriesAtTheNextSession(t *testing.T) {
	r := newPluginRig(t)
	r.run(sessionStart, "FAKE_GO_FAIL=1")
	if s := r.waitState("ready", "failed"); s != "failed" {
		t.Fatalf("state %q, want failed", s)
	}
	got := r.run(preToolUse)
	_, msg := systemMessage(t, got.stdout)
	for _, want := range []string{"building its hooks failed", `syntax error: "unexpected" token`, "cmd/websearch/main.go:3:1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("systemMessage lacks %q:\n%s", want, msg)
		}
	}
	if strings.ContainsRune(msg, 0x1b) {
		t.Errorf("a terminal escape reached the message: %q", msg)
	}
	oneLine(t, got.stderr, "building the hooks failed; see "+filepath.Join(r.data, "build.log"))

	// Said once; tool calls do not start the same failing build again.
	got = r.run(preToolUse)
	if got.stdout != "" {
		t.Errorf("second call after the failure: stdout %q", got.stdout)
	}
	oneLine(t, got.stderr, "building the hooks failed")
	if r.state() != "failed" {
		t.Errorf("a tool call started another build: state %q", r.state())
	}

	// The next session tries again, and says why.
	got = r.run(sessionStart)
	_, msg = systemMessage(t, got.stdout)
	if !strings.Contains(msg, "building its hooks again") || !strings.Contains(msg, "syntax error") {
		t.Errorf("next session's systemMessage %q", msg)
	}
	if s := r.waitState("ready", "failed"); s != "ready" {
		t.Fatalf("retry: state %q, want ready", s)
	}
}

// procStart returns the start time of process pid as the launcher records
// it on Linux: field 22 of /proc/PID/stat.
func procStart(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skip("no /proc")
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndex(s, ")")+2:])[19]
}

func TestRunHook_TakesOverALockWhoseOwnerIsGone(t *testing.T) {
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() })
	live := sleeper.Process.Pid

	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, owner string
		takeOver    bool
	}{
		{"owner alive", fmt.Sprintf("%d %s", live, procStart(t, live)), false},
		{"owner dead", fmt.Sprintf("%d 12345", dead.Process.Pid), true},
		{"process ID reused by another process", fmt.Sprintf("%d 1", live), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newPluginRig(t)
			lock := filepath.Join(r.data, "bin", ".build.lock")
			if err := os.MkdirAll(lock, 0o755); err != nil {
				t.Fatal(err)
			}
			writeExec(t, filepath.Join(lock, "owner"), tc.owner+"\n")
			got := r.run(preToolUse)
			if got.stdout != "" {
				t.Errorf("stdout %q", got.stdout)
			}
			oneLine(t, got.stderr, "being built in the background")
			if !tc.takeOver {
				time.Sleep(300 * time.Millisecond)
				if _, err := os.Stat(filepath.Join(r.data, "bin", "websearch")); err == nil || r.state() != "" {
					t.Errorf("a second build started beside a live one (state %q)", r.state())
				}
				os.RemoveAll(lock)
				writeExec(t, filepath.Join(r.data, "build.state"), "failed\n")
				return
			}
			if s := r.waitState("ready", "failed"); s != "ready" {
				t.Fatalf("state %q, want ready (the stale lock taken over)", s)
			}
			if _, err := os.Stat(filepath.Join(r.data, "bin", "websearch")); err != nil {
				t.Errorf("no binary after the build: %v", err)
			}
		})
	}
}

func TestRunHook_SessionStartMessageIsOneJSONObjectWhateverThePaths(t *testing.T) {
	r := newPluginRig(t)
	// A data directory whose path needs escaping in JSON.
	odd := filepath.Join(t.TempDir(), `data "quoted" \ back`+"\t")
	if err := os.MkdirAll(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	r.data = odd
	got := r.run(sessionStart, "FAKE_GO_SLEEP=1")
	_, msg := systemMessage(t, got.stdout)
	if !strings.Contains(msg, odd) {
		t.Errorf("systemMessage %q does not name the log under %q", msg, odd)
	}
	r.waitState("ready", "failed")
}
