package webtools

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/webpage"
)

// snippetChars caps each result's snippet in [SearchResult.Text].
const snippetChars = 500

// Text renders the result for an agent or a terminal: a header, a note
// about matching local documentation indexes, one block per result (title,
// URL, date, snippet), the providers that failed, the filters providers
// did not apply ("Filters not applied: ignored by exa: country."), and a
// reminder to cite sources.
func (r *SearchResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Web search results for %q (via %s%s):\n", r.Query, r.Provider, textfmt.CachedAgo(r.Cached, time.Now()))
	if len(r.LocalDocs) > 0 {
		b.WriteString("\nNote: this query matches local documentation. Search it as well, with its MCP tool:\n")
		for _, d := range r.LocalDocs {
			fmt.Fprintf(&b, "- %s: call the MCP tool %s with path %q.\n", d.Description, d.MCPTool, d.Path)
		}
	}
	for i, h := range r.Results {
		h.head(&b, i+1)
		if h.Published != "" {
			fmt.Fprintf(&b, "   Published: %s\n", h.Published)
		}
		if h.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", textfmt.Shorten(h.Snippet, snippetChars))
		}
	}
	b.WriteString("\n")
	if len(r.Failed) > 0 {
		fmt.Fprintf(&b, "Providers that failed: %s.\n", failureList(r.Failed))
	}
	if line := ignoredLine(r.Ignored); line != "" {
		b.WriteString(line + "\n")
	}
	if len(r.Results) == 0 {
		b.WriteString("No results were found.\n")
	} else {
		b.WriteString("Cite the sources you use as Markdown links, e.g. [title](url).\n")
	}
	return b.String()
}

// ignoredLine says which providers answered without applying which
// filters: "Filters not applied: ignored by exa: country; ignored by
// jina: time_range, topic." Empty when none was ignored.
func ignoredLine(ignored map[string][]string) string {
	names := make([]string, 0, len(ignored))
	for n := range ignored {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		if fs := ignored[n]; len(fs) > 0 {
			parts = append(parts, "ignored by "+n+": "+strings.Join(fs, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Filters not applied: " + strings.Join(parts, "; ") + "."
}

// HumanText renders the result for a person at a terminal: as Text, with
// the providers that found each result, and without the reminders meant
// for an agent.
func (r *SearchResult) HumanText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Web search results for %q (via %s%s):\n", r.Query, r.Provider, textfmt.CachedAgo(r.Cached, time.Now()))
	for _, d := range r.LocalDocs {
		fmt.Fprintf(&b, "Also in local documentation: %s (MCP tool %s)\n", d.Description, d.MCPTool)
	}
	for i, h := range r.Results {
		h.head(&b, i+1)
		if h.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", textfmt.Shorten(h.Snippet, snippetChars))
		}
		var meta []string
		if h.Published != "" {
			meta = append(meta, "published "+h.Published)
		}
		if len(h.Providers) > 0 {
			meta = append(meta, "found by "+strings.Join(h.Providers, ", "))
		}
		if len(meta) > 0 {
			fmt.Fprintf(&b, "   (%s)\n", strings.Join(meta, "; "))
		}
	}
	if line := ignoredLine(r.Ignored); line != "" {
		b.WriteString("\n" + line + "\n")
	}
	if len(r.Failed) > 0 {
		fmt.Fprintf(&b, "\nProviders that failed: %s.\n", failureList(r.Failed))
	}
	if len(r.Results) == 0 {
		b.WriteString("\nNo results were found.\n")
	}
	return b.String()
}

// Summary describes in one line how the page was read: the classifier's
// verdict and the path taken, e.g. "fetch-readable (0.93); converted from
// the page's own HTML" or "template-heavy (0.81); extracted via tavily".
func (r *FetchResult) Summary() string {
	verdict := "not classified"
	switch {
	case r.Class != "":
		verdict = string(r.Class) + " (" + strconv.FormatFloat(r.Confidence, 'f', 2, 64) + ")"
	case r.Path == PathRoute:
		verdict = "not fetched"
	case r.Status != 0 && (r.Status < 200 || r.Status > 299):
		// An error page is not judged by its media type.
		verdict = "HTTP " + strconv.Itoa(r.Status)
	case r.ContentType != "" && !htmlType(r.ContentType):
		verdict = "not HTML (" + r.ContentType + ")"
	}
	var how string
	switch r.Path {
	case PathRoute:
		how = "tool route " + r.Route
	case PathReadable:
		switch {
		case r.Class == "" && strings.HasPrefix(strings.ToLower(r.ContentType), "application/pdf"):
			how = "read locally as a PDF document"
		case r.Class == "":
			how = "the document as served"
		case r.Why != "" && r.Mode == webpage.ConvertArticle:
			// A page the classifier doubted whose main body was found.
			how = "the page's main content, converted from its own HTML (the page " + r.Why + ", but its article was found)"
		case r.Why != "":
			how = "the page's structure, converted from its own HTML (the page " + r.Why + ")"
		default:
			how = "converted from the page's own HTML"
		}
	case PathRecovered:
		how = "recovered from the data the page embeds, because the page " + r.Why
	case PathRendered:
		how = "rendered in a browser, because the page " + r.Why
	case PathExtraction:
		how = "extracted via " + r.Provider + " because the page " + r.Why
	case PathReadableFallback:
		how = "converted from the page's own HTML as a fallback (the page " + r.Why + ")"
	}
	return verdict + "; " + how + textfmt.CachedAgo(r.Cached, time.Now())
}

// htmlType reports whether a media type is HTML's: a page of it that has
// no verdict was not classified, which does not make it another kind of
// document.
func htmlType(ct string) bool {
	ct = strings.ToLower(strings.TrimSpace(ct))
	return ct == "text/html" || ct == "application/xhtml+xml"
}

// Rendering is a fetch result rendered as text by [FetchResult.Render],
// with where the content it shows sits in the page's whole content
// (positions in characters as agents count them, UTF-16 code units).
type Rendering struct {
	// Text is the rendered result.
	Text string
	// TotalChars is the length of the page's whole content.
	TotalChars int
	// Offset is where the content shown starts.
	Offset int
	// NextOffset is where to read on in page order: where the content
	// shown stops, or 0 after a cut by relevance (the parts shown were
	// chosen, so reading in order starts at the beginning); nil when the
	// content shown reaches the end.
	NextOffset *int
	// ByRelevance reports that the parts shown were chosen by their
	// relevance to the prompt.
	ByRelevance bool
}

// Header returns the lines [FetchResult.Text] puts before the content
// (title, URL, how the page was read, the request, any note), ending with
// a blank line; empty for a tool route's result.
func (r *FetchResult) Header() string {
	if r.Path == PathRoute {
		return ""
	}
	var h strings.Builder
	if r.Title != "" {
		fmt.Fprintf(&h, "Title: %s\n", textfmt.Shorten(r.Title, 200))
	}
	u := r.FinalURL
	if u == "" {
		u = r.URL
	}
	fmt.Fprintf(&h, "URL: %s\n", u)
	if about := r.about(); about != "" {
		fmt.Fprintf(&h, "About: %s\n", about)
	}
	fmt.Fprintf(&h, "Read: %s\n", r.Summary())
	if r.Prompt != "" {
		fmt.Fprintf(&h, "Request: %s\n", textfmt.Shorten(r.Prompt, 400))
	}
	if r.Note != "" {
		fmt.Fprintf(&h, "Note: %s\n", r.Note)
	}
	h.WriteString("\n")
	return h.String()
}

// Text renders the page for an agent, in at most maxChars characters
// when maxChars > 0: [FetchResult.Render]'s text.
func (r *FetchResult) Text(maxChars int) string { return r.Render(maxChars, 0).Text }

// Render renders the page for an agent: the [FetchResult.Header] and the
// content. A route's result is its message alone.
//
// A page kept by [FetchResult.Page] is shown as is, followed by its range
// and where to read on ("[Characters 8000–16000 of 52311; next:
// offset=16000.]"); the limits do not apply to it. Otherwise the whole
// text is cut to at most maxChars characters when maxChars > 0, and the
// content to at most maxContent characters when maxContent > 0: when the
// content must be cut, the parts most relevant to the request's prompt
// are kept, in page order, or else its beginning, and a closing note says
// so and where to read on. Characters are counted as agents count them
// (UTF-16 code units).
func (r *FetchResult) Render(maxChars, maxContent int) Rendering {
	total := webpage.TextLen(r.Content)
	if r.Path == PathRoute {
		return Rendering{Text: r.Content, TotalChars: total}
	}
	if r.paged {
		return r.renderPage()
	}
	out := Rendering{TotalChars: total}
	header := r.Header()
	trimmed := strings.TrimLeftFunc(r.Content, unicode.IsSpace)
	lead := total - webpage.TextLen(trimmed)
	content := strings.TrimSpace(trimmed)
	room := maxContent
	if maxChars > 0 {
		// The closing note about a cut fits in noticeReserve.
		const noticeReserve = 300
		fits := max(maxChars-webpage.TextLen(header)-noticeReserve, 200)
		if room <= 0 || fits < room {
			room = fits
		}
	}
	if room <= 0 {
		out.Text = header + content + "\n"
		return out
	}
	fit := webpage.FitContent(content, r.Prompt, room)
	var b strings.Builder
	b.WriteString(header)
	b.WriteString(fit.Text)
	switch {
	case fit.Cut && fit.ByRelevance:
		out.ByRelevance, out.NextOffset = true, ptr(0)
		fmt.Fprintf(&b, "\n\n[Content cut to fit the size limit: kept the parts most relevant to the request, in page order; %d of %d sections omitted. To read the page in order, read it from offset=0.]", fit.Omitted, fit.Total)
	case fit.Cut:
		end := lead + webpage.TextLen(fit.Text)
		out.NextOffset = ptr(end)
		fmt.Fprintf(&b, "\n\n[Content cut to fit the size limit: only the beginning of the page is shown (characters 0–%d of %d; next: offset=%d).]", end, total, end)
	}
	b.WriteString("\n")
	out.Text = b.String()
	return out
}

// renderPage renders a page kept by Page.
func (r *FetchResult) renderPage() Rendering {
	end := r.Offset + webpage.TextLen(r.Content)
	out := Rendering{TotalChars: r.TotalChars, Offset: r.Offset, NextOffset: r.NextOffset}
	var b strings.Builder
	b.WriteString(r.Header())
	b.WriteString(strings.TrimRightFunc(r.Content, unicode.IsSpace))
	if r.NextOffset != nil {
		fmt.Fprintf(&b, "\n\n[Characters %d–%d of %d; next: offset=%d.]\n", r.Offset, end, r.TotalChars, *r.NextOffset)
	} else {
		fmt.Fprintf(&b, "\n\n[Characters %d–%d of %d: the end of the page.]\n", r.Offset, end, r.TotalChars)
	}
	out.Text = b.String()
	return out
}

func ptr[T any](v T) *T { return &v }

// about is the header's line on what the page says about itself:
// "By Ruth Okafor · Field Notes · published 2024-02-18 · language en",
// with what is known; empty when nothing is.
func (r *FetchResult) about() string { return r.Metadata.About() }

// head writes the first lines of result number n of a search: a blank
// line, its number and title ("(untitled)" when it has none), and its URL.
func (h Hit) head(b *strings.Builder, n int) {
	title := h.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(b, "\n%d. %s\n   %s\n", n, title, h.URL)
}
