package markdown

import (
	"golang.org/x/net/html"
)

// Readability removes, before it scores anything, each element whose
// class or id holds one of unlikelyWords (as part of a word: "header"
// matches "subheader") and none of likelyWords: a sidebar, a header, a
// comment thread. A page whose template names the container of its
// article that way ("full-width-template-with-sidebar") loses the article
// and is read as whatever small block is left.
var (
	unlikelyWords = []string{"-ad-", "ai2html", "banner", "breadcrumbs", "combx", "comment", "community", "cover-wrap", "disqus", "extra",
		"footer", "gdpr", "header", "legends", "menu", "related", "remark", "replies", "rss", "shoutbox", "sidebar", "skyscraper", "social",
		"sponsor", "supplemental", "ad-break", "agegate", "pagination", "pager", "popup", "yom-remote"}
	likelyWords = []string{"and", "article", "body", "column", "content", "main", "mathjax", "shadow"}
)

// spareFromReadability takes off the class and id by which readability
// would remove, unscored, what is not a template's part: a heading that
// a class or id calls a header ([headerHeading]), and an element named
// as unlikely content ([unlikelyWords]) that holds at least half of the
// text of body, whose length is pageChars (what holds most of a page is
// not its sidebar or its header), or that is a section's header
// ([sectionHeader]). Their conversion does not need them.
func spareFromReadability(body *html.Node, pageChars int) {
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if headingRank(n) > 0 {
			headerHeading(n)
			return true
		}
		class, id := attr(n, "class"), attr(n, "id")
		if class == "" && id == "" {
			return true
		}
		class, id = lowerASCII(class), lowerASCII(id)
		if !containsAny(class, unlikelyWords) && !containsAny(id, unlikelyWords) ||
			containsAny(class, likelyWords) || containsAny(id, likelyWords) {
			return true
		}
		if 2*textLength(n) < pageChars && !sectionHeader(n, class, id) {
			return true // its headings may still be spared
		}
		removeAttr(n, "class")
		removeAttr(n, "id")
		return true
	})
}

// headerHeading removes from a heading the class or id that calls it a
// header ("code-header", "section-header", "entry-header"): readability
// takes such a name for the page's header, not the heading it is, and
// removes the heading before it scores the page (rustdoc's item
// signatures, a service page's section titles).
func headerHeading(n *html.Node) {
	for _, name := range [...]string{"class", "id"} {
		if v := attr(n, name); v != "" && containsFold(v, "header") {
			removeAttr(n, name)
		}
	}
}
