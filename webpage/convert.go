package webpage

import (
	"net/http"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/markdown"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/internal/textfmt"
)

// MaxConvertBytes is how much of a page's HTML [ConvertHTML] reads; the
// rest is ignored and the Document says Truncated.
const MaxConvertBytes = markdown.MaxInput

// ConvertMode chooses how [ConvertHTMLMode] reads a page.
type ConvertMode string

// The conversions.
const (
	// ConvertAuto reads the page's main content ([ConvertArticle]) and
	// turns to its structure ([ConvertStructure]) when readability finds
	// little text. What [ConvertHTML] does.
	ConvertAuto ConvertMode = ""
	// ConvertArticle reads the main content a readability algorithm
	// finds: an article, a post, a documentation page.
	ConvertArticle ConvertMode = ConvertMode(markdown.ModeArticle)
	// ConvertStructure reads the page's useful structure — sections with
	// their headings, link lists, teasers — without the page's chrome.
	// For template-heavy pages: portals, listings, docs indexes.
	ConvertStructure ConvertMode = ConvertMode(markdown.ModeStructure)
)

// Document is a page converted to Markdown.
type Document struct {
	// Title is the page's title; may be empty.
	Title string
	// Markdown is the page's content: headings, paragraphs, lists, links
	// (absolute, http and https only), code blocks, quotes and tables,
	// without scripts, styles, navigation, forms and raw HTML; images are
	// reduced to their alt text.
	Markdown string
	// Mode is the conversion that produced Markdown, [ConvertArticle] or
	// [ConvertStructure]; empty when the page has no text (and for text
	// documents, which are not converted).
	Mode ConvertMode
	// TextChars is how many characters of text Markdown holds, without
	// markup and link targets; whitespace runs count as one.
	TextChars int
	// Truncated reports that the HTML was larger than the conversion reads
	// ([MaxConvertBytes], or too many elements); only its beginning was
	// converted.
	Truncated bool
	// Posts is how many posts of a discussion thread (a forum topic, a
	// question and its answers) the article conversion read, every post
	// rather than the first; zero when it read no thread.
	Posts int
	// Metadata is what the page says about itself: its byline, site name,
	// language and publication date. The article conversion reads it;
	// the Markdown does not repeat it.
	Metadata

	// listed is the page's <main> read whole when it is much links and
	// readability picked a small part of it: the reader judges the
	// article by it too ([Plan.articleHolds]).
	listed *Document
}

// Metadata is what a page says about itself, kept beside its content
// rather than written into it. Any field may be empty.
type Metadata struct {
	// Byline is the author line of an article ("By Ruth Okafor").
	Byline string `json:"byline,omitempty"`
	// SiteName is the site's name as the page declares it.
	SiteName string `json:"site_name,omitempty"`
	// Language is the page's declared language ("en", "fr-CA").
	Language string `json:"language,omitempty"`
	// Published is when the page says it was published; zero when it
	// does not say.
	Published time.Time `json:"published,omitzero"`
}

// About returns the one header line that says what the page says about
// itself ("By Ruth Okafor · The Daily · published 2026-03-02 · language
// en"), each part shortened; empty when every field is empty. Frontends
// show it beside the title, never inside the content.
func (m Metadata) About() string {
	var parts []string
	if m.Byline != "" {
		by := textfmt.Shorten(m.Byline, 120)
		if !strings.HasPrefix(strings.ToLower(by), "by ") {
			by = "By " + by
		}
		parts = append(parts, by)
	}
	if m.SiteName != "" {
		parts = append(parts, textfmt.Shorten(m.SiteName, 80))
	}
	if !m.Published.IsZero() {
		parts = append(parts, "published "+m.Published.UTC().Format("2006-01-02"))
	}
	if m.Language != "" {
		parts = append(parts, "language "+textfmt.Shorten(m.Language, 20))
	}
	return strings.Join(parts, " · ")
}

// ConvertHTML converts a page's HTML to Markdown locally with
// [ConvertAuto]; baseURL (the page's URL) resolves relative links. It
// never fetches anything and never fails.
func ConvertHTML(html []byte, baseURL string) Document {
	return ConvertHTMLMode(html, baseURL, ConvertAuto)
}

// ConvertHTMLMode converts a page's HTML to Markdown locally the way mode
// says; baseURL (the page's URL) resolves relative links. A reader that
// classified a page as template-heavy asks for [ConvertStructure]. It
// never fetches anything and never fails.
func ConvertHTMLMode(html []byte, baseURL string, mode ConvertMode) Document {
	cut := len(html) > MaxConvertBytes
	if cut {
		html = html[:MaxConvertBytes]
	}
	// Terminal escape sequences and other controls in the page's text are
	// removed whole before conversion, which would otherwise drop their
	// first byte and leave the rest ("[31m") as text.
	clean := []byte(sanitize.Text(string(html)))
	d := markdown.Convert(clean, baseURL, markdown.Options{Mode: markdown.Mode(mode)})
	doc := document(d, cut)
	if d.Listed != nil {
		listed := document(*d.Listed, cut)
		doc.listed = &listed
	}
	return doc
}

// document is the Document of a conversion; cut says the HTML was cut
// to [MaxConvertBytes] before it.
func document(d markdown.Document, cut bool) Document {
	return Document{Title: d.Title, Markdown: d.Markdown, Mode: ConvertMode(d.Mode), TextChars: d.TextChars, Truncated: d.Truncated || cut, Posts: d.Posts,
		Metadata: Metadata{Byline: d.Byline, SiteName: d.SiteName, Language: d.Language, Published: d.Published}}
}

// RefusedStatus reports whether an HTTP status means the site refused the
// reader (rather than the page not existing), so an extraction provider may
// still read it: 401, 403, 406, 429, 451 and every 5xx.
func RefusedStatus(code int) bool {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotAcceptable,
		http.StatusTooManyRequests, http.StatusUnavailableForLegalReasons:
		return true
	}
	return code >= 500
}
