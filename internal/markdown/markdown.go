package markdown

import (
	"bytes"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/webgate-dev/webgate/internal/sanitize"
)

// Document is a page converted to Markdown.
type Document struct {
	// Title is the page's <title>, else its first <h1>; whitespace is
	// collapsed.
	Title string
	// Markdown is the readable content: headings, paragraphs, lists,
	// links, code, quotes and tables, without scripts, styles,
	// navigation, footers and forms.
	Markdown string
}

// ConvertHTML turns a page's HTML into readable Markdown. base resolves
// relative links; it may be empty. Only http and https links are kept as
// links (see [sanitize.URL]); any other link keeps its text alone. The main content is taken from the
// page's <main>, role="main" or single <article> element when one holds
// most of the text, else from the whole body; navigation, headers and
// footers of the page, asides, forms, scripts, styles and hidden elements
// are dropped. Malformed HTML is read as a browser would; ConvertHTML never
// fails.
func ConvertHTML(page []byte, base string) Document {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return Document{}
	}
	var baseURL *url.URL
	if u, err := url.Parse(base); err == nil && u.IsAbs() {
		baseURL = u
	}
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok && baseURL != nil {
		if u, err := baseURL.Parse(strings.TrimSpace(href)); err == nil {
			baseURL = u
		}
	}

	title := collapse(doc.Find("title").First().Text())
	if title == "" {
		title = collapse(doc.Find("h1").First().Text())
	}

	doc.Find("script, style, noscript, template, svg, canvas, iframe, object, embed, form, button, input, select, textarea, nav, footer, aside, dialog, [hidden], [aria-hidden=true], [role=navigation], [role=banner], [role=contentinfo], [role=search]").Remove()
	// A page header (logo, menu) is noise; an article's own header holds
	// its title and byline, so keep headers inside article or main.
	doc.Find("header").Each(func(_ int, s *goquery.Selection) {
		if s.Closest("article, main, [role=main]").Length() == 0 {
			s.Remove()
		}
	})

	root := mainContent(doc)
	if root == nil {
		return Document{Title: title}
	}
	c := &converter{base: baseURL}
	c.blocks(root, 0)
	return Document{Title: title, Markdown: c.String()}
}

// mainContent picks the element holding the page's main text.
func mainContent(doc *goquery.Document) *html.Node {
	body := doc.Find("body").First()
	if body.Length() == 0 {
		if doc.Selection.Length() == 0 {
			return nil
		}
		return doc.Selection.Nodes[0]
	}
	total := textLength(body)
	for _, sel := range []string{"main", "[role=main]", "article"} {
		found := doc.Find(sel)
		if found.Length() != 1 {
			continue
		}
		if n := textLength(found); n > 0 && n*2 >= total {
			return found.Nodes[0]
		}
	}
	return body.Nodes[0]
}

func textLength(s *goquery.Selection) int { return len(collapse(s.Text())) }

// collapse turns every run of whitespace (no-break spaces included) into
// one space and trims the ends.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// converter renders a node tree as Markdown blocks.
type converter struct {
	base *url.URL
	out  []string
}

func (c *converter) String() string {
	var parts []string
	for _, b := range c.out {
		if strings.TrimSpace(b) != "" {
			parts = append(parts, strings.TrimRight(b, " \n"))
		}
	}
	return strings.Join(parts, "\n\n")
}

func (c *converter) emit(block string) { c.out = append(c.out, block) }

// isBlock reports whether an element starts its own block.
func isBlock(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Blockquote, atom.Body, atom.Center, atom.Dd, atom.Details, atom.Div,
		atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption, atom.Figure, atom.H1, atom.H2, atom.H3, atom.H4,
		atom.H5, atom.H6, atom.Header, atom.Hgroup, atom.Hr, atom.Li, atom.Main, atom.Ol, atom.P, atom.Pre,
		atom.Section, atom.Summary, atom.Table, atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr,
		atom.Ul, atom.Html, atom.Caption:
		return true
	}
	return false
}

// blocks renders the children of n as blocks: runs of inline content become
// paragraphs, block elements render themselves.
func (c *converter) blocks(n *html.Node, depth int) {
	if depth > 200 {
		return
	}
	var run []*html.Node
	flush := func() {
		if len(run) == 0 {
			return
		}
		var b strings.Builder
		for _, r := range run {
			c.inline(&b, r)
		}
		if p := collapseInline(b.String()); p != "" {
			c.emit(p)
		}
		run = run[:0]
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type == html.ElementNode && isBlock(ch.DataAtom) {
			flush()
			c.block(ch, depth+1)
			continue
		}
		if ch.Type == html.TextNode || ch.Type == html.ElementNode {
			run = append(run, ch)
		}
	}
	flush()
}

// block renders one block element.
func (c *converter) block(n *html.Node, depth int) {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		level := int(n.Data[1] - '0')
		if t := c.inlineText(n); t != "" {
			c.emit(strings.Repeat("#", level) + " " + t)
		}
	case atom.P, atom.Dt, atom.Summary, atom.Figcaption, atom.Caption:
		if t := c.inlineText(n); t != "" {
			c.emit(t)
		}
	case atom.Hr:
		c.emit("---")
	case atom.Pre:
		c.emit(fence(n))
	case atom.Ul, atom.Ol:
		if l := c.list(n, "", depth); l != "" {
			c.emit(l)
		}
	case atom.Blockquote:
		sub := &converter{base: c.base}
		sub.blocks(n, depth)
		if t := sub.String(); t != "" {
			c.emit("> " + strings.ReplaceAll(t, "\n", "\n> "))
		}
	case atom.Table:
		if t := c.table(n); t != "" {
			c.emit(t)
		}
	default:
		c.blocks(n, depth)
	}
}

// inlineText renders n's content as one line of inline Markdown.
func (c *converter) inlineText(n *html.Node) string {
	var b strings.Builder
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.inline(&b, ch)
	}
	return collapseInline(b.String())
}

// collapseInline collapses whitespace but keeps the hard line breaks that
// <br> produced.
func collapseInline(s string) string {
	lines := strings.Split(s, "\u2028")
	out := lines[:0]
	for _, l := range lines {
		if l = collapse(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "  \n")
}

// inline renders n as inline Markdown into b.
func (c *converter) inline(b *strings.Builder, n *html.Node) {
	switch n.Type {
	case html.TextNode:
		b.WriteString(n.Data)
		return
	case html.ElementNode:
	default:
		return
	}
	// wrap marks n's text as emphasis, keeping any space at its edges
	// outside the marks ("a<b> b</b>" is "a **b**").
	wrap := func(mark string) {
		var raw strings.Builder
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			c.inline(&raw, ch)
		}
		inner := collapseInline(raw.String())
		if inner == "" {
			b.WriteString(raw.String())
			return
		}
		if r := raw.String(); strings.TrimLeft(r, " \t\n\r") != r {
			b.WriteString(" ")
		}
		b.WriteString(mark + inner + mark)
		if r := raw.String(); strings.TrimRight(r, " \t\n\r") != r {
			b.WriteString(" ")
		}
	}
	switch n.DataAtom {
	case atom.Br:
		b.WriteString("\u2028")
	case atom.Img:
		if alt := collapse(attr(n, "alt")); alt != "" {
			b.WriteString(" " + alt + " ")
		}
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		code := collapse(textOf(n))
		if code != "" {
			tick := "`"
			if strings.Contains(code, "`") {
				tick = "``"
			}
			b.WriteString(tick + code + tick)
		}
	case atom.Strong, atom.B:
		wrap("**")
	case atom.Em, atom.I:
		wrap("*")
	case atom.A:
		text := c.inlineText(n)
		raw := strings.TrimSpace(attr(n, "href"))
		href := c.link(raw)
		switch {
		case text == "", strings.HasPrefix(raw, "#") && isMark(text):
			// Heading permalinks ("¶", "#") say nothing.
		case href == "":
			b.WriteString(text)
		default:
			b.WriteString("[" + text + "](" + href + ")")
		}
	default:
		if isBlock(n.DataAtom) {
			b.WriteString(" ")
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			c.inline(b, ch)
		}
		if isBlock(n.DataAtom) {
			b.WriteString(" ")
		}
	}
}

// link resolves href against the base URL; it returns "" for links that
// lead nowhere useful (same-page anchors) and for every link that is not an
// http or https web link once resolved ([sanitize.URL]): javascript:,
// data:, vbscript:, file: and mailto: links, and relative links when there
// is no base URL to resolve them against. Such a link's text is kept.
func (c *converter) link(href string) string {
	href = strings.TrimSpace(href)
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
var linkEscaper = strings.NewReplacer("(", "%28", ")", "%29", " ", "%20")

// list renders a ul or ol, nested lists indented under their item.
func (c *converter) list(n *html.Node, indent string, depth int) string {
	var lines []string
	i := 0
	if start, err := strconv.Atoi(attr(n, "start")); err == nil {
		i = start - 1
	}
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li {
			continue
		}
		i++
		marker := "- "
		if n.DataAtom == atom.Ol {
			marker = strconv.Itoa(i) + ". "
		}
		var text strings.Builder
		var nested []string
		for ch := li.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && (ch.DataAtom == atom.Ul || ch.DataAtom == atom.Ol) && depth < 50 {
				if s := c.list(ch, indent+"  ", depth+1); s != "" {
					nested = append(nested, s)
				}
				continue
			}
			if ch.Type == html.ElementNode && ch.DataAtom == atom.Pre {
				nested = append(nested, indentLines(fence(ch), indent+"  "))
				continue
			}
			c.inline(&text, ch)
			text.WriteString(" ")
		}
		item := collapseInline(text.String())
		if item == "" && len(nested) == 0 {
			continue
		}
		lines = append(lines, indent+marker+strings.ReplaceAll(item, "\n", "\n"+indent+"  "))
		lines = append(lines, nested...)
	}
	return strings.Join(lines, "\n")
}

func indentLines(s, indent string) string {
	return indent + strings.ReplaceAll(s, "\n", "\n"+indent)
}

// table renders a table as a Markdown pipe table; the first row is the
// header.
func (c *converter) table(n *html.Node) string {
	var rows [][]string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type != html.ElementNode {
				continue
			}
			switch ch.DataAtom {
			case atom.Tr:
				var row []string
				for cell := ch.FirstChild; cell != nil; cell = cell.NextSibling {
					if cell.Type == html.ElementNode && (cell.DataAtom == atom.Td || cell.DataAtom == atom.Th) {
						t := strings.ReplaceAll(c.inlineText(cell), "  \n", " ")
						row = append(row, strings.ReplaceAll(t, "|", `\|`))
					}
				}
				if len(row) > 0 {
					rows = append(rows, row)
				}
			case atom.Table:
				// Nested tables are flattened into the outer one's cells.
			default:
				walk(ch)
			}
		}
	}
	walk(n)
	if len(rows) == 0 {
		return ""
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	var b strings.Builder
	for i, r := range rows {
		for len(r) < width {
			r = append(r, "")
		}
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

var langClass = regexp.MustCompile(`(?:^|\s)(?:language|lang|highlight-source|highlight)-([A-Za-z0-9_+#.-]+)`)

// fence renders a pre element as a fenced code block, keeping its text
// verbatim and naming the language when a class says it.
func fence(n *html.Node) string {
	code := strings.Trim(textOf(n), "\n")
	lang := ""
	for _, x := range []*html.Node{n, firstElement(n, atom.Code)} {
		if x == nil {
			continue
		}
		if m := langClass.FindStringSubmatch(attr(x, "class")); m != nil {
			lang = m[1]
			break
		}
	}
	tick := "```"
	for strings.Contains(code, tick) {
		tick += "`"
	}
	return tick + lang + "\n" + code + "\n" + tick
}

func firstElement(n *html.Node, a atom.Atom) *html.Node {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type == html.ElementNode && ch.DataAtom == a {
			return ch
		}
	}
	return nil
}

// textOf returns the text of n and its descendants, verbatim.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			b.WriteString("\n")
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return b.String()
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

// isMark reports whether s is a short run of symbols such as the "¶" or
// "#" of a heading permalink.
func isMark(s string) bool {
	if len([]rune(s)) > 2 {
		return false
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
