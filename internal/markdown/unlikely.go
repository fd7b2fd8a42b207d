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

// keepMajority takes the class and id off an element that readability
// would remove as unlikely content ([unlikelyWords]) but that holds at
// least half of the text of body, whose length is pageChars: what holds
// most of a page is not its sidebar or its header. The element's own
// conversion does not need them.
func keepMajority(body *html.Node, pageChars int) {
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
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
		if 2*textLength(n) < pageChars {
			return false // smaller than half: nothing inside is half either
		}
		removeAttr(n, "class")
		removeAttr(n, "id")
		return true
	})
}
