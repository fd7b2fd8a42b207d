package hooks

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/webpage"
)

// The hooks a [Plan] names.
const (
	// HookWebSearch is the web search hook ([HandleWebSearch]).
	HookWebSearch = "websearch"
	// HookWebFetch is the web fetch hook ([HandleWebFetch]).
	HookWebFetch = "webfetch"
	// HookToolRoutes is the web fetch hook acting on the shell tool, which
	// only tool routes answer.
	HookToolRoutes = "tool routes"
)

// Outcome is what a [Plan] decided to do with a call.
type Outcome string

// The outcomes of a [Plan].
const (
	// OutcomePass: step aside; the runtime's own tool runs (or, after it
	// ran, its result stands).
	OutcomePass Outcome = "pass"
	// OutcomeDenyRoute: a tool route denies the call with its message.
	OutcomeDenyRoute Outcome = "deny (route)"
	// OutcomeDenyDocs: a docs route denies the search and names the local
	// documentation index to search first.
	OutcomeDenyDocs Outcome = "deny (docs)"
	// OutcomeSearchResults: the native search is denied with the
	// providers' results as the tool result.
	OutcomeSearchResults Outcome = "answer (search results)"
	// OutcomeExtractedPage: the native fetch is denied with the page's
	// extracted content as the tool result.
	OutcomeExtractedPage Outcome = "answer (extracted page)"
	// OutcomeAddContext: results or the page are added next to the tool's
	// own output or error.
	OutcomeAddContext Outcome = "add context"
	// OutcomeSessionIndex: the session starts with an index of the routes.
	OutcomeSessionIndex Outcome = "session index"
	// OutcomeDependsOnPage: the page was not read ([PageSource] asked for
	// no read), and what the hook does depends on it; Why says how.
	OutcomeDependsOnPage Outcome = "depends on the page"
	// OutcomeKeptAnswer: the answer prepared on PreToolUse replaces the
	// native tool's output (or follows its error) under [AnswerReplace].
	OutcomeKeptAnswer Outcome = "answer (kept from PreToolUse)"
)

// Action returns the [Action] of the [Decision] the outcome leads to when
// it is carried out: [Deny] for the denials and answers, [AddContext] for
// added context and the session index (an MCP tool's output may be
// replaced instead, [ReplaceMCPOutput]), [ReplaceToolOutput] for a kept
// answer (added context after a failed tool), and [Pass] otherwise. A handler
// that cannot carry a plan out (a provider failing, the budget running
// out) passes.
func (o Outcome) Action() Action {
	switch o {
	case OutcomeDenyRoute, OutcomeDenyDocs, OutcomeSearchResults, OutcomeExtractedPage:
		return Deny
	case OutcomeAddContext, OutcomeSessionIndex:
		return AddContext
	case OutcomeKeptAnswer:
		return ReplaceToolOutput
	}
	return Pass
}

// Step is one thing a handler consulted while planning, and what it found:
// the tool routes, the docs routes, the escape hatch, the providers, the
// page and the classifier's verdict.
type Step struct {
	// Name says what was consulted: "tool routes", "docs routes", "escape
	// hatch", "providers", "page", "classifier".
	Name string `json:"name"`
	// Result says what it found, in a sentence.
	Result string `json:"result"`
}

// Plan is what a handler will do with one hook event, and why, decided
// before anything is done: [PlanWebSearch] and [PlanWebFetch] compute it,
// and [HandleWebSearch] and [HandleWebFetch] compute it and carry it out.
// Planning calls no provider and writes no state; the web fetch plan
// probes the page only when its [PageSource] asks for it.
//
// Carrying a plan out can still end differently: every provider may fail,
// the budget may run out, or a concurrent call may have used the escape
// hatch; the handler then steps aside.
type Plan struct {
	// Hook is the hook that acts on the call ([HookWebSearch],
	// [HookWebFetch], [HookToolRoutes]); empty when none does.
	Hook string `json:"hook,omitempty"`
	// Runtime, Event and Tool are the call as recognised.
	Runtime Runtime `json:"runtime"`
	Event   Event   `json:"event"`
	Tool    string  `json:"tool"`
	// Input is the value the hook looks at: the query, the URL or the
	// shell command.
	Input string `json:"input,omitempty"`
	// Steps are what the handler consulted, in order.
	Steps []Step `json:"steps,omitempty"`
	// Decision is what the handler will do, and Why says why.
	Decision Outcome `json:"decision"`
	Why      string  `json:"why"`
	// Replaces is set when the answer is to replace the native tool's
	// output under [AnswerReplace]: on PreToolUse the hook then allows the
	// call ([Allow]) rather than denying it, unless the answer cannot be
	// kept.
	Replaces bool `json:"replaces,omitempty"`
	// Providers are the providers the handler would call, in order, and
	// Mode how it combines them (a search mode, or the extraction order).
	// Empty when no provider has keys.
	Providers []string `json:"providers,omitempty"`
	Mode      string   `json:"mode,omitempty"`
	// Problems are the configuration problems that make the hook step
	// aside.
	Problems []string `json:"problems,omitempty"`
	// ToolRoute is the tool route that denies the call, if any.
	ToolRoute *routing.ToolRoute `json:"tool_route,omitempty"`
	// Docs are the docs databases the query matched.
	Docs []routing.Database `json:"docs_routes,omitempty"`
	// Page is the page reader's plan, when the page was probed or a saved
	// copy of it judged.
	Page *webpage.Plan `json:"-"`

	in *Input
	// aside marks a pass caused by a problem worth a notice to the user
	// (no keys, invalid configuration, the budget running out).
	aside bool
	// lines are the routing warnings, written whenever the routes are
	// consulted.
	lines []string
	// docs reports that docs routes matched: carrying the plan out asks
	// them again, recording the denial or releasing the retry.
	docs bool
}

// Routed reports whether a tool route or a docs route answers the call.
func (p *Plan) Routed() bool {
	return p.Decision == OutcomeDenyRoute || p.Decision == OutcomeDenyDocs
}

// newPlan starts the plan of hook for in.
func newPlan(hook string, in *Input) *Plan {
	p := &Plan{Hook: hook, in: in, Decision: OutcomePass}
	if in != nil {
		p.Runtime, p.Event, p.Tool = in.Runtime, in.Event, in.ToolName
	}
	return p
}

func (p *Plan) step(name, format string, args ...any) {
	p.Steps = append(p.Steps, Step{Name: name, Result: fmt.Sprintf(format, args...)})
}

func (p *Plan) decide(o Outcome, why string) *Plan {
	p.Decision, p.Why = o, why
	return p
}

// pass decides to step aside quietly.
func (p *Plan) pass(why string) *Plan {
	p.aside = false
	return p.decide(OutcomePass, why)
}

// stepAside decides to step aside because of a problem the user should
// hear about.
func (p *Plan) stepAside(why string) *Plan {
	p.pass(why)
	p.aside = true
	return p
}

// unhandled is the plan of a call the hook does not act on.
func (p *Plan) unhandled(name string) *Plan {
	p.Hook = ""
	if p.in == nil {
		return p.pass("there is no call")
	}
	switch p.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure:
		return p.pass(fmt.Sprintf("the %s hook does not act on the tool %s for %s", name, p.Tool, p.Event))
	}
	return p.pass(fmt.Sprintf("the %s hook does not act on the %s event", name, p.Event))
}

// invalid makes p step aside when the configuration has problems, and
// reports whether it did.
func (p *Plan) invalid(problems []string) bool {
	if len(problems) == 0 {
		return false
	}
	p.Problems = problems
	p.step("providers", "none called (invalid configuration)")
	p.stepAside("invalid configuration: " + strings.Join(problems, "; "))
	return true
}

// debugTrace starts the debug trace of carrying out p: the settings' own
// lines, the call ("PreToolUse WebFetch from claude", then detail), and
// the plan. It is nil when debug is off.
func (p *Plan) debugTrace(s Settings, detail string) []string {
	if !s.Debug {
		return nil
	}
	in := p.in
	return slices.Concat(s.Trace, []string{fmt.Sprintf("%s %s from %s%s", in.Event, in.ToolName, in.Runtime, detail)}, p.traceLines())
}

// finishAnswer finishes the decision d of a web fetch or web search plan:
// lines go before its diagnostics, the secrets are redacted, and on
// PreToolUse, when the runtime's output is replaced, the answer is kept
// for the call's PostToolUse (the record k, read after the answer was
// made).
func (p *Plan) finishAnswer(ctx context.Context, s Settings, a Answers, d Decision, lines []string, k func() kept) Decision {
	d.Diagnostics = append(lines, d.Diagnostics...)
	d = redactDecision(d, s.Secrets)
	if p.Event == PreToolUse && replacing(p.in, s, a) {
		d = keepAnswer(ctx, p.in, s, a, d, k())
	}
	return d
}

// traceLines renders the plan for the debug trace.
func (p *Plan) traceLines() []string {
	out := make([]string, 0, len(p.Steps)+1)
	for _, s := range p.Steps {
		out = append(out, "plan: "+s.Name+": "+s.Result)
	}
	return append(out, "plan: "+string(p.Decision)+": "+p.Why)
}

// PageSource says how [PlanWebFetch] learns about the page. The zero value
// reads nothing: the plan then says what the decision depends on
// ([OutcomeDependsOnPage]).
type PageSource struct {
	// Probe reads the page with the reader's probe, within the hook's
	// budget, as [HandleWebFetch] does.
	Probe bool
	// Saved, when not nil, is a copy of the page (a saved HTML file),
	// judged as though the probe got it with HTTP 200
	// ([webpage.Reader.PlanBody]). MediaType is its media type; empty
	// means sniffed from the content.
	Saved     []byte
	MediaType string
}

// ProbePage is the [PageSource] of the handler: the page is probed.
var ProbePage = PageSource{Probe: true}

func (s PageSource) reads() bool { return s.Probe || s.Saved != nil }
