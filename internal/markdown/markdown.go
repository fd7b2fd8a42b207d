package markdown

import (
	"bytes"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Bounds on the input of a conversion.
const (
	// MaxInput is how many bytes of a page are converted; the rest is
	// ignored and the Document says Truncated.
	MaxInput = 4 << 20
	// MaxElements is how many elements of a page are converted; the page
	// is cut before the element past it and the Document says Truncated.
	MaxElements = 40000
	// MaxDepth is how deep elements may nest; the content of an element
	// this deep is kept as its text alone.
	MaxDepth = 200
)

// MinArticleChars is how much text the article conversion must find for
// [ModeAuto] to keep it rather than turn to the page's structure.
const MinArticleChars = 250

// Mode chooses a conversion.
type Mode string

// The conversions.
const (
	// ModeAuto converts the page's main content ([ModeArticle]) and turns
	// to its structure ([ModeStructure]) when readability finds less than
	// [MinArticleChars] characters of text and the structure holds more,
	// and on a page that declares a product (JSON-LD, microdata, Open
	// Graph) when readability keeps too little of the page's structure.
	ModeAuto Mode = ""
	// ModeArticle converts the main content readability finds: an
	// article, a post, a documentation page.
	ModeArticle Mode = "article"
	// ModeStructure converts the page's useful structure — sections with
	// their headings, link lists, teasers — without scripts, styles,
	// forms, cookie banners, hidden elements and the page's navigation,
	// header and footer. Meant for portals, listings and indexes.
	ModeStructure Mode = "structure"
)

// Options tunes [Convert].
type Options struct {
	// Mode chooses the conversion; the zero value is [ModeAuto].
	Mode Mode
}

// Document is a page converted to Markdown.
type Document struct {
	// Title is the page's <title>, else the title readability finds, else
	// its first <h1>; whitespace is collapsed.
	Title string
	// Markdown is the converted content.
	Markdown string
	// Mode is the conversion that produced Markdown: [ModeArticle] or
	// [ModeStructure]; empty when the page has no text.
	Mode Mode
	// TextChars is how many characters of text Markdown holds, without
	// markup and link targets, whitespace runs counted as one.
	TextChars int
	// Truncated reports that the page was larger than [MaxInput] or
	// [MaxElements]; only its beginning was converted.
	Truncated bool
	// Byline is the article's author line, as the article conversion
	// found it; empty for the structure conversion and when the page
	// names none.
	Byline string
	// SiteName is the site's name the page declares (og:site_name and
	// the like); empty when it declares none.
	SiteName string
	// Language is the page's language as it declares it (the lang
	// attribute of <html>, a language <meta>); may be empty.
	Language string
	// Published is when the page says it was published; zero when it
	// does not say.
	Published time.Time
	// Posts is how many posts of a discussion thread (a forum topic, a
	// question and its answers) the article conversion read; zero when
	// it read no thread.
	Posts int

	// Listed is the page's <main> read whole, when the article
	// conversion found readability's pick a small part of a <main> of
	// which a quarter to two fifths is link text: a shop's grid or an
	// index beside its introduction. Markdown stays readability's pick;
	// a reader that must choose between the article and the page's
	// structure judges the page by this reading. Nil otherwise.
	Listed *Document

	// titleChars is how much text the article's title, which readability
	// takes out of the content, holds.
	titleChars int
}

// ConvertHTML turns a page's HTML into readable Markdown with [ModeAuto].
// base, the page's URL, resolves relative links; it may be empty, and then
// relative links keep their text alone. Malformed HTML is read as a browser
// would; ConvertHTML never fails.
func ConvertHTML(page []byte, base string) Document {
	return Convert(page, base, Options{})
}

// Convert turns a page's HTML into readable Markdown with the conversion
// opts asks for. base, the page's URL, resolves relative links; it may be
// empty. Only http and https links are kept as links; a link to anything
// else (javascript:, data:, mailto:, …) keeps its text alone. Convert never
// fails.
func Convert(page []byte, base string, opts Options) Document {
	page, truncated := bound(page)
	var doc Document
	switch opts.Mode {
	case ModeStructure:
		doc = convertStructure(page, base)
	case ModeArticle:
		doc, _ = convertArticle(page, base, true)
	default:
		// On a page that sells a product, the product fallback, not the
		// page's <main>, makes up for what readability cut.
		product := sellsProduct(page)
		var pageChars int
		doc, pageChars = convertArticle(page, base, !product)
		// The article's title counts with its text: readability takes
		// it out of the content, and the structure keeps it. The
		// structure must hold a quarter more to be worth its chrome.
		if read := doc.TextChars + doc.titleChars; read < MinArticleChars && pageChars > read {
			if s := convertStructure(page, base); 4*s.TextChars > 5*read {
				doc = s
			}
		} else if doc.Mode == ModeArticle && doc.Posts == 0 && product {
			doc = productFallback(doc, page, base)
		}
	}
	doc.Truncated = truncated
	if doc.Markdown == "" {
		doc.Mode, doc.TextChars = "", 0
	}
	return doc
}

// bound cuts page to [MaxInput] bytes and [MaxElements] elements.
func bound(page []byte) ([]byte, bool) {
	truncated := false
	if len(page) > MaxInput {
		page, truncated = page[:MaxInput], true
	}
	// An element takes at least three bytes ("<a>"), so a short page
	// cannot have too many.
	if len(page) <= 3*MaxElements {
		return page, truncated
	}
	// Nor can a page with no more "<" than the bound; counting them is
	// much cheaper than tokenizing.
	if bytes.Count(page, []byte("<")) <= MaxElements {
		return page, truncated
	}
	z := html.NewTokenizer(bytes.NewReader(page))
	offset, elements := 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return page, truncated
		}
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			elements++
			if elements > MaxElements {
				return page[:offset], true
			}
		}
		offset += len(z.Raw())
	}
}

// parse parses page and prepares it for conversion: nesting bounded, the
// base URL found, the title read.
func parse(page []byte, base string) (*html.Node, *url.URL, string) {
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		root = &html.Node{Type: html.DocumentNode}
	}
	flatten(root, MaxDepth)
	revealStreamed(root, page)
	dropPlaceholders(root, page)
	spaceAdjacent(root)
	return root, baseURL(root, base), pageTitle(root)
}

// convertArticle converts the main content readability finds. It also
// returns how much text the page holds once cleaned. widen lets a page
// readability cut to one section be read as its <main> ([widerMain]);
// the listed reading ([Document.Listed]) is made with or without it.
func convertArticle(page []byte, base string, widen bool) (Document, int) {
	root, u, title := parse(page, base)
	body := findBody(root)
	if body == nil {
		return Document{Title: title}, 0
	}
	pageChars := textLength(body)
	if pageChars == 0 {
		return Document{Title: title}, 0
	}
	// The head stays: readability reads the title and byline there.
	(&cleaner{base: u, dropChrome: true, pageChars: pageChars}).clean(body, false)
	// Readability moves the page's elements; the threads are copied out
	// before it runs.
	threads := findThreads(body, articleNotThread(page))
	sections := findSectionGroups(body)
	product := declaresProduct(page)
	if product {
		dropProductExtras(body)
	}
	var whole mainPart
	if !declaresDiscussion(page) {
		whole = measureMain(body)
	}
	spareFromReadability(body, pageChars)
	p := readability.NewParser()
	p.KeepClasses = true // code blocks name their language in classes
	p.DisableJSONLD = true
	art, err := p.ParseAndMutate(root, nil)
	if title == "" && err == nil {
		title = collapse(art.Title())
	}
	if err != nil || art.Node == nil {
		return Document{Title: title}, pageChars
	}
	// What the content holds that is not the article (article.go).
	trimArticle(art.Node, false)
	dropExtraBlocks(art.Node, declaresArticle(page))
	// Readability rearranges the tree; check its result once more.
	(&cleaner{base: u, strip: true, trusted: true}).clean(art.Node, true)
	dropRepeatedSiblings(art.Node)
	if product {
		// A product page says its name, price and blurbs more than once
		// (a gallery's captions, a sticky buy bar, a tab and its copy
		// for small screens): they are said once. On the development
		// split, product 0.629 -> 0.637, service 0.801 -> 0.804; read
		// on every page, it lowered collection, documentation and forum.
		dropRepeats(art.Node)
	}
	doc := render(art.Node, title, ModeArticle)
	if doc.Markdown == "" {
		return doc, pageChars
	}
	// A thread whose post readability picked is read whole.
	held, discussion := false, declaresDiscussion(page)
	for _, t := range threads {
		if threadHolds(t, art.Node, doc.TextChars, discussion) {
			held = true
			(&cleaner{base: u, strip: true, trusted: true}).clean(t.region, true)
			// The thread as read, its chrome dropped, must hold half the
			// article still.
			if d := render(t.region, title, ModeArticle); 2*d.TextChars >= doc.TextChars {
				doc, doc.Posts = d, t.posts
			}
			break
		}
	}
	// On a page that declares a discussion, replies marked apart from the
	// first post readability picked follow it.
	if !held && len(threads) > 0 && discussion && threadFollows(threads[0], art.Node) {
		t := threads[0]
		(&cleaner{base: u, strip: true, trusted: true}).clean(t.region, true)
		if d := render(t.region, title, ModeArticle); d.Markdown != "" {
			doc.Markdown += "\n\n" + d.Markdown
			doc.TextChars += d.TextChars + 1
			doc.Posts = t.posts + 1
		}
	}
	// A page readability cut to one of its sections is read whole.
	if widen && doc.Posts == 0 {
		if m := widerSections(sections, art.Node, doc.TextChars); m != nil {
			(&cleaner{base: u, strip: true, trusted: true}).clean(m, true)
			if d := render(m, title, ModeArticle); 2*d.TextChars >= 3*doc.TextChars {
				doc = d
			}
		}
	}
	// A page readability cut to one section is read as its <main> when
	// widen allows it; one whose <main> is much links is judged by it
	// ([Document.Listed]) on every page, a shop's too, since that
	// reading is not the answer.
	if doc.Posts == 0 && collapse(art.Byline()) == "" {
		if more, listed := mayHoldMore(whole, doc.TextChars); more && widen || listed {
			if m := widerMain(page, base, art.Node); m != nil {
				if d := render(m, title, ModeArticle); 2*d.TextChars >= 3*doc.TextChars {
					if more && widen {
						doc = d
					} else {
						doc.Listed = &d
					}
				}
			}
		}
	}
	// Readability often demotes the article's own heading; when the
	// content starts with it, it is the title again. No heading is added
	// when the content has none: the title, byline and dates are the
	// Document's fields, not text of the content.
	if first, rest, ok := headingTitled(doc.Markdown, collapse(art.Title())); ok {
		doc.Markdown = "# " + first + rest
	} else if first, rest, ok := headingTitled(doc.Markdown, title); ok {
		doc.Markdown = "# " + first + rest
	}
	doc.titleChars = visibleChars(collapse(art.Title()))
	doc.Byline = collapse(art.Byline())
	doc.SiteName = collapse(art.SiteName())
	doc.Language = collapse(art.Language())
	if t, err := art.PublishedTime(); err == nil && !t.IsZero() {
		doc.Published = t
	}
	return doc, pageChars
}

// headingTitled reports whether md starts with a heading that says
// title, or part of it, and returns the heading's text and what follows
// it.
func headingTitled(md, title string) (text, rest string, ok bool) {
	line, after, found := strings.Cut(md, "\n")
	if !strings.HasPrefix(line, "#") {
		return "", "", false
	}
	text = collapse(strings.TrimLeft(line, "#"))
	// A page's title often adds the site's name to the article's.
	if len(text) < 3 || !strings.Contains(escapeLine(title), text) && !strings.Contains(title, text) {
		return "", "", false
	}
	if found {
		rest = "\n" + after
	}
	return text, rest, true
}

// escapeLine makes a line of plain text safe to put in Markdown as text:
// characters that could start markup or HTML are escaped.
func escapeLine(s string) string {
	s = lineEscaper.Replace(s)
	if s != "" && strings.IndexByte("#-+>=|~", s[0]) >= 0 {
		s = `\` + s
	}
	return s
}

var lineEscaper = strings.NewReplacer(`\`, `\\`, "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "*", `\*`, "_", `\_`, "`", "\\`")

// convertStructure converts the page's useful structure.
func convertStructure(page []byte, base string) Document {
	root, u, title := parse(page, base)
	body := findBody(root)
	if body == nil {
		return Document{Title: title}
	}
	// Keep an untouched copy in case dropping the chrome leaves nothing.
	spare := cloneNode(body)
	pageChars := textLength(body)
	if declaresProduct(page) {
		// Before the cleaner takes the classes away.
		dropProductExtras(body)
	}
	(&cleaner{base: u, dropChrome: true, keepAsides: true, strip: true, widgets: true, pageChars: pageChars}).clean(body, false)
	node := mainContent(body)
	// A shop's text about the category often follows its <main>.
	var prose []*html.Node
	if node != body {
		prose = trailingProse(body, node)
	}
	if n := textLength(node); n < MinArticleChars {
		// Dropping the chrome left little: a page made of a menu and
		// links is read whole. When it left nothing, the page as served
		// is its template alone (an app that fills itself in with its
		// scripts): its header and footer are not its content. On the
		// development split, product +0.025, listing +0.010, service
		// +0.006; articles in structure mode 13 -> 11 of 793.
		(&cleaner{base: u, strip: true, pageChars: pageChars}).clean(spare, false)
		if n > 0 && textLength(spare) > 4*n {
			node = spare
		}
	}
	// The sections its headings name as not the content, as in an
	// article: related and recommended posts and products, comments,
	// a blog's sidebar lists; a news portal's most-read and latest lists
	// stay. On the development split, article 0.9393 -> 0.9401 (one of
	// the ten read in structure mode), documentation 0.9194 -> 0.9201,
	// collection 0.6801 -> 0.6805, product 0.6566 -> 0.6561, listing
	// unchanged.
	// A collection is its list of items with its heading (itemlist.go).
	if region := itemListRegion(node); region != nil {
		node = region
	}
	node = followedBy(node, prose)
	trimArticle(node, true)
	dropRepeats(node)
	dropCopyrightTail(node)
	return render(node, title, ModeStructure)
}

// dropRepeatedSiblings removes every element that says what an earlier
// sibling of it says, word for word: the copies of a carousel's or a
// ticker's slides that scroll without end (a service page's figures and
// quotes, said three or six times over).
func dropRepeatedSiblings(root *html.Node) {
	var drop []*html.Node
	walk(root, func(n *html.Node) bool {
		// Code and tables say what they say as often as they say it.
		if n.Type != html.ElementNode || n.DataAtom == atom.Pre || n.DataAtom == atom.Code || n.DataAtom == atom.Table {
			return false
		}
		// Copies share their element type and class; only those
		// siblings' texts are compared.
		var kinds map[string]int
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if repeatable(ch) {
				if kinds == nil {
					kinds = map[string]int{}
				}
				kinds[ch.Data+"."+attr(ch, "class")]++
			}
		}
		var seen map[string]bool
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if !repeatable(ch) || kinds[ch.Data+"."+attr(ch, "class")] < 2 {
				continue
			}
			key := squeeze(textOf(ch))
			if len(key) < minRepeat || find(ch, atom.Pre) != nil || find(ch, atom.Code) != nil || find(ch, atom.Table) != nil {
				continue
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			if seen[key] {
				drop = append(drop, ch)
				continue
			}
			seen[key] = true
		}
		return true
	})
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

// repeatable reports whether a sibling may be a copy
// ([dropRepeatedSiblings]): an element with content, not a paragraph.
func repeatable(n *html.Node) bool {
	return n.Type == html.ElementNode && n.DataAtom != atom.P && n.FirstChild != nil
}

// minRepeat is how long, without whitespace, a sibling's text must be
// for its copy to be dropped: a short label ("List", "New") may say
// something new by its place.
const minRepeat = 20

// dropRepeats removes, from a page read for its structure, every block
// whose text an earlier block already says: the second copy of a menu or
// a banner (one for small screens, one for large), and the labels every
// item of a list repeats ("Add to cart", "Compare", "Read more"). Text in
// tables and code stays, repeated or not, and so do the items of an
// ordered list (a ranking says something new by its order). Measured on the development
// split of the extraction benchmark: mean word F1 forum +0.009, product
// +0.009, listing +0.004, collection +0.001, service -0.002.
func dropRepeats(root *html.Node) {
	seen := map[string]bool{}
	var drop []*html.Node
	// visit looks at n's descendants in document order; it reports
	// whether n is or holds a block.
	var visit func(n *html.Node) bool
	visit = func(n *html.Node) bool {
		inner := false
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type != html.ElementNode {
				continue
			}
			switch ch.DataAtom {
			case atom.Table, atom.Pre:
				inner = true
				continue
			}
			if visit(ch) {
				inner = true
			}
		}
		if !isBlock(n.DataAtom) {
			return inner
		}
		ranked := n.DataAtom == atom.Li && n.Parent != nil && n.Parent.DataAtom == atom.Ol
		if !inner && !ranked {
			// A block of text alone: the unit that is kept or dropped.
			if key := strings.ToLower(collapse(textOf(n))); key != "" {
				if seen[key] {
					drop = append(drop, n)
				}
				seen[key] = true
			}
		}
		return true
	}
	visit(root)
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

// render converts a cleaned node to Markdown.
func render(n *html.Node, title string, mode Mode) Document {
	dropActionLabels(n)
	out, err := conv().ConvertNode(n)
	if err != nil {
		return Document{Title: title}
	}
	md := strings.TrimSpace(string(out))
	return Document{Title: title, Markdown: md, Mode: mode, TextChars: visibleChars(md)}
}

// conv is the HTML-to-Markdown converter, shared: it keeps no state
// between conversions.
var conv = sync.OnceValue(func() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(
			commonmark.WithListEndComment(false),
			commonmark.WithLinkEmptyContentBehavior(commonmark.LinkBehaviorSkip),
			commonmark.WithLinkEmptyHrefBehavior(commonmark.LinkBehaviorSkip),
		),
		strikethrough.NewStrikethroughPlugin(),
		table.NewTablePlugin(table.WithSkipEmptyRows(true), table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal)),
	))
})

// visibleChars counts the text of Markdown: link targets, markup and
// escapes left out, whitespace runs counted as one character.
func visibleChars(md string) int {
	n, space := 0, true
	for i := 0; i < len(md); {
		c := md[i]
		switch {
		case c == ']' && i+1 < len(md) && md[i+1] == '(':
			// Skip the link target.
			if j := strings.IndexByte(md[i:], ')'); j > 0 {
				i += j + 1
				continue
			}
		case strings.IndexByte("#*_`|>[]\\~-", c) >= 0:
			i++
			continue
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			if !space {
				n++
				space = true
			}
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(md[i:])
		n++
		space = false
		i += size
	}
	if space && n > 0 {
		n--
	}
	return n
}

// baseURL is the URL relative links are resolved against: base, moved by
// the page's <base href> when that stays a web address.
func baseURL(root *html.Node, base string) *url.URL {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || !u.IsAbs() {
		return nil
	}
	if b := find(root, atom.Base); b != nil {
		if href, ok := attrOK(b, "href"); ok {
			if v, err := u.Parse(strings.TrimSpace(href)); err == nil {
				u = v
			}
		}
	}
	return u
}

// pageTitle is the page's <title>, else its first <h1>.
func pageTitle(root *html.Node) string {
	if t := find(root, atom.Title); t != nil {
		if s := collapse(textOf(t)); s != "" {
			return s
		}
	}
	if h := find(root, atom.H1); h != nil {
		return collapse(textOf(h))
	}
	return ""
}

// findBody returns the document's body, or its root element when it has
// none.
func findBody(root *html.Node) *html.Node {
	if b := find(root, atom.Body); b != nil {
		return b
	}
	for c := root.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

// mainPart measures the page's <main> element before readability
// rearranges the page.
type mainPart struct {
	found bool
	// chars and links count its text and the text of its links.
	chars, links int
}

// findMain returns the single <main> or role="main" element of a cleaned
// body; nil when the page has none or several.
func findMain(body *html.Node) *html.Node {
	found := mainElements(body)
	if len(found) != 1 {
		return nil
	}
	return found[0]
}

// mainElements returns the outermost <main> and role="main" elements
// under body, in document order.
func mainElements(body *html.Node) []*html.Node {
	var found []*html.Node
	walk(body, func(n *html.Node) bool {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Main || attr(n, "role") == "main") {
			found = append(found, n)
			return false
		}
		return true
	})
	return found
}

// measureMain measures the page's <main> ([findMain]); the zero mainPart
// when the page has none, or one that holds a comment section (a post's
// page: its comments are not its content).
func measureMain(body *html.Node) mainPart {
	m := findMain(body)
	if m == nil {
		return mainPart{}
	}
	links, comments := 0, false
	walk(m, func(n *html.Node) bool {
		if n.Type != html.ElementNode || comments {
			return false
		}
		if n.DataAtom == atom.A {
			links += textLength(n)
			return false
		}
		id, class := lowerASCII(attr(n, "id")), lowerASCII(attr(n, "class"))
		comments = strings.Contains(id, "comment") || strings.Contains(class, "comment") || strings.Contains(id, "respond")
		return !comments
	})
	if comments {
		return mainPart{}
	}
	return mainPart{found: true, chars: textLength(m), links: links}
}

// mayHoldMore reports whether the page's <main> holds half as much text
// again as readability's pick: more when a quarter of it at most is
// links (a service page whose sections readability cut to the longest),
// listed when a quarter to two fifths is (a shop's grid or an index
// beside its introduction, which readability cut to the introduction).
func mayHoldMore(m mainPart, articleChars int) (more, listed bool) {
	if !m.found || 2*m.chars < 3*articleChars {
		return false, false
	}
	return 4*m.links <= m.chars, 4*m.links > m.chars && 5*m.links <= 2*m.chars
}

// widerMain reads the page again and returns its cleaned <main> when that
// holds readability's pick (its text sampled at each quarter); nil when
// it does not. Readability rearranged the first reading; the page is
// parsed again only for the few pages [mayHoldMore] lets through.
func widerMain(page []byte, base string, article *html.Node) *html.Node {
	samples := textSamples(article, 4)
	if len(samples) < 3 {
		return nil
	}
	root, u, _ := parse(page, base)
	body := findBody(root)
	if body == nil {
		return nil
	}
	// Cleaned as the first reading was.
	(&cleaner{base: u, dropChrome: true, pageChars: textLength(body)}).clean(body, false)
	if declaresProduct(page) {
		dropProductExtras(body)
	}
	m := findMain(body)
	if m == nil {
		return nil
	}
	text := squeeze(textOf(m))
	for _, s := range samples {
		if !strings.Contains(text, s) {
			return nil
		}
	}
	(&cleaner{base: u, strip: true, trusted: true}).clean(m, true)
	return m
}

// mainContent picks, in a cleaned body, the single <main> or role="main"
// element when it holds most of the text, else the body.
func mainContent(body *html.Node) *html.Node {
	total := textLength(body)
	found := mainElements(body)
	if len(found) == 1 {
		if n := textLength(found[0]); n > 0 && n*2 >= total {
			return found[0]
		}
	}
	return body
}
