package hooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage"
)

// WebFetchEnv is what [HandleWebFetch] works with. The zero value is
// valid: with no Reader, or a Reader without an Extractor, PreToolUse
// passes through.
type WebFetchEnv struct {
	// Reader reads pages: its probe, its classifier and its Extractor,
	// usually a policy over every extraction provider that has keys
	// (assemble.Stack's Reader). Nil means the probe's defaults and no
	// extraction provider.
	Reader *webpage.Reader
	// Providers name the providers of Reader's Extractor, in order, and
	// Mode how they are tried, for plans; empty means the Extractor's own
	// name.
	Providers []string
	Mode      string
	// Settings are the hook settings.
	Settings Settings
	// Problems are configuration problems found while loading the
	// settings; when there are any the hook passes through and reports
	// them.
	Problems []string
	// DebugLines, when set, returns lines gathered while the hook ran
	// (a policy observer's traces); in debug mode they join the trace.
	DebugLines func() []string
	// Routes are applied before the probe: Routes.Tools sends matching
	// WebFetch URLs and Bash commands to a better tool.
	Routes Routes
	// Answers carries answers from PreToolUse to PostToolUse under
	// [AnswerReplace]; nil means the hook denies.
	Answers Answers
}

// reader returns the environment's page reader.
func (e *WebFetchEnv) reader() *webpage.Reader {
	if e.Reader != nil {
		return e.Reader
	}
	return &webpage.Reader{}
}

// extracts reports whether the environment has an extraction provider.
func (e *WebFetchEnv) extracts() bool { return e.Reader != nil && e.Reader.Extractor != nil }

// reads reports whether the environment can read a page the native tool
// cannot: with an extraction provider, or with a local browser and a
// reading order that uses it. Without either the hook steps aside before
// probing.
func (e *WebFetchEnv) reads() bool {
	if e.extracts() {
		return true
	}
	return e.Reader != nil && e.Reader.Renderer != nil && e.Reader.Order != webpage.ProvidersOnly
}

// WantsWebFetch reports whether [HandleWebFetch] acts on in with these tool
// names: PreToolUse on a web fetch tool, or PostToolUseFailure on one (not
// from Copilot CLI, which cannot take the answer).
func WantsWebFetch(in *Input, tools ToolNames) bool {
	if in == nil {
		return false
	}
	switch in.Event {
	case PreToolUse:
		return matchName(tools.withDefaults().WebFetch, in.ToolName)
	case PostToolUseFailure:
		return in.Runtime != CopilotCLI && matchName(tools.withDefaults().WebFetch, in.ToolName)
	}
	return false
}

// WantsShell reports whether in is a PreToolUse on the shell tool
// ([IsShellTool]), which [HandleWebFetch] answers with tool routes only.
func WantsShell(in *Input) bool {
	return in != nil && in.Event == PreToolUse && IsShellTool(in.ToolName)
}

// HandleWebFetch answers PreToolUse on a web fetch tool and on the shell
// tool, and PostToolUseFailure on a web fetch tool: it plans
// ([PlanWebFetch], probing the page), then carries the plan out, all
// within the hook's budget.
//
// On PreToolUse the tool routes (env.Routes.Tools) come first, with the
// fetch URL or the shell command: the first matching route denies the call
// with its message (plus the route name, matched value and pattern in
// debug mode). The shell tool gets nothing else. For a web fetch tool the
// page reader ([webpage.Reader.Plan]) then probes and classifies the page;
// readable pages and other documents pass through to the native tool.
// Template-heavy and browser-render-required pages, and pages the probe
// could not read (a timeout, a TLS failure, a refusing status such as
// 403), are read by the reader's extraction provider
// ([webpage.Reader.Extract]) and the native call is denied with the
// extracted content as the reason. With no extraction provider, a refused
// destination address, a failed extraction, or the budget running out, it
// passes through.
//
// In a Claude Code session, a page one of the user's deny rules forbids
// fetching ([DenyRule]) is not read: the hook passes, on PreToolUse and
// PostToolUseFailure alike, and Claude Code refuses the call by the rule.
//
// PostToolUseFailure (the native tool failed, for example its
// domain-safety preflight or a TLS error) is answered with the page read by
// the page reader ([webpage.Reader.Execute]) as additional context,
// followed by the original error; tool routes do not apply to it.
func HandleWebFetch(ctx context.Context, in *Input, env *WebFetchEnv) Decision {
	if env == nil {
		env = &WebFetchEnv{}
	}
	budget := env.Settings.budget(gate.DefaultFetchBudget)
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	return executeWebFetch(ctx, PlanWebFetch(ctx, in, env, ProbePage), env)
}

// PlanWebFetch decides what [HandleWebFetch] will do with in, without
// doing it: the tool routes, the providers, and, as page says, the page
// reader's verdict on the page. It calls no provider; with
// [PageSource.Probe] it probes the page within the hook's budget, as the
// handler does.
func PlanWebFetch(ctx context.Context, in *Input, env *WebFetchEnv, page PageSource) *Plan {
	if env == nil {
		env = &WebFetchEnv{}
	}
	p := newPlan(HookWebFetch, in)
	if in != nil && in.Event == PostToolUse && WantsAnswer(in, env.Settings, true) && env.Answers != nil {
		p.Input = in.FetchArgs().URL
		return p.decide(OutcomeKeptAnswer, fmt.Sprintf("the answer prepared on PreToolUse, if any, replaces the native %s's output", p.Tool))
	}
	shell := WantsShell(in)
	if !shell && !WantsWebFetch(in, env.Settings.Tools) {
		return p.unhandled("web fetch")
	}
	if in.Event == PostToolUseFailure {
		return p.planFetchFailure(ctx, env, page)
	}
	p.lines = env.Routes.warningLines()
	if shell {
		p.Hook, p.Input = HookToolRoutes, in.Command()
		if p.planToolRoutes(env.Routes, true, p.Input) {
			return p
		}
		return p.pass("no Bash tool route matches the command")
	}
	args := in.FetchArgs()
	p.Input = args.URL
	if p.planToolRoutes(env.Routes, false, args.URL) {
		p.step("providers", "none called (a route answers)")
		return p
	}
	if p.invalid(env.Problems) {
		return p
	}
	if args.URL == "" {
		return p.pass("the fetch call has no URL")
	}
	if p.userDenies(env.Settings, args.URL) {
		return p
	}
	if !env.reads() {
		p.step("providers", "none: no extraction provider has an API key, and no local browser")
		return p.pass("no extraction provider has an API key")
	}
	if _, err := webpage.CheckURL(args.URL); err != nil {
		return p.pass(err.Error())
	}
	via := p.planExtraction(env)
	if !page.reads() {
		p.step("page", "not read")
		return p.decide(OutcomeDependsOnPage, "a fetch-readable or non-HTML page passes through to the native tool; a template-heavy or browser-render-required page, or one that refuses the probe, is answered with its content read by "+via)
	}
	// The probe gets at most 40% of the budget so extraction has time left.
	pp, done := p.readPage(ctx, env, page, args.URL, 0.4)
	if done {
		return p
	}
	switch {
	case pp.Action == webpage.ActionLocal && pp.HTML():
		return p.pass("the page is " + pageClass(pp) + ": the native tool reads it")
	case pp.Action == webpage.ActionLocal, pp.ProbeFailure == "" && pp.Status >= 200 && pp.Status < 300 && !pp.HTML():
		return p.pass("the page is not HTML (" + pp.ContentType + "): the native tool reads it")
	}
	return p.decide(OutcomeExtractedPage, "the page "+pageWhy(pp)+": answered with its content read by "+via+p.replaceNote(env.Settings, env.Answers, args.URL))
}

// FetchDenied returns the user's Claude Code deny rule that forbids
// fetching the page of in ([DenyRule]), when in is a Claude Code
// PreToolUse or PostToolUseFailure of a web fetch tool (s.Tools) and one
// does: [HandleWebFetch] does not read such a page, and a hook that
// forwards its calls to a team gateway, which cannot read the user's
// settings, does not forward it.
func FetchDenied(in *Input, s Settings) (PermissionRule, bool) {
	if in == nil || in.Runtime != ClaudeCode || !WantsWebFetch(in, s.Tools) {
		return PermissionRule{}, false
	}
	url := in.FetchArgs().URL
	if url == "" {
		return PermissionRule{}, false
	}
	return DenyRule(ClaudeSettingsFiles(claudeConfigDir(in, s), claudeProjectDir(in, s)), in.ToolName, url)
}

// userDenies reports whether one of the user's Claude Code deny rules
// forbids fetching url in a Claude Code session ([DenyRule]), and then
// decides to pass: webgate does not read a page the user forbade the
// agent to fetch, and Claude Code refuses the native call by the same
// rule.
func (p *Plan) userDenies(s Settings, url string) bool {
	in := p.in
	if in == nil || in.Runtime != ClaudeCode {
		return false
	}
	r, ok := DenyRule(ClaudeSettingsFiles(claudeConfigDir(in, s), claudeProjectDir(in, s)), in.ToolName, url)
	if !ok {
		return false
	}
	p.step("permissions", "%s", r)
	p.pass(fmt.Sprintf("%s forbids fetching this page: webgate does not read it either, and Claude Code refuses the native %s by that rule", r, in.ToolName))
	return true
}

// planExtraction records the reading path of pages the native tool cannot
// read in p — the local tiers in the reader's order, and the extraction
// providers — and returns it as text.
func (p *Plan) planExtraction(env *WebFetchEnv) string {
	var via string
	if env.extracts() {
		p.Providers, p.Mode = env.Providers, env.Mode
		if len(p.Providers) == 0 {
			p.Providers = []string{provider.NameOr("", env.Reader.Extractor, "search")}
		}
		via = strings.Join(p.Providers, ", ")
		if p.Mode != "" {
			p.step("providers", "%s (%s)", via, p.Mode)
		} else {
			p.step("providers", "%s", via)
		}
	} else {
		p.step("providers", "none has an API key")
	}
	local := "the page's structure, the data it embeds"
	if env.Reader.Renderer != nil {
		local += ", a local browser"
	}
	switch env.Reader.Order {
	case webpage.ProvidersOnly:
		p.step("reading", "providers only (fetch.order)")
		return "extraction via " + via
	case webpage.ProvidersFirst:
		p.step("reading", "the providers, then %s", local)
	case webpage.LocalOnly:
		p.step("reading", "%s; no provider (fetch.order)", local)
		return "webgate locally"
	default:
		p.step("reading", "%s, then the providers", local)
	}
	if via == "" {
		return "webgate locally"
	}
	return "webgate locally or via " + via
}

// pageClass is the classifier's class of an HTML page.
func pageClass(pp *webpage.Plan) string {
	if pp.Verdict == nil {
		return "HTML"
	}
	return string(pp.Verdict.Class)
}

// pageWhy says why a page needs more than the probe: its class when the
// classifier says so, else the reader's reason.
func pageWhy(pp *webpage.Plan) string {
	if pp.Verdict != nil && pp.Verdict.Class != classify.FetchReadable {
		return "is " + string(pp.Verdict.Class)
	}
	return pp.Why
}

// readPage plans the reading of rawURL as source says, within the hook's
// budget; a probe gets at most share of the time left. done reports that
// the plan is decided without the page (a refused address, an error
// status, the budget running out).
func (p *Plan) readPage(ctx context.Context, env *WebFetchEnv, source PageSource, rawURL string, share float64) (pp *webpage.Plan, done bool) {
	r := *env.reader()
	if source.Saved != nil {
		pp = r.PlanBody(rawURL, source.MediaType, source.Saved)
		p.Page = pp
		p.step("page", "a saved copy (%s, %d bytes)", pp.ContentType, len(source.Saved))
		p.planVerdict(pp)
		return pp, false
	}
	budget := env.Settings.budget(gate.DefaultFetchBudget)
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	r.Probe = r.Probe.WithDefaults()
	if dl, ok := ctx.Deadline(); ok {
		if limit := time.Duration(float64(time.Until(dl)) * share); r.Probe.Timeout > limit {
			r.Probe.Timeout = limit
		}
	}
	pp, finished, err := bounded(ctx, func(ctx context.Context) (*webpage.Plan, error) { return r.Plan(ctx, rawURL) })
	var we *webpage.Error
	errors.As(err, &we)
	switch {
	case !finished, we != nil && we.Kind == webpage.KindCanceled:
		p.step("page", "not read in time")
		p.stepAside(fmt.Sprintf("the page probe did not finish within the %v budget", budget))
	case we != nil && we.Kind == webpage.KindBlocked:
		p.step("page", "refused: %v", we.Err)
		why := "not probing " + textfmt.Shorten(sanitize.Line(rawURL), 60) + ": " + we.Err.Error()
		if PrivateOnly(rawURL) {
			// The user hears how to allow it, not only stderr; the
			// reason is cut so that the hint fits the message.
			p.stepAside("not probing " + textfmt.Shorten(sanitize.Line(rawURL), 60) + ": " + textfmt.Shorten(we.Err.Error(), 90) + "; " + AllowPrivateHint)
		} else {
			p.pass(why)
		}
	case we != nil && we.Kind == webpage.KindHTTPStatus:
		p.step("page", "probed: HTTP %d", we.Status)
		p.pass(fmt.Sprintf("the page answered HTTP %d", we.Status))
	case we != nil && we.Kind == webpage.KindBadURL:
		p.pass(we.Err.Error())
	case err != nil:
		p.pass(err.Error())
	default:
		p.planProbed(pp)
		return pp, false
	}
	return nil, true
}

// planProbed records what the probe got and the classifier's verdict.
func (p *Plan) planProbed(pp *webpage.Plan) {
	p.Page = pp
	elapsed := pp.ProbeElapsed.Round(time.Millisecond)
	switch {
	case pp.ProbeFailure != "":
		p.step("page", "could not be read directly (%s) after %v: %v", pp.ProbeFailure, elapsed, pp.ProbeErr)
	case pp.Truncated:
		p.step("page", "probed: HTTP %d %s in %v, truncated", pp.Status, pp.ContentType, elapsed)
	default:
		p.step("page", "probed: HTTP %d %s in %v", pp.Status, pp.ContentType, elapsed)
	}
	p.planVerdict(pp)
}

// planVerdict records the classifier's verdict on the page, with its
// first signals.
func (p *Plan) planVerdict(pp *webpage.Plan) {
	if pp.Verdict == nil {
		return
	}
	var sig []string
	for i, s := range pp.Verdict.Signals {
		if i == 4 {
			break
		}
		sig = append(sig, s.String())
	}
	p.step("classifier", "%s; signals: %s", pp.Verdict, strings.Join(sig, "; "))
}

// executeWebFetch carries out p.
func executeWebFetch(ctx context.Context, p *Plan, env *WebFetchEnv) Decision {
	s := env.Settings
	switch {
	case p.Hook == "":
		return Decision{}
	case p.Decision == OutcomeKeptAnswer:
		return answerKept(ctx, p.in, s, env.Answers, true)
	case p.Event == PostToolUseFailure:
		if replacing(p.in, s, env.Answers) {
			if d := answerKept(ctx, p.in, s, env.Answers, true); d.Action != Pass {
				return d
			}
		}
		return redactDecision(addPage(ctx, p, env), s.Secrets)
	case p.Decision == OutcomeDenyRoute:
		d := denyByRoute(p, s)
		d.Diagnostics = slices.Concat(p.lines, routeTrace(p.in, s), d.Diagnostics)
		return redactDecision(d, s.Secrets)
	case p.Hook == HookToolRoutes:
		return passWith(p.lines...)
	}
	start := time.Now()
	d := answerWithPage(ctx, p, env)
	return p.finishAnswer(ctx, s, env.Answers, d, p.lines, func() kept {
		return kept{Tool: p.in.ToolName, URL: p.in.FetchArgs().URL, Took: time.Since(start)}
	})
}

// answerWithPage carries out the page's part of a PreToolUse plan:
// extraction, then the denial with the content as the reason.
func answerWithPage(ctx context.Context, p *Plan, env *WebFetchEnv) Decision {
	s := env.Settings
	in := p.in
	trace := p.debugTrace(s, "")
	pass := func(why string) Decision { return passWith(append(trace, why+"; passing through")...) }
	stepAside := func(problem string) Decision {
		d := pass(problem)
		if s.SystemMessage {
			d.SystemMessage = stepAsideMessage(in, problem)
		}
		return d
	}
	if p.Decision != OutcomeExtractedPage {
		if p.aside {
			return stepAside(p.Why)
		}
		return pass(p.Why)
	}
	args := in.FetchArgs()
	pp := p.Page
	start := time.Now()
	// NoFallback: a page no tier could read is left to the native tool.
	res, failed, problem := readForAnswer(ctx, p, env, webpage.Request{URL: args.URL, Prompt: args.Prompt, NoFallback: true}, &trace)
	switch {
	case failed != nil && failed.Kind == webpage.KindExtraction:
		return stepAside("extraction failed: " + failureSummary(failed.Failures))
	case failed != nil:
		return stepAside("the page " + failed.Why + ", and no local tier could read it")
	case problem != "":
		return stepAside(problem)
	}
	path, why := readPath(pp, res), pp.Why
	took := time.Since(start).Round(time.Millisecond)
	footer := ""
	if s.Debug {
		trace = append(trace, fmt.Sprintf("%s: %d chars in %v", path, len(res.Content), took))
		footer = fmt.Sprintf("[webgate debug: page %s; %s in %v]", why, path, took)
	}
	page := &provider.Page{URL: res.FinalURL, Title: res.Title, Content: res.Content}
	how := "read by webgate (" + path + ")"
	if res.Source == webpage.SourceProvider {
		how = "extracted by webgate via " + res.Provider + textfmt.CachedAgo(res.Cached, time.Now())
	}
	intro := fmt.Sprintf("Content of %s, %s because the page %s. This is not the native %s tool: no summary was made; use the content below to answer the request.", oneLine(pageURL(args, page)), how, why, oneLine(in.ToolName))
	intro += "\n" + sanitize.UntrustedNotice
	if res.Note != "" {
		intro += "\n" + oneLine(res.Note)
	}
	d := Decision{Action: Deny, Reason: renderPage(args, page, res.Metadata.About(), intro, footer, s.maxChars()), Diagnostics: trace}
	if s.SystemMessage {
		d.SystemMessage = textfmt.Shorten(fmt.Sprintf("webgate: %s answered with the page's content, %s (the page %s)", in.ToolName, path, why), 300)
	}
	return d
}

// pageURL is the URL to show for page: its own when it is a web link, else
// the one asked for, shortened.
func pageURL(args FetchArgs, page *provider.Page) string {
	u := page.URL
	if !linkURL(u) {
		u = args.URL
	}
	return textfmt.Shorten(u, 1000)
}

// renderPage renders page content for the model: intro, a header with the
// title and URL, the content as Markdown fitted to the request, and a
// truncation notice when it had to be cut, all within max. The title, URL
// and content get the terminal rule before they are measured and cut.
func renderPage(args FetchArgs, page *provider.Page, about, intro, footer string, max int) string {
	u := pageURL(args, page)
	var h strings.Builder
	h.WriteString(intro)
	h.WriteString("\n")
	if t := textfmt.Shorten(page.Title, 200); t != "" {
		fmt.Fprintf(&h, "Title: %s\n", t)
	}
	fmt.Fprintf(&h, "URL: %s\n", oneLine(u))
	if about = oneLine(sanitize.Line(about)); about != "" {
		fmt.Fprintf(&h, "About: %s\n", about)
	}
	if args.Prompt != "" {
		fmt.Fprintf(&h, "Request: %s\n", textfmt.Shorten(args.Prompt, 400))
	}
	h.WriteString("\n")
	header := h.String()

	tail := ""
	if footer != "" {
		tail = "\n\n" + footer
	}
	const noticeReserve = 200
	room := max - textLen(header) - textLen(tail) - noticeReserve
	if room < 200 {
		room = 200
	}
	content := sanitize.Text(page.Content)
	fit := webpage.FitContent(content, args.Prompt, room)
	var b strings.Builder
	b.WriteString(header)
	b.WriteString(fit.Text)
	if fit.Cut {
		if fit.ByRelevance {
			fmt.Fprintf(&b, "\n\n[Content truncated to fit the size limit: kept the parts most relevant to the request in page order; %d of %d sections omitted, marked %s.]", fit.Omitted, fit.Total, webpage.OmissionMark)
		} else {
			fmt.Fprintf(&b, "\n\n[Content truncated to fit the size limit: only the beginning of the page is shown (%d of %d characters).]", textLen(fit.Text), textLen(strings.TrimSpace(content)))
		}
	}
	b.WriteString(tail)
	return cutText(b.String(), max)
}
