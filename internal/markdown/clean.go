package markdown

import (
	"github.com/webgate-dev/webgate/internal/lazyre"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/webgate-dev/webgate/internal/sanitize"
)

// cleaner prepares a tree for conversion: it removes what must not reach
// the output (scripts, styles, embedded content, forms, hidden elements,
// cookie banners), reduces images to their alt text, and rewrites every
// link to an absolute http or https URL or to its text alone.
type cleaner struct {
	// base resolves relative links; nil keeps only absolute ones.
	base *url.URL
	// dropChrome also removes the page's navigation, header, footer and
	// search outside its <main> or <article>.
	dropChrome bool
	// keepAsides keeps <aside> elements (most-read lists, related links)
	// when dropping the chrome.
	keepAsides bool
	// strip removes the attributes the conversion does not read (before
	// readability runs they are kept: its scoring reads classes and ids).
	strip bool
	// trusted says an earlier pass already rewrote the links: web links
	// are kept as they are, anything else still loses its link.
	trusted bool
	// widgets also removes, wherever they are, the elements whose class
	// or id names a widget ([widgetWords]) and that hold less than a
	// third of pageChars: the page's text, measured before cleaning
	// (zero when not measured; [cleaner.hidesPage] reads it too); and
	// reads no image's alt text nor <figcaption> (a structure's pictures
	// are thumbnails).
	widgets   bool
	pageChars int
}

// widgetWords are the words that, in an element's class or id, name a
// widget of the page's template rather than its content: menus and what
// opens over the page, a listing's filter and sort panels, breadcrumbs,
// pagination, newsletter and share boxes. Each was kept because it adds
// on the development split of the extraction benchmark, pages read for
// their structure (mean word F1; see dropWidget).
var widgetWords = map[string]bool{
	"menu": true, "dropdown": true, "flyout": true, "overlay": true, "modal": true, "offcanvas": true, "drawer": true, "navbar": true,
	"filter": true, "filters": true, "facet": true, "facets": true, "sort": true, "sorting": true, "refinements": true,
	"breadcrumb": true, "breadcrumbs": true, "pagination": true, "pager": true, "newsletter": true, "share": true, "social": true,
}

// namesWidget reports whether a class or id holds one of [widgetWords]
// as a word of its own ("main-menu", "filter_panel"; not "navbarTop":
// "navbartop" is one word).
func namesWidget(v string) bool {
	return v != "" && hasWord(lowerASCII(v), widgetWords)
}

// dropWidget reports whether an element is a widget of the page's
// template that the structure conversion leaves out. On the development
// split, mean word F1 rose: listing 0.697 -> 0.711, collection 0.658 ->
// 0.666, product 0.562 -> 0.573, forum 0.726 -> 0.730, service 0.788 ->
// 0.789; articles and documentation unchanged.
func (c *cleaner) dropWidget(n *html.Node) bool {
	if !c.widgets || n.DataAtom == atom.Body || n.DataAtom == atom.Main {
		return false
	}
	class, id := attr(n, "class"), attr(n, "id")
	if namesWidget(class) || namesWidget(id) {
		return 3*textLength(n) < c.pageChars
	}
	if namesFooter(class) || namesFooter(id) {
		l := textLength(n)
		return l >= minFooterChars && 3*l < c.pageChars
	}
	return false
}

// minFooterChars is how much text an element a class or id calls a
// footer ([namesFooter]) must hold to be the page's footer: an item's
// card or a dialog has a footer too, with a price or a button, and it
// stays.
const minFooterChars = 80

// namesFooter reports whether a class or id names a footer, as a word or
// inside one ("site-footer", "navFooter", "footerLinks"): the page's
// footer that is not marked up as a <footer>, or is inside its <main>.
// On the development split of the extraction benchmark (mean word F1),
// listing 0.7293 -> 0.7318, collection 0.6769 -> 0.6784, product 0.6520
// -> 0.6539, service 0.8190 -> 0.8182 (one page whose structure, now
// shorter, is read as its article), every other type unchanged or up.
func namesFooter(v string) bool {
	return v != "" && containsFold(v, "footer")
}

// Signs of elements that are not content, in a class or id. They are
// matched by hand rather than with regular expressions: drop looks at
// every element of every page, and the expressions took a fifth of the
// reader's CPU time.
var (
	// cookieSigns, in lower case, are the words of a cookie banner's
	// class or id.
	cookieSigns = []string{"cookie", "consent", "gdpr", "onetrust", "cookiebot", "didomi", "truste", "cmp-banner", "cc-window", "cc-banner", "privacy-banner"}
	// screenReaderClasses, in lower case, are the classes of text meant
	// for screen readers only, and of skip links.
	screenReaderClasses = map[string]bool{"sr-only": true, "visually-hidden": true, "visuallyhidden": true, "screen-reader-text": true,
		"screen-reader-only": true, "a11y-hidden": true, "skip-link": true, "skip-to-content": true}
	langClass = lazyre.New(`(?:^|\s)(?:language-|lang-|highlight-source-|highlight-|brush:\s*)([A-Za-z0-9_+#.-]+)`)
)

// isCookieBanner reports whether a class or id names a cookie banner.
func isCookieBanner(s string) bool {
	if s == "" {
		return false
	}
	s = lowerASCII(s)
	for _, w := range cookieSigns {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// popupWords are the words that, in a class or id, name what opens over
// the page on a click or a key (mdBook's keyboard help, a newsletter's
// or an offer's popup), not the page.
var popupWords = map[string]bool{"popup": true, "popover": true}

// maxPopup is how much text a popup holds at most; more is the page in
// a lightbox's wrapper.
const maxPopup = 1500

// namesPopup reports whether a class or id holds one of [popupWords] as
// a word of its own.
func namesPopup(v string) bool {
	return v != "" && containsFold(v, "pop") && hasWord(lowerASCII(v), popupWords)
}

// hiddenClasses, in lower case, are the classes frameworks and forum
// engines hide an element with (display: none): Bootstrap's, XenForo's,
// Invision's, Bulma's. "hide" is not one: pages hide their whole body
// with it until a script has run.
var hiddenClasses = map[string]bool{"hidden": true, "d-none": true, "u-hidden": true, "ipshide": true, "is-hidden": true}

// isHiddenClass reports whether a class attribute hides its element on
// every screen: a hiding class ([hiddenClasses]) and no class that shows
// it again on some screens (Tailwind's "lg:block", "show@medium",
// Bootstrap's "d-md-block", "visible-lg").
func isHiddenClass(class string) bool {
	// Every hiding class says "hid" or "none"; most class lists say
	// neither, and are not split.
	if !containsFold(class, "hid") && !containsFold(class, "none") {
		return false
	}
	hidden := false
	for _, c := range strings.Fields(class) {
		c = lowerASCII(c)
		if hiddenClasses[c] {
			hidden = true
			continue
		}
		if strings.ContainsAny(c, ":@") || strings.HasPrefix(c, "d-") || strings.HasPrefix(c, "show") || strings.HasPrefix(c, "visible") {
			return false
		}
	}
	return hidden
}

// containsFold reports whether s holds word, a lower-case ASCII word, in
// any case, without allocating.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for ; j < len(word); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != word[j] {
				break
			}
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// isScreenReaderOnly reports whether a class attribute holds a class of
// text meant for screen readers only.
func isScreenReaderOnly(class string) bool {
	for _, c := range strings.Fields(class) {
		if screenReaderClasses[lowerASCII(c)] {
			return true
		}
	}
	return false
}

// isMainElement reports whether n is the page's main content element:
// <main>, or an element whose role is main.
func isMainElement(n *html.Node) bool {
	return n.DataAtom == atom.Main || strings.EqualFold(attr(n, "role"), "main")
}

// isHiddenStyle reports whether an inline style hides its element
// (display: none, visibility: hidden), whatever its spacing and case.
func isHiddenStyle(style string) bool {
	if style == "" {
		return false
	}
	var b strings.Builder
	b.Grow(len(style))
	for i := 0; i < len(style); i++ {
		c := style[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	s := b.String()
	return strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden")
}

// lowerASCII lower-cases the ASCII letters of s, without allocating when
// it has none in upper case.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// clean cleans the children of n; inMain says n is inside the page's
// main content (<main>, role="main" or <article>).
func (c *cleaner) clean(n *html.Node, inMain bool) {
	for ch := n.FirstChild; ch != nil; {
		next := ch.NextSibling
		switch ch.Type {
		case html.ElementNode:
			c.element(ch, inMain)
		case html.TextNode:
		default:
			// Comments, doctypes and the like never reach the output.
			n.RemoveChild(ch)
		}
		ch = next
	}
}

// element cleans one element: it is kept, replaced or removed.
func (c *cleaner) element(n *html.Node, inMain bool) {
	if c.drop(n, inMain) {
		n.Parent.RemoveChild(n)
		return
	}
	switch n.DataAtom {
	case atom.Img:
		// A page read for its structure (the pass that drops widgets)
		// reads no alt text: its pictures are teasers' thumbnails, which
		// the teaser's title beside them says better ("The logo is seen
		// on a phone"). On the development split, collection 0.6805 ->
		// 0.6847, listing 0.7333 -> 0.7359, every other type unchanged.
		if alt := collapse(attr(n, "alt")); alt != "" && !c.widgets && altIsCaption(n) {
			n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: " " + alt + " "}, n)
		}
		n.Parent.RemoveChild(n)
		return
	case atom.Main, atom.Article:
		inMain = true
	case atom.Pre:
		codeLanguage(n)
	}
	if attr(n, "role") == "main" {
		inMain = true
	}
	c.clean(n, inMain)
	if n.DataAtom == atom.A {
		c.anchor(n)
		return
	}
	if c.strip {
		keepAttrs(n)
		if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
			flattenCell(n)
		}
	}
}

// altIsCaption reports whether an image's alt text is the only caption
// it has: the image is in a <figure> without a <figcaption>. Elsewhere
// alt text describes what the reader does not see (a logo, an icon, a
// photo beside the text) and is not read as text.
func altIsCaption(img *html.Node) bool {
	for p := img.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == atom.Figure {
			return find(p, atom.Figcaption) == nil
		}
	}
	return false
}

// flattenCell puts a table cell's content on one line, so that the table
// stays a Markdown table: line breaks become spaces and block elements
// give way to their content.
func flattenCell(n *html.Node) {
	for ch := n.FirstChild; ch != nil; {
		next := ch.NextSibling
		if ch.Type == html.ElementNode {
			flattenCell(ch)
			switch {
			case ch.DataAtom == atom.Br || ch.DataAtom == atom.Hr:
				n.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, ch)
				n.RemoveChild(ch)
			case isBlock(ch.DataAtom):
				n.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, ch)
				n.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, next0(ch))
				unwrap(ch)
			}
		}
		ch = next
	}
}

// next0 returns n's next sibling, inserting an empty text node after n
// when it has none, so that something can be inserted before it.
func next0(n *html.Node) *html.Node {
	if n.NextSibling == nil {
		n.Parent.AppendChild(&html.Node{Type: html.TextNode})
	}
	return n.NextSibling
}

// isBlock reports whether an element starts its own block.
func isBlock(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Caption, atom.Center, atom.Dd,
		atom.Details, atom.Div, atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer,
		atom.Form, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header, atom.Hgroup, atom.Li,
		atom.Main, atom.Nav, atom.Ol, atom.P, atom.Pre, atom.Section, atom.Summary, atom.Table, atom.Tbody,
		atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr, atom.Ul:
		return true
	}
	return false
}

// drop reports whether an element is removed with its content.
func (c *cleaner) drop(n *html.Node, inMain bool) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Math, atom.Canvas,
		atom.Iframe, atom.Frame, atom.Frameset, atom.Object, atom.Embed, atom.Applet, atom.Param,
		atom.Button, atom.Input, atom.Select, atom.Option, atom.Optgroup, atom.Datalist, atom.Textarea,
		atom.Output, atom.Progress, atom.Meter, atom.Dialog, atom.Video, atom.Audio, atom.Source,
		atom.Track, atom.Map, atom.Area, atom.Link, atom.Base, atom.Head, atom.Title:
		return true
	case atom.Figcaption:
		// Nor does a page read for its structure read its pictures'
		// captions: a teaser's photo credit, a gallery's labels. On the
		// development split, collection 0.6847 -> 0.6856, every other
		// type unchanged.
		if c.widgets {
			return true
		}
	case atom.Meta:
		// Before readability runs (the pass that keeps attributes), the
		// page's <meta> elements stay: readability reads the byline and
		// the title there, and taking them out of the body changes the
		// container it chooses. The conversion drops them.
		return c.strip
	case atom.Form:
		// A form around a whole page (some frameworks do that) is kept
		// without its controls; a search box or a login form is not. A
		// short form that shows paragraphs and no controls is text (a
		// comment's body that a form wraps to edit it in place): it is
		// kept, and marked so, since the passes after readability no
		// longer see the controls a form had.
		if attr(n, "role") == "search" {
			return true
		}
		if _, ok := attrOK(n, shownText); ok {
			return false
		}
		if textLength(n) >= 400 {
			return false
		}
		if !c.trusted && showsText(n) {
			n.Attr = append(n.Attr, html.Attribute{Key: shownText})
			return false
		}
		return true
	case 0:
		// Unknown elements: custom elements are kept, namespaced leftovers
		// of SVG or MathML are not.
		if strings.Contains(n.Data, ":") {
			return true
		}
	}
	// A tab's panel is content the reader cannot click open: the
	// cleaner keeps it when an attribute hides it (readability, in the
	// article conversion, still leaves it out unless it holds code;
	// showing every tab there cost product pages their reviews tab). A
	// panel hidden by its style is more often a slide repeating the one
	// shown, unless it holds code (a documentation page's instructions
	// for each platform).
	panel := strings.EqualFold(attr(n, "role"), "tabpanel")
	codeTab := panel && find(n, atom.Pre) != nil
	if codeTab || !panel && attr(n, "aria-labelledby") != "" {
		// A disclosure's panel (an accordion's answer, labelled by its
		// button) and a tab of code are shown, to readability too, which
		// would leave out what the attributes hide.
		removeAttr(n, "hidden")
		removeAttr(n, "aria-hidden")
		if codeTab && isHiddenStyle(attr(n, "style")) {
			removeAttr(n, "style")
		}
	}
	if _, ok := attrOK(n, "hidden"); ok && !panel {
		return true
	}
	// A page hides its <main> from screen readers only while a dialog
	// is open over it (the state some pages were saved in): it is still
	// the page's content, for readability too.
	if strings.EqualFold(attr(n, "aria-hidden"), "true") && !panel {
		if !isMainElement(n) {
			return true
		}
		removeAttr(n, "aria-hidden")
	}
	if isHiddenStyle(attr(n, "style")) {
		if !c.hidesPage(n) {
			return true
		}
		removeAttr(n, "style")
	}
	class, id := attr(n, "class"), attr(n, "id")
	if isScreenReaderOnly(class) || isHiddenClass(class) || rustdocChrome(n, class) || mediaWikiChrome(n, class, id) {
		return true
	}
	if (isCookieBanner(class) || isCookieBanner(id)) && textLength(n) < 3000 {
		return true
	}
	if (namesPopup(class) || namesPopup(id)) && textLength(n) < maxPopup {
		return true
	}
	role := strings.ToLower(attr(n, "role"))
	if role == "search" || role == "alertdialog" || role == "dialog" {
		return true
	}
	if c.dropWidget(n) {
		return true
	}
	if !c.dropChrome || inMain {
		return false
	}
	switch n.DataAtom {
	case atom.Nav, atom.Header, atom.Footer:
		return true
	case atom.Aside:
		return !c.keepAsides
	}
	switch role {
	case "navigation", "banner", "contentinfo", "menubar", "menu":
		return true
	case "complementary":
		return !c.keepAsides
	}
	return false
}

// anchor rewrites a cleaned <a>: a web link keeps its absolute URL as its
// only attribute; any other link is replaced by its content; a link with
// no text, or a heading's permalink ("¶", "#"), is removed.
func (c *cleaner) anchor(n *html.Node) {
	text := collapse(textOf(n))
	raw := strings.TrimSpace(attr(n, "href"))
	if text == "" || strings.HasPrefix(raw, "#") && isMark(text) {
		n.Parent.RemoveChild(n)
		return
	}
	var href string
	if c.strip && c.trusted {
		// Already rewritten by an earlier pass; only check it.
		if strings.HasPrefix(raw, "https://") || strings.HasPrefix(raw, "http://") {
			href = raw
		}
	} else {
		href = c.link(raw)
		if href == "" && c.base == nil && !c.strip {
			href = unresolved(raw)
		}
	}
	if href == "" {
		unwrap(n)
		return
	}
	n.Attr = []html.Attribute{{Key: "href", Val: href}}
}

// link resolves href against the base URL; it returns "" for links that
// lead nowhere useful (same-page anchors) and for every link that is not an
// http or https web link once resolved ([sanitize.URL]): javascript:,
// data:, vbscript:, file: and mailto: links, and relative links when there
// is no base URL to resolve them against.
func (c *cleaner) link(href string) string {
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if c.base != nil {
		u = c.base.ResolveReference(u)
	}
	return sanitize.URL(linkEscaper.Replace(u.String()))
}

// linkEscaper escapes what would end a Markdown link target early.
var linkEscaper = strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E")

// keepAttrs removes the attributes the conversion does not need; the
// class of a <pre> or <code> (it names the language) and the few that
// tables and lists use stay.
func keepAttrs(n *html.Node) {
	out := n.Attr[:0]
	for _, a := range n.Attr {
		switch a.Key {
		case "class":
			if n.DataAtom != atom.Pre && n.DataAtom != atom.Code {
				continue
			}
		case "start", "colspan", "rowspan", "role":
		default:
			continue
		}
		out = append(out, a)
	}
	n.Attr = out
}

// codeLines ends each line of a code block with a line break where the
// highlighter (Shiki's, Prism's, highlight.js's line numbers) marks its
// lines as inline elements of class "line" or "…-line" that a style
// shows as blocks, with nothing between them: read as text, the lines
// ran into one another ("my-projectcd my-project").
func codeLines(pre *html.Node) {
	walk(pre, func(d *html.Node) bool {
		if d.Type != html.ElementNode {
			return false
		}
		if d == pre || !isCodeLine(attr(d, "class")) {
			return true
		}
		if isBlock(d.DataAtom) {
			// A block (a <div> a line) starts a line of its own.
			return false
		}
		next := d.NextSibling
		if next != nil && !(next.Type == html.TextNode && strings.HasPrefix(next.Data, "\n")) && !strings.HasSuffix(textOf(d), "\n") {
			d.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: "\n"}, next)
		}
		return false
	})
}

// isCodeLine reports whether a class names a line of a code block: a
// class "line" or ending in "-line" ("token-line", "code-line",
// "hljs-ln-line").
func isCodeLine(class string) bool {
	if class == "" || !containsFold(class, "line") {
		return false
	}
	for _, c := range strings.Fields(class) {
		c = lowerASCII(c)
		if c == "line" || strings.HasSuffix(c, "-line") {
			return true
		}
	}
	return false
}

// codeLanguage names a code block's language in the form the Markdown
// converter reads (class="language-x" on the <pre>), from the classes of
// the <pre> or of its <code>.
func codeLanguage(pre *html.Node) {
	lang := ""
	// The <pre>, its <code>, then up to three enclosing elements
	// (highlighters often wrap the block: <div class="highlight-python">).
	candidates := []*html.Node{pre, firstChildElement(pre, atom.Code)}
	for p, i := pre.Parent, 0; p != nil && i < 3; p, i = p.Parent, i+1 {
		candidates = append(candidates, p)
	}
	for _, x := range candidates {
		if x == nil || x.Type != html.ElementNode {
			continue
		}
		if m := langClass().FindStringSubmatch(attr(x, "class")); m != nil && !noLanguage[strings.ToLower(m[1])] {
			lang = m[1]
			break
		}
	}
	codeLines(pre)
	setAttr(pre, "class", "")
	walk(pre, func(d *html.Node) bool {
		if d != pre && d.Type == html.ElementNode {
			setAttr(d, "class", "")
		}
		return true
	})
	if lang != "" {
		setAttr(pre, "class", "language-"+lang)
	}
}

// noLanguage lists the highlighter classes that name no language.
var noLanguage = map[string]bool{"none": true, "nohighlight": true, "plaintext": true, "plain": true, "text": true, "notranslate": true}

// unwrap replaces n by its children.
func unwrap(n *html.Node) {
	p := n.Parent
	for ch := n.FirstChild; ch != nil; {
		next := ch.NextSibling
		n.RemoveChild(ch)
		p.InsertBefore(ch, n)
		ch = next
	}
	p.RemoveChild(n)
}

// flatten bounds the nesting of the tree: the content of an element at
// maxDepth is replaced by its text.
func flatten(root *html.Node, maxDepth int) {
	type item struct {
		n     *html.Node
		depth int
	}
	stack := []item{{root, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth >= maxDepth && it.n.Type == html.ElementNode && it.n.FirstChild != nil {
			text := textOf(it.n)
			for it.n.FirstChild != nil {
				it.n.RemoveChild(it.n.FirstChild)
			}
			it.n.AppendChild(&html.Node{Type: html.TextNode, Data: text})
			continue
		}
		for ch := it.n.FirstChild; ch != nil; ch = ch.NextSibling {
			stack = append(stack, item{ch, it.depth + 1})
		}
	}
}

// cloneNode returns a deep copy of n, detached.
func cloneNode(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace, Attr: append([]html.Attribute(nil), n.Attr...)}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.AppendChild(cloneNode(ch))
	}
	return c
}

// walk calls fn on n and its descendants in document order, without
// recursion; fn returns false to skip a node's descendants.
func walk(n *html.Node, fn func(*html.Node) bool) {
	stack := []*html.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !fn(x) {
			continue
		}
		for ch := x.LastChild; ch != nil; ch = ch.PrevSibling {
			stack = append(stack, ch)
		}
	}
}

// find returns the first element of type a in document order.
func find(n *html.Node, a atom.Atom) *html.Node {
	var found *html.Node
	walk(n, func(x *html.Node) bool {
		if found != nil {
			return false
		}
		if x.Type == html.ElementNode && x.DataAtom == a {
			found = x
			return false
		}
		return true
	})
	return found
}

func firstChildElement(n *html.Node, a atom.Atom) *html.Node {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type == html.ElementNode && ch.DataAtom == a {
			return ch
		}
	}
	return nil
}

// textOf returns the text of n and its descendants, verbatim, with <br> as
// a line break.
func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(x *html.Node) bool {
		switch {
		case x.Type == html.TextNode:
			b.WriteString(x.Data)
		case x.Type == html.ElementNode && x.DataAtom == atom.Br:
			b.WriteString("\n")
		}
		return true
	})
	return b.String()
}

// textLength counts the characters of n's text, whitespace runs counted as
// one; the content of scripts, styles and templates does not count.
func textLength(n *html.Node) int {
	count, space := 0, true
	walk(n, func(x *html.Node) bool {
		if x.Type == html.ElementNode {
			switch x.DataAtom {
			case atom.Script, atom.Style, atom.Template, atom.Noscript:
				return false
			}
		}
		if x.Type == html.TextNode {
			count += countChars(x.Data, &space)
		}
		return true
	})
	return count
}

// linkLength counts the text of the links under n, as [textLength]
// counts it.
func linkLength(n *html.Node) int {
	links := 0
	walk(n, func(x *html.Node) bool {
		if x.Type == html.ElementNode && x.DataAtom == atom.A {
			links += textLength(x)
			return false
		}
		return true
	})
	return links
}

// countChars counts the characters of s, a run of whitespace as one;
// *space says whether the text before s ended in whitespace (a run going
// on into s counts once), and is set to whether s does.
func countChars(s string, space *bool) int {
	count := 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !*space {
				count++
			}
			*space = true
			continue
		}
		count++
		*space = false
	}
	return count
}

// collapse turns every run of whitespace (no-break spaces included) into
// one space and trims the ends.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func attr(n *html.Node, name string) string {
	v, _ := attrOK(n, name)
	return v
}

func attrOK(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name && a.Namespace == "" {
			return a.Val, true
		}
	}
	return "", false
}

// rustdocChrome reports whether an element is the chrome rustdoc (Rust's
// API documentation, docs.rs) prints beside each item: the version it is
// stable since and its link to the source ("1.0.0 · Source": classes
// rightside, since and src), and the toggle that folds an item's
// description ("Expand description", class hideme).
func rustdocChrome(n *html.Node, class string) bool {
	switch class {
	case "rightside", "since":
		return n.DataAtom == atom.Span
	case "src":
		return n.DataAtom == atom.A
	case "hideme":
		return n.DataAtom == atom.Summary
	}
	return false
}

// mediaWikiIDs are the ids of MediaWiki's chrome around an article: the
// site's notice, "From <wiki>", "Jump to navigation" and the categories.
var mediaWikiIDs = map[string]bool{"siteNotice": true, "siteSub": true, "contentSub": true, "jump-to-nav": true,
	"catlinks": true}

// mediaWikiChrome reports whether an element is MediaWiki's chrome
// ([mediaWikiIDs]), a section's "[edit]" link, a jump link, "Retrieved
// from" (printfooter) or the table of contents (labelled by
// mw-toc-heading).
func mediaWikiChrome(n *html.Node, class, id string) bool {
	if id != "" && mediaWikiIDs[id] {
		return true
	}
	if class == "mw-editsection" || class == "mw-jump-link" || class == "printfooter" {
		return true
	}
	return attr(n, "aria-labelledby") == "mw-toc-heading"
}

// removeAttr removes an attribute.
func removeAttr(n *html.Node, name string) {
	n.Attr = slices.DeleteFunc(n.Attr, func(a html.Attribute) bool { return a.Key == name && a.Namespace == "" })
}

// setAttr sets an attribute; an empty value removes it.
func setAttr(n *html.Node, name, val string) {
	for i, a := range n.Attr {
		if a.Key == name {
			if val == "" {
				n.Attr = append(n.Attr[:i], n.Attr[i+1:]...)
			} else {
				n.Attr[i].Val = val
			}
			return
		}
	}
	if val != "" {
		n.Attr = append(n.Attr, html.Attribute{Key: name, Val: val})
	}
}

// isMark reports whether s is a short run of symbols such as the "¶" or
// "#" of a heading permalink.
func isMark(s string) bool {
	if utf8.RuneCountInString(s) > 2 {
		return false
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// shownText marks a form [showsText] found to show text.
const shownText = "data-shows-text"

// showsText reports whether a form holds a paragraph and no control but
// hidden inputs: no field to fill in, list to pick from or button to
// press (a questionnaire's step that shows its results has one).
func showsText(form *html.Node) bool {
	para, field := false, false
	walk(form, func(n *html.Node) bool {
		if n.Type != html.ElementNode || field {
			return false
		}
		switch n.DataAtom {
		case atom.P:
			para = true
		case atom.Input:
			field = !strings.EqualFold(attr(n, "type"), "hidden")
		case atom.Select, atom.Textarea, atom.Button:
			field = true
		}
		return true
	})
	return para && !field
}
