package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// sectionHeader reports whether n, an element whose class or id (class
// and id, in lower case) calls it a header or a banner, is a section's
// header rather than the page's masthead or an advertisement: it holds a heading below the page's title (h2 to h6)
// and text besides it, at most [maxSectionHeader] characters, mostly not
// links, and no navigation. A service page's sections open with such a
// block ("section-header": a heading and its blurb; a pricing card's
// "card-header": its plan and what it is for), which readability removes
// unscored as it would the page's masthead; a "feature-banner" opening
// a section likewise. A header holding its heading alone is left to
// [headerHeading]. On the development split of the extraction benchmark,
// service 0.8424 -> 0.8452 (0.8447 with headers alone), article 0.9502
// -> 0.9508, collection -0.0004, the others unchanged.
func sectionHeader(n *html.Node, class, id string) bool {
	if !namesSectionTop(class) && !namesSectionTop(id) {
		return false
	}
	heading, nav := false, false
	links, headings := 0, 0
	walk(n, func(x *html.Node) bool {
		if x.Type != html.ElementNode || nav {
			return false
		}
		switch {
		case x.DataAtom == atom.Nav || strings.EqualFold(attr(x, "role"), "navigation"):
			nav = true
			return false
		case x.DataAtom == atom.A:
			links += textLength(x)
			return false
		case headingRank(x) >= 2:
			heading = true
			headings += textLength(x)
			return false
		}
		return true
	})
	if !heading || nav {
		return false
	}
	l := textLength(n)
	return l <= maxSectionHeader && 4*links <= l && l > headings+1
}

// maxSectionHeader is how much text a section's header holds at most: a
// heading, a subtitle and a blurb. More is a part of the page a class
// names after its header ("with-header", "section-with-header").
const maxSectionHeader = 500

// namesSectionTop reports whether a class or id, in lower case, calls its
// element a header or a banner, as readability's unlikely words do (as
// part of a word: "subheader", "herobanner").
func namesSectionTop(v string) bool {
	return strings.Contains(v, "header") || strings.Contains(v, "banner")
}
