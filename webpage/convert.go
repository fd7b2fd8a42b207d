package webpage

import (
	"net/http"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// Document is a page converted to Markdown.
type Document struct {
	// Title is the page's title; may be empty.
	Title string
	// Markdown is the page's main content: headings, paragraphs, lists,
	// links (absolute, http and https only), code, quotes and tables,
	// without scripts, styles, navigation, footers and forms.
	Markdown string
}

// ConvertHTML converts a page's HTML to Markdown locally; baseURL (the
// page's URL) resolves relative links. It never fetches anything.
func ConvertHTML(html []byte, baseURL string) Document {
	d := markdown.ConvertHTML(html, baseURL)
	return Document{Title: d.Title, Markdown: d.Markdown}
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
