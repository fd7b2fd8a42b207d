package main

// Shared by doctor, explain and routes: the host the command inspects
// (environment, home, working directory, where webgate runs from), the
// configured routes, and the hooks' own plans for a call.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/memory"
)

// hostEnv is what the diagnostic commands read of the machine. Commands
// take it from currentHost, which tests replace, so that they never read
// the real environment or home directory.
type hostEnv struct {
	// Env is the environment, as "NAME=value" strings.
	Env []string
	// Home is the user's home directory ("" when unknown).
	Home string
	// WorkDir is the current directory (the project for --scope project).
	WorkDir string
	// ExeDir is the directory of the running webgate binary ("" when
	// unknown); the hook binaries are looked for there first.
	ExeDir string
}

// currentHost returns the real host; tests replace it.
var currentHost = func() hostEnv {
	h := hostEnv{Env: os.Environ()}
	h.Home, _ = os.UserHomeDir()
	h.WorkDir, _ = os.Getwd()
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		h.ExeDir = filepath.Dir(exe)
	}
	return h
}

// getenv returns a variable of h's environment.
func (h hostEnv) getenv(name string) string {
	v, _ := worker.EnvList(h.Env)(name)
	return v
}

// loadConfig loads the configuration from h (and file, when set, in place
// of WEBGATE_CONFIG and the default locations).
func (h hostEnv) loadConfig(file string) (*config.Config, error) {
	return config.Load(&config.LoadOptions{Env: h.Env, HomeDir: h.Home, ConfigFile: file})
}

// hookBinary is where one hook binary was found.
type hookBinary struct {
	Name, Path, Where string
}

// findHook looks for a hook binary in dir when given, else next to webgate,
// else on h's PATH. Path is "" when it was not found.
func (h hostEnv) findHook(name, dir string) hookBinary {
	b := hookBinary{Name: name}
	var cands [][2]string
	if dir != "" {
		cands = append(cands, [2]string{dir, "in " + dir})
	} else {
		if h.ExeDir != "" {
			cands = append(cands, [2]string{h.ExeDir, "next to webgate"})
		}
		for _, d := range filepath.SplitList(h.getenv("PATH")) {
			if d != "" && filepath.IsAbs(d) {
				cands = append(cands, [2]string{d, "on PATH"})
			}
		}
	}
	for _, c := range cands {
		p := filepath.Join(c[0], name)
		if isExecutable(p) {
			b.Path, b.Where = p, c[1]
			return b
		}
	}
	return b
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// routeSet is the configured docs databases and tool routes, loaded as the
// hooks load them, with the warnings as text.
type routeSet struct {
	hookenv.RouteSet
	Warnings []string
}

// loadRouteSet builds the routers from cfg as the hooks do
// ([hookenv.LoadRoutes]): the inline docs.databases and routes.tool_routes
// of the configuration file first, then the files named by docs.config and
// routes.config (WEBGATE_TOOL_ROUTES).
func loadRouteSet(cfg *config.Config) routeSet {
	rs := routeSet{RouteSet: hookenv.LoadRoutes(cfg, true, true)}
	for _, w := range rs.RouteSet.Warnings {
		rs.Warnings = append(rs.Warnings, w.Error())
	}
	return rs
}

// fileError drops the path an *os.PathError repeats.
func fileError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// scrubWriter replaces keys in everything written through it. Writes are
// buffered until flush so that a key split across two writes is caught.
type scrubWriter struct {
	w       io.Writer
	secrets []string
	buf     bytes.Buffer
}

func (s *scrubWriter) Write(p []byte) (int, error) { return s.buf.Write(p) }

func (s *scrubWriter) flush() {
	text := textfmt.Scrub(s.buf.String(), s.secrets...)
	s.buf.Reset()
	_, _ = io.WriteString(s.w, text)
}

// hookTools returns the tool names each hook acts on, as the hooks compute
// them from cfg.
func hookTools(cfg *config.Config) (search, fetch hooks.ToolNames) {
	search = hookenv.Settings(cfg, cfg.Hooks.WebSearch.Budget, cfg.Hooks.WebSearch.ToolNames, nil).Tools
	fetch = hookenv.Settings(cfg, cfg.Hooks.WebFetch.Budget, nil, cfg.Hooks.WebFetch.ToolNames).Tools
	return search, fetch
}

// planCall returns the hooks' own plan for in ([hooks.PlanWebSearch],
// [hooks.PlanWebFetch]), with the environments the hooks build from cfg;
// page says whether and how the web fetch hook reads the page; the docs
// routes' state is read from mem. Planning calls no provider and writes
// no routing state.
func planCall(ctx context.Context, in *hooks.Input, cfg *config.Config, loadErr error, page hooks.PageSource, mem *cliMemory) *hooks.Plan {
	search, fetch := hookTools(cfg)
	switch {
	case in.Event == hooks.SessionStart:
		s := hookenv.Settings(cfg, cfg.Hooks.WebSearch.Budget, cfg.Hooks.WebSearch.ToolNames, nil)
		env := &hooks.WebSearchEnv{Settings: s, Routes: hookenv.HookRoutes(cfg, true, true), SessionStart: cfg.Hooks.SessionStart}
		if p := hooks.PlanWebSearch(ctx, in, env); p.Hook != "" {
			return p
		}
	case hooks.WantsWebSearch(in, search):
		env := hookenv.WebSearch(cfg, loadErr)
		if m := routeMemory(ctx, env.Routes, mem); m != nil {
			env.Routes.State = hookenv.RouteState(cfg, m)
		}
		if env.Answers == nil && keepsAnswers(cfg) {
			env.Answers = plannedAnswers{}
		}
		return hooks.PlanWebSearch(ctx, in, env)
	case hooks.WantsWebFetch(in, fetch), hooks.WantsShell(in):
		env := hookenv.WebFetch(cfg, loadErr)
		if env.Answers == nil && keepsAnswers(cfg) {
			env.Answers = plannedAnswers{}
		}
		return hooks.PlanWebFetch(ctx, in, env, page)
	}
	p := &hooks.Plan{Runtime: in.Runtime, Event: in.Event, Tool: in.ToolName, Decision: hooks.OutcomePass}
	switch in.Event {
	case hooks.PreToolUse, hooks.PostToolUse, hooks.PostToolUseFailure:
		p.Why = "webgate's hooks do not act on the tool " + in.ToolName + " for " + string(in.Event)
	case hooks.SessionStart:
		p.Why = "webgate's hooks do not act on the SessionStart event (hooks.session_start is off)"
	default:
		p.Why = "webgate's hooks do not act on the " + string(in.Event) + " event"
	}
	return p
}

// keepsAnswers reports whether a hook would have somewhere to keep a
// replace answer: a store that is not off.
func keepsAnswers(cfg *config.Config) bool { return locateStore(cfg).Driver != "off" }

// plannedAnswers stands for the store a hook keeps its replace answers in,
// so that a plan says what the hook would do with one; planning keeps and
// takes nothing.
type plannedAnswers struct{}

func (plannedAnswers) Keep(context.Context, string, []byte) error {
	return errors.New("a plan keeps no answer")
}

func (plannedAnswers) Take(context.Context, string) ([]byte, bool) { return nil, false }

// routeMemory returns the memory whose store holds the docs routes' escape
// hatch, as a hook would find it ([hookenv.RouteState]), when there are
// docs routes and a store to read; otherwise, or when the store does not
// open, it returns nil and the plan reads the files a hook falls back to.
// It never creates the store.
func routeMemory(ctx context.Context, r hooks.Routes, mem *cliMemory) *memory.Memory {
	if len(r.Docs.Databases()) == 0 {
		return nil
	}
	m, _ := mem.get(ctx)
	return m
}

// decisionWord says in a word what a plan leads to: "deny", "allow" (a
// replace answer), "add", "pass", or "depends" when it depends on a page
// that was not read.
func decisionWord(p *hooks.Plan) string {
	switch {
	case p.Decision == hooks.OutcomeDependsOnPage:
		return "depends"
	case p.Replaces && p.Decision.Action() == hooks.Deny:
		return "allow"
	}
	switch p.Decision.Action() {
	case hooks.Deny:
		return "deny"
	case hooks.AddContext:
		return "add"
	}
	return "pass"
}

func oneLineText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// syntheticPayload builds a Claude Code PreToolUse payload, with a tool
// use ID as Claude Code sends (a replace answer is kept under it) and the
// current directory as the session's (whose settings' permission rules a
// replace answer respects).
func syntheticPayload(tool string, input map[string]string, session string) []byte {
	b, _ := json.Marshal(map[string]any{
		"hook_event_name": "PreToolUse",
		"session_id":      session,
		"tool_use_id":     "toolu_webgate_sample",
		"cwd":             currentHost().WorkDir,
		"tool_name":       tool,
		"tool_input":      input,
	})
	return b
}

// liveRun runs the real hook handler for payload in-process, through
// hooks.Run with the hook's own budget, and returns what the hook binary
// would write on stdout and stderr.
func liveRun(ctx context.Context, hook string, cfg *config.Config, loadErr error, payload []byte) (stdout, stderr string) {
	load := func() (*config.Config, error) { return cfg, loadErr }
	var h hooks.Handler
	if hook == "webfetch" {
		h = hookenv.WebFetchHandler(load)
	} else {
		h = hookenv.WebSearchHandler(load)
	}
	var out, errb bytes.Buffer
	hooks.Run(ctx, bytes.NewReader(payload), &out, &errb, h)
	return out.String(), errb.String()
}

// liveSummary describes a hook's stdout in a few words: deny (with how
// long the reason is), added context, or pass.
func liveSummary(stdout, stderr string) (decision, detail string) {
	var o struct {
		HSO struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
			AdditionalContext        string `json:"additionalContext"`
			UpdatedMCPToolOutput     any    `json:"updatedMCPToolOutput"`
		} `json:"hookSpecificOutput"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		SystemMessage            string `json:"systemMessage"`
	}
	_ = json.Unmarshal([]byte(stdout), &o)
	d := o.HSO.PermissionDecision
	reason := o.HSO.PermissionDecisionReason
	if d == "" {
		d, reason = o.PermissionDecision, o.PermissionDecisionReason
	}
	switch {
	case d == "deny":
		first, _, _ := strings.Cut(reason, "\n")
		return "deny", fmt.Sprintf("%s (%d characters)", oneLineText(first), len([]rune(reason)))
	case o.HSO.AdditionalContext != "" || o.HSO.UpdatedMCPToolOutput != nil:
		return "add", "results added to the tool output"
	}
	why := strings.TrimSpace(o.SystemMessage)
	if why == "" {
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		why = strings.TrimPrefix(lines[len(lines)-1], "webgate: ")
	}
	if why == "" {
		why = "no decision"
	}
	return "pass", oneLineText(why)
}
