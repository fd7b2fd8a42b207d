package hooks

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/internal/markdown"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/provider"
)

// minFallbackChars is how much text a page's own HTML must yield to be
// handed over when extraction is not possible.
const minFallbackChars = 400

// handleFetchFailure answers PostToolUseFailure on a web fetch tool: the
// native tool failed (its domain-safety preflight, a TLS error, …), so the
// hook reads the page itself and adds it as additional context, followed
// by the original error. The page is probed with the same address checks
// as on PreToolUse; readable HTML is converted to Markdown here (no
// provider needed), plain text is used as served, and template-heavy or
// browser-render-required pages, and pages the probe could not read, are
// extracted with env.Extractor when there is one. When the page cannot be
// read (a refused address, a missing page, no provider, a failed
// extraction, the budget running out) it passes through silently with the
// reason in Diagnostics: the model keeps the original error.
func handleFetchFailure(ctx context.Context, in *Input, env *WebFetchEnv) Decision {
	s := env.Settings
	var trace []string
	if s.Debug {
		trace = append(trace, s.Trace...)
		trace = append(trace, fmt.Sprintf("%s %s from %s: %s", in.Event, in.ToolName, in.Runtime, shorten(in.Error, 300)))
	}
	pass := func(why string) Decision {
		return passWith(append(trace, "the native "+in.ToolName+" failed; not adding the page: "+why+"; passing through")...)
	}
	if len(env.Problems) > 0 {
		return pass("invalid configuration: " + strings.Join(env.Problems, "; "))
	}
	if in.Interrupted {
		return pass("the call was interrupted")
	}
	args := in.FetchArgs()
	if args.URL == "" {
		return pass("the fetch call has no URL")
	}
	if _, err := checkURL(args.URL); err != nil {
		return pass(err.Error())
	}

	budget := s.budget(DefaultFetchBudget)
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	pc := env.Probe.WithDefaults()
	limit := budget
	if env.Extractor != nil {
		// Leave extraction time, as on PreToolUse.
		limit = budget * 2 / 5
	}
	if pc.Timeout > limit {
		pc.Timeout = limit
	}
	probe, why, skip, finished := readPage(ctx, args.URL, pc, env, &trace)
	if !finished {
		return pass(fmt.Sprintf("the page probe did not finish within the %v budget", budget))
	}
	if skip != "" {
		return pass(skip)
	}

	// The page's own content: Markdown converted from readable HTML, or
	// text as served.
	var own *provider.Page
	var path string
	if why == "" {
		switch {
		case probe.HTML():
			classifyFn := env.Classify
			if classifyFn == nil {
				classifyFn = classify.ClassifyBytes
			}
			res := classifyFn(probe.Body)
			doc := markdown.ConvertHTML(probe.Body, probe.URL)
			own = &provider.Page{URL: probe.URL, Title: doc.Title, Content: doc.Markdown}
			path = "converted from the page's HTML"
			if s.Debug {
				trace = append(trace, fmt.Sprintf("classified %s: %s; %d chars of Markdown", args.URL, res, len(doc.Markdown)))
			}
			switch {
			case res.Class == classify.TemplateHeavy:
				why = "is mostly navigation and page template"
			case res.Class == classify.BrowserRenderRequired:
				why = "shows its content only after JavaScript runs"
			case strings.TrimSpace(doc.Markdown) == "":
				why = "has no readable text in its HTML"
			}
		case textual(probe.ContentType) && utf8.Valid(probe.Body):
			own = &provider.Page{URL: probe.URL, Content: string(probe.Body)}
			path = "read as served (" + probe.ContentType + ")"
		default:
			return pass("the page is not HTML or text (" + probe.ContentType + ")")
		}
	}
	var notes []string
	if why == "" && probe.Truncated {
		notes = append(notes, "The page was longer than the read limit; only its beginning is shown.")
	}

	// Pages the hook cannot read well itself go to the extraction policy;
	// their own text, when there is enough of it, is the last resort.
	var provName string
	var xelapsed time.Duration
	page := own
	if why != "" {
		fallback := func(problem string) (Decision, bool) {
			if own == nil || len(strings.TrimSpace(own.Content)) < minFallbackChars {
				return pass("the page " + why + " and " + problem), false
			}
			if s.Debug {
				trace = append(trace, problem+"; using the page's own text")
			}
			notes = append(notes, "The page "+why+" and "+problem+"; this is its text as served, which may be incomplete.")
			return Decision{}, true
		}
		if env.Extractor == nil {
			if d, ok := fallback("no extraction provider has an API key"); !ok {
				return d
			}
		} else {
			got, elapsed, problem, finished := extractPage(ctx, args, env, &trace)
			xelapsed = elapsed
			if !finished {
				return pass(fmt.Sprintf("the extraction did not finish within the %v budget", budget))
			}
			if problem != "" {
				if d, ok := fallback(problem); !ok {
					return d
				}
			} else {
				page = got
				provName = nameOr(got.Provider, env.Extractor)
				path = "extracted via " + provName
				if s.Debug {
					trace = append(trace, fmt.Sprintf("extracted via %s: %d chars in %v", provName, len(got.Content), xelapsed.Round(time.Millisecond)))
				}
			}
		}
	}
	if page == nil || strings.TrimSpace(page.Content) == "" {
		return pass("the page has no readable content")
	}

	footer := ""
	if s.Debug {
		footer = fmt.Sprintf("[webgate debug: the native %s failed; page %s", in.ToolName, path)
		if why != "" {
			footer += "; the page " + why
		}
		if provName != "" {
			footer += fmt.Sprintf(" in %v", xelapsed.Round(time.Millisecond))
		}
		footer += "]"
	}
	max := s.maxChars()
	intro := fmt.Sprintf("webgate fallback: the native %s tool failed, so webgate read the page itself (%s). This is the page's content, not a summary: use it to answer the request. The original error follows it.", in.ToolName, path)
	intro += "\n" + sanitize.UntrustedNotice
	if len(notes) > 0 {
		intro += "\n" + strings.Join(notes, " ")
	}
	// The error gets at most a quarter of the cap, the page the rest, and
	// the whole stays within the cap however small it is set.
	errText := "Original error from " + in.ToolName + ": " + shorten(in.Error, min(1500, max/4))
	body := renderPage(args, page, intro, footer, max-textLen(errText)-2)
	d := Decision{Action: AddContext, Context: cutText(body+"\n\n"+errText, max), Diagnostics: trace}
	if s.SystemMessage {
		d.SystemMessage = shorten(fmt.Sprintf("webgate: %s failed; added the page's content (%s)", in.ToolName, path), 300)
	}
	return d
}

// textual reports whether a media type is text a model can read as is.
func textual(mediaType string) bool {
	if strings.HasPrefix(mediaType, "text/") {
		return true
	}
	switch mediaType {
	case "application/json", "application/xml", "application/x-yaml", "application/yaml", "application/javascript":
		return true
	}
	return strings.HasSuffix(mediaType, "+json") || strings.HasSuffix(mediaType, "+xml")
}
