package webpage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage/pdf"
)

// MinFallbackChars is how much text a page's own HTML must yield to be
// returned, with a note, when the page needed an extraction provider and
// none could read it.
const MinFallbackChars = 200

// Reader reads web pages the way an agent's fetch tool should: it probes
// the page itself ([Probe]: SSRF-safe, bounded), classifies its HTML
// (package classify), converts readable pages to Markdown locally, and
// sends the others — app shells, template-heavy pages, pages that refused
// the probe — to an extraction provider.
//
// The zero value is usable: without an Extractor only pages readable as
// served can be read. A Reader is safe for concurrent use; its fields must
// not change after the first call.
type Reader struct {
	// Extractor reads the pages the probe cannot, usually the configured
	// extraction policy. Nil means no extraction provider.
	Extractor provider.Extractor
	// Probe configures the direct read of a page.
	Probe ProbeConfig
	// Classify classifies a page's initial HTML; nil means
	// [classify.ClassifyBytes].
	Classify func(html []byte) classify.Result
	// Renderer renders pages in a browser for the render tier; nil means
	// no browser. browser.Renderer (package webpage/browser) renders
	// them in a local Chromium.
	Renderer Renderer
	// RenderTemplateHeavy renders a template-heavy page in the browser
	// before reading its structure as served: for portals and listings
	// whose entries their scripts fill in. The rendered page is read for
	// its structure; when rendering fails, the structure as served is
	// read. Without a Renderer it does nothing.
	RenderTemplateHeavy bool
	// PDF configures the local reading of PDF documents (package
	// webpage/pdf): pdftotext when present, else a pure-Go reader.
	PDF pdf.Options
	// Order is the reading order of the pages that need more than the
	// probe: [LocalFirst] (the default) reads them locally first —
	// the structure of a template-heavy page, the data an app shell
	// embeds, a browser rendering — and asks providers last.
	Order Order
	// Now returns the current time, for the elapsed times; nil means
	// time.Now.
	Now func() time.Time
	// Cache keeps pages read between calls (package memory provides
	// one); nil means none. See [Cache].
	Cache Cache
	// PrivateExtractor says the Extractor runs inside the network the
	// reader reads from: a self-hosted instance reached at a loopback or
	// private address, which can read a private page and tells no one
	// its URL. Then pages at private addresses (never cloud metadata
	// ones) may be sent to it. False, the default, keeps every page
	// whose host is, or resolves to, a private address from the
	// Extractor, even when ProbeConfig.AllowPrivate lets the reader read
	// it itself: a third-party service cannot read it and should not
	// learn its URL.
	PrivateExtractor bool
}

func (r *Reader) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Request is one page to read.
type Request struct {
	// URL is the page, an absolute http or https URL. Required.
	URL string
	// Prompt optionally says what the reader is looking for; extraction
	// providers that support it use it to select the parts of the page.
	Prompt string
	// NoFallback makes [Reader.Execute] fail rather than return the
	// page's own text when no tier could read it (a caller that can let
	// another reader try, such as the web fetch hook, wants that).
	NoFallback bool
}

// Action is what a [Plan] decided to do with a page.
type Action string

// The actions of a [Plan].
const (
	// ActionLocal: the page is readable as served; its content was
	// converted here.
	ActionLocal Action = "local"
	// ActionExtract: the page needs an extraction provider; Plan.Why says
	// why.
	ActionExtract Action = "extract"
)

// Source says which path produced a [Result]'s content.
type Source string

// The sources of a [Result].
const (
	// SourceLocal: the page's own HTML converted to Markdown, or its text
	// as served.
	SourceLocal Source = "local"
	// SourceRecovered: text recovered from the data an app shell embeds
	// for its scripts ([Recover]), without rendering it.
	SourceRecovered Source = "recovered"
	// SourceRendered: the page rendered in a browser ([Renderer]), then
	// converted to Markdown.
	SourceRendered Source = "rendered"
	// SourceProvider: an extraction provider read the page.
	SourceProvider Source = "provider"
	// SourceLocalFallback: the page needed a provider, none could read it,
	// and this is the page's own text, which may be incomplete; Note says
	// why.
	SourceLocalFallback Source = "local-fallback"
)

// Plan is what [Reader.Plan] found out about a page before reading it:
// what the probe got, the classifier's verdict, and what to do.
type Plan struct {
	// URL is the URL asked for.
	URL string
	// Action is what to do: read locally or extract.
	Action Action
	// Why says, for [ActionExtract], why the page cannot be used as served
	// ("is mostly navigation and page template", "could not be read
	// directly (timed out)").
	Why string
	// FinalURL is the URL after redirects; empty when the probe failed.
	FinalURL string
	// Status is the HTTP status the probe got; 0 when it failed.
	Status int
	// ContentType is the media type the probe got.
	ContentType string
	// Truncated reports that the page was longer than the probe reads.
	Truncated bool
	// ProbeFailure says why the probe could not read the page; empty when
	// it could.
	ProbeFailure ProbeFailure
	// ProbeErr is the probe's error, when it failed.
	ProbeErr error
	// Verdict is the classifier's verdict on the page's HTML; nil when the
	// page is not HTML or was not read.
	Verdict *classify.Result
	// ProbeElapsed is how long the probe took.
	ProbeElapsed time.Duration

	// local is the page's own content: converted HTML or text as served.
	local Document
	// body is what the probe read: the HTML for the recover tier, the
	// document for the PDF tier.
	body []byte
	// isPDF is true for a PDF document.
	isPDF bool
	// hops are the URLs the probe was redirected to; addrs the addresses
	// it dialled, for the extraction tier's address rule and the cache's.
	hops  []string
	addrs []netip.Addr
	// cached is the read the reader's Cache answered with, at cachedAt.
	cached   *Cached
	cachedAt time.Time
}

// HTML reports whether the probe got an HTML page.
func (p *Plan) HTML() bool {
	return p.ContentType == "text/html" || p.ContentType == "application/xhtml+xml"
}

// Document reports whether the probe got a page that is neither HTML nor
// text (a PDF, an image, …).
func (p *Plan) Document() bool {
	return p.ProbeFailure == "" && p.Status >= 200 && p.Status < 300 && !p.HTML() && !Textual(p.ContentType)
}

// templateHeavy reports whether the classifier read the page as
// template-heavy.
func (p *Plan) templateHeavy() bool {
	return p.Verdict != nil && p.Verdict.Class == classify.TemplateHeavy
}

// LocalText returns the page's own content as the plan found it: Markdown
// converted from its HTML, or its text as served; empty when there is
// none.
func (p *Plan) LocalText() string { return p.local.Markdown }

// LocalMode returns how the plan converted the page's own HTML:
// [ConvertArticle], [ConvertStructure], or empty when it did not convert
// any.
func (p *Plan) LocalMode() ConvertMode { return p.local.Mode }

// Result is a page read.
type Result struct {
	// URL is the URL asked for.
	URL string
	// FinalURL is the URL after redirects, when the probe read the page.
	FinalURL string
	// Title is the page's title; may be empty.
	Title string
	// Metadata is what the page says about itself (byline, site name,
	// language, publication date), when it was read locally; the
	// Content does not repeat it.
	Metadata
	// Content is the readable content: Markdown for HTML pages, the text
	// as served for text.
	Content string
	// Mode is how a locally read HTML page was converted: for its main
	// content ([ConvertArticle]) or for its structure
	// ([ConvertStructure]); empty for other sources.
	Mode ConvertMode
	// Format is the content's format.
	Format provider.Format
	// Source says which path produced Content.
	Source Source
	// Provider is the extraction provider that read the page, for
	// [SourceProvider].
	Provider string
	// Note explains a partial or fallback result: why the content may be
	// incomplete. Empty when there is nothing to say.
	Note string
	// Failures lists the extraction providers that failed.
	Failures []provider.Failure
	// Misses says, for each tier tried before the one that read the page,
	// why it could not ("recover: the page embeds no readable data").
	Misses []string
	// Plan is what the reader found out before reading.
	Plan *Plan
	// ExtractElapsed is how long the extraction took; 0 when there was
	// none.
	ExtractElapsed time.Duration
	// Cached is when the page was read, for a page answered from the
	// reader's [Cache]; zero for a fresh read.
	Cached time.Time
}

// Read reads one page: [Reader.Plan], then [Reader.Execute]. Failures are
// [*Error] values.
func (r *Reader) Read(ctx context.Context, req Request) (*Result, error) {
	p, err := r.Plan(ctx, req.URL)
	if err != nil {
		return nil, err
	}
	return r.Execute(ctx, p, req)
}

// Plan probes rawURL and decides how to read it. Readable HTML and text
// are converted here ([ActionLocal]); template-heavy and
// browser-render-required HTML, HTML with no readable text, other
// documents, pages the probe could not read and pages that refused it
// ([RefusedStatus]) need extraction ([ActionExtract]). A bad URL, a
// refused address, an error status such as 404, and the context ending
// are [*Error] values.
func (r *Reader) Plan(ctx context.Context, rawURL string) (*Plan, error) {
	raw := strings.TrimSpace(rawURL)
	if p := r.cachedPlan(ctx, raw); p != nil {
		return p, nil
	}
	p := &Plan{URL: raw}
	start := r.now()
	trail := &probeTrail{}
	res, err := probe(ctx, raw, r.Probe, trail)
	p.ProbeElapsed = r.now().Sub(start)
	p.hops, p.addrs = trail.seen()
	switch {
	case errors.Is(err, ErrBlockedAddress):
		return nil, &Error{Kind: KindBlocked, URL: raw, Err: err}
	case errors.Is(err, ErrUnsupportedURL):
		return nil, &Error{Kind: KindBadURL, URL: raw, Err: err}
	case ctx.Err() != nil:
		return nil, &Error{Kind: KindCanceled, URL: raw, Err: context.Cause(ctx)}
	case err != nil:
		p.Action, p.ProbeErr = ActionExtract, err
		p.ProbeFailure = FailureOf(err)
		if p.ProbeFailure == "" {
			p.ProbeFailure = ProbeNetwork
		}
		p.Why = "could not be read directly (" + string(p.ProbeFailure) + ")"
		return p, nil
	}
	r.judge(p, res)
	if p.Action == "" {
		return nil, &Error{Kind: KindHTTPStatus, URL: raw, Status: res.Status}
	}
	return p, nil
}

// PlanBody decides how to read a page from a copy the caller already has
// (a saved page, for example), as [Reader.Plan] would after a probe that
// got body with HTTP 200 and the given media type.
func (r *Reader) PlanBody(rawURL, mediaType string, body []byte) *Plan {
	p := &Plan{URL: strings.TrimSpace(rawURL)}
	r.judge(p, &ProbeResult{URL: p.URL, Status: 200, ContentType: MediaType(mediaType, body), Body: body})
	return p
}

// judge fills p from what the probe read; it leaves Action empty for an
// error status that is not a refusal.
func (r *Reader) judge(p *Plan, res *ProbeResult) {
	p.FinalURL, p.Status, p.ContentType, p.Truncated = res.URL, res.Status, res.ContentType, res.Truncated
	switch {
	case res.Status >= 200 && res.Status < 300:
	case RefusedStatus(res.Status) && res.Status >= 500:
		// Not a refusal as such: the server failed, perhaps only for this
		// reader (an overloaded edge, a bot wall that answers 503). The
		// reason says so, since the provider that reads it may cost money.
		p.Action = ActionExtract
		p.Why = fmt.Sprintf("answered a direct read with HTTP %d%s, a server error an extraction provider may get past", res.Status, statusText(res.Status))
		return
	case RefusedStatus(res.Status):
		p.Action, p.Why = ActionExtract, fmt.Sprintf("refused a direct read (HTTP %d)", res.Status)
		return
	default:
		return
	}
	switch {
	case res.HTML():
		classifyFn := r.Classify
		if classifyFn == nil {
			classifyFn = classify.ClassifyBytes
		}
		v := classifyFn(res.Body)
		p.Verdict = &v
		p.body = res.Body
		p.local = ConvertHTML(res.Body, res.URL)
		switch {
		case v.Class == classify.TemplateHeavy:
			p.Action, p.Why = ActionExtract, "is mostly navigation and page template"
		case v.Class == classify.BrowserRenderRequired:
			p.Action, p.Why = ActionExtract, "shows its content only after JavaScript runs"
		case p.local.TextChars == 0:
			p.Action, p.Why = ActionExtract, "has no readable text in its HTML"
		default:
			p.Action = ActionLocal
		}
	case res.ContentType == "application/pdf" || bytes.HasPrefix(res.Body, []byte("%PDF-")):
		p.Action, p.Why, p.isPDF, p.body = ActionExtract, "is a PDF document", true, res.Body
	case Textual(res.ContentType) && utf8.Valid(res.Body):
		p.local = Document{Markdown: string(res.Body)}
		p.Action = ActionLocal
		if strings.TrimSpace(p.local.Markdown) == "" {
			p.Action, p.Why = ActionExtract, "is empty"
		}
	default:
		p.Action, p.Why = ActionExtract, "is not HTML or text ("+res.ContentType+")"
	}
}

// statusText returns " " and the standard text of an HTTP status, or ""
// for a status without one.
func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return " " + t
	}
	return ""
}

// Execute reads the page as p decided. [ActionLocal] returns the content
// converted by the plan (its structure instead when readability's pick is
// the introduction of a <main> that is a third links, a shop's grid).
// [ActionExtract] tries the tiers in the reader's [Order] — the structure
// of a template-heavy page, the data an app shell embeds ([Recover]), a
// browser rendering ([Renderer]), the extraction providers — and returns
// the first result good enough to use; local results must hold at least
// [MinLocalChars] characters of text and not be a login wall, a bot
// challenge, a cookie wall or an error page. When no
// tier reads the page, the page's own text is returned with a Note if it
// has at least [MinFallbackChars] characters (unless req.NoFallback).
// Failures are [*Error] values of kind [KindNoProvider], [KindExtraction]
// or [KindCanceled].
func (r *Reader) Execute(ctx context.Context, p *Plan, req Request) (*Result, error) {
	if p.cached != nil {
		return p.cached.result(p), nil
	}
	res, err := r.execute(ctx, p, req)
	if err == nil {
		r.remember(ctx, p, req, res)
	}
	return res, err
}

func (r *Reader) execute(ctx context.Context, p *Plan, req Request) (*Result, error) {
	base := Result{URL: p.URL, FinalURL: p.FinalURL, Title: p.local.Title, Metadata: p.local.Metadata, Format: provider.Markdown, Plan: p}
	if p.Action == ActionLocal {
		res := base
		res.Source, res.Content, res.Mode = SourceLocal, p.local.Markdown, p.local.Mode
		// A page whose <main> is a third links, readability's pick a small
		// part of it (a shop category read for its introduction), is read
		// for its structure when that <main> would not pass as its
		// article ([Plan.articleHolds]). On the development split:
		// collection 0.7127 -> 0.7134, product 0.6768 -> 0.6771, no type
		// lower.
		if p.local.listed != nil {
			if structure := ConvertHTMLMode(p.body, p.FinalURL, ConvertStructure); !p.articleHolds(p.local, structure) {
				if ok, _ := judgeLocal(structure.Markdown); ok {
					res.Content, res.Mode = structure.Markdown, structure.Mode
				}
			}
		}
		if !p.HTML() {
			res.Format = provider.Text
		}
		if p.Truncated {
			res.Note = "The page was longer than the read limit; only its beginning is shown."
		}
		return &res, nil
	}
	var (
		misses    []string
		failures  []provider.Failure
		provErr   error
		extracted time.Duration
		asked     bool
		private   error
	)
	tiers := r.tiers(p)
	if r.Extractor != nil && slices.ContainsFunc(tiers, func(t tier) bool { return t.name == "provider" }) {
		private = r.privateTarget(ctx, p.targets(), p.addrs)
	}
	for i, t := range tiers {
		if ctx.Err() != nil {
			break
		}
		if t.name == "provider" && private != nil {
			misses = append(misses, "provider: not sent to an extraction provider: "+private.Error())
			continue
		}
		tctx, cancel := r.tierContext(ctx, tiers[i+1:], private != nil)
		got, err := t.run(tctx, p, req)
		cancel()
		if got != nil {
			extracted += got.ExtractElapsed
		}
		if err == nil {
			res := base
			res.Source, res.Content, res.Note, res.Provider, res.Mode = got.Source, got.Content, got.Note, got.Provider, got.Mode
			if got.Title != "" {
				res.Title = got.Title
			}
			if got.FinalURL != "" {
				res.FinalURL = got.FinalURL
			}
			if got.Format != "" {
				res.Format = got.Format
			}
			res.Failures, res.Misses, res.ExtractElapsed = failures, misses, extracted
			return &res, nil
		}
		if t.name == "provider" {
			if err == errNoExtractor {
				misses = append(misses, "no extraction provider is configured")
				continue
			}
			asked, provErr = true, err
			failures = append(failures, Failures(err, r.Extractor)...)
			misses = append(misses, "extraction failed ("+FailureSummary(failures)+")")
			continue
		}
		misses = append(misses, t.name+": "+err.Error())
	}
	if ctx.Err() != nil {
		return nil, &Error{Kind: KindCanceled, URL: p.URL, Why: p.Why, Failures: failures, Err: context.Cause(ctx)}
	}
	if !req.NoFallback && len([]rune(strings.TrimSpace(p.local.Markdown))) >= MinFallbackChars {
		res := base
		res.Source, res.Content, res.Mode = SourceLocalFallback, p.local.Markdown, p.local.Mode
		res.Note = fmt.Sprintf("The page %s, and %s. This is the text of the page as served, which may be incomplete.", p.Why, fallbackReason(asked, failures, private, r.keepsFromProviders()))
		res.Failures, res.Misses, res.ExtractElapsed = failures, misses, extracted
		return &res, nil
	}
	switch {
	case asked:
		return nil, &Error{Kind: KindExtraction, URL: p.URL, Why: p.Why, Failures: failures, Misses: misses, Err: provErr}
	case private != nil:
		return nil, &Error{Kind: KindPrivate, URL: p.URL, Why: p.Why, Misses: misses, Err: private}
	}
	return nil, &Error{Kind: KindNoProvider, URL: p.URL, Why: p.Why, Misses: misses, LocalOnly: r.keepsFromProviders()}
}

// keepsFromProviders reports whether an extraction provider is
// configured but the reading order sends it no page ([LocalOnly]).
func (r *Reader) keepsFromProviders() bool { return r.order() == LocalOnly && r.Extractor != nil }

// fallbackReason says why the page's own text is all there is.
func fallbackReason(asked bool, failures []provider.Failure, private error, localOnly bool) string {
	switch {
	case asked:
		return "extraction failed (" + FailureSummary(failures) + ")"
	case private != nil:
		return "it was not sent to an extraction provider (" + private.Error() + ")"
	}
	return noProviderReason(localOnly)
}

// noProviderReason says why no extraction provider read a page: the
// reading order keeps pages from the one configured (localOnly), or none
// is.
func noProviderReason(localOnly bool) string {
	if localOnly {
		return "no local reader could read it (the reading order is local only: no page goes to an extraction provider)"
	}
	return "no extraction provider is configured"
}

// Extract reads rawURL with the Extractor alone. A page without content is
// an error of kind [provider.KindUnsupported]; the page's Provider is
// always set.
//
// A URL whose host is, or resolves to, an address the probe refuses when
// private addresses are not allowed (loopback, private, link-local, cloud
// metadata, …), or a name reserved for local use, is never sent to the
// Extractor, whatever ProbeConfig.AllowPrivate says (unless
// [Reader.PrivateExtractor], and never a metadata address): a third party
// cannot read it and should not learn it. Such a URL is an error of kind
// [KindPrivate], from the cache too.
func (r *Reader) Extract(ctx context.Context, rawURL, prompt string) (*provider.Page, time.Duration, error) {
	if r.Extractor == nil {
		return nil, 0, &Error{Kind: KindNoProvider, URL: rawURL}
	}
	if err := r.privateTarget(ctx, []string{rawURL}, nil); err != nil {
		return nil, 0, &Error{Kind: KindPrivate, URL: rawURL, Err: err}
	}
	return r.extract(ctx, rawURL, prompt)
}

// extract is [Reader.Extract] for a URL whose address was checked.
func (r *Reader) extract(ctx context.Context, rawURL, prompt string) (*provider.Page, time.Duration, error) {
	if page := r.cachedPage(ctx, rawURL, prompt); page != nil {
		return page, 0, nil
	}
	start := r.now()
	page, err := r.Extractor.Extract(ctx, provider.ExtractRequest{URL: rawURL, Query: prompt, Format: provider.Markdown})
	elapsed := r.now().Sub(start)
	if err == nil && (page == nil || strings.TrimSpace(page.Content) == "") {
		err = &provider.Error{Provider: provider.NameOf(r.Extractor), Op: "extract", Kind: provider.KindUnsupported, Message: "no content"}
	}
	if err != nil {
		return nil, elapsed, err
	}
	if page.Provider == "" {
		page.Provider = provider.NameOf(r.Extractor)
	}
	r.rememberPage(ctx, rawURL, prompt, page)
	return page, elapsed, nil
}

// Failures returns the per-provider failures of an extraction error: those
// a policy reports, or one failure named after p.
func Failures(err error, p any) []provider.Failure {
	if out := provider.FailuresOf(err); len(out) > 0 {
		return out
	}
	return []provider.Failure{{Provider: provider.NameOf(p), Kind: provider.KindOf(err), Err: err}}
}

// Textual reports whether a media type is text a model can read as is:
// text/*, JSON, XML, YAML, TOML and JavaScript.
func Textual(mediaType string) bool {
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(mediaType))
	}
	switch {
	case strings.HasPrefix(mt, "text/"),
		mt == "application/json", mt == "application/xml", mt == "application/javascript",
		mt == "application/x-yaml", mt == "application/yaml", mt == "application/toml",
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return true
	}
	return false
}
