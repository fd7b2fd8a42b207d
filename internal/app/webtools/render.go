package webtools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/webpage"
)

// snippetChars caps each result's snippet in [SearchResult.Text].
const snippetChars = 500

// Text renders the result for an agent or a terminal: a header, a note
// about matching local documentation indexes, one block per result (title,
// URL, date, snippet), the providers that failed, and a reminder to cite
// sources.
func (r *SearchResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Web search results for %q (via %s%s):\n", r.Query, r.Provider, memory.CachedAgo(r.Cached, time.Now()))
	if len(r.LocalDocs) > 0 {
		b.WriteString("\nNote: this query matches local documentation. Search it as well, with its MCP tool:\n")
		for _, d := range r.LocalDocs {
			fmt.Fprintf(&b, "- %s: call the MCP tool %s with path %q.\n", d.Description, d.MCPTool, d.Path)
		}
	}
	for i, h := range r.Results {
		title := h.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, title, h.URL)
		if h.Published != "" {
			fmt.Fprintf(&b, "   Published: %s\n", h.Published)
		}
		if h.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", shorten(h.Snippet, snippetChars))
		}
	}
	b.WriteString("\n")
	if len(r.Failed) > 0 {
		fmt.Fprintf(&b, "Providers that failed: %s.\n", failureList(r.Failed))
	}
	if len(r.Results) == 0 {
		b.WriteString("No results were found.\n")
	} else {
		b.WriteString("Cite the sources you use as Markdown links, e.g. [title](url).\n")
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
	case r.ContentType != "":
		verdict = "not HTML (" + r.ContentType + ")"
	}
	var how string
	switch r.Path {
	case PathRoute:
		how = "tool route " + r.Route
	case PathReadable:
		switch {
		case r.Class == "":
			how = "the document as served"
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
	return verdict + "; " + how + memory.CachedAgo(r.Cached, time.Now())
}

// Text renders the page for an agent: a header (title, URL, how it was
// read, the request, any note) and the content, cut to at most maxChars
// characters when maxChars > 0. When the content must be cut, the parts
// most relevant to the request's prompt are kept, in page order. A route's
// result is its message alone.
func (r *FetchResult) Text(maxChars int) string {
	if r.Path == PathRoute {
		return r.Content
	}
	var h strings.Builder
	if r.Title != "" {
		fmt.Fprintf(&h, "Title: %s\n", shorten(r.Title, 200))
	}
	u := r.FinalURL
	if u == "" {
		u = r.URL
	}
	fmt.Fprintf(&h, "URL: %s\n", u)
	fmt.Fprintf(&h, "Read: %s\n", r.Summary())
	if r.Prompt != "" {
		fmt.Fprintf(&h, "Request: %s\n", shorten(r.Prompt, 400))
	}
	if r.Note != "" {
		fmt.Fprintf(&h, "Note: %s\n", r.Note)
	}
	h.WriteString("\n")
	header := h.String()
	content := strings.TrimSpace(r.Content)
	if maxChars <= 0 {
		return header + content + "\n"
	}
	const noticeReserve = 200
	room := max(maxChars-len([]rune(header))-noticeReserve, 200)
	fit := webpage.FitContent(content, r.Prompt, room)
	var b strings.Builder
	b.WriteString(header)
	b.WriteString(fit.Text)
	if fit.Cut {
		if fit.ByRelevance {
			fmt.Fprintf(&b, "\n\n[Content cut to fit the size limit: kept the parts most relevant to the request, in page order; %d of %d sections omitted.]", fit.Omitted, fit.Total)
		} else {
			fmt.Fprintf(&b, "\n\n[Content cut to fit the size limit: only the beginning of the page is shown (%d of %d characters).]", len([]rune(fit.Text)), len([]rune(content)))
		}
	}
	b.WriteString("\n")
	return b.String()
}
