package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
)

// WebSearchEnv is what [HandleWebSearch] works with. The zero value is
// valid: with no Searcher every event passes through.
type WebSearchEnv struct {
	// Searcher runs the search, usually a policy over every provider that
	// has keys. Nil means no search provider has keys.
	Searcher provider.Searcher
	// Providers name the providers Searcher combines, in order, and Mode
	// how (the search mode), for plans; empty means Searcher's own name.
	Providers []string
	Mode      string
	// Settings are the hook settings.
	Settings Settings
	// MaxResults is how many results to ask for; zero means
	// [DefaultMaxResults].
	MaxResults int
	// Problems are configuration problems found while loading the
	// settings; when there are any the hook passes through and reports
	// them.
	Problems []string
	// Now returns the current time, for latencies; nil means time.Now.
	Now func() time.Time
	// DebugLines, when set, returns lines gathered while the hook ran
	// (a policy observer's traces); in debug mode they join the trace.
	DebugLines func() []string
	// Routes are applied before any provider: a query matching a docs
	// database is denied with instructions to search the local index
	// first.
	Routes Routes
	// SessionStart makes the hook answer SessionStart with an index of
	// the routes ([HandleSessionStart]).
	SessionStart bool
	// Answers carries answers from PreToolUse to PostToolUse under
	// [AnswerReplace]; nil means the hook denies.
	Answers Answers
}

func (e *WebSearchEnv) now() time.Time { return defaults.Now(e.Now) }

// WantsWebSearch reports whether [HandleWebSearch] acts on in with these
// tool names: PreToolUse on a web search tool, or PostToolUse /
// PostToolUseFailure on an MCP search tool (not from Copilot CLI, which
// cannot take either answer). Mains use it to skip building providers for
// events the hook ignores.
func WantsWebSearch(in *Input, tools ToolNames) bool {
	if in == nil {
		return false
	}
	tools = tools.withDefaults()
	switch in.Event {
	case PreToolUse:
		return matchName(tools.WebSearch, in.ToolName)
	case PostToolUse, PostToolUseFailure:
		return in.Runtime != CopilotCLI && matchName(tools.MCPSearch, in.ToolName)
	}
	return false
}

// HandleWebSearch answers the web search hook's events: it plans
// ([PlanWebSearch]), then carries the plan out.
//
//   - PreToolUse on a web search tool: search with env.Searcher and deny the
//     native call with the results as the reason (which the model receives
//     as the tool result);
//   - PostToolUse on an MCP search tool: keep the tool's output and append
//     a labelled companion result block (updatedMCPToolOutput);
//   - PostToolUseFailure on an MCP search tool: add the provider-backed
//     results, then the original error, as additional context.
//
// Before any provider is called, env.Routes.Docs is consulted on
// PreToolUse: a query naming a documented topic is denied with a short
// reason and the MCP instructions as additional context, and the denial is
// remembered in env.Routes.State for the session (see [NoSessionID]) so
// that an identical retry within the escape window goes on to the
// providers (or the native tool). When the denial cannot be recorded the
// hook does not deny. With env.SessionStart, SessionStart is answered by
// [HandleSessionStart].
//
// PreToolUse on an MCP search tool and every other tool or event pass
// through silently. With no Searcher, configuration problems, every
// provider failing, or the budget running out, it passes through with the
// reason in Diagnostics and, when configured, a SystemMessage.
func HandleWebSearch(ctx context.Context, in *Input, env *WebSearchEnv) Decision {
	if env == nil {
		env = &WebSearchEnv{}
	}
	return executeWebSearch(ctx, PlanWebSearch(ctx, in, env), env)
}

// PlanWebSearch decides what [HandleWebSearch] will do with in, without
// doing it: the docs routes and the escape hatch (whose state it reads but
// never writes), the providers and the answer. It calls no provider.
func PlanWebSearch(_ context.Context, in *Input, env *WebSearchEnv) *Plan {
	if env == nil {
		env = &WebSearchEnv{}
	}
	p := newPlan(HookWebSearch, in)
	if in != nil && in.Event == SessionStart {
		if !env.SessionStart {
			return p.unhandled("web search")
		}
		dbs, routes := len(env.Routes.Docs.Databases()), len(env.Routes.Tools.Routes())
		p.step("routes", "%d docs database(s), %d tool route(s)", dbs, routes)
		if dbs+routes == 0 {
			return p.pass("there is no route to index")
		}
		return p.decide(OutcomeSessionIndex, "the session starts with an index of the docs databases and tool routes, one line each")
	}
	if WantsAnswer(in, env.Settings, false) && env.Answers != nil {
		p.Input = in.SearchArgs().Query
		return p.decide(OutcomeKeptAnswer, fmt.Sprintf("the answer prepared on PreToolUse, if any, is given for the native %s's %s", p.Tool, p.Event))
	}
	if !WantsWebSearch(in, env.Settings.Tools) {
		return p.unhandled("web search")
	}
	args := in.SearchArgs()
	p.Input = args.Query
	p.lines = env.Routes.warningLines()
	p.step("tool routes", "not applicable (they apply to WebFetch URLs and Bash commands)")
	if in.Event != PreToolUse {
		p.step("docs routes", "not applicable (they apply to PreToolUse)")
	} else if p.planDocs(in, env.Routes) {
		p.step("providers", "none called (a route answers)")
		return p
	}
	return p.planSearch(env, args)
}

// planSearch plans the providers' part of a search.
func (p *Plan) planSearch(env *WebSearchEnv, args SearchArgs) *Plan {
	if p.invalid(env.Problems) {
		return p
	}
	if env.Searcher == nil {
		p.step("providers", "none: no search provider has an API key")
		return p.stepAside("no search provider has an API key")
	}
	p.Providers, p.Mode = env.Providers, env.Mode
	if len(p.Providers) == 0 {
		p.Providers = []string{provider.NameOr("", env.Searcher, "search")}
	}
	via := strings.Join(p.Providers, ", ")
	if p.Mode != "" {
		via += " (" + p.Mode + ")"
	}
	p.step("providers", "%s", via)
	// WebSearch's schema asks for at least two characters; count
	// characters, not bytes, so a short query in any script is treated
	// alike.
	if utf8.RuneCountInString(strings.TrimSpace(args.Query)) < 2 {
		return p.pass("the search call has no query")
	}
	switch p.Event {
	case PreToolUse:
		return p.decide(OutcomeSearchResults, fmt.Sprintf("the native %s is answered with results from %s", p.Tool, via)+p.replaceNote(env.Settings, env.Answers, ""))
	case PostToolUse:
		return p.decide(OutcomeAddContext, fmt.Sprintf("companion results from %s are added to the %s output", via, p.Tool))
	}
	return p.decide(OutcomeAddContext, fmt.Sprintf("fallback results from %s are added after the %s failure", via, p.Tool))
}

// executeWebSearch carries out p.
func executeWebSearch(ctx context.Context, p *Plan, env *WebSearchEnv) Decision {
	s := env.Settings
	switch {
	case p.Hook == "":
		return Decision{}
	case p.Event == SessionStart:
		return HandleSessionStart(p.in, env.Routes, s)
	case p.Decision == OutcomeKeptAnswer:
		return answerKept(ctx, p.in, s, env.Answers, false)
	}
	lines := p.lines
	if p.docs {
		d, ok, more := routeDocs(p.in, env.Routes, s)
		if ok {
			d.Diagnostics = slices.Concat(lines, routeTrace(p.in, s), d.Diagnostics)
			return redactDecision(d, s.Secrets)
		}
		lines = append(lines, more...)
		if p.Decision == OutcomeDenyDocs {
			// A concurrent call released it, or the denial could not be
			// recorded: the providers answer.
			p.planSearch(env, p.in.SearchArgs())
		}
	}
	start := env.now()
	d := search(ctx, p, env)
	return p.finishAnswer(ctx, s, env.Answers, d, lines, func() kept {
		return kept{Tool: p.in.ToolName, Query: p.in.SearchArgs().Query, Took: env.now().Sub(start)}
	})
}

// search carries out the providers' part of p.
func search(ctx context.Context, p *Plan, env *WebSearchEnv) Decision {
	s := env.Settings
	in := p.in
	trace := p.debugTrace(s, "")
	stepAside := func(problem string) Decision {
		d := passWith(append(trace, problem+"; passing through")...)
		// After a successful MCP call the tool's own output stands; a
		// missing companion block is not worth a notice.
		if s.SystemMessage && in.Event != PostToolUse {
			d.SystemMessage = stepAsideMessage(in, problem)
		}
		return d
	}
	if p.Decision == OutcomePass {
		if p.aside {
			return stepAside(p.Why)
		}
		return passWith(append(trace, p.Why+"; passing through")...)
	}
	args := in.SearchArgs()
	q := provider.Query{
		Text:           args.Query,
		MaxResults:     env.MaxResults,
		IncludeDomains: args.AllowedDomains,
		ExcludeDomains: args.BlockedDomains,
	}
	if q.MaxResults <= 0 {
		q.MaxResults = DefaultMaxResults
	}

	budget := s.budget(gate.DefaultSearchBudget)
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	start := env.now()
	res, finished, err := bounded(ctx, func(ctx context.Context) (*provider.Results, error) {
		return env.Searcher.Search(ctx, q)
	})
	elapsed := env.now().Sub(start)
	if s.Debug && env.DebugLines != nil {
		trace = append(trace, env.DebugLines()...)
	}
	if !finished {
		return stepAside(fmt.Sprintf("the search did not finish within the %v budget", budget))
	}
	if err == nil && res == nil {
		err = errors.New("the search returned nothing")
	}
	if err != nil {
		fails := provider.FailuresOr(err, "search")
		if s.Debug {
			trace = append(trace, failureLines(fails)...)
		}
		problem := "every search provider failed"
		if allSkipped(fails) {
			problem = "every search provider is skipped for now"
		}
		if ctx.Err() != nil {
			problem = fmt.Sprintf("the search did not finish within the %v budget", budget)
		}
		if len(fails) > 0 {
			problem += ": " + failureSummary(fails)
		} else {
			problem += ": " + oneLine(err.Error())
		}
		return stepAside(problem)
	}
	via := provider.NameOr(res.Provider, env.Searcher, "search") + textfmt.CachedAgo(res.Cached, env.now())
	if s.Debug {
		trace = append(trace, fmt.Sprintf("search via %s: %d result(s) in %v", via, len(res.Results), elapsed.Round(time.Millisecond)))
		trace = append(trace, failureLines(res.Failures)...)
	}
	var footer string
	if s.Debug {
		footer = fmt.Sprintf("[webgate debug: %s, %d result(s), %v", via, len(res.Results), elapsed.Round(time.Millisecond))
		if len(res.Failures) > 0 {
			footer += "; failed: " + failureSummary(res.Failures)
		}
		footer += "]"
	}
	max := s.maxChars()
	var d Decision
	var notice string
	switch {
	case in.Event == PreToolUse:
		header := fmt.Sprintf("Web search results for query %q, from provider-backed search via webgate (%s), not the native %s tool.", args.Query, via, in.ToolName)
		reason, shown := renderResults(header, res, footer, max)
		d = Decision{Action: Deny, Reason: reason, Diagnostics: trace}
		notice = fmt.Sprintf("webgate: %s answered with %d result(s) via %s", in.ToolName, shown, via)
	case in.Event == PostToolUse:
		var shown int
		d, shown = companion(in, args.Query, res, footer, max, trace, s.Secrets)
		notice = fmt.Sprintf("webgate: added %d companion result(s) via %s to %s", shown, via, in.ToolName)
	default:
		header := fmt.Sprintf("webgate fallback: the %s tool failed, so here are provider-backed web search results for query %q (via %s). The original error follows them.", in.ToolName, args.Query, via)
		var shown int
		body := afterError(in, max, func(room int) string {
			var text string
			text, shown = renderResults(header, res, footer, room)
			return text
		})
		d = Decision{Action: AddContext, Context: body, Diagnostics: trace}
		notice = fmt.Sprintf("webgate: %s failed; added %d fallback result(s) via %s", in.ToolName, shown, via)
	}
	if s.SystemMessage {
		d.SystemMessage = textfmt.Shorten(notice, 300)
	}
	return d
}

// failureLines renders provider failures for the debug trace.
func failureLines(fails []provider.Failure) []string {
	out := make([]string, 0, len(fails))
	for _, f := range fails {
		out = append(out, fmt.Sprintf("provider %s failed: %s (%s) after %v: %v", f.Provider, f.Kind, f.Kind.Class(), f.Elapsed.Round(time.Millisecond), f.Err))
	}
	return out
}

// companion builds the PostToolUse answer for an MCP search tool: the
// original content followed by a labelled webgate result block, which gets
// the agent rule and loses every secret here, since the block is not one of
// the texts redactDecision scrubs. It returns how many results the block
// shows.
func companion(in *Input, query string, res *provider.Results, footer string, max int, trace []string, secrets []string) (Decision, int) {
	header := fmt.Sprintf("[webgate companion results] Provider-backed web search results for query %q via webgate (%s), added after the %s tool's own results above.", query, res.Provider, in.ToolName)
	rendered, shown := renderResults(header, res, footer, max)
	text := textfmt.Scrub(sanitize.Agent(rendered), secrets...)
	block, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	content, ok := contentArray(in.ToolResponse)
	if !ok || in.Runtime == VSCode {
		// The output's shape is unknown (or the runtime cannot replace it):
		// add the companion block as context instead of guessing.
		return Decision{Action: AddContext, Context: text, Diagnostics: trace}, shown
	}
	return Decision{Action: ReplaceMCPOutput, MCPOutput: append(content, block), Diagnostics: trace}, shown
}

// contentArray returns the MCP content blocks of a PostToolUse
// tool_response: the array itself, a CallToolResult's "content", or a plain
// string turned into one text block.
func contentArray(resp json.RawMessage) ([]json.RawMessage, bool) {
	if !present(resp) {
		return nil, false
	}
	var arr []json.RawMessage
	if json.Unmarshal(resp, &arr) == nil {
		return arr, true
	}
	var obj struct {
		Content []json.RawMessage `json:"content"`
	}
	if json.Unmarshal(resp, &obj) == nil && obj.Content != nil {
		return obj.Content, true
	}
	var s string
	if json.Unmarshal(resp, &s) == nil {
		b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return []json.RawMessage{b}, true
	}
	return nil, false
}

// renderResults renders a result list under header, within max UTF-16
// code units: the untrusted-content label ([sanitize.UntrustedNotice]),
// one block per result (title, URL, snippet, each under the terminal rule;
// results without an http or https URL are left out), one line for the
// providers that failed, a note when results were left out, the citation
// reminder, then footer. It returns the text and how many results it
// shows, which is what a notice counts.
func renderResults(header string, res *provider.Results, footer string, max int) (text string, shown int) {
	var tail []string
	if len(res.Failures) > 0 {
		tail = append(tail, "Providers that failed: "+failureSummary(res.Failures)+".")
	}
	reminder := "REMINDER: cite the sources you use in your answer as Markdown links, e.g. [title](url)."
	if !slices.ContainsFunc(res.Results, func(r provider.Result) bool { return linkURL(r.URL) }) {
		reminder = "No results were found."
	}
	tail = append(tail, reminder)
	if footer != "" {
		tail = append(tail, footer)
	}
	tailText := strings.Join(tail, "\n")

	var b strings.Builder
	b.WriteString(oneLine(header))
	b.WriteString("\n")
	b.WriteString(sanitize.UntrustedNotice)
	b.WriteString("\n")
	// Reserve room for the cut notice so adding it never overflows.
	const cutReserve = 90
	room := max - textLen(b.String()) - textLen(tailText) - 2 - cutReserve
	// A result the model cannot cite as a web link (a javascript: or data:
	// URL, a URL of many kilobytes) is left out: it would only crowd out
	// the others.
	results := make([]provider.Result, 0, len(res.Results))
	for _, r := range res.Results {
		if linkURL(r.URL) {
			results = append(results, r)
		}
	}
	for i, r := range results {
		block := renderResult(i+1, r)
		if textLen(block) > room {
			break
		}
		b.WriteString(block)
		room -= textLen(block)
		shown++
	}
	if shown < len(results) {
		fmt.Fprintf(&b, "\n[Results cut to fit the size limit: %d of %d shown.]\n", shown, len(results))
	}
	b.WriteString("\n")
	b.WriteString(tailText)
	return cutText(b.String(), max), shown
}

func renderResult(n int, r provider.Result) string {
	title := textfmt.Shorten(r.Title, 160)
	if title == "" {
		title = "(untitled)"
	}
	snippet := r.Snippet
	if strings.TrimSpace(snippet) == "" {
		snippet = r.Content
	}
	snippet = textfmt.Shorten(snippet, 320)
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d. %s\n   %s\n", n, title, sanitize.URL(r.URL))
	if snippet != "" {
		fmt.Fprintf(&b, "   %s\n", snippet)
	}
	return b.String()
}

// allSkipped reports whether every failure is a provider the memory
// skipped without a request.
func allSkipped(fails []provider.Failure) bool {
	for _, f := range fails {
		if !memory.IsSkip(f.Err) {
			return false
		}
	}
	return len(fails) > 0
}

// failureSummary lists failed providers with their class, as
// [webpage.FailureSummary] does, and says more where it helps the user: a
// provider the memory skipped without a request says why and until when,
// and a request the provider refused as malformed or misconfigured (a
// SearXNG instance without its JSON format) carries the provider's
// message, and one that never reached the provider says what stopped it
// ([provider.NetworkCause]: connection refused, no such host).
func failureSummary(fails []provider.Failure) string {
	parts := make([]string, 0, len(fails))
	for _, f := range fails {
		var se *memory.SkipError
		var pe *provider.Error
		switch {
		case errors.As(f.Err, &se):
			parts = append(parts, f.Provider+" ("+oneLine(strings.TrimPrefix(se.Error(), se.Provider+" "))+")")
		case errors.As(f.Err, &pe) && pe.Kind == provider.KindBadRequest && pe.Message != "":
			parts = append(parts, f.String()+": "+textfmt.Shorten(oneLine(pe.Message), 200))
		case provider.NetworkCause(f.Err) != "":
			// What stopped the request: a refused connection, a host that
			// does not resolve.
			parts = append(parts, f.String()+": "+textfmt.Shorten(oneLine(provider.NetworkCause(f.Err)), 120))
		default:
			parts = append(parts, f.String())
		}
	}
	return strings.Join(parts, ", ")
}
