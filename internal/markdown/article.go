package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// An article's page often keeps, inside the block readability picks, what
// is not the article: a table of contents before it; its references, the
// author's biography, related and popular posts, its comments after it.
// Each section says what it is in its heading.

// Kinds of section that are not the article.
const (
	notEndMatter = iota
	// contents: a table of contents, short entries without tables; it
	// ends at the next heading or at the first long paragraph.
	contents
	// references: a list of references, left out when it is long
	// ([minReferences]).
	references
	// extra: related posts, the author, comments, sharing.
	extra
)

// minReferences is how many entries a list of references must hold to be
// left out: a short one is read as part of the article, a bibliography
// of dozens of papers is not.
const minReferences = 20

// contentsHeadings and referenceHeadings hold the headings, in lower
// case and without a final colon, of a table of contents and of a list
// of references.
var (
	contentsHeadings  = map[string]bool{"table of contents": true, "contents": true, "in this article": true, "on this page": true, "jump to": true}
	referenceHeadings = map[string]bool{"references": true, "sources": true, "article sources": true, "bibliography": true, "works cited": true,
		"citations": true, "footnotes": true}
)

// endMatter holds the headings, in lower case and without a final colon,
// of the other sections of an article's page that are not the article.
var endMatter = map[string]bool{
	// Related posts.
	"related articles": true, "related posts": true, "related stories": true,
	"related reading": true, "you may also like": true, "you might also like": true, "you may like": true,
	"more stories": true, "read next": true, "read more": true, "recommended for you": true,
	"recommended articles": true, "popular posts": true, "popular articles": true, "most popular": true,
	"most read": true, "latest news": true, "latest posts": true, "latest articles": true, "recent posts": true,
	"other posts you may enjoy": true, "more articles": true, "trending": true, "trending now": true,
	"like this": true, "tags": true, "you may also be interested in": true, "editor's picks": true, "popular stories": true,
	"recommended reading": true, "recommended stories": true, "related news": true, "related links": true, "related topics": true,
	// Other products: on the development split, product 0.6546 ->
	// 0.6566, every other type unchanged.
	"related products": true, "similar items": true, "similar products": true, "recently viewed": true,
	"recently viewed items": true, "recently viewed products": true, "frequently bought together": true,
	"customers also viewed": true, "customers also bought": true, "customers who bought this item also bought": true,
	"customers who viewed this item also viewed": true, "people who viewed this item also viewed": true,
	"others like you also bought": true, "you may also enjoy": true, "shop the look": true, "complete the look": true,
	// The author.
	"about the author": true, "about the authors": true,
	// Comments.
	"comments": true, "leave a reply": true, "leave a comment": true,
	// Sharing and subscribing.
	"share this article": true, "share this post": true, "share this": true, "share": true,
	"subscribe to our newsletter": true, "sign up for our newsletter": true, "newsletter": true,
}

// endMatterKind returns the kind of section a heading's text names:
// [contents], [references], [extra] ([endMatter], or "12 comments"), or
// [notEndMatter].
func endMatterKind(text string) int {
	t := strings.TrimRight(strings.ToLower(collapse(text)), ": ")
	switch {
	case contentsHeadings[t]:
		return contents
	case referenceHeadings[t]:
		return references
	case endMatter[t]:
		return extra
	}
	if n, rest, ok := strings.Cut(t, " "); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		switch rest {
		case "comments", "comment", "responses", "response", "replies":
			return extra
		}
	}
	return notEndMatter
}

// headingRank returns the rank of a heading element (1 for <h1>), or 0.
func headingRank(n *html.Node) int {
	switch n.DataAtom {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// portalSections holds the headings, in lower case, of the sections of
// end matter ([endMatter]) that are a news portal's own content when the
// page is read for its structure: its most-read, trending and latest
// lists. A blog's sidebar widgets ("Recent posts", "Popular posts",
// "Tags") are not among them: they go from its structure as from its
// articles.
var portalSections = map[string]bool{
	"most popular": true, "most read": true, "latest news": true, "trending": true, "trending now": true,
	"popular stories": true, "more stories": true, "editor's picks": true,
}

// trimArticle removes from the content readability picked (and from a
// page's structure, with structure set) the sections whose heading says
// they are not the article ([endMatterKind]): the heading and what
// follows it up to the next heading of its rank or higher. A section
// that would take half the content or more stays, and so, in a page's
// structure, does a portal's section ([portalSections]).
func trimArticle(root *html.Node, structure bool) {
	var heads []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if headingRank(n) > 0 {
			text := textOf(n)
			if structure && portalSections[strings.TrimRight(strings.ToLower(collapse(text)), ": ")] {
				return false
			}
			if endMatterKind(text) != notEndMatter {
				heads = append(heads, n)
			}
			return false
		}
		return true
	})
	if len(heads) == 0 {
		return
	}
	total := textLength(root)
	for _, h := range heads {
		if h.Parent == nil {
			continue // removed with an earlier section
		}
		kind, rank := endMatterKind(textOf(h)), headingRank(h)
		if kind == contents {
			rank = 6 // a table of contents ends at the next heading
		}
		// A heading wrapped alone in its own block: the section follows
		// the block.
		start := h
		for start.Parent != nil && start.Parent != root && textLength(start.Parent) == textLength(h) {
			start = start.Parent
		}
		section := []*html.Node{start}
		size := textLength(start)
		for s := start.NextSibling; s != nil; s = s.NextSibling {
			if s.Type == html.ElementNode {
				if r := sectionRank(s); r > 0 && r <= rank {
					break
				}
				if kind == contents && !shortEntries(s) {
					break
				}
			}
			section = append(section, s)
			size += textLength(s)
		}
		if 2*size >= total || kind == references && entries(section) < minReferences {
			continue
		}
		for _, s := range section {
			if s.Parent != nil {
				s.Parent.RemoveChild(s)
			}
		}
	}
}

// sectionRank returns the rank of the heading an element is, or starts
// with, or 0.
func sectionRank(n *html.Node) int {
	for ; n != nil; n = n.FirstChild {
		for n != nil && n.Type == html.TextNode && strings.TrimSpace(n.Data) == "" {
			n = n.NextSibling
		}
		if n == nil || n.Type != html.ElementNode {
			return 0
		}
		if r := headingRank(n); r > 0 {
			return r
		}
	}
	return 0
}

// entries counts the list items and paragraphs of a section.
func entries(section []*html.Node) int {
	n := 0
	for _, s := range section {
		walk(s, func(x *html.Node) bool {
			if x.Type == html.ElementNode && (x.DataAtom == atom.Li || x.DataAtom == atom.P) {
				n++
				return false
			}
			return true
		})
	}
	return n
}

// shortEntries reports whether n holds no table and no list item or
// paragraph of [maxContentsEntry] characters or more (a list item's
// nested lists aside): a table of contents names the sections, it does
// not summarize them.
func shortEntries(n *html.Node) bool {
	ok := true
	walk(n, func(x *html.Node) bool {
		if !ok || x.Type != html.ElementNode {
			return false
		}
		switch x.DataAtom {
		case atom.Table:
			ok = false
		case atom.Li, atom.P:
			if textLength(x) >= maxContentsEntry && find(x, atom.Ul) == nil && find(x, atom.Ol) == nil {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// maxContentsEntry is the length of an entry that a table of contents
// does not hold.
const maxContentsEntry = 100

// extraWords are the words that, in a class or id of an element inside
// the content readability picked, name a block that is not the article:
// comments, related posts, newsletter and share boxes. ("related" alone
// is not one: a site names its article's own sections after the related
// links beside them; "toc" alone took article text: 0.9367 -> 0.9361.)
var extraWords = map[string]bool{
	"comments": true, "commentlist": true, "disqus": true, "relatedposts": true, "yarpp": true,
	"newsletter": true, "subscribe": true, "signup": true, "subscription": true,
	"share": true, "sharing": true, "social": true, "sharedaddy": true,
}

// extraSigns are the parts of a class or id, in lower case, that name a
// block that is not the article: related posts, a table of contents, the
// author's biography.
var extraSigns = []string{"related-post", "related_post", "relatedpost", "ez-toc", "table-of-contents",
	"author-bio", "author_bio", "authorbio", "about-author", "about_author", "author-box", "author_box", "authorbox",
	"author-info", "authorinfo", "author-details", "author-card", "author-description"}

// listingWidgetWords are the words that, in a class or id of the
// content readability picked, name a listing's controls rather than its
// items: filter, facet and sort panels, breadcrumbs, pagination. A
// collection's page read as an article kept its filter panel. On the
// development split (mean word F1), collection 0.6784 -> 0.6801, listing
// 0.7328 -> 0.7333, product 0.6544 -> 0.6546, article 0.9392 -> 0.9393,
// every other type unchanged.
var listingWidgetWords = map[string]bool{
	"filter": true, "filters": true, "facet": true, "facets": true, "sort": true, "sorting": true, "refinements": true,
	"breadcrumb": true, "breadcrumbs": true, "pagination": true, "pager": true,
}

// isListingWidget reports whether an element of the content readability
// picked is a listing's control ([listingWidgetWords]). An element that
// carries schema.org microdata (itemscope, itemprop) is an item of the
// content, whatever its class says ("filter-active" on a question a
// filter shows).
func isListingWidget(n *html.Node) bool {
	if _, ok := attrOK(n, "itemscope"); ok {
		return false
	}
	if _, ok := attrOK(n, "itemprop"); ok {
		return false
	}
	class, id := attr(n, "class"), attr(n, "id")
	return class != "" && hasWord(lowerASCII(class), listingWidgetWords) || id != "" && hasWord(lowerASCII(id), listingWidgetWords)
}

// isExtraBlock reports whether a class or id names a block that is not
// the article ([extraWords], [extraSigns]).
func isExtraBlock(v string) bool {
	if v == "" {
		return false
	}
	v = lowerASCII(v)
	return containsAny(v, extraSigns) || hasWord(v, extraWords)
}

// hasWord reports whether v, in lower case, holds one of words as a word
// of its own (a run of letters), without allocating.
func hasWord(v string, words map[string]bool) bool {
	start := -1
	for i := 0; i <= len(v); i++ {
		if i < len(v) && 'a' <= v[i] && v[i] <= 'z' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && words[v[start:i]] {
			return true
		}
		start = -1
	}
	return false
}

// dropExtraBlocks removes from the content readability picked the blocks
// whose class or id names them as not the article ([isExtraBlock]) and
// that hold less than a third of it. On a page that declares an article
// (captions), it also removes the images' captions and credits
// ([captionWords], <figcaption>) shorter than [maxCaption], outside
// tables, unless together they hold a fifth of the content or more: the
// reader reads the article, not the pictures' labels. On the
// development split (mean word F1), article 0.9348 -> 0.9362 (captions
// 0.9361 alone), product 0.6433 -> 0.6439; the captions of pages that do
// not declare an article are a listing's teasers and a service's offers
// (article 0.9363, listing 0.7252 -> 0.7226, collection 0.6734 ->
// 0.6662, service 0.8036 -> 0.8023).
func dropExtraBlocks(root *html.Node, captions bool) {
	total := -1
	var drop, caps []*html.Node
	capChars := 0
	walk(root, func(n *html.Node) bool {
		if n == root || n.Type != html.ElementNode {
			return n == root
		}
		if captions && (n.DataAtom == atom.Figcaption || isCaption(attr(n, "class"))) {
			if l := textLength(n); l < maxCaption && !inTable(n) {
				caps = append(caps, n)
				capChars += l
				return false
			}
			return true
		}
		// A heading's id is its own text ("why-social-shopping"), not a
		// widget's name.
		if headingRank(n) > 0 || !isExtraBlock(attr(n, "class")) && !isExtraBlock(attr(n, "id")) && !isListingWidget(n) {
			return true
		}
		if total < 0 {
			total = textLength(root)
		}
		if 3*textLength(n) >= total {
			return true
		}
		drop = append(drop, n)
		return false
	})
	if len(caps) > 0 {
		if total < 0 {
			total = textLength(root)
		}
		if capChars*maxCaptionShare < total {
			drop = append(drop, caps...)
		}
	}
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

// maxCaption is the length of a caption that is read: a long one tells
// a story (a listing's teaser in a figure's caption, a chart's
// explanation). On the development split, article 0.9367 at 150
// characters, 0.9370 at 300 (service 0.8036 -> 0.8038), 0.9370 at 600.
const maxCaption = 300

// maxCaptionShare: the captions are read when they hold more than
// 1/maxCaptionShare of the content (a listing's teasers are figures).
const maxCaptionShare = 5

// captionWords are the words that, in a class, name an image's caption
// or credit.
var captionWords = map[string]bool{"caption": true, "credit": true, "credits": true}

// isCaption reports whether a class names an image's caption or credit
// ([captionWords]).
func isCaption(class string) bool {
	return class != "" && hasWord(lowerASCII(class), captionWords)
}

// inTable reports whether n is inside a table (an infobox's caption is
// its content).
func inTable(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Table {
			return true
		}
	}
	return false
}
