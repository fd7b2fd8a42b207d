package hooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/provider"
)

// WebFetchEnv is what [HandleWebFetch] works with. The zero value is
// valid: with no Extractor every event passes through.
type WebFetchEnv struct {
	// Extractor reads pages the native tool cannot, usually a policy over
	// every provider that has keys. Nil means no extraction provider has
	// keys.
	Extractor provider.Extractor
	// Classify classifies a page's initial HTML; nil means
	// [classify.ClassifyBytes].
	Classify func(html []byte) classify.Result
	// Settings are the hook settings.
	Settings Settings
	// Probe configures the hook's own read of the page.
	Probe ProbeConfig
	// Problems are configuration problems found while loading the
	// settings; when there are any the hook passes through and reports
	// them.
	Problems []string
	// Now returns the current time, for latencies; nil means time.Now.
	Now func() time.Time
	// DebugLines, when set, returns lines gathered while the hook ran
	// (a policy observer's traces); in debug mode they join the trace.
	DebugLines func() []string
	// Routes are applied before the probe: Routes.Tools sends matching
	// WebFetch URLs and Bash commands to a better tool.
	Routes Routes
}

func (e *WebFetchEnv) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
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

// RefusedStatus reports whether an HTTP status means the site refused the
// probe's client (rather than the page not existing), so an extraction
// provider may still read it: 401, 403, 406, 429, 451 and every 5xx.
func RefusedStatus(code int) bool {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotAcceptable,
		http.StatusTooManyRequests, http.StatusUnavailableForLegalReasons:
		return true
	}
	return code >= 500
}

// HandleWebFetch answers PreToolUse on a web fetch tool and on the shell
// tool. First the tool routes (env.Routes.Tools) are consulted with the
// fetch URL or the shell command: the first matching route denies the call
// with its message (plus the route name, matched value and pattern in
// debug mode). The shell tool gets nothing else. For a web fetch tool the
// hook then reads the page itself ([Probe]); non-HTML content and pages the classifier finds
// fetch-readable pass through to the native tool. Template-heavy and
// browser-render-required pages, and pages the probe could not read
// (timeout, TLS failure, a refusing status such as 403), are read with
// env.Extractor and the native call is denied with the extracted content as
// the reason. With no Extractor, a refused destination address, a failed
// extraction, or the budget running out, it passes through.
//
// PostToolUseFailure on a web fetch tool (the native tool failed, for
// example its domain-safety preflight or a TLS error) is answered by
// [HandleWebFetch] with the page read by the hook itself as additional
// context; see handleFetchFailure. Tool routes do not apply to it.
func HandleWebFetch(ctx context.Context, in *Input, env *WebFetchEnv) Decision {
	if env == nil {
		env = &WebFetchEnv{}
	}
	shell := WantsShell(in)
	if !shell && !WantsWebFetch(in, env.Settings.Tools) {
		return Decision{}
	}
	if in.Event == PostToolUseFailure {
		return redactDecision(handleFetchFailure(ctx, in, env), env.Settings.Secrets)
	}
	lines := env.Routes.warningLines()
	if d, ok := routeTool(in, env.Routes, env.Settings); ok {
		d.Diagnostics = slices.Concat(lines, routeTrace(in, env.Settings), d.Diagnostics)
		return redactDecision(d, env.Settings.Secrets)
	}
	if shell {
		return passWith(lines...)
	}
	d := handleWebFetch(ctx, in, env)
	d.Diagnostics = append(lines, d.Diagnostics...)
	return redactDecision(d, env.Settings.Secrets)
}

// WantsShell reports whether in is a PreToolUse on the shell tool
// ([IsShellTool]), which [HandleWebFetch] answers with tool routes only.
func WantsShell(in *Input) bool {
	return in != nil && in.Event == PreToolUse && IsShellTool(in.ToolName)
}

func handleWebFetch(ctx context.Context, in *Input, env *WebFetchEnv) Decision {
	s := env.Settings
	var trace []string
	if s.Debug {
		trace = append(trace, s.Trace...)
		trace = append(trace, fmt.Sprintf("%s %s from %s", in.Event, in.ToolName, in.Runtime))
	}
	pass := func(why string) Decision { return passWith(append(trace, why+"; passing through")...) }
	stepAside := func(problem string) Decision {
		d := pass(problem)
		if s.SystemMessage {
			d.SystemMessage = stepAsideMessage(in, problem)
		}
		return d
	}
	if len(env.Problems) > 0 {
		return stepAside("invalid configuration: " + strings.Join(env.Problems, "; "))
	}
	args := in.FetchArgs()
	if args.URL == "" {
		return pass("the fetch call has no URL")
	}
	if env.Extractor == nil {
		return pass("no extraction provider has an API key")
	}
	if _, err := checkURL(args.URL); err != nil {
		return pass(err.Error())
	}

	budget := s.budget(DefaultFetchBudget)
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()

	// The probe gets at most 40% of the budget so extraction has time left.
	pc := env.Probe.WithDefaults()
	if limit := budget * 2 / 5; pc.Timeout > limit {
		pc.Timeout = limit
	}
	probe, why, skip, finished := readPage(ctx, args.URL, pc, env, &trace)
	if !finished {
		return stepAside(fmt.Sprintf("the page probe did not finish within the %v budget", budget))
	}
	if skip != "" {
		return pass(skip)
	}
	if why == "" && !probe.HTML() {
		return pass("the page is not HTML (" + probe.ContentType + ")")
	}
	if why == "" {
		classifyFn := env.Classify
		if classifyFn == nil {
			classifyFn = classify.ClassifyBytes
		}
		res := classifyFn(probe.Body)
		if s.Debug {
			var sig []string
			for i, sg := range res.Signals {
				if i == 4 {
					break
				}
				sig = append(sig, sg.String())
			}
			trace = append(trace, fmt.Sprintf("classified %s: %s", args.URL, res), "signals: "+strings.Join(sig, "; "))
		}
		switch res.Class {
		case classify.TemplateHeavy:
			why = "is mostly navigation and page template"
		case classify.BrowserRenderRequired:
			why = "shows its content only after JavaScript runs"
		default:
			return pass(fmt.Sprintf("the page is %s", res))
		}
	}

	page, xelapsed, problem, finished := extractPage(ctx, args, env, &trace)
	if !finished {
		return stepAside(fmt.Sprintf("the extraction did not finish within the %v budget", budget))
	}
	if problem != "" {
		return stepAside(problem)
	}
	name := nameOr(page.Provider, env.Extractor)
	if s.Debug {
		trace = append(trace, fmt.Sprintf("extracted via %s: %d chars in %v", name, len(page.Content), xelapsed.Round(time.Millisecond)))
	}
	footer := ""
	if s.Debug {
		footer = fmt.Sprintf("[webgate debug: page %s; extracted via %s in %v]", why, name, xelapsed.Round(time.Millisecond))
	}
	intro := fmt.Sprintf("Content of %s, extracted by webgate via %s because the page %s. This is not the native WebFetch tool: no summary was made; use the content below to answer the request.", oneLine(pageURL(args, page)), name, why)
	intro += "\n" + sanitize.UntrustedNotice
	d := Decision{Action: Deny, Reason: renderPage(args, page, intro, footer, s.maxChars()), Diagnostics: trace}
	if s.SystemMessage {
		d.SystemMessage = shorten(fmt.Sprintf("webgate: %s answered with content extracted via %s (the page %s)", in.ToolName, name, why), 300)
	}
	return d
}

// probeError describes a probe failure in a few words.
func probeError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	switch {
	case errors.Is(err, context.DeadlineExceeded), strings.Contains(msg, "Client.Timeout"), strings.Contains(msg, "timeout"):
		return "timed out"
	case strings.Contains(msg, "tls:"), strings.Contains(msg, "x509:"), strings.Contains(msg, "certificate"), strings.Contains(msg, "HTTPS client"):
		return "TLS error"
	case strings.Contains(msg, "redirects"):
		return "too many redirects"
	}
	return shorten(msg, 120)
}

// pageURL is the URL to show for page: its own when it is a web link, else
// the one asked for, shortened.
func pageURL(args FetchArgs, page *provider.Page) string {
	u := page.URL
	if !linkURL(u) {
		u = args.URL
	}
	return shorten(u, 1000)
}

// renderPage renders page content for the model: intro, a header with the
// title and URL, the content as Markdown fitted to the request, and a
// truncation notice when it had to be cut, all within max. The title, URL
// and content get the terminal rule before they are measured and cut.
func renderPage(args FetchArgs, page *provider.Page, intro, footer string, max int) string {
	u := pageURL(args, page)
	var h strings.Builder
	h.WriteString(intro)
	h.WriteString("\n")
	if t := shorten(page.Title, 200); t != "" {
		fmt.Fprintf(&h, "Title: %s\n", t)
	}
	fmt.Fprintf(&h, "URL: %s\n", oneLine(u))
	if args.Prompt != "" {
		fmt.Fprintf(&h, "Request: %s\n", shorten(args.Prompt, 400))
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
	fit := FitContent(content, args.Prompt, room)
	var b strings.Builder
	b.WriteString(header)
	b.WriteString(fit.Text)
	if fit.Cut {
		if fit.ByRelevance {
			fmt.Fprintf(&b, "\n\n[Content truncated to fit the size limit: kept the parts most relevant to the request in page order; %d of %d sections omitted, marked %s.]", fit.Omitted, fit.Total, omissionMark)
		} else {
			fmt.Fprintf(&b, "\n\n[Content truncated to fit the size limit: only the beginning of the page is shown (%d of %d characters).]", textLen(fit.Text), textLen(strings.TrimSpace(content)))
		}
	}
	b.WriteString(tail)
	return cutText(b.String(), max)
}

// readPage probes url with pc and sorts the outcome for both web fetch
// paths. finished is false when the probe did not end within ctx. skip,
// when set, is why the hook must pass through: a refused address, an
// unsupported URL, or a page answering an error status. why, when set,
// says the probe could not read the page itself (a transport failure or a
// refusing status), so an extraction provider may still try. In debug mode
// the probe's outcome is added to trace.
func readPage(ctx context.Context, url string, pc ProbeConfig, env *WebFetchEnv, trace *[]string) (probe *ProbeResult, why, skip string, finished bool) {
	start := env.now()
	probe, finished, err := bounded(ctx, func(ctx context.Context) (*ProbeResult, error) {
		return Probe(ctx, url, pc)
	})
	if !finished {
		return nil, "", "", false
	}
	debug := env.Settings.Debug
	switch {
	case errors.Is(err, ErrBlockedAddress):
		return nil, "", "not probing " + url + ": " + err.Error(), true
	case errors.Is(err, ErrUnsupportedURL):
		return nil, "", err.Error(), true
	case err != nil:
		if debug {
			*trace = append(*trace, fmt.Sprintf("probe failed after %v: %v", env.now().Sub(start).Round(time.Millisecond), err))
		}
		return nil, "could not be read directly (" + probeError(err) + ")", "", true
	case RefusedStatus(probe.Status):
		why = fmt.Sprintf("refused a direct read (HTTP %d)", probe.Status)
	case probe.Status < 200 || probe.Status > 299:
		return probe, "", fmt.Sprintf("the page answered HTTP %d", probe.Status), true
	}
	if debug {
		*trace = append(*trace, fmt.Sprintf("probe: HTTP %d %s, %d bytes (truncated %v) in %v", probe.Status, probe.ContentType, len(probe.Body), probe.Truncated, env.now().Sub(start).Round(time.Millisecond)))
	}
	return probe, why, "", true
}

// extractPage reads args.URL with env.Extractor within ctx. finished is
// false when the extraction did not end within ctx; otherwise either page
// holds non-empty content, or problem says why there is none ("extraction
// failed: tavily (auth-failed)"). In debug mode the providers' traces and
// failures are added to trace.
func extractPage(ctx context.Context, args FetchArgs, env *WebFetchEnv, trace *[]string) (page *provider.Page, elapsed time.Duration, problem string, finished bool) {
	start := env.now()
	req := provider.ExtractRequest{URL: args.URL, Query: args.Prompt, Format: provider.Markdown}
	page, finished, err := bounded(ctx, func(ctx context.Context) (*provider.Page, error) {
		return env.Extractor.Extract(ctx, req)
	})
	elapsed = env.now().Sub(start)
	debug := env.Settings.Debug
	if debug && env.DebugLines != nil {
		*trace = append(*trace, env.DebugLines()...)
	}
	if !finished {
		return nil, elapsed, "", false
	}
	if err == nil && (page == nil || strings.TrimSpace(page.Content) == "") {
		err = &provider.Error{Provider: provider.NameOf(env.Extractor), Op: "extract", Kind: provider.KindUnsupported, Message: "no content"}
	}
	if err != nil {
		fails := failuresOf(err)
		if debug {
			for _, f := range fails {
				*trace = append(*trace, fmt.Sprintf("provider %s failed: %s (%s) after %v: %v", f.Provider, f.Kind, f.Kind.Class(), f.Elapsed.Round(time.Millisecond), f.Err))
			}
		}
		return nil, elapsed, "extraction failed: " + failureSummary(fails), true
	}
	return page, elapsed, "", true
}
