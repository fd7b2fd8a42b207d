package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// DefaultModel is the model name passed with --model.
const DefaultModel = "claude-sonnet-4-5"

// StoreTimeout is the bound of each store call (WEBGATE_STORE_TIMEOUT) of
// the hooks and the webgate binary the CLIs run, unless a run sets its
// own. The default 50 ms is for an interactive machine; here the CLI and
// other test binaries compete for the CPU, and a store call that times out
// turns a test of what the hooks remember across calls into a test of
// failing open (which has tests of its own, in package hooks).
const StoreTimeout = "2s"

// isolatedEnv returns the environment every CLI run starts from: its own
// HOME and TMPDIR, path, a C.UTF-8 locale, /bin/sh, and every proxy
// variable pointing at proxy (a refusing proxy that records what the CLI
// tried to reach), loopback excepted.
func isolatedEnv(home, tmp, path, proxy string) map[string]string {
	return map[string]string{
		"HOME":        home,
		"TMPDIR":      tmp,
		"PATH":        path,
		"LANG":        "C.UTF-8",
		"SHELL":       "/bin/sh",
		"HTTPS_PROXY": proxy,
		"HTTP_PROXY":  proxy,
		"https_proxy": proxy,
		"http_proxy":  proxy,
		"NO_PROXY":    "127.0.0.1,localhost",
		"no_proxy":    "127.0.0.1,localhost",
	}
}

// DefaultTimeout bounds one CLI run when Options.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// Options describe one run of the Claude Code CLI.
type Options struct {
	// Prompt is the -p prompt; a fixed prompt is used when empty.
	Prompt string
	// Model is passed with --model; DefaultModel when empty.
	Model string
	// Settings is written to $HOME/.claude/settings.json (user settings),
	// where installed hooks live.
	Settings *Settings
	// FlagSettings is written to a file passed with --settings.
	FlagSettings *Settings
	// AllowedTools are passed with --allowedTools.
	AllowedTools []string
	// MCPServers are written to a file passed with --mcp-config and
	// --strict-mcp-config.
	MCPServers map[string]MCPServer
	// PluginDirs are passed with --plugin-dir each.
	PluginDirs []string
	// Env is added to the CLI's environment, which hook processes inherit.
	Env map[string]string
	// Dir is the working directory (the project); a fresh temporary
	// directory when empty.
	Dir string
	// Timeout bounds the run; DefaultTimeout when zero.
	Timeout time.Duration
	// Args are appended to the command line as-is.
	Args []string
}

// Result is the outcome of one CLI run.
type Result struct {
	// Stdout is the stream-json output; Stderr the CLI's standard error.
	Stdout, Stderr string
	// ExitCode is the CLI's exit code.
	ExitCode int
	// Home is the fresh HOME the CLI ran with; Dir its working directory.
	Home, Dir string
	// DebugFile is the path of the CLI's --debug-file log.
	DebugFile string
	// ProxyAttempts are the request lines of every attempt to reach a host
	// other than 127.0.0.1 (all were refused).
	ProxyAttempts []string
	// Events are the parsed stream-json lines.
	Events []Event
}

// Event is one line of the CLI's stream-json output.
type Event struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	// Raw is the whole line.
	Raw json.RawMessage `json:"-"`
}

// HookEvent is a hook lifecycle event of the stream-json output
// (--include-hook-events): subtype "hook_started" or "hook_response".
type HookEvent struct {
	Subtype   string `json:"subtype"`
	HookName  string `json:"hook_name"`
	HookEvent string `json:"hook_event"`
	Output    string `json:"output"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	ExitCode  *int   `json:"exit_code"`
	Outcome   string `json:"outcome"`
}

// HookResponses returns the hook_response events, in order.
func (r *Result) HookResponses() []HookEvent {
	var out []HookEvent
	for _, e := range r.Events {
		if e.Type != "system" || e.Subtype != "hook_response" {
			continue
		}
		var h HookEvent
		if json.Unmarshal(e.Raw, &h) == nil {
			out = append(out, h)
		}
	}
	return out
}

// FinalText returns the "result" text of the final result event.
func (r *Result) FinalText() string {
	for i := len(r.Events) - 1; i >= 0; i-- {
		if r.Events[i].Type != "result" {
			continue
		}
		var v struct {
			Result string `json:"result"`
		}
		_ = json.Unmarshal(r.Events[i].Raw, &v)
		return v.Result
	}
	return ""
}

// DebugLog returns the content of the CLI's debug log, or "".
func (r *Result) DebugLog() string {
	b, _ := os.ReadFile(r.DebugFile)
	return string(b)
}

// RunClaude runs the Claude Code CLI once in print mode against api, isolated
// from the machine: a clean environment (env -i), a fresh HOME, every
// non-loopback connection sent to a RefusingProxy, and a timeout. It fails
// the test when the CLI cannot start or times out; a non-zero exit is
// reported in Result.ExitCode. When the test fails, the CLI's stderr and the
// end of its debug log are logged.
func RunClaude(t testing.TB, api *FakeAPI, opts Options) *Result {
	t.Helper()
	bin := ClaudeBinary(t)

	root := t.TempDir()
	home := filepath.Join(root, "home")
	tmp := filepath.Join(root, "tmp")
	dir := opts.Dir
	if dir == "" {
		dir = filepath.Join(root, "project")
	}
	for _, d := range []string{home, tmp, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	proxy := NewRefusingProxy(t)
	res := &Result{Home: home, Dir: dir, DebugFile: filepath.Join(root, "debug.log")}

	prompt := opts.Prompt
	if prompt == "" {
		prompt = "Follow the script."
	}
	model := opts.Model
	if model == "" {
		model = DefaultModel
	}
	args := []string{"-p", prompt, "--model", model,
		"--output-format", "stream-json", "--verbose", "--include-hook-events",
		"--debug-file", res.DebugFile}
	if opts.Settings != nil {
		writeFile(t, filepath.Join(home, ".claude", "settings.json"), opts.Settings.JSON())
	}
	if opts.FlagSettings != nil {
		p := filepath.Join(root, "flag-settings.json")
		writeFile(t, p, opts.FlagSettings.JSON())
		args = append(args, "--settings", p)
	}
	if len(opts.MCPServers) > 0 {
		p := filepath.Join(root, "mcp.json")
		writeFile(t, p, mcpConfigJSON(opts.MCPServers))
		args = append(args, "--mcp-config", p, "--strict-mcp-config")
	}
	if len(opts.AllowedTools) > 0 {
		args = append(args, "--allowedTools", strings.Join(opts.AllowedTools, ","))
	}
	for _, p := range opts.PluginDirs {
		args = append(args, "--plugin-dir", p)
	}
	args = append(args, opts.Args...)

	env := isolatedEnv(home, tmp, "/usr/local/bin:/usr/bin:/bin", proxy.URL)
	for k, v := range map[string]string{
		"ANTHROPIC_BASE_URL":                       api.URL,
		"ANTHROPIC_API_KEY":                        "sk-ant-e2e-dummy-key",
		"DISABLE_TELEMETRY":                        "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"DISABLE_ERROR_REPORTING":                  "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	} {
		env[k] = v
	}
	for k, v := range opts.Env {
		env[k] = v
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("claude stderr:\n%s", tail(res.Stderr, 4000))
			t.Logf("claude debug log (end):\n%s", tail(res.DebugLog(), 8000))
		}
	})

	took := runIsolated(t, isolatedRun{bin: bin, args: args, dir: dir, env: env, timeout: opts.Timeout},
		&res.Stdout, &res.Stderr, &res.ExitCode)
	res.ProxyAttempts = proxy.Attempts()
	res.Events = parseEvents(res.Stdout)
	t.Logf("claude ran in %s, exit %d, %d API request(s)", took.Round(time.Millisecond), res.ExitCode, len(api.Requests()))
	return res
}

// envList turns env into an environment list, with the warm worker off and
// each store call bound by [StoreTimeout] unless env sets them.
func envList(env map[string]string) []string {
	out := make([]string, 0, len(env)+2)
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	if _, ok := env["WEBGATE_HOOKS_WORKER"]; !ok {
		// Each hook call is then a process of its own that leaves nothing
		// running; the warm worker's tests set it on purpose.
		out = append(out, "WEBGATE_HOOKS_WORKER=off")
	}
	if _, ok := env["WEBGATE_STORE_TIMEOUT"]; !ok {
		out = append(out, "WEBGATE_STORE_TIMEOUT="+StoreTimeout)
	}
	sort.Strings(out)
	return out
}

func parseEvents(stdout string) []Event {
	var out []Event
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e Event
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		e.Raw = append(json.RawMessage(nil), line...)
		out = append(out, e)
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// ClaudeBinaryEnv names the environment variable holding the path of the
// Claude Code binary.
const ClaudeBinaryEnv = "WEBGATE_CLAUDE_BIN"

// ClaudeBinary returns the path of the Claude Code CLI binary: the value of
// WEBGATE_CLAUDE_BIN, else the binary .ci/install-claude.sh installs into
// its default directory. When there is none the test is skipped, except
// when CI=true, where it fails.
func ClaudeBinary(t testing.TB) string {
	t.Helper()
	path, err := FindClaudeBinary()
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v (run .ci/install-claude.sh)", err)
	}
	t.Skipf("%v; run .ci/install-claude.sh to enable the e2e tests", err)
	return ""
}

// FindClaudeBinary looks the Claude Code binary up as ClaudeBinary does,
// without a test.
func FindClaudeBinary() (string, error) {
	if p := os.Getenv(ClaudeBinaryEnv); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", errors.New(ClaudeBinaryEnv + "=" + p + " is not an executable file")
	}
	p := DefaultClaudeBinary()
	if p == "" || !isExecutable(p) {
		return "", errors.New("claude binary not found (" + ClaudeBinaryEnv + " unset, nothing at " + p + ")")
	}
	return p, nil
}

// DefaultClaudeBinary returns where .ci/install-claude.sh puts the binary
// when run without arguments, or "" when that place is unknown.
func DefaultClaudeBinary() string {
	dir := os.Getenv("WEBGATE_CLAUDE_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".cache", "webgate-e2e", "claude")
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		return ""
	}
	base := filepath.Join(dir, "node_modules", "@anthropic-ai")
	p := filepath.Join(base, "claude-code-"+runtime.GOOS+"-"+arch, "claude")
	if !isExecutable(p) {
		if m := filepath.Join(base, "claude-code-"+runtime.GOOS+"-"+arch+"-musl", "claude"); isExecutable(m) {
			return m
		}
	}
	return p
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}
