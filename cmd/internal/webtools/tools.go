package webtools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/webpage"
)

// Defaults of [Tools].
const (
	// MaxResultsLimit is the most results a request may ask for.
	MaxResultsLimit = 20
	// DefaultSearchTimeout bounds a whole search when
	// [Tools.SearchTimeout] is zero.
	DefaultSearchTimeout = 25 * time.Second
	// DefaultFetchTimeout bounds a whole fetch, probe and extraction
	// included, when [Tools.FetchTimeout] is zero.
	DefaultFetchTimeout = 30 * time.Second
)

// Tools searches the web and reads pages for an agent or a user. The zero
// value is usable: without a Searcher every search fails with
// [NotConfigured], and without a Reader pages are read by a
// [webpage.Reader] with no extraction provider and the default probe
// settings.
//
// A Tools is safe for concurrent use once built; its fields must not change
// after the first call.
type Tools struct {
	// Searcher runs searches, usually the configured search policy. Nil
	// means no search provider has keys.
	Searcher provider.Searcher
	// Reader reads pages: the SSRF-protected probe, the classifier, the
	// local tiers and the extraction policy, usually the one
	// assemble.Build returns. Nil means a zero [webpage.Reader]: no
	// extraction provider, default probe settings.
	Reader *webpage.Reader
	// Docs routes documentation queries to local indexes; nil means none.
	// A matching search still runs; its result carries a note naming the
	// MCP tool to use.
	Docs *routing.DocsRouter
	// Routes are tool routes; a fetch whose URL matches a WebFetch route
	// answers with the route's message instead of reading the page.
	Routes *routing.ToolRouter
	// MaxResults is how many results a search asks for when the request
	// leaves it open; 0 means [policy.DefaultMaxResults].
	MaxResults int
	// SearchHint and ExtractHint complete the message of a
	// [NotConfigured] error: what to set so that searching or extraction
	// works (for example the environment variables holding API keys).
	SearchHint, ExtractHint string
	// PrivateHint, when set, completes the message of a fetch refused for
	// its address: what to set so that the page can be read, or "" when
	// no setting lifts the refusal for that URL (a cloud metadata
	// endpoint).
	PrivateHint func(rawURL string) string
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

func (t *Tools) now() time.Time { return defaults.Now(t.Now) }

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
	// TimeRange restricts results to pages published within the past
	// day, week, month or year; empty means any time. Providers that
	// cannot filter by date say so in their package documentation.
	TimeRange provider.TimeRange
	// Topic asks for a kind of search: general, news or finance; empty
	// leaves it to the providers' configuration. Providers that cannot
	// search by topic run a general search, and the result says so
	// ([SearchResult.Ignored]).
	Topic provider.Topic
}

// TimeRanges lists the values [SearchRequest.TimeRange] accepts besides
// the empty one.
var TimeRanges = []provider.TimeRange{provider.PastDay, provider.PastWeek, provider.PastMonth, provider.PastYear}

// Topics lists the values [SearchRequest.Topic] accepts besides the empty
// one.
var Topics = provider.Topics

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
	// Ignored maps each provider that answered without applying some
	// filters of the request (time_range, topic, …) to those filters'
	// names; nil when every filter was applied.
	Ignored map[string][]string `json:"ignored,omitempty"`
	// Elapsed is how long the search took.
	Elapsed time.Duration `json:"-"`
	// Cached is when the results were fetched, for an answer from the
	// cache; zero for a fresh search.
	Cached time.Time `json:"cached_at,omitzero"`
}

// Search runs req with the Searcher. A search that succeeds with no hits
// returns a result with no Results and a nil error. Failures are
// [*Error] values: [BadInput] for an empty query, a bad result count, an
// unknown time range or topic,
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
	if req.TimeRange != provider.AnyTime && !slices.Contains(TimeRanges, req.TimeRange) {
		return nil, &Error{Reason: BadInput, Message: fmt.Sprintf("time_range must be day, week, month or year, not %q.", sanitize.Line(string(req.TimeRange)))}
	}
	if req.Topic != provider.AnyTopic && !slices.Contains(Topics, req.Topic) {
		return nil, &Error{Reason: BadInput, Message: fmt.Sprintf("topic must be general, news or finance, not %q.", sanitize.Line(string(req.Topic)))}
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
		n = policy.DefaultMaxResults
	}
	start := t.now()
	res, err := t.Searcher.Search(ctx, provider.Query{
		Text:           q,
		MaxResults:     n,
		IncludeDomains: textfmt.NonBlank(req.AllowedDomains),
		ExcludeDomains: textfmt.NonBlank(req.BlockedDomains),
		TimeRange:      req.TimeRange,
		Topic:          req.Topic,
	})
	if err == nil && res == nil {
		err = &provider.Error{Provider: provider.NameOf(t.Searcher), Op: "search", Kind: provider.KindUnknown, Message: "no answer"}
	}
	if err != nil {
		return nil, searchError(err, provider.NameOf(t.Searcher))
	}
	out := &SearchResult{
		Query:     q,
		Provider:  provider.NameOr(res.Provider, t.Searcher, "provider"),
		Results:   []Hit{},
		Failed:    failuresFrom(res.Failures),
		LocalDocs: docs,
		Ignored:   res.Ignored,
		Elapsed:   t.now().Sub(start),
		Cached:    res.Cached,
	}
	if len(out.Failed) == 0 {
		out.Failed = nil
	}
	for _, r := range res.Results {
		h := Hit{Title: r.Title, URL: r.URL, Snippet: r.Snippet}
		if sanitize.Line(h.Snippet) == "" {
			h.Snippet = r.Content
		}
		if !r.Published.IsZero() {
			h.Published = r.Published.UTC().Format("2006-01-02")
		}
		h.Providers = append(h.Providers, r.Providers...)
		if len(h.Providers) == 0 && r.Provider != "" {
			h.Providers = []string{r.Provider}
		}
		out.Results = append(out.Results, h)
	}
	out.Clean(t.Secrets...)
	if len(out.Results) > n {
		out.Results = out.Results[:n]
	}
	return out, nil
}

// ignoredFrom copies a provider's Ignored map with every name on one
// clean line, leaving out empty entries; nil when nothing was ignored.
func ignoredFrom(in map[string][]string) map[string][]string {
	var out map[string][]string
	for name, filters := range in {
		var clean []string
		for _, f := range filters {
			if f = sanitize.Line(f); f != "" && !slices.Contains(clean, f) {
				clean = append(clean, f)
			}
		}
		if len(clean) == 0 {
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[sanitize.Line(name)] = clean
	}
	return out
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
	// PathReadable: the page's own HTML (or text) was converted to
	// Markdown here: a page readable as served, or the structure of a
	// template-heavy page (Note says so) ([webpage.SourceLocal]).
	PathReadable = "readable"
	// PathRecovered: the page's text was recovered from the data it embeds
	// for its scripts ([webpage.SourceRecovered]).
	PathRecovered = "recovered"
	// PathRendered: the page was rendered in a browser, then converted
	// ([webpage.SourceRendered]).
	PathRendered = "rendered"
	// PathExtraction: an extraction provider read the page
	// ([webpage.SourceProvider]).
	PathExtraction = "extraction"
	// PathReadableFallback: nothing else could read the page; Content is
	// the text of the page's own HTML, and Note says why it may be
	// incomplete ([webpage.SourceLocalFallback]).
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
	// [PathRecovered], [PathRendered], [PathExtraction] or
	// [PathReadableFallback].
	Path string `json:"path"`
	// Mode says how a page read locally from its HTML was converted:
	// for its main content ("article") or its structure ("structure").
	Mode webpage.ConvertMode `json:"mode,omitempty"`
	// Why says, for every path but [PathReadable] of a page readable as
	// served, why the page could not be used as served ("is mostly
	// navigation and page template", "could not be read directly (timed
	// out)").
	Why string `json:"why,omitempty"`
	// Provider is the extraction provider that read the page.
	Provider string `json:"provider,omitempty"`
	// Route is the name of the tool route that matched.
	Route string `json:"route,omitempty"`
	// Title is the page's title.
	Title string `json:"title,omitempty"`
	// Metadata is what the page says about itself when it was read
	// locally: byline, site name, language and publication date, each
	// omitted when empty. The content does not repeat it.
	webpage.Metadata
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
	// Cached is when the page was read, for an answer from the cache;
	// zero for a fresh read.
	Cached time.Time `json:"cached_at,omitzero"`
	// TotalChars is the length of the page's whole content, in characters
	// as agents count them (UTF-16 code units, see [webpage.TextLen]).
	TotalChars int `json:"total_chars"`
	// Offset is where Content starts in the whole content: 0 unless
	// [FetchResult.Page] kept one page of it.
	Offset int `json:"offset"`
	// NextOffset is where the rest of the content starts when Content
	// stops before its end ([FetchResult.Page]); nil when Content reaches
	// the end.
	NextOffset *int `json:"next_offset"`

	// paged is set by Page.
	paged bool
}

// Page keeps the part of Content that starts at offset and holds at most
// maxChars characters (UTF-16 code units, as agents count them; 0 means
// no limit), cut by [webpage.CutWindow]: at a character boundary, after a
// paragraph, a line or a word when one is near the end, and not inside a
// Markdown link when the page can end before it. Offset and NextOffset
// then say where the page sits; reading the same URL again and keeping
// the page at NextOffset reads on, until NextOffset is nil, and the pages
// together are the whole content. [FetchResult.Text] renders a page as
// is, with its range and the next offset, instead of fitting the content
// to the prompt.
//
// Page applies to a result of [Tools.Fetch], once. A tool route's message
// is kept whole. A negative offset or maxChars, or an offset at or past
// the end of the content (but 0), is a [BadInput] error.
func (r *FetchResult) Page(offset, maxChars int) error {
	switch {
	case offset < 0:
		return &Error{Reason: BadInput, Message: fmt.Sprintf("offset must not be negative, got %d.", offset)}
	case maxChars < 0:
		return &Error{Reason: BadInput, Message: fmt.Sprintf("max_chars must not be negative, got %d.", maxChars)}
	}
	total := webpage.TextLen(r.Content)
	r.TotalChars = total
	if r.Path == PathRoute {
		return nil
	}
	if offset > 0 && offset >= total {
		return &Error{Reason: BadInput, Message: fmt.Sprintf("offset %d is past the end of the page's content, which has %d characters.", offset, total)}
	}
	w := webpage.CutWindow(r.Content, offset, maxChars)
	r.Content, r.Offset, r.NextOffset, r.paged = w.Text, w.Start, nil, true
	if w.More() {
		next := w.End
		r.NextOffset = &next
	}
	return nil
}

// Fetch reads one page: a matching tool route answers first; otherwise
// the page is read with the [Tools.Reader] ([webpage.Reader.Read]): probed
// directly (SSRF-protected), classified, converted here when it is
// readable as served, read by the reader's local tiers or its extraction
// provider when it is not. When nothing else could read it, the page's own
// text is returned with a Note, if there is enough of it.
//
// Failures are [*Error] values: [BadInput] for a URL that is not http(s) or
// points at a refused address, [PageUnavailable] for pages that answered
// with a status such as 404, [NotConfigured] when extraction was needed
// without an extraction provider and nothing else was readable,
// [ProviderFailed] when extraction failed and nothing else was readable.
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
	res.Clean(t.Secrets...)
	return res, nil
}

// Clean gives every text of r the rule a search's result gets, wherever
// it came from (the providers, or a team gateway's answer): the terminal
// rule of package sanitize on one line for the query, the provider names,
// the titles and the snippets, the documentation indexes and the
// failures; a hit whose URL is not an http or https link ([sanitize.URL])
// is dropped. Every secret is replaced ([textfmt.Scrub]).
func (r *SearchResult) Clean(secrets ...string) {
	line := func(s string) string { return textfmt.Scrub(sanitize.Line(s), secrets...) }
	r.Query = sanitize.Line(r.Query)
	r.Provider = sanitize.Line(r.Provider)
	kept := r.Results[:0]
	for _, h := range r.Results {
		// A result that is not a web link (a javascript:, data: or file:
		// URL, a URL with spaces or invisible characters) cannot be cited
		// as a source: it is left out, as the web search hook does.
		u := sanitize.URL(h.URL)
		if u == "" {
			continue
		}
		h.URL = textfmt.Scrub(u, secrets...)
		h.Title, h.Snippet = line(h.Title), line(h.Snippet)
		h.Published = sanitize.Line(h.Published)
		var names []string
		for _, p := range h.Providers {
			if p = sanitize.Line(p); p != "" {
				names = append(names, p)
			}
		}
		h.Providers = names
		kept = append(kept, h)
	}
	clear(r.Results[len(kept):])
	r.Results = kept
	if r.Results == nil {
		r.Results = []Hit{}
	}
	for i := range r.LocalDocs {
		d := &r.LocalDocs[i]
		d.Description, d.MCPTool, d.Path = sanitize.Line(d.Description), sanitize.Line(d.MCPTool), sanitize.Line(d.Path)
	}
	cleanFailures(r.Failed, secrets)
	r.Ignored = ignoredFrom(r.Ignored)
}

// Clean gives every text of r the rule a read page gets, wherever it
// came from (the page and the providers, or a team gateway's answer):
// the terminal rule of package sanitize for the content, the same rule
// on one line for every other text (title, URLs, note, content type,
// provider, route, failures). Every secret is replaced
// ([textfmt.Scrub]); TotalChars is counted anew.
func (r *FetchResult) Clean(secrets ...string) {
	redact := func(s string) string { return textfmt.Scrub(s, secrets...) }
	r.Content = redact(sanitize.Text(r.Content))
	r.Title = redact(sanitize.Line(r.Title))
	r.Byline = redact(sanitize.Line(r.Byline))
	r.SiteName = redact(sanitize.Line(r.SiteName))
	r.Language = sanitize.Line(r.Language)
	r.Note = redact(sanitize.Line(r.Note))
	r.Why = redact(sanitize.Line(r.Why))
	r.URL = sanitize.Line(r.URL)
	r.FinalURL = sanitize.Line(r.FinalURL)
	r.ContentType = sanitize.Line(r.ContentType)
	r.Provider = sanitize.Line(r.Provider)
	r.Route = sanitize.Line(r.Route)
	r.Path = sanitize.Line(r.Path)
	r.Class = classify.Class(sanitize.Line(string(r.Class)))
	r.Mode = webpage.ConvertMode(sanitize.Line(string(r.Mode)))
	r.Prompt = sanitize.Text(r.Prompt)
	cleanFailures(r.Failed, secrets)
	r.TotalChars = webpage.TextLen(r.Content)
}

// cleanFailures gives the failures' texts the terminal rule on one line
// and replaces every secret in their causes.
func cleanFailures(fs []Failure, secrets []string) {
	for i := range fs {
		f := &fs[i]
		f.Provider = sanitize.Line(f.Provider)
		f.Class = provider.Class(sanitize.Line(string(f.Class)))
		f.LegacyClass = provider.Class(sanitize.Line(string(f.LegacyClass)))
		f.Cause = textfmt.Scrub(sanitize.Line(f.Cause), secrets...)
	}
}

func (t *Tools) fetch(ctx context.Context, req FetchRequest) (*FetchResult, error) {
	raw := strings.TrimSpace(req.URL)
	if raw == "" {
		return nil, &Error{Reason: BadInput, Message: "The URL is empty."}
	}
	if _, err := webpage.CheckURL(raw); err != nil {
		return nil, badURL(raw, err)
	}
	res := &FetchResult{URL: raw, Prompt: req.Prompt}
	if rt, ok := t.Routes.Match(routing.ToolWebFetch, raw); ok {
		res.Path, res.Route, res.Content = PathRoute, rt.Name, rt.Message
		return res, nil
	}
	reader := t.Reader
	if reader == nil {
		reader = &webpage.Reader{}
	}
	page, err := reader.Read(ctx, webpage.Request{URL: raw, Prompt: req.Prompt})
	if err != nil {
		return nil, t.readError(ctx, raw, err)
	}
	if p := page.Plan; p != nil {
		res.Status, res.ContentType, res.Why = p.Status, p.ContentType, p.Why
		if p.Verdict != nil {
			res.Class, res.Confidence = p.Verdict.Class, p.Verdict.Confidence
		}
	}
	res.FinalURL, res.Title, res.Content, res.Note = page.FinalURL, page.Title, page.Content, page.Note
	res.Metadata, res.Mode = page.Metadata, page.Mode
	res.Cached = page.Cached
	res.Failed = failuresFrom(page.Failures)
	if len(res.Failed) == 0 {
		res.Failed = nil
	}
	switch page.Source {
	case webpage.SourceProvider:
		res.Path = PathExtraction
		res.Provider = provider.NameOr(page.Provider, reader.Extractor, "provider")
	case webpage.SourceRecovered:
		res.Path = PathRecovered
	case webpage.SourceRendered:
		res.Path = PathRendered
	case webpage.SourceLocalFallback:
		res.Path = PathReadableFallback
		if len(page.Failures) == 0 {
			// No provider was asked: say how to configure one.
			res.Note = joinSentences(res.Note, t.ExtractHint)
		}
	default:
		res.Path = PathReadable
	}
	return res, nil
}

// readError maps the reader's error for raw to an [*Error].
func (t *Tools) readError(ctx context.Context, raw string, err error) error {
	var e *webpage.Error
	if !errors.As(err, &e) {
		return &Error{Reason: PageUnavailable, Message: "Could not read " + raw + ": " + textfmt.Shorten(err.Error(), 200) + "."}
	}
	switch e.Kind {
	case webpage.KindBadURL:
		return badURL(raw, e.Err)
	case webpage.KindBlocked:
		msg := "Refusing to fetch " + raw + ": " + trimErr(e.Err, webpage.ErrBlockedAddress) + " (loopback, private-network and metadata addresses are not fetched)."
		if t.PrivateHint != nil {
			msg = joinSentences(msg, t.PrivateHint(raw))
		}
		return &Error{Reason: BadInput, Message: msg}
	case webpage.KindHTTPStatus:
		return &Error{Reason: PageUnavailable, Message: fmt.Sprintf("%s answered HTTP %d %s.", raw, e.Status, http.StatusText(e.Status))}
	case webpage.KindNoProvider:
		if e.LocalOnly {
			// Providers have keys; the configuration keeps pages from them.
			return &Error{Reason: PageUnavailable, Message: fmt.Sprintf("The page %s, and no local reader could read it; fetch.order = local-only sends no page to an extraction provider.", e.Why)}
		}
		return &Error{Reason: NotConfigured, Message: joinSentences(fmt.Sprintf("The page %s, and no extraction provider has an API key.", e.Why), t.ExtractHint)}
	case webpage.KindExtraction:
		return extractionError(raw, e)
	case webpage.KindPrivate:
		return &Error{Reason: PageUnavailable, Message: fmt.Sprintf("Could not read %s: the page %s, no local reader could read it, and it was not sent to an extraction provider: %s (a page at a private address is never sent to a third party).", raw, e.Why, trimErr(e.Err, webpage.ErrBlockedAddress))}
	case webpage.KindCanceled:
		switch {
		case errors.Is(ctx.Err(), context.Canceled):
			return &Error{Reason: PageUnavailable, Message: "The fetch was canceled before the page was read."}
		case len(e.Failures) > 0:
			// The deadline ended an extraction: name the providers asked.
			return extractionError(raw, e)
		}
		return &Error{Reason: PageUnavailable, Message: "The page had not been read yet.", TimedOut: true}
	}
	return &Error{Reason: PageUnavailable, Message: "Could not read " + raw + ": " + textfmt.Shorten(e.Error(), 200) + "."}
}

// extractionError is the [ProviderFailed] error of a page that needed
// extraction when every extraction provider failed.
func extractionError(raw string, e *webpage.Error) *Error {
	fails := failuresFrom(e.Failures)
	class := provider.ClassOf(e.Err)
	if e.Kind != webpage.KindExtraction && len(fails) > 0 {
		// The deadline ended the extraction: the providers' classes say
		// more than the context's.
		class = fails[0].Class
	}
	msg := fmt.Sprintf("Could not read %s: the page %s, and extraction failed: %s.", raw, e.Why, failureList(fails))
	if hint := classHint(class); hint != "" {
		msg += " " + hint
	}
	return &Error{Reason: ProviderFailed, Class: class, Failures: fails, Message: msg, TimedOut: allTimedOut(fails)}
}

// badURL is the [BadInput] error of a URL the reader does not accept.
func badURL(raw string, err error) *Error {
	msg := fmt.Sprintf("%q is not an http or https URL with a host and no credentials", raw)
	if err != nil {
		msg += ": " + trimErr(err, webpage.ErrUnsupportedURL)
	}
	return &Error{Reason: BadInput, Message: msg + "."}
}

// trimErr returns err's message without the sentinel's own prefix; "" for
// a nil err.
func trimErr(err, sentinel error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	if i := strings.Index(msg, sentinel.Error()+": "); i >= 0 {
		return msg[i+len(sentinel.Error())+2:]
	}
	return msg
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

// redact replaces every configured secret in s ([textfmt.Scrub]).
func (t *Tools) redact(s string) string { return textfmt.Scrub(s, t.Secrets...) }

// redactErr gives an error's message the terminal rule on one line (it
// may echo remote text) and scrubs the secrets from it.
func (t *Tools) redactErr(err error) error {
	var e *Error
	if errors.As(err, &e) {
		e.Clean(t.Secrets...)
		return e
	}
	return err
}

// Clean gives e's message and failures the terminal rule on one line
// (they may echo remote text) and replaces every secret in them
// ([textfmt.Scrub]), wherever e came from (the providers, or a team
// gateway's answer).
func (e *Error) Clean(secrets ...string) {
	e.Message = textfmt.Scrub(sanitize.Line(e.Message), secrets...)
	e.Class = provider.Class(sanitize.Line(string(e.Class)))
	cleanFailures(e.Failures, secrets)
}
