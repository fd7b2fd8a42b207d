package webtools

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/internal/markdown"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/routing"
)

// Defaults of [Tools].
const (
	// DefaultMaxResults is how many search results are asked for when a
	// request leaves it open.
	DefaultMaxResults = 8
	// MaxResultsLimit is the most results a request may ask for.
	MaxResultsLimit = 20
	// DefaultSearchTimeout bounds a whole search when
	// [Tools.SearchTimeout] is zero.
	DefaultSearchTimeout = 25 * time.Second
	// DefaultFetchTimeout bounds a whole fetch, probe and extraction
	// included, when [Tools.FetchTimeout] is zero.
	DefaultFetchTimeout = 30 * time.Second
	// minFallbackChars is how much readable text the page's own HTML must
	// hold to be offered when extraction is not possible.
	minFallbackChars = 200
)

// Tools searches the web and reads pages for an agent or a user. The zero
// value is usable: without a Searcher every search fails with
// [NotConfigured], and without an Extractor only pages readable from their
// own HTML can be fetched.
//
// A Tools is safe for concurrent use once built; its fields must not change
// after the first call.
type Tools struct {
	// Searcher runs searches, usually the configured search policy. Nil
	// means no search provider has keys.
	Searcher provider.Searcher
	// Extractor reads pages the probe cannot, usually the configured
	// extraction policy. Nil means no extraction provider has keys.
	Extractor provider.Extractor
	// Probe configures the direct, SSRF-protected read of a page
	// ([hooks.Probe]).
	Probe hooks.ProbeConfig
	// Classify classifies a page's initial HTML; nil means
	// [classify.ClassifyBytes].
	Classify func(html []byte) classify.Result
	// Docs routes documentation queries to local indexes; nil means none.
	// A matching search still runs; its result carries a note naming the
	// MCP tool to use.
	Docs *routing.DocsRouter
	// Routes are tool routes; a fetch whose URL matches a WebFetch route
	// answers with the route's message instead of reading the page.
	Routes *routing.ToolRouter
	// MaxResults is how many results a search asks for when the request
	// leaves it open; 0 means [DefaultMaxResults].
	MaxResults int
	// SearchHint and ExtractHint complete the message of a
	// [NotConfigured] error: what to set so that searching or extraction
	// works (for example the environment variables holding API keys).
	SearchHint, ExtractHint string
	// Secrets are values (API keys) scrubbed from every message and
	// content returned, as a last line of defence.
	Secrets []string
	// SearchTimeout and FetchTimeout bound one whole search and one whole
	// fetch; 0 means [DefaultSearchTimeout] and [DefaultFetchTimeout]. A
	// shorter deadline of the caller's context wins. Past the deadline the
	// call returns an [*Error] with TimedOut set (see [Tools.Search]).
	SearchTimeout, FetchTimeout time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

func (t *Tools) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// SearchRequest is one web search.
type SearchRequest struct {
	// Query is the search query. Required.
	Query string
	// AllowedDomains restricts results to these domains and their
	// subdomains.
	AllowedDomains []string
	// BlockedDomains removes results from these domains.
	BlockedDomains []string
	// MaxResults is how many results to return, 1 to [MaxResultsLimit]; 0
	// means the Tools' default.
	MaxResults int
}

// Hit is one search result.
type Hit struct {
	Title     string   `json:"title"`
	URL       string   `json:"url"`
	Snippet   string   `json:"snippet,omitempty"`
	Published string   `json:"published,omitempty"`
	Providers []string `json:"providers,omitempty"`
}

// DocsIndex is a local documentation index a query matched.
type DocsIndex struct {
	Description string `json:"description"`
	MCPTool     string `json:"mcp_tool"`
	Path        string `json:"path"`
}

// SearchResult is the answer to a search.
type SearchResult struct {
	Query string `json:"query"`
	// Provider names who answered: a backend or a policy.
	Provider string `json:"provider"`
	Results  []Hit  `json:"results"`
	// Failed lists providers that failed while others answered.
	Failed []Failure `json:"failed_providers,omitempty"`
	// LocalDocs lists local documentation indexes the query matched.
	LocalDocs []DocsIndex `json:"local_docs,omitempty"`
	// Elapsed is how long the search took.
	Elapsed time.Duration `json:"-"`
}

// Search runs req with the Searcher. A search that succeeds with no hits
// returns a result with no Results and a nil error. Failures are
// [*Error] values: [BadInput] for an empty query or a bad result count,
// [NotConfigured] without a Searcher, [ProviderFailed] when every provider
// failed.
//
// The search runs within [Tools.SearchTimeout] (or the caller's earlier
// deadline): when the deadline passes first, Search returns at most
// half a second later with an [*Error] whose TimedOut is set and whose
// message names the deadline and the providers that had failed by then.
//
// Every text of the result gets the terminal rule of package sanitize
// (titles, snippets and provider names on one line), and a hit whose URL
// is not an http or https link ([sanitize.URL]) is dropped.
func (t *Tools) Search(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	res, err := bound(ctx, t.SearchTimeout, DefaultSearchTimeout, "The web search", func(ctx context.Context) (*SearchResult, error) {
		return t.search(ctx, req)
	})
	if err != nil {
		return nil, t.redactErr(err)
	}
	return res, nil
}

func (t *Tools) search(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	q := strings.TrimSpace(req.Query)
	if q == "" {
		return nil, &Error{Reason: BadInput, Message: "The search query is empty."}
	}
	if req.MaxResults < 0 || req.MaxResults > MaxResultsLimit {
		return nil, &Error{Reason: BadInput, Message: fmt.Sprintf("max_results must be between 1 and %d.", MaxResultsLimit)}
	}
	var docs []DocsIndex
	for _, d := range t.Docs.Match(q) {
		docs = append(docs, DocsIndex{Description: d.Description, MCPTool: d.MCPToolName, Path: d.Path})
	}
	if t.Searcher == nil {
		return nil, &Error{Reason: NotConfigured, Message: joinSentences("No web search provider has an API key.", t.SearchHint)}
	}
	n := req.MaxResults
	if n == 0 {
		n = t.MaxResults
	}
	if n <= 0 {
		n = DefaultMaxResults
	}
	start := t.now()
	res, err := t.Searcher.Search(ctx, provider.Query{
		Text:           q,
		MaxResults:     n,
		IncludeDomains: cleanList(req.AllowedDomains),
		ExcludeDomains: cleanList(req.BlockedDomains),
	})
	if err == nil && res == nil {
		err = &provider.Error{Provider: provider.NameOf(t.Searcher), Op: "search", Kind: provider.KindUnknown, Message: "no answer"}
	}
	if err != nil {
		return nil, providerError("The web search", err, provider.NameOf(t.Searcher))
	}
	out := &SearchResult{
		Query:     sanitize.Line(q),
		Provider:  sanitize.Line(nameOr(res.Provider, t.Searcher)),
		Results:   []Hit{},
		Failed:    failuresFrom(res.Failures),
		LocalDocs: docs,
		Elapsed:   t.now().Sub(start),
	}
	if len(out.Failed) == 0 {
		out.Failed = nil
	}
	for _, r := range res.Results {
		if len(out.Results) == n {
			break
		}
		// A result that is not a web link (a javascript:, data: or file:
		// URL, a URL with spaces or invisible characters) cannot be cited
		// as a source: it is left out, as the web search hook does.
		u := sanitize.URL(r.URL)
		if u == "" {
			continue
		}
		h := Hit{Title: t.redact(sanitize.Line(r.Title)), URL: t.redact(u), Snippet: t.redact(sanitize.Line(r.Snippet))}
		if h.Snippet == "" {
			h.Snippet = t.redact(sanitize.Line(r.Content))
		}
		if !r.Published.IsZero() {
			h.Published = r.Published.UTC().Format("2006-01-02")
		}
		for _, p := range r.Providers {
			h.Providers = append(h.Providers, sanitize.Line(p))
		}
		if len(h.Providers) == 0 && r.Provider != "" {
			h.Providers = []string{sanitize.Line(r.Provider)}
		}
		out.Results = append(out.Results, h)
	}
	return out, nil
}

// FetchRequest is one page read.
type FetchRequest struct {
	// URL is the page, an absolute http or https URL. Required.
	URL string
	// Prompt optionally says what the reader is looking for; extraction
	// providers use it, and [FetchResult.Text] keeps the most relevant
	// parts of a long page.
	Prompt string
}

// How a [FetchResult] was obtained.
const (
	// PathRoute: a tool route matched; Content is the route's message.
	PathRoute = "route"
	// PathReadable: the page's own HTML (or text) was readable and was
	// converted to Markdown here.
	PathReadable = "readable"
	// PathExtraction: an extraction provider read the page.
	PathExtraction = "extraction"
	// PathReadableFallback: extraction was needed but failed or was not
	// possible; Content is the best text of the page's own HTML, and Note
	// says why it may be incomplete.
	PathReadableFallback = "readable-fallback"
)

// FetchResult is a page read.
type FetchResult struct {
	// URL is the requested URL.
	URL string `json:"url"`
	// FinalURL is the URL after redirects, when the page was probed.
	FinalURL string `json:"final_url,omitempty"`
	// Status is the HTTP status the probe got; 0 when the probe failed or
	// did not run.
	Status int `json:"status,omitempty"`
	// ContentType is the media type the probe got.
	ContentType string `json:"content_type,omitempty"`
	// Class is the classifier's verdict on the page's HTML; empty when
	// the page was not classified (not HTML, or the probe failed).
	Class classify.Class `json:"class,omitempty"`
	// Confidence is the classifier's confidence in Class.
	Confidence float64 `json:"confidence,omitempty"`
	// Path says how Content was obtained: [PathRoute], [PathReadable],
	// [PathExtraction] or [PathReadableFallback].
	Path string `json:"path"`
	// Why says, for the extraction paths, why the page could not be used
	// as served ("is template-heavy", "could not be read directly (timed
	// out)").
	Why string `json:"why,omitempty"`
	// Provider is the extraction provider that read the page.
	Provider string `json:"provider,omitempty"`
	// Route is the name of the tool route that matched.
	Route string `json:"route,omitempty"`
	// Title is the page's title.
	Title string `json:"title,omitempty"`
	// Content is the readable content, Markdown for HTML pages.
	Content string `json:"content"`
	// Note explains a fallback: why the content may be incomplete.
	Note string `json:"note,omitempty"`
	// Failed lists the extraction providers that failed.
	Failed []Failure `json:"failed_providers,omitempty"`
	// Prompt is the request's prompt, kept for rendering.
	Prompt string `json:"-"`
	// Elapsed is how long the fetch took.
	Elapsed time.Duration `json:"-"`
}

// Fetch reads one page: a matching tool route answers first; otherwise the
// page is probed directly (SSRF-protected, see [hooks.Probe]) and
// classified. Readable HTML and plain text are converted here; template-
// heavy and browser-render-required pages, pages the probe could not read
// and pages that refused the probe (401, 403, 429, 5xx…) go to the
// Extractor. When extraction fails or no Extractor is configured, the best
// readable text of the page's own HTML is returned with a Note, if there is
// enough of it.
//
// Failures are [*Error] values: [BadInput] for a URL that is not http(s) or
// points at a refused address, [PageUnavailable] for pages that answered
// with a status such as 404, [NotConfigured] when extraction was needed
// without an Extractor and nothing else was readable, [ProviderFailed] when
// extraction failed and nothing else was readable.
//
// The fetch runs within [Tools.FetchTimeout] (or the caller's earlier
// deadline), probe and extraction included; past it, Fetch returns as
// [Tools.Search] does, with TimedOut set.
//
// The content gets the terminal rule of package sanitize, and every other
// text of the result (title, URLs, note, content type) the same rule on
// one line.
func (t *Tools) Fetch(ctx context.Context, req FetchRequest) (*FetchResult, error) {
	start := t.now()
	res, err := bound(ctx, t.FetchTimeout, DefaultFetchTimeout, "The fetch", func(ctx context.Context) (*FetchResult, error) {
		return t.fetch(ctx, req)
	})
	if err != nil {
		return nil, t.redactErr(err)
	}
	res.Elapsed = t.now().Sub(start)
	res.Content = t.redact(sanitize.Text(res.Content))
	res.Title = t.redact(sanitize.Line(res.Title))
	res.Note = t.redact(sanitize.Line(res.Note))
	res.Why = t.redact(sanitize.Line(res.Why))
	res.URL = sanitize.Line(res.URL)
	res.FinalURL = sanitize.Line(res.FinalURL)
	res.ContentType = sanitize.Line(res.ContentType)
	res.Provider = sanitize.Line(res.Provider)
	res.Prompt = sanitize.Text(res.Prompt)
	return res, nil
}

func (t *Tools) fetch(ctx context.Context, req FetchRequest) (*FetchResult, error) {
	raw := strings.TrimSpace(req.URL)
	if msg := checkURL(raw); msg != "" {
		return nil, &Error{Reason: BadInput, Message: msg}
	}
	res := &FetchResult{URL: raw, Prompt: req.Prompt}
	if rt, ok := t.Routes.Match(routing.ToolWebFetch, raw); ok {
		res.Path, res.Route, res.Content = PathRoute, rt.Name, rt.Message
		return res, nil
	}

	probe, err := hooks.Probe(ctx, raw, t.Probe)
	var fallback markdown.Document
	switch {
	case errors.Is(err, hooks.ErrBlockedAddress):
		return nil, &Error{Reason: BadInput, Message: "Refusing to fetch " + raw + ": " + trimErr(err, hooks.ErrBlockedAddress) + " (loopback, private-network and metadata addresses are not fetched)."}
	case errors.Is(err, hooks.ErrUnsupportedURL):
		return nil, &Error{Reason: BadInput, Message: "Cannot fetch " + raw + ": " + err.Error() + "."}
	case errors.Is(ctx.Err(), context.Canceled):
		return nil, &Error{Reason: PageUnavailable, Message: "The fetch was canceled before the page was read."}
	case ctx.Err() != nil:
		return nil, &Error{Reason: PageUnavailable, Message: "The page had not been read yet.", TimedOut: true}
	case err != nil:
		res.Why = "could not be read directly (" + probeError(err) + ")"
	default:
		res.FinalURL, res.Status, res.ContentType = probe.URL, probe.Status, probe.ContentType
		switch {
		case probe.Status >= 200 && probe.Status < 300:
		case hooks.RefusedStatus(probe.Status):
			res.Why = fmt.Sprintf("refused a direct read (HTTP %d)", probe.Status)
		default:
			return nil, &Error{Reason: PageUnavailable, Message: fmt.Sprintf("%s answered HTTP %d %s.", raw, probe.Status, http.StatusText(probe.Status))}
		}
		if res.Why != "" {
			break
		}
		switch {
		case probe.HTML():
			classifyFn := t.Classify
			if classifyFn == nil {
				classifyFn = classify.ClassifyBytes
			}
			verdict := classifyFn(probe.Body)
			res.Class, res.Confidence = verdict.Class, verdict.Confidence
			fallback = markdown.ConvertHTML(probe.Body, probe.URL)
			res.Title = fallback.Title
			switch verdict.Class {
			case classify.TemplateHeavy:
				res.Why = "is mostly navigation and page template"
			case classify.BrowserRenderRequired:
				res.Why = "shows its content only after JavaScript runs"
			default:
				if strings.TrimSpace(fallback.Markdown) != "" {
					res.Path, res.Content = PathReadable, fallback.Markdown
					if probe.Truncated {
						res.Note = "The page was longer than the read limit; only its beginning was converted."
					}
					return res, nil
				}
				res.Why = "has no readable text in its HTML"
			}
		case textual(probe.ContentType) && utf8.Valid(probe.Body):
			res.Path, res.Content = PathReadable, string(probe.Body)
			if probe.Truncated {
				res.Note = "The document was longer than the read limit; only its beginning is shown."
			}
			return res, nil
		default:
			res.Why = "is not HTML or text (" + probe.ContentType + ")"
		}
	}
	return t.extract(ctx, req, res, fallback)
}

// extract reads the page with the Extractor, falling back to the page's
// own readable text.
func (t *Tools) extract(ctx context.Context, req FetchRequest, res *FetchResult, fallback markdown.Document) (*FetchResult, error) {
	useFallback := func(note string) (*FetchResult, error) {
		res.Path, res.Content, res.Note = PathReadableFallback, fallback.Markdown, note
		return res, nil
	}
	hasFallback := len(strings.TrimSpace(fallback.Markdown)) >= minFallbackChars
	if t.Extractor == nil {
		note := fmt.Sprintf("The page %s, and no extraction provider has an API key.", res.Why)
		if hasFallback {
			return useFallback(joinSentences(note, "This is the text of the page as served, which may be incomplete.", t.ExtractHint))
		}
		return nil, &Error{Reason: NotConfigured, Message: joinSentences(note, t.ExtractHint)}
	}
	page, err := t.Extractor.Extract(ctx, provider.ExtractRequest{URL: res.URL, Query: req.Prompt, Format: provider.Markdown})
	if err == nil && (page == nil || strings.TrimSpace(page.Content) == "") {
		err = &provider.Error{Provider: provider.NameOf(t.Extractor), Op: "extract", Kind: provider.KindUnsupported, Message: "no content"}
	}
	if err != nil {
		perr := providerError("Extraction", err, provider.NameOf(t.Extractor))
		res.Failed = perr.Failures
		if hasFallback {
			return useFallback(fmt.Sprintf("The page %s, and extraction failed (%s): %s. This is the text of the page as served, which may be incomplete.", res.Why, perr.Class, failureList(perr.Failures)))
		}
		perr.Message = fmt.Sprintf("Could not read %s: the page %s, and extraction failed (%s): %s.", res.URL, res.Why, perr.Class, failureList(perr.Failures))
		if hint := classHint(perr.Class); hint != "" {
			perr.Message += " " + hint
		}
		return nil, perr
	}
	res.Path, res.Content = PathExtraction, page.Content
	res.Provider = nameOr(page.Provider, t.Extractor)
	if t := sanitize.Line(page.Title); t != "" {
		res.Title = t
	}
	return res, nil
}

// checkURL accepts absolute http and https URLs with a host and no
// credentials; otherwise it returns what is wrong, as a sentence.
func checkURL(raw string) string {
	if raw == "" {
		return "The URL is empty."
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Sprintf("%q is not a valid URL.", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q is not an http or https URL.", raw)
	case u.Hostname() == "":
		return fmt.Sprintf("%q has no host.", raw)
	case u.User != nil:
		return "URLs with credentials are not fetched."
	}
	return ""
}

// textual reports whether a media type is text worth showing as is.
func textual(mediaType string) bool {
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		mt = mediaType
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

// probeError describes a probe failure in a few words, for messages.
func probeError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	switch provider.KindOf(err) {
	case provider.KindTransient:
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
			return "timed out"
		}
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "tls:"), strings.Contains(msg, "x509:"), strings.Contains(msg, "certificate"):
		return "TLS error"
	case strings.Contains(msg, "redirects"):
		return "too many redirects"
	}
	return shorten(msg, 120)
}

// trimErr returns err's message without the sentinel's own prefix.
func trimErr(err, sentinel error) string {
	msg := err.Error()
	if i := strings.Index(msg, sentinel.Error()+": "); i >= 0 {
		return msg[i+len(sentinel.Error())+2:]
	}
	return msg
}

func nameOr(name string, v any) string {
	if name != "" {
		return name
	}
	if n := provider.NameOf(v); n != "unnamed" {
		return n
	}
	return "provider"
}

func cleanList(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func joinSentences(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

func shorten(s string, max int) string {
	s = sanitize.Line(s)
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// redact replaces every configured secret in s.
func (t *Tools) redact(s string) string {
	for _, sec := range t.Secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// redactErr gives an error's message the terminal rule on one line (it
// may echo remote text) and scrubs the secrets from it.
func (t *Tools) redactErr(err error) error {
	var e *Error
	if errors.As(err, &e) {
		e.Message = t.redact(sanitize.Line(e.Message))
		return e
	}
	return err
}
