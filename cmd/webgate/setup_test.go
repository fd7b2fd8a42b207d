//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/webgate-dev/webgate/cmd/internal/setup"
	"github.com/webgate-dev/webgate/internal/fakeweb"
)

// These tests run the built webgate binary's setup command: under a
// pseudo-terminal for the dialogue, and without one for scripts. Each has
// a fresh home, and the provider is a fake Tavily on 127.0.0.1.

const (
	setupKey      = "tvly-SETUP-SECRET-9f2c41d0"
	setupWrongKey = "tvly-WRONG-SECRET-77aa01"
)

// setupHost is a throwaway machine: webgate built from this package, with
// stand-ins for the hook binaries beside it, a fresh home and a fake
// Tavily.
type setupHost struct {
	bin, home string
	fake      *fakeweb.Tavily
	env       []string
}

func newSetupHost(t *testing.T, fake *fakeweb.Tavily, extraEnv ...string) *setupHost {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the webgate binary")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	d := t.TempDir()
	h := &setupHost{bin: filepath.Join(d, "bin"), home: filepath.Join(d, "home"), fake: fake}
	for _, p := range []string{h.bin, h.home} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"websearch", "webfetch", "webgate-hook"} {
		if err := os.WriteFile(filepath.Join(h.bin, n), []byte(advHookScript), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command(gobin, "build", "-o", filepath.Join(h.bin, "webgate"), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	h.env = append([]string{
		"HOME=" + h.home,
		"PATH=" + h.bin + ":/usr/bin:/bin",
		"TERM=dumb",
		"TAVILY_BASE_URL=" + fake.Start(t),
	}, extraEnv...)
	return h
}

func (h *setupHost) configFile() string {
	return filepath.Join(h.home, ".config", "webgate", "config.toml")
}
func (h *setupHost) claudeFile() string { return filepath.Join(h.home, ".claude", "settings.json") }

// terminalRun is webgate running under a pseudo-terminal.
type terminalRun struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File // the terminal's controlling side
	mu   sync.Mutex
	out  bytes.Buffer
	seen int // how far expect has read
	done chan struct{}
}

func (h *setupHost) startTerminal(t *testing.T, args ...string) *terminalRun {
	t.Helper()
	cmd := exec.Command(filepath.Join(h.bin, "webgate"), args...)
	cmd.Env = h.env
	cmd.Dir = h.home
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatalf("start under a pseudo-terminal: %v", err)
	}
	r := &terminalRun{t: t, cmd: cmd, tty: tty, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			r.mu.Lock()
			r.out.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = tty.Close()
	})
	return r
}

func (r *terminalRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// expect waits until the output after the last match holds want.
func (r *terminalRun) expect(want string) {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := r.output()
		if i := strings.Index(out[r.seen:], want); i >= 0 {
			r.seen += i + len(want)
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no %q in the terminal within 30s; it shows:\n%s", want, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// typeLine types a line and Enter.
func (r *terminalRun) typeLine(s string) {
	r.t.Helper()
	if _, err := r.tty.Write([]byte(s + "\r")); err != nil {
		r.t.Fatal(err)
	}
}

// typeSecret waits until the terminal no longer echoes, as a person
// pasting at the prompt would find it, then types s and Enter.
func (r *terminalRun) typeSecret(s string) {
	r.t.Helper()
	r.waitEchoOff()
	r.typeLine(s)
}

// echoes reports whether the terminal echoes what is typed. On Linux the
// controlling side of a pseudo-terminal reads the other side's modes.
func (r *terminalRun) echoes() bool {
	tio, err := unix.IoctlGetTermios(int(r.tty.Fd()), unix.TCGETS)
	if err != nil {
		r.t.Fatalf("read the terminal's modes: %v", err)
	}
	return tio.Lflag&unix.ECHO != 0
}

// waitEchoOff waits until the terminal stops echoing.
func (r *terminalRun) waitEchoOff() {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.echoes() {
		if time.Now().After(deadline) {
			r.t.Fatalf("the terminal still echoes at the key prompt:\n%s", r.output())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// wait waits for webgate to exit and returns its exit code.
func (r *terminalRun) wait() int {
	r.t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- r.cmd.Wait() }()
	select {
	case err := <-exited:
		select {
		case <-r.done:
		case <-time.After(5 * time.Second):
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			r.t.Fatal(err)
		}
		return 0
	case <-time.After(60 * time.Second):
		r.t.Fatalf("webgate setup did not exit within 60s:\n%s", r.output())
		return -1
	}
}

func checkPrivateFileHolds(t *testing.T, path, want string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %04o, want 0600", path, fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), want) {
		t.Errorf("%s lacks %q:\n%s", path, want, data)
	}
}

func checkHooksRegistered(t *testing.T, h *setupHost) {
	t.Helper()
	data, err := os.ReadFile(h.claudeFile())
	if err != nil {
		t.Fatalf("Claude Code settings: %v", err)
	}
	for _, want := range []string{`"PreToolUse"`, filepath.Join(h.bin, "websearch"), filepath.Join(h.bin, "webfetch")} {
		if !strings.Contains(string(data), want) {
			t.Errorf("Claude Code settings lack %q:\n%s", want, data)
		}
	}
}

func checkNoKey(t *testing.T, what, out string, keys ...string) {
	t.Helper()
	if fakeweb.ContainsAny(out, keys...) {
		t.Fatalf("%s shows a key:\n%s", what, out)
	}
}

func TestSetup_TerminalDialogueChecksTheKeyStoresItPrivatelyRegistersClaudeCodeAndRunsDoctor(t *testing.T) {
	h := newSetupHost(t, &fakeweb.Tavily{Key: setupKey})
	r := h.startTerminal(t, "setup")
	r.expect("Tavily")
	r.expect("Choose providers")
	r.typeLine("tavily")
	r.expect("How should webgate find the Tavily key?")
	r.expect("[1]: ")
	r.typeLine("1")
	r.expect("Paste the Tavily key")
	r.typeSecret("  " + setupKey + "  ")
	r.expect("it works.")
	r.expect("Agents to register webgate with:")
	r.expect("('none' for none) [")
	r.typeLine("claude-code")
	r.expect("providers.tavily.keys")
	r.expect("Go ahead? [Y/n] ")
	r.typeLine("y")
	code := r.wait()
	out := r.output()
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	checkNoKey(t, "the terminal", out, setupKey)
	checkPrivateFileHolds(t, h.configFile(), `keys = "`+setupKey+`"`)
	checkHooksRegistered(t, h)
	for _, want := range []string{"Checking the whole setup with 'webgate doctor'", "Hook registration", "registered in " + h.claudeFile(), "tavily ", "1 key (file " + h.configFile()} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
	if n := h.fake.Count("/search"); n != 1 {
		t.Errorf("the key was checked with %d searches, want 1", n)
	}
}

func TestSetup_TerminalDialogueReportsARefusedKeyAndAsksAgain(t *testing.T) {
	h := newSetupHost(t, &fakeweb.Tavily{Key: setupKey})
	r := h.startTerminal(t, "setup", "--provider", "tavily", "--target", "claude-code")
	r.expect("[1]: ")
	r.typeLine("")
	r.expect("Paste the Tavily key")
	r.typeSecret(setupWrongKey)
	r.expect("the key was refused (HTTP 401)")
	r.expect("Paste the Tavily key")
	r.typeSecret(setupKey)
	r.expect("it works.")
	r.expect("Go ahead? [Y/n] ")
	r.typeLine("")
	code := r.wait()
	out := r.output()
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	checkNoKey(t, "the terminal", out, setupKey, setupWrongKey)
	checkPrivateFileHolds(t, h.configFile(), `keys = "`+setupKey+`"`)
	if data, _ := os.ReadFile(h.configFile()); strings.Contains(string(data), setupWrongKey) {
		t.Errorf("the refused key was stored:\n%s", data)
	}
	checkHooksRegistered(t, h)
}

func TestSetup_InterruptAtTheKeyPromptWritesNothingAndRestoresEcho(t *testing.T) {
	h := newSetupHost(t, &fakeweb.Tavily{Key: setupKey})
	r := h.startTerminal(t, "setup", "--provider", "tavily", "--target", "claude-code")
	r.expect("[1]: ")
	r.typeLine("1")
	r.expect("Paste the Tavily key")
	r.waitEchoOff()
	// Half a key typed, then Ctrl-C.
	if _, err := r.tty.Write([]byte("tvly-half-typed\x03")); err != nil {
		t.Fatal(err)
	}
	code := r.wait()
	out := r.output()
	if code != exitInterrupted || !strings.Contains(out, "Interrupted: nothing was written.") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, p := range []string{h.configFile(), h.claudeFile()} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written (%v)", p, err)
		}
	}
	if !r.echoes() {
		t.Error("the terminal was left without echo")
	}
}

// runPlain runs webgate without a terminal: standard input is empty.
func (h *setupHost) runPlain(t *testing.T, extraEnv []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(h.bin, "webgate"), args...)
	cmd.Env = append(append([]string(nil), h.env...), extraEnv...)
	cmd.Dir = h.home
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, out.String()
}

func TestSetup_NonInteractiveTakesTheKeyFromAVariable(t *testing.T) {
	h := newSetupHost(t, &fakeweb.Tavily{Key: setupKey})
	t.Run("a variable webgate reads is referenced, not copied", func(t *testing.T) {
		code, out := h.runPlain(t, []string{"TAVILY_API_KEY=" + setupKey}, "setup", "--non-interactive", "--provider", "tavily", "--key-env", "TAVILY_API_KEY", "--target", "claude-code")
		if code != exitOK {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		checkNoKey(t, "the output", out, setupKey)
		if !strings.Contains(out, "webgate reads the key from TAVILY_API_KEY") || !strings.Contains(out, "1 key (env TAVILY_API_KEY)") {
			t.Errorf("output:\n%s", out)
		}
		if _, err := os.Stat(h.configFile()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a configuration file was written: %v", err)
		}
		checkHooksRegistered(t, h)
	})
	t.Run("another variable is copied into the configuration file", func(t *testing.T) {
		code, out := h.runPlain(t, []string{"MY_TAVILY=" + setupKey}, "setup", "--non-interactive", "--key-env", "tavily=MY_TAVILY")
		if code != exitOK {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		checkNoKey(t, "the output", out, setupKey)
		checkPrivateFileHolds(t, h.configFile(), `keys = "`+setupKey+`"`)
	})
	t.Run("a refused key fails and writes nothing", func(t *testing.T) {
		before, _ := os.ReadFile(h.configFile())
		code, out := h.runPlain(t, []string{"MY_TAVILY=" + setupWrongKey}, "setup", "--non-interactive", "--key-env", "tavily=MY_TAVILY")
		if code != exitFail || !strings.Contains(out, "the key was refused (HTTP 401)") || !strings.Contains(out, "Nothing was written.") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		checkNoKey(t, "the output", out, setupKey, setupWrongKey)
		if after, _ := os.ReadFile(h.configFile()); !bytes.Equal(before, after) {
			t.Errorf("the configuration file changed")
		}
	})
}

func TestSetup_WithoutATerminalSaysHowToRunItAndExits2(t *testing.T) {
	h := newSetupHost(t, &fakeweb.Tavily{Key: setupKey})
	code, out := h.runPlain(t, []string{"TAVILY_API_KEY=" + setupKey}, "setup")
	if code != exitUsage || !strings.Contains(out, "standard input is not a terminal") || !strings.Contains(out, "--non-interactive") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	entries, _ := os.ReadDir(h.home)
	if len(entries) != 0 {
		t.Errorf("the home directory got %d entries", len(entries))
	}
	if h.fake.Count("/search") != 0 {
		t.Error("the provider was called")
	}
}

func TestSetup_NonInteractiveKeepsAKeyFilesPathAndEveryOtherByteOfTheFile(t *testing.T) {
	h := newSetupHost(t, &fakeweb.Tavily{Key: setupKey})
	existing := "# my webgate settings\n[search]\nmode = \"fallback\"   # keep this\n"
	if err := os.MkdirAll(filepath.Dir(h.configFile()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.configFile(), []byte(existing), 0o644); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(h.home, "tavily.keys")
	if err := os.WriteFile(keyFile, []byte("# Tavily\n"+setupKey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := h.runPlain(t, nil, "setup", "--non-interactive", "--provider", "tavily", "--key-file", "~/tavily.keys")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	checkNoKey(t, "the output", out, setupKey)
	if !strings.Contains(out, "other users may read "+keyFile) || !strings.Contains(out, "backup: ") {
		t.Errorf("output lacks the key file's mode or the backup:\n%s", out)
	}
	checkPrivateFileHolds(t, h.configFile(), existing+"\n[providers.tavily]\nkeys = \""+keyFile+"\"\n")
}

func TestSetup_NonInteractiveKeepsAKeyThatIsOutOfCreditsAndSaysSo(t *testing.T) {
	h := newSetupHost(t, &fakeweb.Tavily{Key: setupKey, SearchStatus: 432})
	code, out := h.runPlain(t, []string{"MY_TAVILY=" + setupKey}, "setup", "--non-interactive", "--provider", "tavily", "--key-env", "MY_TAVILY")
	if code != exitOK || !strings.Contains(out, "valid but out of credits (HTTP 432)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	checkNoKey(t, "the output", out, setupKey)
	checkPrivateFileHolds(t, h.configFile(), `keys = "`+setupKey+`"`)
}

func TestSetup_BadCommandLinesAreUsageErrorsThatWriteNothing(t *testing.T) {
	home := t.TempDir()
	saved := currentHost
	currentHost = func() hostEnv {
		// Should a provider be called after all, it is nowhere.
		env := []string{"HOME=" + home, "MY_KEY=" + setupKey, "TAVILY_BASE_URL=http://127.0.0.1:1", "EXA_BASE_URL=http://127.0.0.1:1"}
		return hostEnv{Env: env, Home: home, WorkDir: home}
	}
	t.Cleanup(func() { currentHost = saved })
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--key-env", "MY_KEY"}, "add --provider NAME"},
		{[]string{"--provider", "tavily", "--provider", "exa", "--key-env", "MY_KEY"}, "with several providers"},
		{[]string{"--provider", "nope"}, `unknown --provider "nope"`},
		{[]string{"--provider", "tavily", "--key-env", "MY_KEY", "--target", "emacs"}, `unknown --target "emacs"`},
		{[]string{"--provider", "searxng"}, "--searxng-url"},
		{[]string{"--provider", "exa"}, "no key for exa"},
		{[]string{"--key-env", "tavily=MY_KEY", "--key-file", "tavily=/x"}, "both --key-file and --key-env"},
	} {
		code, out, errOut := runCLI(t, "", append([]string{"setup", "--non-interactive"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
		checkNoKey(t, "the output", out+errOut, setupKey)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("the home directory got %d entries", len(entries))
	}
}

// Every target setup accepts is named in its help, and the help names no
// target setup refuses.
func TestSetup_HelpNamesEveryTargetItAccepts(t *testing.T) {
	code, out, _ := runCLI(t, "", "setup", "--help")
	if code != exitOK {
		t.Fatalf("setup --help: code %d", code)
	}
	for _, target := range setup.Targets {
		if !strings.Contains(out, string(target)+",") {
			t.Errorf("setup --help does not name %s:\n%s", target, out)
		}
	}
}
