package main

// Shared by doctor, explain and routes: the host the command inspects
// (environment, home, working directory, where webgate runs from), the
// configured routes, and the offline model of a hook's decision.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/hookenv"
	"github.com/webgate-dev/webgate/routing"
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
	for i := len(h.Env) - 1; i >= 0; i-- {
		if n, v, ok := strings.Cut(h.Env[i], "="); ok && n == name {
			return v
		}
	}
	return ""
}

// loadConfig loads the configuration from h (and file, when set, in place
// of WEBGATE_CONFIG and the default locations).
func (h hostEnv) loadConfig(file string) (*config.Config, error) {
	return config.Load(config.LoadOptions{Env: h.Env, HomeDir: h.Home, ConfigFile: file})
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

// countRoutes returns how many compiled routes apply to tool.
func countRoutes(r *routing.ToolRouter, tool string) int {
	n := 0
	for _, rt := range r.Routes() {
		if rt.Tool == tool {
			n++
		}
	}
	return n
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
	text := s.buf.String()
	for _, k := range s.secrets {
		if len(k) >= 4 {
			text = strings.ReplaceAll(text, k, "[redacted]")
		}
	}
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

// plan is the offline model of what webgate would do with one hook
// payload, following the documented order: tool routes, then docs routes,
// then the providers, else pass through. It calls no provider and fetches
// nothing.
type plan struct {
	Runtime string `json:"runtime"`
	Event   string `json:"event"`
	Tool    string `json:"tool"`
	// Hook is the hook that acts ("websearch", "webfetch", "tool routes"),
	// "" when none does.
	Hook string `json:"hook,omitempty"`
	// Value is the query, URL or command looked at.
	Value string `json:"value,omitempty"`
	// ToolRoute is the tool route that matched, if any.
	ToolRoute *routing.ToolRoute `json:"tool_route,omitempty"`
	// Docs are the docs databases the query matched.
	Docs []routing.Database `json:"docs_routes,omitempty"`
	// Escape says what the escape hatch would do with a docs route.
	Escape string `json:"escape_hatch,omitempty"`
	// Providers are the providers that would be called, in order, and
	// Mode how (search mode, or the extraction order).
	Providers []string `json:"providers,omitempty"`
	Mode      string   `json:"mode,omitempty"`
	// Classification is the page's class, when the page was at hand.
	Classification *classify.Result `json:"-"`
	// ClassifyNote says how the page was (or would be) classified.
	ClassifyNote string `json:"classifier,omitempty"`
	// Routed reports that a route (tool or docs) answers the call.
	Routed bool `json:"routed,omitempty"`
	// Decision is "deny", "add", "pass" or "depends"; Why explains it.
	Decision string `json:"decision"`
	Why      string `json:"why"`
}

// planInput describes what plan needs beyond the payload.
type planInput struct {
	cfg     *config.Config
	loadErr error
	routes  routeSet
	// page is the page's HTML when known (--html, or probed with --live).
	page []byte
	// pageNote says where page came from, or why there is none.
	pageNote string
}

func planFor(in *hooks.Input, pi planInput) plan {
	cfg := pi.cfg
	p := plan{Runtime: string(in.Runtime), Event: string(in.Event), Tool: in.ToolName}
	searchTools, fetchTools := hookTools(cfg)
	problems := config.Problems(pi.loadErr)
	invalid := func() bool {
		if len(problems) == 0 {
			return false
		}
		p.Decision = "pass"
		p.Why = "the configuration has problems (" + strings.Join(problems, "; ") + "); the hooks step aside until they are fixed"
		return true
	}
	switch {
	case hooks.WantsWebSearch(in, searchTools):
		p.Hook = "websearch"
		args := in.SearchArgs()
		p.Value = args.Query
		if in.Event == hooks.PreToolUse && pi.routes.Docs != nil {
			p.Docs = pi.routes.Docs.Match(args.Query)
		}
		if len(p.Docs) > 0 {
			store := &routing.StateStore{Dir: cfg.StateDir}
			call := routing.Call{Query: args.Query, AllowedDomains: args.AllowedDomains, BlockedDomains: args.BlockedDomains}
			released, err := store.Remembered(in.SessionID, call)
			switch {
			case err != nil:
				p.Escape = fmt.Sprintf("cannot read the routing state (%v); the hook would deny only if it can record the denial", err)
			case released:
				p.Escape = fmt.Sprintf("an identical call was denied in session %q within the last %v: this retry would be released and go on to the providers", in.SessionID, routing.DefaultEscapeWindow)
			default:
				p.Escape = fmt.Sprintf("not released: the denial would be remembered in %s, and an identical retry within %v goes through", cfg.StateDir, routing.DefaultEscapeWindow)
				names := make([]string, len(p.Docs))
				for i, d := range p.Docs {
					names[i] = d.MCPToolName + " " + d.Path
				}
				p.Decision, p.Routed = "deny", true
				p.Why = "docs route: search the local documentation first (" + strings.Join(names, "; ") + ")"
				return p
			}
		}
		if invalid() {
			return p
		}
		p.Providers = cfg.SearchProviders()
		p.Mode = cfg.Search.Mode
		switch {
		case len(p.Providers) == 0:
			p.Decision, p.Why = "pass", "no search provider has an API key"
		case utf8.RuneCountInString(strings.TrimSpace(args.Query)) < 2 && in.Event == hooks.PreToolUse:
			p.Decision, p.Why = "pass", "the search call has no query"
		case in.Event == hooks.PreToolUse:
			p.Decision, p.Why = "deny", fmt.Sprintf("the native %s is answered with results from %s (%s)", in.ToolName, strings.Join(p.Providers, ", "), p.Mode)
		case in.Event == hooks.PostToolUse:
			p.Decision, p.Why = "add", fmt.Sprintf("companion results from %s are added to the %s output", strings.Join(p.Providers, ", "), in.ToolName)
		default:
			p.Decision, p.Why = "add", fmt.Sprintf("fallback results from %s are added after the %s failure", strings.Join(p.Providers, ", "), in.ToolName)
		}
		return p

	case hooks.WantsWebFetch(in, fetchTools):
		p.Hook = "webfetch"
		args := in.FetchArgs()
		p.Value = args.URL
		if in.Event == hooks.PostToolUseFailure {
			return planFetchFailure(p, pi, cfg, args.URL, invalid)
		}
		if rt, ok := pi.routes.Tools.Match(routing.ToolWebFetch, args.URL); ok {
			p.ToolRoute, p.Routed = &rt, true
			p.Decision, p.Why = "deny", "tool route "+rt.Name+": "+oneLineText(rt.Message)
			return p
		}
		if invalid() {
			return p
		}
		if !planFetchTarget(&p, cfg, args.URL) {
			return p
		}
		if len(p.Providers) == 0 {
			p.Decision, p.Why = "pass", "no extraction provider has an API key (the page is not even probed)"
			return p
		}
		via := strings.Join(p.Providers, ", ")
		if pi.page == nil {
			p.ClassifyNote = "not classified: " + pi.pageNote
			p.Decision = "depends"
			p.Why = "a fetch-readable or non-HTML page passes through to the native tool; a template-heavy or browser-render-required page, or one that refuses the probe, is answered with content extracted via " + via
			return p
		}
		res := classifyPlanned(&p, pi, cfg)
		switch res.Class {
		case classify.TemplateHeavy, classify.BrowserRenderRequired:
			p.Decision, p.Why = "deny", "the page is "+string(res.Class)+": answered with content extracted via "+via
		default:
			p.Decision, p.Why = "pass", "the page is "+string(res.Class)+": the native tool reads it"
		}
		return p

	case in.Event == hooks.PreToolUse && in.ToolName == routing.ToolBash:
		p.Hook = "tool routes"
		var args struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal(in.ToolInput, &args)
		p.Value = args.Command
		if rt, ok := pi.routes.Tools.Match(routing.ToolBash, args.Command); ok {
			p.ToolRoute, p.Routed = &rt, true
			p.Decision, p.Why = "deny", "tool route "+rt.Name+": "+oneLineText(rt.Message)
			return p
		}
		p.Decision, p.Why = "pass", "no Bash tool route matches the command"
		return p
	}
	p.Decision = "pass"
	switch {
	case in.Event != hooks.PreToolUse && in.Event != hooks.PostToolUse && in.Event != hooks.PostToolUseFailure:
		p.Why = "webgate's hooks do not act on the " + string(in.Event) + " event"
	default:
		p.Why = "webgate's hooks do not act on the tool " + in.ToolName + " for " + string(in.Event)
	}
	return p
}

// planFetchFailure completes p for PostToolUseFailure on a web fetch tool:
// no tool routes apply; the hook reads the page itself and adds it after
// the error.
func planFetchFailure(p plan, pi planInput, cfg *config.Config, rawURL string, invalid func() bool) plan {
	if invalid() {
		return p
	}
	if !planFetchTarget(&p, cfg, rawURL) {
		return p
	}
	extracted := "passes through (no extraction provider has an API key), unless the page's own text is long enough to add"
	if len(p.Providers) > 0 {
		extracted = "is added as content extracted via " + strings.Join(p.Providers, ", ")
	}
	if pi.page == nil {
		p.ClassifyNote = "not classified: " + pi.pageNote
		p.Decision = "depends"
		p.Why = "the native tool failed, so the hook reads the page itself and adds it after the error: a fetch-readable page is converted from its HTML (no provider needed); a template-heavy or browser-render-required page, or one that refuses the probe, " + extracted
		return p
	}
	res := classifyPlanned(&p, pi, cfg)
	switch {
	case res.Class != classify.TemplateHeavy && res.Class != classify.BrowserRenderRequired:
		p.Decision, p.Why = "add", "the page is "+string(res.Class)+": the native tool failed, so its HTML is converted to Markdown and added after the error"
	case len(p.Providers) > 0:
		p.Decision, p.Why = "add", "the page is "+string(res.Class)+": the native tool failed, so the page "+extracted+" after the error"
	default:
		p.Decision, p.Why = "depends", "the page is "+string(res.Class)+": the native tool failed, and the page "+extracted
	}
	return p
}

func oneLineText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// syntheticPayload builds a Claude Code PreToolUse payload.
func syntheticPayload(tool string, input map[string]string, session string) []byte {
	b, _ := json.Marshal(map[string]any{
		"hook_event_name": "PreToolUse",
		"session_id":      session,
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

// planFetchTarget records the extraction providers and their order in p,
// and checks rawURL; when the hook would not fetch it, it sets the pass
// decision and returns false.
func planFetchTarget(p *plan, cfg *config.Config, rawURL string) bool {
	p.Providers = cfg.ExtractProviders()
	if pc := cfg.ExtractPolicyConfig(); pc.Primary != "" {
		p.Mode = "in order, " + pc.Primary + " first"
	} else {
		p.Mode = "in order, starting from a random provider"
	}
	if rawURL == "" {
		p.Decision, p.Why = "pass", "the fetch call has no URL"
		return false
	}
	if u, err := url.Parse(rawURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.Decision, p.Why = "pass", "not an absolute http or https URL"
		return false
	}
	return true
}

// classifyPlanned classifies the page of pi as the web fetch hook would,
// and records the verdict in p.
func classifyPlanned(p *plan, pi planInput, cfg *config.Config) classify.Result {
	c := classify.New(&classify.Options{MaxBytes: int64(cfg.Hooks.WebFetch.MaxBytes)})
	res := c.ClassifyBytes(pi.page)
	p.Classification = &res
	p.ClassifyNote = res.String() + ", page " + pi.pageNote
	return res
}
