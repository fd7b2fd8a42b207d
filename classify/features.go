package classify

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// features holds everything measured on one page in a single walk over
// the parsed tree. Word counts are float64 because dense scripts count
// half a word per character (see countWords).
type features struct {
	title string

	bodyFound     bool
	visibleWords  float64 // all visible text in <body>
	linkWords     float64 // visible text inside navigating links
	pWords        float64 // visible text inside <p>
	chromeWords   float64 // visible text inside nav/header/footer/aside
	mainWords     float64 // visible text inside <main>, <article> or role=main (outermost only)
	longParas     int     // text blocks with >= longParaWords words and few links
	longestPara   float64 // words of the longest text block
	paraWords     float64 // words in the long text blocks
	clusterScore  float64 // best container score (readability-style parent/grandparent sum)
	clusterWords  float64 // body size: long paragraphs that credited the best container, in full, or its score if larger
	clusterParas  int     // long paragraphs inside the best container
	clusterTotal  float64 // all visible words inside the best container
	clusterLinks  float64 // link words inside the best container
	clusterHLinks int     // linked headings inside the best container
	clusterTeases int     // prose blocks inside the best container introduced by a linked title
	links         int     // <a href> that navigate (not "#..." or "javascript:")
	listItems     int     // <li>
	controls      int     // visible form controls and buttons (<input>, <button>, <select>, <textarea>)
	headingLinks  int     // headings whose text is mostly a navigating link
	contentHLinks int     // such headings outside page chrome
	contentLinks  float64 // visible text inside navigating links, outside page chrome
	linkBlocks    int     // short blocks dominated by a link (teaser / menu items)
	bindings      int     // unrendered {{ ... }} template bindings in visible text
	loaderText    bool    // visible text looks like a "Loading..." placeholder
	jsNotice      bool    // noscript text, or the little visible text, asks to enable JavaScript
	jsNoticeText  string  // the notice, shortened
	scripts       int     // <script> elements that hold or load code
	scriptSrc     int     // <script src=...>
	moduleScripts int     // <script type=module>
	inlineScript  int     // bytes of inline script code (excluding JSON data blocks)
	dataBytes     int     // bytes of JSON state / data blocks
	dataMarkers   []string
	jsonLD        int     // <script type="application/ld+json"> blocks
	articleMeta   bool    // og:type=article or JSON-LD Article/NewsArticle/BlogPosting/...
	listingMeta   bool    // JSON-LD ItemList/CollectionPage/SearchResultsPage
	mounts        []mount // candidate client-side mount points
}

// mount is an element that looks like a place a client-side application
// renders into.
type mount struct {
	desc  string  // "div#root", "app-root"
	known bool    // a name a framework generates, not only a name pattern
	words float64 // visible words inside it
	elems int     // descendant elements (excluding scripts)
}

// maxDepth bounds how deep the walk descends, so hostile nesting cannot
// exhaust the stack.
const maxDepth = 1000

// Threshold on what counts as a "long" paragraph: the corpus labelling uses
// 25 words, a common choice in boilerplate-removal tools.
const longParaWords = 25

// block accumulates the text that belongs to one block-level element.
type block struct {
	node      *html.Node
	words     float64
	linkWords float64
	heading   bool
	chrome    bool
	isP       bool
	teaser    bool // prose introduced by a linked title (see markTeasers)
}

// prose reports whether a block is a paragraph of running text: at least
// eight words of its own and mostly not links.
func (b *block) prose() bool {
	return !b.heading && !b.chrome && b.words > 0 && b.linkWords/b.words < 0.5 && b.words-b.linkWords >= 8
}

// linkedTitle reports whether a block reads as the linked title of a
// teaser: a heading that is mostly a link, or a short block that is mostly
// a link (a title link in a div, a dated title line, a "read more").
func (b *block) linkedTitle() bool {
	if b.words == 0 || b.linkWords*2 <= b.words {
		return false
	}
	return b.heading || b.words < longParaWords
}

type walker struct {
	f        *features
	blocks   []*block
	scores   map[*html.Node]float64
	mountStk []int
	inLink   int
	inChrome int
	inMain   int
	inP      int
	inHead   int
	noscript int
	nsText   strings.Builder
	lead     strings.Builder // the first visible text, for loader detection
	depth    int
}

// Block-level elements: text is attributed to the nearest one of these.
func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Td, atom.Th, atom.Li, atom.Dd, atom.Dt, atom.Blockquote,
		atom.Pre, atom.Section, atom.Article, atom.Main, atom.Aside, atom.Header, atom.Footer,
		atom.Nav, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Figcaption,
		atom.Body, atom.Form, atom.Table, atom.Tr, atom.Ul, atom.Ol, atom.Dl, atom.Center,
		atom.Fieldset, atom.Details, atom.Summary, atom.Address, atom.Figure:
		return true
	}
	return false
}

func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// Mount-point names used by common client-side frameworks and their
// generated projects. These are element ids and tag names, never hosts.
var mountIDs = map[string]bool{
	"root": true, "app": true, "__next": true, "__nuxt": true, "___gatsby": true,
	"q-app": true, "react-root": true, "app-root": true, "vue-app": true,
	"svelte": true, "main-app": true, "application": true, "react-app": true,
	"appmount": true, "app-container": true, "ember-app": true, "elm": true,
	"preact-root": true, "solid-root": true, "sapper": true, "svelte-app": true,
	"storybook-root": true, "docs-root": true, "mount": true, "container-root": true,
}

var mountTags = map[string]bool{
	"app-root": true, "ion-app": true, "ion-nav-view": true, "ion-router-outlet": true,
	"flutter-view": true, "flt-glass-pane": true, "my-app": true, "ui-view": true,
}

func isMount(n *html.Node) (desc string, known, ok bool) {
	if mountTags[n.Data] {
		return n.Data, true, true
	}
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "id":
			id := strings.ToLower(strings.TrimSpace(a.Val))
			if mountIDs[id] {
				return n.Data + "#" + a.Val, true, true
			}
			if strings.HasSuffix(id, "-app") || strings.HasSuffix(id, "-root") || strings.HasSuffix(id, "_app") || strings.HasSuffix(id, "_root") {
				return n.Data + "#" + a.Val, false, true
			}
		case "ng-app", "data-reactroot", "ng-view", "ui-view", "data-v-app", "data-server-rendered":
			return n.Data + "[" + a.Key + "]", true, true
		}
	}
	return "", false, false
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func isHiddenElement(n *html.Node) bool {
	if _, ok := attr(n, "hidden"); ok {
		return true
	}
	// Dialogs and elements marked hidden by a class are not shown until a
	// script opens them: an application's settings dialogs hold much
	// label text that a reader never sees on arrival.
	if v, ok := attr(n, "aria-hidden"); ok && strings.EqualFold(strings.TrimSpace(v), "true") {
		return true
	}
	if v, ok := attr(n, "role"); ok {
		if v = strings.ToLower(strings.TrimSpace(v)); v == "dialog" || v == "alertdialog" {
			return true
		}
	}
	if v, ok := attr(n, "class"); ok && hasHiddenClass(v) {
		return true
	}
	if v, ok := attr(n, "style"); ok {
		s := strings.ToLower(v)
		s = strings.ReplaceAll(s, " ", "")
		if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
			return true
		}
	}
	return false
}

// hasHiddenClass reports whether a class attribute names a dialog or a
// hidden state in the common CSS frameworks' vocabulary ("modal", "hide",
// "hidden"). Responsive variants ("hidden-xs") are not matched: they hide
// an element on some screens only.
func hasHiddenClass(v string) bool {
	if !strings.Contains(v, "modal") && !strings.Contains(v, "hid") && !strings.Contains(v, "Modal") && !strings.Contains(v, "Hid") {
		return false
	}
	for _, c := range strings.Fields(v) {
		switch strings.ToLower(c) {
		case "modal", "hide", "hidden":
			return true
		}
	}
	return false
}

func isNavLink(n *html.Node) bool {
	href, ok := attr(n, "href")
	if !ok {
		return false
	}
	h := strings.TrimSpace(href)
	if h == "" || strings.HasPrefix(h, "#") {
		return false
	}
	if len(h) >= 11 && strings.EqualFold(h[:11], "javascript:") {
		return false
	}
	return true
}

// extract walks the document once and fills a features value.
func extract(doc *html.Node) *features {
	w := &walker{
		f:      &features{},
		scores: make(map[*html.Node]float64),
	}
	w.walk(doc, nil)
	w.finish()
	return w.f
}

func (w *walker) walk(n *html.Node, cur *block) {
	switch n.Type {
	case html.TextNode:
		w.text(n, cur)
		return
	case html.ElementNode:
	default:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, cur)
		}
		return
	}
	if w.depth >= maxDepth {
		return
	}
	w.depth++
	defer func() { w.depth-- }()
	f := w.f
	switch n.DataAtom {
	case atom.Head:
		w.inHead++
		defer func() { w.inHead-- }()
	case atom.Body:
		f.bodyFound = true
	case atom.Title:
		if f.title == "" {
			f.title = shorten(textOf(n), 300)
		}
		return
	case atom.Meta:
		w.meta(n)
		return
	case atom.Script:
		w.script(n)
		return
	case atom.Style, atom.Template, atom.Link, atom.Iframe, atom.Object, atom.Svg, atom.Math:
		return
	case atom.Select, atom.Datalist, atom.Textarea:
		// Option lists and form values are not prose.
		if w.inHead == 0 && f.bodyFound && !isHiddenElement(n) {
			f.controls++
		}
		return
	case atom.Noscript:
		// Text in <noscript> is what users without JavaScript would see; it
		// is not part of the page as rendered by a browser with JavaScript.
		w.noscript++
		start := w.nsText.Len()
		w.collectNoscript(n)
		w.noscript--
		if t := w.nsText.String()[start:]; hasJSNotice(t) && !f.jsNotice {
			f.jsNotice = true
			f.jsNoticeText = shorten(t, 60)
		}
		return
	}
	if w.inHead > 0 {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, cur)
		}
		return
	}
	if isHiddenElement(n) {
		return
	}

	inBody := f.bodyFound
	switch n.DataAtom {
	case atom.A:
		if isNavLink(n) {
			f.links++
			w.inLink++
			defer func() { w.inLink-- }()
		}
	case atom.Li:
		f.listItems++
	case atom.Button:
		f.controls++
	case atom.Input:
		if t, _ := attr(n, "type"); !strings.EqualFold(t, "hidden") {
			f.controls++
		}
	case atom.Nav, atom.Header, atom.Footer, atom.Aside:
		w.inChrome++
		defer func() { w.inChrome-- }()
	case atom.P:
		w.inP++
		defer func() { w.inP-- }()
	}
	if n.DataAtom != atom.Nav && n.DataAtom != atom.Header && n.DataAtom != atom.Footer && n.DataAtom != atom.Aside {
		switch r, _ := attr(n, "role"); r {
		case "navigation", "banner", "contentinfo", "complementary":
			w.inChrome++
			defer func() { w.inChrome-- }()
		}
	}
	if n.DataAtom == atom.Main || n.DataAtom == atom.Article {
		w.inMain++
		defer func() { w.inMain-- }()
	} else if r, _ := attr(n, "role"); r == "main" {
		w.inMain++
		defer func() { w.inMain-- }()
	}
	if inBody {
		if desc, known, ok := isMount(n); ok {
			f.mounts = append(f.mounts, mount{desc: desc, known: known})
			w.mountStk = append(w.mountStk, len(f.mounts)-1)
			defer func() { w.mountStk = w.mountStk[:len(w.mountStk)-1] }()
		}
		for _, i := range w.mountStk {
			f.mounts[i].elems++
		}
	}

	if isBlock(n.DataAtom) {
		b := &block{node: n, heading: isHeading(n.DataAtom), chrome: w.inChrome > 0, isP: n.DataAtom == atom.P}
		w.blocks = append(w.blocks, b)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, b)
		}
		if b.heading && b.linkWords*2 > b.words {
			f.headingLinks++
			if !b.chrome {
				f.contentHLinks++
			}
		}
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, cur)
	}
}

func (w *walker) text(n *html.Node, cur *block) {
	if !w.f.bodyFound || w.inHead > 0 || cur == nil {
		return
	}
	words := countWords(n.Data)
	if words == 0 {
		return
	}
	f := w.f
	f.visibleWords += words
	if w.inLink > 0 {
		f.linkWords += words
		cur.linkWords += words
		if w.inChrome == 0 {
			f.contentLinks += words
		}
	}
	if w.inP > 0 {
		f.pWords += words
	}
	if w.inChrome > 0 {
		f.chromeWords += words
	}
	if w.inMain > 0 {
		f.mainWords += words
	}
	cur.words += words
	for _, i := range w.mountStk {
		f.mounts[i].words += words
	}
	if w.lead.Len() < 512 {
		w.lead.WriteString(n.Data)
		w.lead.WriteByte(' ')
	}
	if strings.Contains(n.Data, "{{") && strings.Contains(n.Data, "}}") {
		f.bindings++
	}
}

func (w *walker) collectNoscript(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			// Inside <head>, the parser keeps noscript content as raw text.
			w.nsText.WriteString(stripTags(c.Data))
			w.nsText.WriteByte(' ')
		case html.ElementNode:
			w.collectNoscript(c)
		}
	}
}

// stripTags removes anything between < and > from raw noscript text.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			} else if c.Type == html.ElementNode {
				rec(c)
			}
		}
	}
	rec(n)
	return b.String()
}

func (w *walker) meta(n *html.Node) {
	prop, _ := attr(n, "property")
	if prop == "" {
		prop, _ = attr(n, "name")
	}
	if strings.EqualFold(prop, "og:type") {
		c, _ := attr(n, "content")
		c = strings.ToLower(c)
		if strings.Contains(c, "article") || strings.Contains(c, "blog") {
			w.f.articleMeta = true
		}
	}
}

func (w *walker) script(n *html.Node) {
	f := w.f
	typ, _ := attr(n, "type")
	typ = strings.ToLower(strings.TrimSpace(typ))
	if i := strings.IndexByte(typ, ';'); i >= 0 {
		typ = strings.TrimSpace(typ[:i])
	}
	id, _ := attr(n, "id")
	body := ""
	if c := n.FirstChild; c != nil && c.Type == html.TextNode {
		body = c.Data
	}
	switch {
	case typ == "application/ld+json":
		f.jsonLD++
		w.jsonLDTypes(body)
		return
	case typ == "application/json" || strings.HasSuffix(typ, "+json") || typ == "text/x-magento-init":
		f.dataBytes += len(body)
		if id == "__NEXT_DATA__" {
			f.addMarker("__NEXT_DATA__")
		} else if id == "__NUXT_DATA__" {
			f.addMarker("__NUXT_DATA__")
		}
		return
	case typ == "" || typ == "module" || strings.Contains(typ, "javascript") || strings.Contains(typ, "ecmascript") || typ == "text/babel":
	default:
		// Templates and other non-code payloads (text/template, text/x-handlebars...).
		return
	}
	f.scripts++
	if typ == "module" {
		f.moduleScripts++
	}
	if _, ok := attr(n, "src"); ok {
		f.scriptSrc++
	}
	if body == "" {
		return
	}
	if m := stateMarker(body); m != "" {
		f.addMarker(m)
		f.dataBytes += len(body)
		return
	}
	f.inlineScript += len(body)
}

func (f *features) addMarker(m string) {
	for _, x := range f.dataMarkers {
		if x == m {
			return
		}
	}
	f.dataMarkers = append(f.dataMarkers, m)
}

// stateMarkers are global variable names through which frameworks hand the
// server's data to client-side code.
var stateMarkers = []string{
	"__NEXT_DATA__", "__NUXT__", "__APOLLO_STATE__", "__INITIAL_STATE__", "__PRELOADED_STATE__",
	"ytInitialData", "ytInitialPlayerResponse", "__REDUX_STATE__", "__INITIAL_DATA__",
	"__remixContext", "__sveltekit", "__APP_INITIAL_STATE__", "__STATE__", "__DATA__",
	"__staticRouterHydrationData", "__RELAY_STORE__", "__SERVER_DATA__", "_sharedData",
	"__additionalData", "__INITIAL_PROPS__", "__BOOTSTRAP__", "__reactRouterContext",
}

// stateMarker reports which state marker a large inline script assigns,
// or "" when it looks like ordinary code. Small scripts are never data.
func stateMarker(body string) string {
	if len(body) < 512 {
		return ""
	}
	head := body
	if len(head) > 2048 {
		head = head[:2048]
	}
	for _, m := range stateMarkers {
		if strings.Contains(head, m) {
			return m
		}
	}
	return ""
}

func (w *walker) jsonLDTypes(body string) {
	// A cheap scan for "@type" values; JSON-LD is often malformed, so no
	// full decoding.
	s := body
	for {
		i := strings.Index(s, `"@type"`)
		if i < 0 {
			return
		}
		s = s[i+7:]
		j := strings.IndexByte(s, '"')
		if j < 0 || j > 16 {
			continue
		}
		rest := s[j+1:]
		k := strings.IndexByte(rest, '"')
		if k < 0 || k > 64 {
			continue
		}
		switch v := rest[:k]; v {
		case "Article", "NewsArticle", "BlogPosting", "Report", "ScholarlyArticle",
			"TechArticle", "OpinionNewsArticle", "AnalysisNewsArticle", "ReportageNewsArticle",
			"Recipe", "LiveBlogPosting":
			w.f.articleMeta = true
		case "ItemList", "CollectionPage", "SearchResultsPage", "OfferCatalog":
			w.f.listingMeta = true
		}
	}
}

// Container scoring gives a text block's words to its parent in full, to
// its grandparent by half and to the next ancestor by a third, as
// readability tools do.
var ancestorDivisor = [3]float64{1, 2, 3}

// bestStats measures the best container: its body size (the long
// paragraphs that credited it, counted in full), its words, its link
// words, its linked headings and teasers, and the long paragraphs it holds.
func (w *walker) bestStats(best *html.Node) {
	f := w.f
	for _, b := range w.blocks {
		if !isDescendant(b.node, best) {
			continue
		}
		f.clusterTotal += b.words
		f.clusterLinks += b.linkWords
		if b.heading && b.linkWords*2 > b.words {
			f.clusterHLinks++
		}
		if b.prose() {
			if b.teaser {
				f.clusterTeases++
			}
			if own := b.words - b.linkWords; own >= longParaWords {
				f.clusterParas++
				if credits(b.node, best) {
					f.clusterWords += own
				}
			}
		}
	}
	// Long paragraphs a level or two below the container (in sections,
	// or in groups split by ad slots) count in full; the score is the
	// floor, so short prose blocks still weigh as they did in the choice.
	f.clusterWords = math.Max(f.clusterWords, f.clusterScore)
}

// credits reports whether a text block in n gives part of its words to
// anc under container scoring: anc is its parent, grandparent or the next
// ancestor.
func credits(n, anc *html.Node) bool {
	p := n.Parent
	for level := 0; p != nil && level < len(ancestorDivisor); level++ {
		if p == anc {
			return true
		}
		p = p.Parent
	}
	return false
}

// teaserLookback is how many preceding text blocks are searched for a
// paragraph's linked title: the title itself, plus up to two short lines
// between (a date, an author, a URL) as teaser layouts place them.
const teaserLookback = 3

// markTeasers flags the prose blocks that a linked title introduces: the
// nearest preceding text block that is a linked title, looking back past
// short lines but stopping at other prose or at an unlinked heading. Blocks
// are in document order, so this follows the page as read. List items are
// lists, not teasers; and a link placed right under an unlinked heading
// belongs to that section ("Main article: …", "See also …"), so it is not a
// teaser's title.
func (w *walker) markTeasers() {
	for i, b := range w.blocks {
		if !b.prose() || b.node.DataAtom == atom.Li {
			continue
		}
		seen := 0
		for j := i - 1; j >= 0 && seen < teaserLookback; j-- {
			p := w.blocks[j]
			if p.words == 0 {
				continue
			}
			seen++
			if p.linkedTitle() {
				b.teaser = p.node.DataAtom != atom.Li && !w.underHeading(j)
				break
			}
			if p.heading || p.words-p.linkWords >= 8 {
				break
			}
		}
	}
}

// underHeading reports whether the text block before block i is a heading
// that is not itself a link.
func (w *walker) underHeading(i int) bool {
	for j := i - 1; j >= 0; j-- {
		if p := w.blocks[j]; p.words > 0 {
			return p.heading && !p.linkedTitle()
		}
	}
	return false
}

func isDescendant(n, anc *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p == anc {
			return true
		}
	}
	return false
}

// finish computes the paragraph and cluster statistics from the blocks.
func (w *walker) finish() {
	f := w.f
	for _, b := range w.blocks {
		if b.heading || b.chrome || b.words == 0 {
			continue
		}
		own := b.words - b.linkWords
		linkShare := b.linkWords / b.words
		if linkShare > 0.5 && b.words < longParaWords {
			f.linkBlocks++
		}
		if linkShare >= 0.5 || own < 8 {
			continue
		}
		if b.words > f.longestPara {
			f.longestPara = b.words
		}
		if own >= longParaWords {
			f.longParas++
			f.paraWords += own
		}
		// Readability-style container scoring: a text block credits its
		// parent in full and its grandparent by half, so a container whose
		// children are many paragraphs outscores a list of separate teasers.
		p := b.node.Parent
		for level := 0; p != nil && level < 3; level++ {
			w.scores[p] += own / ancestorDivisor[level]
			p = p.Parent
		}
	}
	var best *html.Node
	for n, s := range w.scores {
		if s > f.clusterScore || s == f.clusterScore && best != nil && n.Data < best.Data {
			f.clusterScore = s
			best = n
		}
	}
	if best != nil {
		w.markTeasers()
		w.bestStats(best)
	}
	f.visibleWords = round1(f.visibleWords)
	if f.visibleWords < 50 {
		lead := w.lead.String()
		f.loaderText = hasLoaderText(lead)
		if !f.jsNotice && hasJSNotice(lead) {
			f.jsNotice = true
			f.jsNoticeText = shorten(lead, 60)
		}
	}
}

// loaderPhrases are placeholder texts shown while an application loads.
var loaderPhrases = []string{
	"loading", "please wait", "chargement", "cargando", "carregando", "wird geladen",
	"laden…", "laden...", "caricamento", "загрузка", "読み込み中", "加载中", "載入中", "로딩",
}

func hasLoaderText(s string) bool {
	l := strings.ToLower(s)
	for _, p := range loaderPhrases {
		if strings.Contains(l, p) {
			return true
		}
	}
	return false
}

func round1(x float64) float64 { return float64(int(x*10+0.5)) / 10 }

// jsNoticePhrases are the stock messages pages show when JavaScript is off.
var jsNoticePhrases = []string{
	"enable javascript", "javascript is required", "javascript to run this app",
	"without javascript", "javascript is disabled", "javascript disabled",
	"support javascript", "turn on javascript", "requires javascript", "javascript enabled",
	"activate javascript", "enable js", "javascript must be enabled", "needs javascript",
	"javascript aktivieren", "activer javascript", "activez javascript", "habilitar javascript",
	"habilite javascript", "attivare javascript", "javascript を有効", "javascriptを有効", "启用javascript", "启用 javascript",
	"включите javascript", "включить javascript",
}

func hasJSNotice(s string) bool {
	if !strings.Contains(strings.ToLower(s), "javascript") && !strings.Contains(strings.ToLower(s), " js") {
		return false
	}
	l := strings.Join(strings.Fields(strings.ToLower(s)), " ")
	for _, p := range jsNoticePhrases {
		if strings.Contains(l, p) {
			return true
		}
	}
	return false
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// countWords counts words in s. Runs of letters or digits count as one word;
// in scripts written without spaces between words (Han, Hiragana, Katakana,
// Hangul syllables are spaced but dense, Thai, Lao, Khmer, Myanmar) every
// two characters count as one word, which keeps thresholds comparable
// across languages.
func countWords(s string) float64 {
	var words, dense int
	in := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '\'' && in {
				if !in {
					words++
					in = true
				}
			} else {
				in = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case isDense(r):
			dense++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
			if !in {
				words++
				in = true
			}
		default:
			in = false
		}
	}
	return float64(words) + float64(dense)/2
}

func isDense(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Thai, r) || unicode.Is(unicode.Lao, r) || unicode.Is(unicode.Khmer, r) ||
		unicode.Is(unicode.Myanmar, r)
}
