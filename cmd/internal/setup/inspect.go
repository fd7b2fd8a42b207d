package setup

import (
	"fmt"
	"os"
	"strings"
)

// Registration is what one settings file holds of webgate's hooks (or,
// for [Codex], of its MCP server), read by [Inspect] without changing
// anything.
type Registration struct {
	// Target and Path say which file was read.
	Target Target
	Path   string
	// Exists reports whether the file exists.
	Exists bool
	// Hooks lists every webgate hook entry, in file order.
	Hooks []RegisteredHook
	// Legacy describes each entry of the older Node hooks, one line each.
	Legacy []string
	// Foreign describes each hook that runs a program named like one of
	// webgate's hook binaries but that webgate did not write, one line
	// each: install and uninstall leave it alone.
	Foreign []string
	// MCPTools are the MCP tools webgate's websearch PostToolUse and
	// PostToolUseFailure entries match (Claude Code settings; Copilot CLI
	// entries name no tools). The webfetch PostToolUseFailure entry is not
	// one of them.
	MCPTools []string
	// SessionStart reports a webgate SessionStart entry.
	SessionStart bool
	// BashRoutes reports that webgate's PreToolUse webfetch entry also
	// matches Bash (install --tool-routes; Claude Code settings only).
	BashRoutes bool
	// Server is webgate's MCP server table of a Codex config.toml, nil
	// when there is none (and for the other targets).
	Server *RegisteredServer
}

// RegisteredServer is webgate's MCP server as a Codex config.toml
// registers it ([mcp_servers.webgate]).
type RegisteredServer struct {
	// Name is the server's name, [CodexServerName].
	Name string
	// Command and Args are what Codex starts.
	Command string
	Args    []string
	// Enabled is false when the table says enabled = false.
	Enabled bool
	// URL reports a url key: the table names a streamable HTTP server,
	// not the webgate binary.
	URL bool
	// Missing reports that Command does not exist.
	Missing bool
	// Env names the environment variables the server gets besides the few
	// Codex always passes: the keys of its env table and the names its
	// env_vars list forwards.
	Env []string
}

// RegisteredHook is one webgate hook entry of a settings file.
type RegisteredHook struct {
	// Event is the hook event as the file spells it ("PreToolUse",
	// "preToolUse").
	Event string
	// Matcher is the entry's matcher; "" for Copilot CLI, which has none.
	Matcher string
	// Binary is "websearch" or "webfetch".
	Binary string
	// Command is the command line as written.
	Command string
	// Path is the executable the command runs.
	Path string
	// Missing reports that Path does not exist.
	Missing bool
	// URL is the gateway hook endpoint an HTTP hook posts to (install
	// --gateway); Command and Path are empty then. TokenEnv is the first
	// variable its allowedEnvVars lists.
	URL, TokenEnv string
}

// GatewayTokenEnv returns the environment variable r's HTTP hooks read
// the gateway token from (the first their allowedEnvVars lists), "" when
// none does.
func (r *Registration) GatewayTokenEnv() string {
	for _, h := range r.Hooks {
		if h.TokenEnv != "" {
			return h.TokenEnv
		}
	}
	return ""
}

// Gateway returns the base URL of the gateway r's HTTP hooks post to, ""
// when none does.
func (r *Registration) Gateway() string {
	for _, h := range r.Hooks {
		if h.URL != "" {
			return strings.TrimSuffix(h.URL, gatewayHookPath+h.Binary)
		}
	}
	return ""
}

// Inspect reads the settings file of o.Target in o.Scope and reports
// webgate's entries in it. A missing file gives an empty Registration; a
// file that is not valid JSON gives an error wrapping
// [ErrInvalidSettings] (a Codex config.toml that is not valid TOML, one
// wrapping [ErrInvalidTOML]). Nothing is written.
func Inspect(o Options) (*Registration, error) {
	o.defaults()
	if o.Target == Codex {
		return inspectCodex(o)
	}
	path, err := SettingsPath(o)
	if err != nil {
		return nil, err
	}
	before, root, err := readSettings(path)
	if err != nil {
		return nil, settingsError(o.Target, err)
	}
	r := &Registration{Target: o.Target, Path: path, Exists: before != nil}
	hooksV, _ := root.get("hooks")
	hooks, ok := hooksV.(*object)
	if !ok {
		return r, nil
	}
	form := claudeForm
	switch o.Target {
	case CopilotCLI:
		form = copilotForm
	case GeminiCLI:
		form = geminiForm
	}
	add := func(event, matcher string, ho *object, cmdKey string) {
		cmd := textOf(ho, cmdKey)
		if s := legacyScript(cmd); s != "" {
			m := ""
			if o.Target != CopilotCLI {
				m = " for " + quoteMatcher(matcher)
			}
			r.Legacy = append(r.Legacy, fmt.Sprintf("%s: older Node hook %s%s", event, s, m))
		}
		bin, path, remote, foreign := ownHandler(ho, form)
		if foreign != "" {
			r.Foreign = append(r.Foreign, foreignHook(event, foreign, cmd))
		}
		if bin == "" {
			return
		}
		h := RegisteredHook{Event: event, Binary: bin, Command: cmd, Path: path}
		if remote {
			h = RegisteredHook{Event: event, Binary: bin, URL: textOf(ho, "url")}
			if av, ok := ho.get("allowedEnvVars"); ok {
				if l, ok := av.([]any); ok && len(l) > 0 {
					h.TokenEnv, _ = text(l[0])
				}
			}
		}
		h.Matcher = matcher
		if _, err := os.Stat(h.Path); err != nil && !remote {
			h.Missing = true
		}
		r.Hooks = append(r.Hooks, h)
		switch {
		case strings.EqualFold(event, "SessionStart"):
			r.SessionStart = true
		case bin == "websearch" && (strings.EqualFold(event, "PostToolUse") || strings.EqualFold(event, "PostToolUseFailure")):
			for _, t := range matcherTools(h.Matcher) {
				// The native WebSearch's own entries (the replace answer
				// style) name no MCP tool.
				if t != "WebSearch" && !contains(r.MCPTools, t) {
					r.MCPTools = append(r.MCPTools, t)
				}
			}
		case event == "PreToolUse" && bin == "webfetch" && o.Target != CopilotCLI:
			if contains(matcherTools(h.Matcher), "Bash") {
				r.BashRoutes = true
			}
		}
	}
	for _, event := range hooks.names() {
		lv, _ := hooks.get(event)
		list, _ := lv.([]any)
		for _, item := range list {
			ho, ok := item.(*object)
			if !ok {
				continue
			}
			if o.Target == CopilotCLI {
				add(event, "", ho, "bash")
				continue
			}
			iv, _ := ho.get("hooks")
			inner, _ := iv.([]any)
			for _, h := range inner {
				if hh, ok := h.(*object); ok {
					add(event, textOf(ho, "matcher"), hh, "command")
				}
			}
		}
	}
	return r, nil
}

func quoteMatcher(m string) string {
	if m == "" {
		return `"*"`
	}
	return fmt.Sprintf("%q", m)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// required returns the entries webgate needs in r's target, as
// "event binary" pairs.
func (r *Registration) required() [][2]string {
	switch r.Target {
	case CopilotCLI:
		return [][2]string{{"preToolUse", "webfetch"}}
	case GeminiCLI:
		return [][2]string{{"BeforeTool", "websearch"}, {"BeforeTool", "webfetch"}}
	case Codex:
		return nil
	}
	return [][2]string{{"PreToolUse", "websearch"}, {"PreToolUse", "webfetch"}}
}

func (r *Registration) count(event, bin string) int {
	n := 0
	for _, h := range r.Hooks {
		if h.Event == event && h.Binary == bin {
			n++
		}
	}
	return n
}

// Registered reports whether every entry webgate needs is present: the
// PreToolUse websearch and webfetch hooks in Claude Code settings, the
// preToolUse webfetch hook in a Copilot CLI hooks file, the BeforeTool
// websearch and webfetch hooks in Gemini CLI settings, and for Codex an
// [mcp_servers.webgate] table that starts a command with the argument
// "mcp".
func (r *Registration) Registered() bool { return len(r.Absent()) == 0 }

// Absent lists the needed entries that are missing, as "EVENT BINARY" (for
// Codex, "[mcp_servers.webgate]").
func (r *Registration) Absent() []string {
	if r.Target == Codex {
		if r.Server == nil || r.Server.URL || r.Server.Command == "" || len(r.Server.Args) == 0 || r.Server.Args[0] != "mcp" {
			return []string{"[mcp_servers." + CodexServerName + "]"}
		}
		return nil
	}
	var out []string
	for _, q := range r.required() {
		if r.count(q[0], q[1]) == 0 {
			out = append(out, q[0]+" "+q[1])
		}
	}
	return out
}

// Duplicates lists the entries registered more than once, as
// "EVENT BINARY (N entries)".
func (r *Registration) Duplicates() []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range r.Hooks {
		key := h.Event + " " + h.Binary
		if seen[key] {
			continue
		}
		seen[key] = true
		if n := r.count(h.Event, h.Binary); n > 1 {
			out = append(out, fmt.Sprintf("%s (%d entries)", key, n))
		}
	}
	return out
}

// MissingBinaries lists the entries whose executable does not exist (for
// Codex, the server's command, as a RegisteredHook with Event
// "mcp_servers" and Binary "webgate").
func (r *Registration) MissingBinaries() []RegisteredHook {
	var out []RegisteredHook
	if r.Server != nil && r.Server.Missing {
		out = append(out, RegisteredHook{Event: "mcp_servers", Binary: CodexServerName, Command: r.Server.Command, Path: r.Server.Command, Missing: true})
	}
	for _, h := range r.Hooks {
		if h.Missing {
			out = append(out, h)
		}
	}
	return out
}

// InstallOptions returns o with what the file already registers beyond
// the two PreToolUse hooks added to it: the MCP companion tools (the
// file's first, then o's), the SessionStart hook and the Bash matcher. An
// install with them keeps what an earlier install registered, and
// [PlanInstall] with them reports a change only when the registration
// itself is out of date. (A Copilot CLI file with webgate postToolUse
// entries, which older versions wrote, is out of date.)
func (r *Registration) InstallOptions(o Options) Options {
	tools := append([]string(nil), r.MCPTools...)
	for _, t := range o.MCPTools {
		if !contains(tools, t) {
			tools = append(tools, t)
		}
	}
	o.MCPTools = tools
	o.SessionStart = o.SessionStart || r.SessionStart
	o.BashRoutes = o.BashRoutes || r.BashRoutes
	return o
}

// matcherTools returns the tool names of a matcher [toolMatcher] wrote:
// the names of a "|" list, or the globs of an anchored "^(?:a|b)$"
// expression.
func matcherTools(m string) []string {
	var out []string
	if inner, ok := strings.CutPrefix(m, "^(?:"); ok && strings.HasSuffix(inner, ")$") {
		for _, alt := range strings.Split(strings.TrimSuffix(inner, ")$"), "|") {
			if g := regexpGlob(alt); g != "" {
				out = append(out, g)
			}
		}
		return out
	}
	for _, t := range strings.Split(m, "|") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// regexpGlob inverts [globRegexp]: ".*" is "*", "." is "?", a class is
// kept, and an escaped character is itself (escaped again when it is a
// glob character).
func regexpGlob(re string) string {
	var b strings.Builder
	for i := 0; i < len(re); i++ {
		switch c := re[i]; c {
		case '.':
			if i+1 < len(re) && re[i+1] == '*' {
				b.WriteByte('*')
				i++
			} else {
				b.WriteByte('?')
			}
		case '\\':
			if i+1 < len(re) {
				i++
				if strings.IndexByte(`*?[\`, re[i]) >= 0 {
					b.WriteByte('\\')
				}
				b.WriteByte(re[i])
			}
		case '[':
			i = copyClass(&b, re, i)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
