package hooks

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/routing"
)

// NoSessionID is the session id used for the docs routes' escape hatch
// when a payload carries none (neither "session_id" nor "sessionId"). All
// such calls share one memory: an identical retry from any of them within
// the escape window goes through.
const NoSessionID = "no-session"

// Routes are the routing rules a hook applies before any provider is
// called; they need no provider keys. The zero value routes nothing.
type Routes struct {
	// Docs sends web searches about documented topics to local
	// documentation indexes (web search hook, PreToolUse).
	Docs *routing.DocsRouter
	// Tools sends WebFetch URLs and Bash commands to better tools (web
	// fetch hook, PreToolUse).
	Tools *routing.ToolRouter
	// State remembers docs-route denials per session, so that an
	// identical retry within the escape window goes through: files in a
	// directory ([routing.StateStore]) or webgate's store (package
	// memory). Without it docs routes never deny.
	State routing.State
	// Warnings describe routing configuration that could not be used (an
	// unreadable file, a dropped entry); they are written to stderr
	// whenever the routes are consulted.
	Warnings []string
}

// IsShellTool reports whether name is the agent's shell tool: "Bash" in
// Claude Code, "bash" in Copilot CLI (compared case-insensitively). Only
// tool routes act on it.
func IsShellTool(name string) bool { return strings.EqualFold(name, routing.ToolBash) }

// warningLines renders the routing warnings for stderr.
func (r Routes) warningLines() []string {
	out := make([]string, 0, len(r.Warnings))
	for _, w := range r.Warnings {
		out = append(out, "routing: warning: "+w)
	}
	return out
}

// routeTrace is the start of the debug trace of a routed call: the
// configuration sources and the event.
func routeTrace(in *Input, s Settings) []string {
	if !s.Debug {
		return nil
	}
	return append(slices.Clone(s.Trace), fmt.Sprintf("%s %s from %s", in.Event, in.ToolName, in.Runtime))
}

// planToolRoutes consults the tool routes for a PreToolUse on a web fetch
// tool (its URL, value) or the shell tool (its command), and decides a
// denial when one matches; it reports whether one did.
func (p *Plan) planToolRoutes(r Routes, shell bool, value string) bool {
	tool := routing.ToolWebFetch
	if shell {
		tool = routing.ToolBash
	}
	rt, ok := r.Tools.Match(tool, value)
	if !ok {
		p.step("tool routes", "none of %d %s route(s) matched", r.Tools.Count(tool), tool)
		return false
	}
	p.ToolRoute = &rt
	p.step("tool routes", "matched %s (%s /%s/): %s", rt.Name, rt.Tool, rt.Pattern, oneLine(rt.Message))
	p.decide(OutcomeDenyRoute, "tool route "+rt.Name+": "+oneLine(rt.Message))
	return true
}

// denyByRoute carries out [OutcomeDenyRoute]: the route's message is the
// reason (with the route name, matched value and pattern in debug mode).
func denyByRoute(p *Plan, s Settings) Decision {
	rt := *p.ToolRoute
	d := Decision{Action: Deny, Reason: cutText(rt.Reason(p.Input, s.Debug), s.maxChars())}
	if s.Debug {
		d.Diagnostics = append(d.Diagnostics, fmt.Sprintf("tool route %s matched %s %s; denying", rt.Name, p.Tool, textfmt.Shorten(p.Input, 200)))
	}
	if s.SystemMessage {
		d.SystemMessage = textfmt.Shorten(fmt.Sprintf("webgate: %s sent elsewhere by tool route %s", p.Tool, rt.Name), 300)
	}
	return d
}

// planDocs consults the docs routes for a PreToolUse on a web search
// tool, reading the escape hatch's state without changing it, and decides
// a denial when the query matched a database and the call would not be
// released; it reports whether it did.
func (p *Plan) planDocs(in *Input, r Routes) bool {
	args := in.SearchArgs()
	p.Docs = r.Docs.Match(args.Query)
	if len(p.Docs) == 0 {
		p.step("docs routes", "none of %d database(s) matched", len(r.Docs.Databases()))
		return false
	}
	p.docs = true
	for _, d := range p.Docs {
		p.step("docs routes", "matched %s: MCP tool %s, path %s", oneLine(d.Description), d.MCPToolName, d.Path)
	}
	session := sessionOf(in)
	if r.State == nil {
		p.step("escape hatch", "no routing state: the denial could not be recorded, so the hook does not deny")
		return false
	}
	call := routing.Call{Query: args.Query, AllowedDomains: args.AllowedDomains, BlockedDomains: args.BlockedDomains}
	released, err := r.State.Remembered(session, call)
	switch {
	case err != nil:
		p.step("escape hatch", "cannot read the routing state (%v); the hook denies only if it can record the denial", err)
		return false
	case released:
		p.step("escape hatch", "an identical call was denied in session %q within the last %v: this retry would be released and go on to the providers", session, r.State.Window())
		return false
	}
	p.step("escape hatch", "not released: the denial would be remembered in %s, and an identical retry within %v goes through", r.State.Describe(), r.State.Window())
	names := make([]string, len(p.Docs))
	for i, d := range p.Docs {
		names[i] = d.MCPToolName + " " + d.Path
	}
	p.decide(OutcomeDenyDocs, "docs route: search the local documentation first ("+strings.Join(names, "; ")+")")
	return true
}

// sessionOf is the session whose escape hatch applies to in.
func sessionOf(in *Input) string {
	if in.SessionID == "" {
		return NoSessionID
	}
	return in.SessionID
}

// routeDocs carries out the docs routes' step of a PreToolUse on a web
// search tool, recording the denial or releasing the retry: it returns the
// denial with the MCP instructions as additional context
// and true when the query matched a database and the denial was recorded;
// otherwise false and the lines to log (a released retry in debug mode, a
// state that could not be written).
func routeDocs(in *Input, r Routes, s Settings) (Decision, bool, []string) {
	if in.Event != PreToolUse || r.Docs == nil {
		return Decision{}, false, nil
	}
	args := in.SearchArgs()
	session := sessionOf(in)
	call := routing.Call{Query: args.Query, AllowedDomains: args.AllowedDomains, BlockedDomains: args.BlockedDomains}
	den, matched, deny, err := r.Docs.Route(r.State, session, call)
	if len(matched) == 0 {
		return Decision{}, false, nil
	}
	paths := make([]string, len(matched))
	for i, m := range matched {
		paths[i] = m.Path
	}
	if err != nil {
		return Decision{}, false, []string{fmt.Sprintf("routing: warning: docs route matched %s but its denial could not be recorded (%v); not denying", strings.Join(paths, ", "), err)}
	}
	if !deny {
		var lines []string
		if s.Debug {
			lines = append(lines, fmt.Sprintf("docs route: identical retry in session %q released (%s); going on", session, strings.Join(paths, ", ")))
		}
		return Decision{}, false, lines
	}
	max := s.maxChars()
	d := Decision{Action: Deny, Reason: cutText(den.Reason, max), Context: cutText(den.Context, max)}
	if s.Debug {
		d.Diagnostics = append(d.Diagnostics, fmt.Sprintf("docs route: query %q matched %s; denying, an identical retry within %v goes through", args.Query, strings.Join(paths, ", "), window(r.State)))
	}
	if s.SystemMessage {
		d.SystemMessage = textfmt.Shorten(fmt.Sprintf("webgate: %s sent to %d local documentation index(es)", in.ToolName, len(matched)), 300)
	}
	return d, true, nil
}

// window is how long st remembers a denial.
func window(st routing.State) time.Duration {
	if st != nil {
		return st.Window()
	}
	return routing.DefaultEscapeWindow
}

// HandleSessionStart answers SessionStart with an index of the docs
// databases and tool routes (one line each, [routing.SessionIndex]) as
// additional context, or passes through when there are none. Copilot CLI's
// camelCase runtime takes no context and gets nothing.
func HandleSessionStart(in *Input, r Routes, s Settings) Decision {
	if in == nil || in.Event != SessionStart {
		return Decision{}
	}
	index := routing.SessionIndex(r.Docs, r.Tools)
	if index == "" {
		return passWith(r.warningLines()...)
	}
	return redactDecision(Decision{Action: AddContext, Context: cutText(index, s.maxChars()), Diagnostics: r.warningLines()}, s.Secrets)
}
