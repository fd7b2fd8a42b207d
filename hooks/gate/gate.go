// Package gate is the front of webgate's hook binaries. VS Code agent hooks
// and Copilot CLI run a hook for every tool call, so the common answer is
// "not mine": the front reads the payload with nothing but encoding/json,
// and only when the hook may act on it runs the worker binary
// (webgate-hook), which links the providers, the classifier and the
// configuration loader. A pass-through therefore costs the start-up of a
// small program, not of the whole library.
//
// The front is conservative: whenever it cannot be sure the hook ignores a
// payload (malformed input, tool names customised in a configuration file,
// tool routes that may apply to a Bash command) it runs the worker, which
// makes the real decision, and so does a configuration file that cannot be
// read within a short wait. Like the worker, it never writes to stdout on
// its own, never fails, and always exits 0.
//
// When a warm worker is up (package hooks/worker), the front hands the
// call to it over a Unix socket instead of running the worker, and the
// call skips the worker's start-up.
//
// This package must stay light: it imports only the standard library
// (encoding, os, path, syscall and hash packages, no net),
// internal/safefile (standard library only) to read the configuration
// file, internal/buildinfo (standard library only) for the version it
// prints, and hooks/worker (standard library only) for the warm worker's
// client.
package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/buildinfo"
)

// The hooks a front can be.
const (
	WebSearch = "websearch"
	WebFetch  = "webfetch"
)

// WorkerName is the file name of the worker binary, looked up next to the
// front's own executable and then on $PATH. WorkerEnv, when set, names it
// explicitly.
const (
	WorkerName = "webgate-hook"
	WorkerEnv  = "WEBGATE_HOOK_WORKER"
)

var errTooLargeForExec = errors.New("payload too large to hand over by exec")

// MaxInputBytes matches the hooks library's input cap; larger input is
// refused by the front itself.
const MaxInputBytes = 4 << 20

// Default tool names, the same as the hooks library's defaults: Claude
// Code's WebSearch and WebFetch, Gemini CLI's google_web_search and
// web_fetch (which is also Copilot CLI's), and the ccs-websearch MCP
// server's search tool.
var (
	DefaultSearchTools = []string{"WebSearch", "google_web_search"}
	DefaultFetchTools  = []string{"WebFetch", "web_fetch"}
	DefaultMCPTools    = []string{"mcp__ccs-websearch__WebSearch", "mcp__plugin_*_ccs-websearch__WebSearch"}
)

// Env looks up an environment variable; os.LookupEnv in the binaries. It
// is the warm worker's [worker.Env].
type Env = worker.Env

// payload is the part of a hook payload the front reads. encoding/json
// matches keys case-insensitively, and the two spellings differ by an
// underscore, so each field catches its runtime's key.
type payload struct {
	HookEventName  string          `json:"hook_event_name"`
	HookEventCamel string          `json:"hookEventName"`
	ToolName       string          `json:"tool_name"`
	ToolNameCamel  string          `json:"toolName"`
	ToolResponse   json.RawMessage `json:"tool_response"`
}

// GeminiToolError returns the "error" of a Gemini CLI AfterTool
// tool_response, and whether it holds one (present and not null): the
// hooks read such an event as PostToolUseFailure.
func GeminiToolError(response json.RawMessage) (json.RawMessage, bool) {
	var r struct {
		Error json.RawMessage `json:"error"`
	}
	if t := bytes.TrimSpace(response); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &r) != nil {
		return nil, false
	}
	e := bytes.TrimSpace(r.Error)
	return r.Error, len(e) > 0 && !bytes.Equal(e, []byte("null"))
}

// Relevant reports whether the hook may act on the payload, so that the
// worker has to run. It returns false only when the hook certainly ignores
// it: an event the hook never handles, or a tool whose name is not one of
// the hook's tools (defaults, or the names set in the environment). Gemini
// CLI's BeforeTool counts as PreToolUse and its AfterTool as PostToolUse,
// or PostToolUseFailure when the tool's response holds an error. A
// configuration file that may set tool names makes every tool event
// relevant, since the front does not parse configuration files; the web
// fetch hook's shell tool events are relevant only when tool routes for
// Bash may be configured (a cheap scan of the file, see
// [bashRoutesMayExist]).
func Relevant(hook string, data []byte, env Env) bool {
	return relevant(hook, data, env, nil)
}

// scanned is the configuration file's facts as the front read them before
// the payload, and whether they came in time ([configFileWithin]).
type scanned struct {
	facts configFacts
	read  bool
}

// relevant is [Relevant], with the configuration file's facts already
// read when file is not nil.
func relevant(hook string, data []byte, env Env, file *scanned) bool {
	var p payload
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &p) != nil {
		return true // let the worker explain what is wrong
	}
	event := strings.ToLower(first(p.HookEventName, p.HookEventCamel))
	tool := first(p.ToolName, p.ToolNameCamel)
	// Gemini CLI's tool events are read as the hooks read them.
	switch event {
	case "beforetool":
		event = "pretooluse"
	case "aftertool":
		event = "posttooluse"
		if _, failed := GeminiToolError(p.ToolResponse); failed {
			event = "posttoolusefailure"
		}
	}
	if event == "" && tool == "" {
		return true // not a hook payload: the worker says so
	}
	if file == nil {
		facts, read := configFileWithin(env, configWait)
		file = &scanned{facts, read}
	}
	if !file.read {
		return true // a stalled file system: the worker decides within its budget
	}
	facts := file.facts
	custom := func(key string) bool {
		if key == "mcp_tool_names" {
			return facts.mcpToolNames
		}
		return facts.toolNames
	}
	switch hook {
	case WebSearch:
		search := names(env, "WEBGATE_HOOKS_WEBSEARCH_TOOL_NAMES", DefaultSearchTools)
		mcp := names(env, "WEBGATE_HOOKS_WEBSEARCH_MCP_TOOL_NAMES", DefaultMCPTools)
		switch event {
		case "sessionstart":
			return true
		case "pretooluse":
			return MatchName(search, tool) || custom("tool_names")
		case "posttooluse", "posttoolusefailure":
			if MatchName(search, tool) || custom("tool_names") {
				// The native tool ran: only an answer kept for it
				// (hooks.answer replace or auto) makes it relevant.
				return mayReplace(env, facts)
			}
			return MatchName(mcp, tool) || custom("mcp_tool_names")
		case "":
			// Copilot CLI's camelCase payloads carry no event name.
			return tool != "" && (MatchName(search, tool) || MatchName(mcp, tool) || custom("tool_names"))
		}
		return false
	case WebFetch:
		fetch := names(env, "WEBGATE_HOOKS_WEBFETCH_TOOL_NAMES", DefaultFetchTools)
		switch event {
		case "pretooluse", "":
			if tool == "" {
				return event == ""
			}
			if MatchName(fetch, tool) || custom("tool_names") {
				return true
			}
			return strings.EqualFold(tool, "bash") && bashRoutesMayExist(env, facts)
		case "posttoolusefailure":
			// The native fetch failed: the worker reads the page itself.
			return MatchName(fetch, tool) || custom("tool_names")
		case "posttooluse":
			return (MatchName(fetch, tool) || custom("tool_names")) && mayReplace(env, facts)
		}
		return false
	}
	return true
}

// mayReplace reports whether the answer style may be replace (or auto),
// under which the native web tools' PostToolUse is answered with an
// answer kept on PreToolUse: set so in the environment, or possibly in
// the configuration file.
func mayReplace(env Env, file configFacts) bool {
	if v, ok := env("WEBGATE_HOOKS_ANSWER"); ok && strings.TrimSpace(v) != "" {
		v = strings.ToLower(strings.TrimSpace(v))
		return v == "replace" || v == "auto"
	}
	return file.answer
}

// bashRoutesMayExist reports whether tool routes for Bash may be
// configured, erring on the side of yes: a routes file named in the
// environment or possibly in the configuration file (the front does not
// read it), or a configuration file that may hold a route with the tool
// "Bash" ([configFacts]). The shell tool runs for nearly every step of an
// agent, so a file whose routes are all for WebFetch, or that has none,
// does not send it to the worker.
func bashRoutesMayExist(env Env, file configFacts) bool {
	if v, ok := env("WEBGATE_TOOL_ROUTES"); ok && strings.TrimSpace(v) != "" {
		return true
	}
	return file.bashRoutes
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func names(env Env, key string, def []string) []string {
	v, ok := env(key)
	if !ok || strings.TrimSpace(v) == "" {
		return def
	}
	var out []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// MatchName reports whether name equals one of the patterns or matches one
// as a path.Match glob ("mcp__plugin_*_ccs-websearch__WebSearch"). It is how
// every hook matches tool names.
func MatchName(patterns []string, name string) bool {
	if name == "" {
		return false
	}
	if slices.Contains(patterns, name) {
		return true
	}
	for _, p := range patterns {
		if ok, err := path.Match(p, name); err == nil && ok {
			return true
		}
	}
	return false
}

// configWait bounds how long the front waits for the configuration file,
// so that a stalled file system cannot hold it forever.
var configWait = 2 * time.Second

// scanFile scans a configuration file; [scanConfigFile] (tests replace
// it).
var scanFile = scanConfigFile

// configFileWithin returns [configFile]'s result, and false when it did not
// come within wait.
func configFileWithin(env Env, wait time.Duration) (configFacts, bool) {
	done := make(chan configFacts, 1)
	go func() { done <- configFile(env) }()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case facts := <-done:
		return facts, true
	case <-t.C:
		return configFacts{}, false
	}
}

// configFile returns the facts of webgate's configuration file, found as
// the config package finds it (WEBGATE_CONFIG, else config.{toml,yaml,yml,json}
// in $XDG_CONFIG_HOME/webgate or ~/.config/webgate), or none.
func configFile(env Env) configFacts {
	if p, ok := env("WEBGATE_CONFIG"); ok && strings.TrimSpace(p) != "" {
		facts, _ := scanFile(expandHome(strings.TrimSpace(p), env))
		return facts
	}
	dir := ""
	// As the config package: a relative XDG_CONFIG_HOME is ignored.
	if x, ok := env("XDG_CONFIG_HOME"); ok && filepath.IsAbs(x) {
		dir = filepath.Join(x, "webgate")
	} else if h, ok := env("HOME"); ok && h != "" {
		dir = filepath.Join(h, ".config", "webgate")
	} else {
		return configFacts{}
	}
	for _, n := range []string{"config.toml", "config.yaml", "config.yml", "config.json"} {
		if facts, err := scanFile(filepath.Join(dir, n)); err == nil {
			return facts
		}
	}
	return configFacts{}
}

func expandHome(p string, env Env) string {
	if strings.HasPrefix(p, "~/") {
		if h, ok := env("HOME"); ok && h != "" {
			return filepath.Join(h, p[2:])
		}
	}
	return p
}

// Worker returns the path of the worker binary: WorkerEnv, else WorkerName
// next to the running executable, else on $PATH.
func Worker(env Env) (string, error) {
	if p, ok := env(WorkerEnv); ok && p != "" {
		return p, nil
	}
	name := WorkerName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(WorkerName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("the %s binary was not found next to this hook or on $PATH; reinstall webgate (make install)", WorkerName)
}

// workerEnv is the environment a front that started at start runs the
// worker with: its own, and [worker.FrontEnv].
func workerEnv(start time.Time) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, worker.FrontEnv+"=") })
	return append(env, worker.FrontEnv+"="+strconv.FormatInt(start.UnixNano(), 10))
}

// Main is the whole body of a front binary for hook: it reads the payload,
// returns at once when the hook ignores it, and otherwise hands it to the
// warm worker, when one is up, or runs the worker with the payload on its
// stdin and the front's stdout and stderr. It
// always returns 0. With the single argument --version it prints the
// version instead.
func Main(hook string, args []string, stdin io.Reader, stdout, stderr io.Writer, env Env) int {
	start := time.Now()
	if len(args) > 0 {
		if args[0] == "--version" || args[0] == "-version" {
			fmt.Fprintf(stdout, "%s (webgate) %s\n", hook, buildinfo.Version())
			return 0
		}
		fmt.Fprintf(stderr, "webgate: %s takes no arguments (it reads a hook payload on stdin); ignoring %q\n", hook, args[0])
	}
	// The configuration file is scanned first: the budget it may set
	// bounds the wait for stdin, as the environment's does.
	facts, read := configFileWithin(env, min(configWait, StdinWaitWithin(start, HookBudget(hook, env, 0))))
	budget := HookBudget(hook, env, facts.budget)
	wait := StdinWaitWithin(start, budget)
	data, err := ReadPayload(stdin, MaxInputBytes, wait, StdinQuiet)
	if err != nil {
		fmt.Fprintf(stderr, "webgate: %v (the %s hook's budget is %v); passing through\n", err, hook, budget)
		return 0
	}
	if !relevant(hook, data, env, &scanned{facts, read}) {
		return 0
	}
	bin, err := Worker(env)
	if err != nil {
		fmt.Fprintf(stderr, "webgate: %v; passing through\n", err)
		return 0
	}
	if stdout == os.Stdout && stderr == os.Stderr {
		// Only when the streams are the process's own: a warm worker
		// answers over its socket, or the worker writes to them directly.
		// The hook's exit code is 0 whatever it decided: a hook never
		// blocks by exit code.
		if _, answered := worker.Ask(hook, bin, data, start, budget, env, stdout, stderr); answered {
			return 0
		}
		_ = execWorker(bin, hook, data, workerEnv(start))
	}
	cmd := exec.Command(bin, hook)
	cmd.Env = workerEnv(start)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(stderr, "webgate: %s worker: %v; passing through\n", hook, err)
	}
	return 0
}
