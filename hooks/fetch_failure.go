package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage"
)

// planFetchFailure plans PostToolUseFailure on a web fetch tool: the
// native tool failed (its domain-safety preflight, a TLS error, …), so the
// hook reads the page itself with the page reader and adds it as
// additional context, followed by the original error. No tool route
// applies, no provider is needed for a readable page, and every pass is
// silent: the model keeps the original error.
func (p *Plan) planFetchFailure(ctx context.Context, env *WebFetchEnv, page PageSource) *Plan {
	in := p.in
	p.step("tool routes", "not applied (the native tool already ran)")
	if p.invalid(env.Problems) {
		return p
	}
	if in.Interrupted {
		return p.pass("the call was interrupted")
	}
	args := in.FetchArgs()
	p.Input = args.URL
	if args.URL == "" {
		return p.pass("the fetch call has no URL")
	}
	if p.userDenies(env.Settings, args.URL) {
		return p
	}
	if _, err := webpage.CheckURL(args.URL); err != nil {
		return p.pass(err.Error())
	}
	extracted := "passes through (no extraction provider has an API key), unless the page's own text is long enough to add"
	share := 0.9
	if env.extracts() {
		extracted = "is added as content extracted via " + p.planExtraction(env)
		// Leave extraction time, as on PreToolUse.
		share = 0.4
	} else {
		p.step("providers", "none: no extraction provider has an API key (a readable page needs none)")
	}
	if !page.reads() {
		p.step("page", "not read")
		return p.decide(OutcomeDependsOnPage, "the native tool failed, so the hook reads the page itself and adds it after the error: a fetch-readable page is converted from its HTML (no provider needed); a template-heavy or browser-render-required page, or one that refuses the probe, "+extracted)
	}
	pp, done := p.readPage(ctx, env, page, args.URL, share)
	if done {
		return p
	}
	switch {
	case pp.Action == webpage.ActionLocal && pp.HTML():
		return p.decide(OutcomeAddContext, "the page is "+pageClass(pp)+": the native tool failed, so its HTML is converted to Markdown and added after the error")
	case pp.Action == webpage.ActionLocal:
		return p.decide(OutcomeAddContext, "the page is text ("+pp.ContentType+"): the native tool failed, so it is added as served after the error")
	}
	how := readingOrder(env.reader().Order, strings.Join(p.Providers, ", "))
	if !env.extracts() {
		how = "without a provider (no extraction provider has an API key)"
	}
	return p.decide(OutcomeAddContext, "the page "+pageWhy(pp)+": the native tool failed, so the page reader reads it "+how+" and adds it after the error, or the hook passes through when it cannot")
}

// readingOrder says how a reader with order reads a page that needs more
// than the probe.
func readingOrder(order webpage.Order, via string) string {
	switch order {
	case webpage.ProvidersFirst:
		return "with extraction via " + via + " first, then locally"
	case webpage.ProvidersOnly:
		return "with extraction via " + via
	case webpage.LocalOnly:
		return "locally only"
	}
	return "locally first (its structure, the data it embeds), then with extraction via " + via
}

// addPage carries out a PostToolUseFailure plan: the page reader reads the
// page (the page's own text is the last resort when nothing else can read
// it, [webpage.MinFallbackChars]), and the page is added before the
// original error.
func addPage(ctx context.Context, p *Plan, env *WebFetchEnv) Decision {
	s := env.Settings
	in := p.in
	trace := p.debugTrace(s, ": "+textfmt.Shorten(in.Error, 300))
	pass := func(why string) Decision {
		return passWith(append(trace, "the native "+in.ToolName+" failed; not adding the page: "+why+"; passing through")...)
	}
	if p.Decision != OutcomeAddContext {
		return pass(p.Why)
	}
	args := in.FetchArgs()
	pp := p.Page
	res, failed, problem := readForAnswer(ctx, p, env, webpage.Request{URL: args.URL, Prompt: args.Prompt}, &trace)
	switch {
	case failed != nil && failed.Kind == webpage.KindExtraction:
		return pass("the page " + failed.Why + " and extraction failed: " + failureSummary(failed.Failures))
	case failed != nil:
		return pass("the page " + failed.Why + " and no extraction provider has an API key")
	case problem != "":
		return pass(problem)
	}
	path := readPath(pp, res)
	if s.Debug {
		trace = append(trace, fmt.Sprintf("%s: %d chars", path, len(res.Content)))
	}
	footer := ""
	if s.Debug {
		footer = fmt.Sprintf("[webgate debug: the native %s failed; page %s", in.ToolName, path)
		if pp.Why != "" {
			footer += "; the page " + pp.Why
		}
		if res.Source == webpage.SourceProvider {
			footer += fmt.Sprintf(" in %v", res.ExtractElapsed.Round(time.Millisecond))
		}
		footer += "]"
	}
	max := s.maxChars()
	intro := fmt.Sprintf("webgate fallback: the native %s tool failed, so webgate read the page itself (%s). This is the page's content, not a summary: use it to answer the request. The original error follows it.", in.ToolName, path)
	intro += "\n" + sanitize.UntrustedNotice
	if res.Note != "" {
		intro += "\n" + res.Note
	}
	page := &provider.Page{URL: res.FinalURL, Title: res.Title, Content: res.Content}
	body := afterError(in, max, func(room int) string { return renderPage(args, page, res.Metadata.About(), intro, footer, room) })
	d := Decision{Action: AddContext, Context: body, Diagnostics: trace}
	if s.SystemMessage {
		d.SystemMessage = textfmt.Shorten(fmt.Sprintf("webgate: %s failed; added the page's content (%s)", in.ToolName, path), 300)
	}
	return d
}

// readPath says how the page reader got res.
func readPath(pp *webpage.Plan, res *webpage.Result) string {
	return readVia(pp, res) + textfmt.CachedAgo(res.Cached, time.Now())
}

func readVia(pp *webpage.Plan, res *webpage.Result) string {
	switch res.Source {
	case webpage.SourceProvider:
		return "extracted via " + res.Provider
	case webpage.SourceRecovered:
		return "recovered from the data the page embeds for its scripts"
	case webpage.SourceRendered:
		return "rendered in a browser"
	case webpage.SourceLocal:
		if pp.Action == webpage.ActionExtract {
			// A page the classifier doubted: the reader read its
			// structure, or its main content when it found its article.
			if res.Mode == webpage.ConvertArticle {
				return "its main content, converted from the page's HTML"
			}
			return "its structure, converted from the page's HTML"
		}
	}
	if pp.HTML() {
		return "converted from the page's HTML"
	}
	return "read as served (" + pp.ContentType + ")"
}

// readForAnswer runs the reader's tiers on the page p planned, within the
// hook's budget, with req, adding the reader's traces to *trace in debug
// mode. It returns the page read, or what stopped it: failed, for the
// reader errors each caller words itself (extraction failed, no tier or
// provider could read the page), or problem, for the rest (the budget ran
// out, another error, a page without content).
func readForAnswer(ctx context.Context, p *Plan, env *WebFetchEnv, req webpage.Request, trace *[]string) (res *webpage.Result, failed *webpage.Error, problem string) {
	s := env.Settings
	r := env.reader()
	res, finished, err := bounded(ctx, func(ctx context.Context) (*webpage.Result, error) {
		return r.Execute(ctx, p.Page, req)
	})
	if s.Debug && env.DebugLines != nil {
		*trace = append(*trace, env.DebugLines()...)
	}
	late := fmt.Sprintf("reading the page did not finish within the %v budget", s.budget(gate.DefaultFetchBudget))
	if !finished {
		return nil, nil, late
	}
	var we *webpage.Error
	if errors.As(err, &we) {
		if s.Debug {
			*trace = append(*trace, failureLines(we.Failures)...)
			for _, m := range we.Misses {
				*trace = append(*trace, "not read: "+m)
			}
		}
		switch we.Kind {
		case webpage.KindExtraction, webpage.KindNoProvider:
			return nil, we, ""
		case webpage.KindCanceled:
			return nil, nil, late
		}
	}
	switch {
	case err != nil:
		return nil, nil, oneLine(err.Error())
	case strings.TrimSpace(res.Content) == "":
		return nil, nil, "the page has no readable content"
	}
	if s.Debug {
		for _, m := range res.Misses {
			*trace = append(*trace, "not read: "+m)
		}
		*trace = append(*trace, failureLines(res.Failures)...)
	}
	return res, nil, ""
}
