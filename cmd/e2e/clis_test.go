package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// AgentCLI is a coding-agent CLI the tests run besides Claude Code. Its
// pinned version lives in .ci/install-clis.sh, which installs it from the
// npm registry.
type AgentCLI struct {
	// Name is the name .ci/install-clis.sh takes: "copilot", "gemini" or
	// "codex".
	Name string
	// BinEnv names the variable holding the path of its program.
	BinEnv string
}

// The CLIs .ci/install-clis.sh installs.
var (
	CopilotCLI = AgentCLI{Name: "copilot", BinEnv: "WEBGATE_COPILOT_BIN"}
	GeminiCLI  = AgentCLI{Name: "gemini", BinEnv: "WEBGATE_GEMINI_BIN"}
	CodexCLI   = AgentCLI{Name: "codex", BinEnv: "WEBGATE_CODEX_BIN"}
)

// InstallTimeout bounds one run of .ci/install-clis.sh from a test.
const InstallTimeout = 4 * time.Minute

type cliLookup struct {
	once    sync.Once
	path    string
	version string
	err     error
}

var cliLookups sync.Map // name -> *cliLookup

// Binary returns the path of the CLI's program: the value of c.BinEnv,
// else the one .ci/install-clis.sh prints, which installs the pinned
// version into its cache directory first when it is not there yet (once
// per test process). When there is none the test is skipped, except when
// CI=true, where it fails. The version is logged.
func (c AgentCLI) Binary(t testing.TB) string {
	t.Helper()
	v, _ := cliLookups.LoadOrStore(c.Name, &cliLookup{})
	l := v.(*cliLookup)
	l.once.Do(func() {
		l.path, l.err = c.find()
		if l.err == nil {
			l.version = programVersion(l.path)
		}
	})
	if l.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s CLI: %v", c.Name, l.err)
		}
		t.Skipf("%s CLI: %v; run .ci/install-clis.sh to enable this test", c.Name, l.err)
	}
	t.Logf("%s CLI %s at %s", c.Name, l.version, l.path)
	return l.path
}

// Version returns the version the CLI's program reports (after Binary).
func (c AgentCLI) Version(t testing.TB) string {
	c.Binary(t)
	v, _ := cliLookups.Load(c.Name)
	return v.(*cliLookup).version
}

func (c AgentCLI) find() (string, error) {
	if p := os.Getenv(c.BinEnv); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", errors.New(c.BinEnv + "=" + p + " is not an executable file")
	}
	script := installScript()
	if script == "" {
		return "", errors.New(c.BinEnv + " unset and .ci/install-clis.sh not found")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		return "", errors.New(c.BinEnv + " unset and bash not found to run .ci/install-clis.sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), InstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, c.Name)
	cmd.Env = append(os.Environ(), "npm_config_fetch_retries=1", "npm_config_fetch_timeout=60000")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s unset and .ci/install-clis.sh %s failed (%v): %s", c.BinEnv, c.Name, err, tail(strings.TrimSpace(stderr.String()), 600))
	}
	prefix := "export " + c.BinEnv + "="
	for _, line := range strings.Split(stdout.String(), "\n") {
		if p, ok := strings.CutPrefix(line, prefix); ok {
			p = unquoteShell(p)
			if isExecutable(p) {
				return p, nil
			}
			return "", fmt.Errorf(".ci/install-clis.sh printed %s, which is not an executable file", p)
		}
	}
	return "", errors.New(".ci/install-clis.sh printed no " + c.BinEnv)
}

// installScript returns the path of .ci/install-clis.sh, or "".
func installScript() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	p := filepath.Join(filepath.Dir(file), "..", "..", ".ci", "install-clis.sh")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// unquoteShell undoes the backslash escapes of bash's printf %q, which is
// all the script's paths can need.
func unquoteShell(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// programVersion returns the first line of "bin --version", or "(unknown
// version)".
func programVersion(bin string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = append(os.Environ(), "PATH="+basePath())
	out, err := cmd.Output()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if err != nil || line == "" {
		return "(unknown version)"
	}
	return line
}

// basePath is the PATH a CLI runs with: the system directories and the
// one holding node (the Gemini CLI is a node script).
func basePath() string {
	dirs := []string{"/usr/local/bin", "/usr/bin", "/bin"}
	if node, err := exec.LookPath("node"); err == nil {
		if d := filepath.Dir(node); !containsString(dirs, d) {
			dirs = append([]string{d}, dirs...)
		}
	}
	return strings.Join(dirs, string(os.PathListSeparator))
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// CLIRun describes one run of a CLI program, isolated as [RunClaude]
// isolates Claude Code: only the variables set here and in Env, a HOME of
// the test's, and HTTP_PROXY/HTTPS_PROXY pointing at a [RefusingProxy].
type CLIRun struct {
	// Bin is the program; Args its arguments.
	Bin  string
	Args []string
	// Home and Dir are HOME and the working directory; both must exist.
	Home, Dir string
	// Env is added to the environment.
	Env map[string]string
	// Timeout bounds the run; DefaultTimeout when zero.
	Timeout time.Duration
}

// CLIResult is the outcome of a [RunCLI].
type CLIResult struct {
	Stdout, Stderr string
	ExitCode       int
	// ProxyAttempts are the request lines of every attempt to reach a host
	// other than 127.0.0.1 (all were refused).
	ProxyAttempts []string
}

// RunCLI runs r.Bin once, isolated, and fails the test when it cannot
// start or runs out of time (its whole process group is killed then). On
// a test failure its output is logged.
func RunCLI(t testing.TB, r CLIRun) *CLIResult {
	t.Helper()
	proxy := NewRefusingProxy(t)
	tmp := filepath.Join(r.Home, ".tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	env := isolatedEnv(r.Home, tmp, basePath(), proxy.URL)
	env["TERM"] = "dumb"
	for k, v := range r.Env {
		env[k] = v
	}
	res := &CLIResult{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s stdout (end):\n%s", filepath.Base(r.Bin), tail(res.Stdout, 4000))
			t.Logf("%s stderr (end):\n%s", filepath.Base(r.Bin), tail(res.Stderr, 4000))
		}
	})
	took := runIsolated(t, isolatedRun{bin: r.Bin, args: r.Args, dir: r.Dir, env: env, timeout: r.Timeout},
		&res.Stdout, &res.Stderr, &res.ExitCode)
	res.ProxyAttempts = proxy.Attempts()
	t.Logf("%s ran in %s, exit %d", filepath.Base(r.Bin), took.Round(time.Millisecond), res.ExitCode)
	return res
}

// isolatedRun is one run of a binary under an isolated environment
// ([isolatedEnv]).
type isolatedRun struct {
	bin     string
	args    []string
	dir     string
	env     map[string]string
	timeout time.Duration // DefaultTimeout when 0
}

// runIsolated runs r.bin in a process group of its own, killed when r's
// timeout passes, stores its output and exit code, and returns how long it
// ran. It fails the test when the binary cannot start or runs out of time.
func runIsolated(t testing.TB, r isolatedRun, stdout, stderr *string, code *int) time.Duration {
	t.Helper()
	timeout := r.timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, r.args...)
	cmd.Dir = r.dir
	cmd.Env = envList(r.env)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	setProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	*stdout, *stderr = out.String(), errOut.String()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %s (ran %s)", filepath.Base(r.bin), timeout, took.Round(time.Millisecond))
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		*code = exitErr.ExitCode()
	default:
		t.Fatalf("run %s: %v", r.bin, err)
	}
	return took
}

// RunWebgate runs the webgate binary with args and HOME set to home (and
// env added), and returns its standard output, failing the test when it
// exits non-zero.
func RunWebgate(t testing.TB, bin, home string, env map[string]string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	vars := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
	for k, v := range env {
		vars[k] = v
	}
	cmd.Env = envList(vars)
	cmd.Dir = home
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("webgate %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}
