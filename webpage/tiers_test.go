package webpage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/provider"
)

// nextShell is an app shell whose content is in its __NEXT_DATA__.
var nextShell = `<html><head><title>Pricing</title><script src="/_next/static/chunks/main.js" defer></script></head><body><div id="__next"></div>` +
	`<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"page":{"sections":[` +
	strings.Repeat(`{"body":"Every plan includes unlimited projects, single sign-on and priority support from our engineers, billed monthly or yearly."},`, 4) +
	`{"body":"Enterprise plans add audit logs, data residency and a dedicated account manager for teams of any size."}]}}}}</script></body></html>`

type fakeRenderer struct {
	html  string
	err   error
	calls int
}

func (f *fakeRenderer) Render(_ context.Context, u string) (*Rendered, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	return &Rendered{URL: u, HTML: []byte(f.html)}, nil
}

func TestReader_RecoversAnAppShellsDataBeforeAskingAProvider(t *testing.T) {
	x := &fakeExtractor{name: "x", page: &provider.Page{Content: "from the provider"}}
	u := serve(t, 200, "text/html", nextShell)
	res, err := loopbackReader(x).Read(context.Background(), Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != SourceRecovered || !strings.Contains(res.Content, "single sign-on") || !strings.Contains(res.Note, "__NEXT_DATA__") {
		t.Errorf("source %s note %q content %q", res.Source, res.Note, res.Content)
	}
	if x.calls.Load() != 0 {
		t.Error("the provider was asked although local reading succeeded")
	}
}

func TestReader_RendersAShellWithNoDataInTheBrowser(t *testing.T) {
	rend := &fakeRenderer{html: article}
	u := serve(t, 200, "text/html", shell)
	r := &Reader{Probe: ProbeConfig{AllowPrivate: true}, Renderer: rend}
	res, err := r.Read(context.Background(), Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != SourceRendered || res.Title != "Contexts" || rend.calls != 1 {
		t.Errorf("source %s title %q calls %d misses %v", res.Source, res.Title, rend.calls, res.Misses)
	}
}

func TestReader_ARenderedAppThatKeepsItsNoscriptNoticeIsRead(t *testing.T) {
	// Once rendered, an app keeps its <noscript> notice and module script
	// beside the content it rendered.
	rendered := `<html><head><title>Deadlines</title><script type="module" src="/assets/app.js"></script></head><body>` +
		`<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"><main><h1>Project deadlines</h1>` +
		strings.Repeat(`<p>The report is due on Friday, and the review follows on Monday. Every team sends its part to the editor first.</p>`, 4) +
		`</main></div></body></html>`
	rend := &fakeRenderer{html: rendered}
	u := serve(t, 200, "text/html", shell)
	r := &Reader{Probe: ProbeConfig{AllowPrivate: true}, Renderer: rend}
	res, err := r.Read(context.Background(), Request{URL: u})
	if err != nil || res.Source != SourceRendered || !strings.Contains(res.Content, "due on Friday") {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func TestReader_AProviderReadsWhatTheBrowserCouldNot(t *testing.T) {
	for _, rend := range []*fakeRenderer{{err: errors.New("browser crashed")}, {html: shell}, {html: "<html><body><h1>Sign in</h1><form><input type=password> Log in to continue</form></body></html>"}} {
		x := &fakeExtractor{name: "jina", page: &provider.Page{Content: "the page"}}
		u := serve(t, 200, "text/html", shell)
		r := loopbackReader(x)
		r.Renderer = rend
		res, err := r.Read(context.Background(), Request{URL: u})
		if err != nil || res.Source != SourceProvider || len(res.Misses) == 0 {
			t.Errorf("renderer %+v: res %+v err %v", rend, res, err)
		}
	}
}

func TestReader_FollowsTheReadingOrder(t *testing.T) {
	u := serve(t, 200, "text/html", nextShell)
	x := &fakeExtractor{name: "x", page: &provider.Page{Content: "from the provider"}}
	r := loopbackReader(x)
	r.Order = ProvidersFirst
	if res, err := r.Read(context.Background(), Request{URL: u}); err != nil || res.Source != SourceProvider {
		t.Errorf("providers-first: %+v %v", res, err)
	}
	r.Order = ProvidersOnly
	x.err = &provider.Error{Provider: "x", Kind: provider.KindTransient}
	if _, err := r.Read(context.Background(), Request{URL: u, NoFallback: true}); KindOf(err) != KindExtraction {
		t.Errorf("providers-only with a failing provider: %v", err)
	}
	r.Order = LocalOnly
	x.calls.Store(0)
	if res, err := r.Read(context.Background(), Request{URL: u}); err != nil || res.Source != SourceRecovered || x.calls.Load() != 0 {
		t.Errorf("local-only: %+v %v (provider calls %d)", res, err, x.calls.Load())
	}
}

func TestJudgeLocal_RefusesWallsAndScraps(t *testing.T) {
	long := strings.Repeat("A paragraph of real content about the topic at hand. ", 10)
	for _, tc := range []struct {
		md string
		ok bool
	}{
		{long, true},
		{"Loading…", false},
		{"# Just a moment...\n\nChecking your browser before accessing the site. This process is automatic. " + strings.Repeat("Please wait. ", 20), false},
		{"# Sign in\n\nEmail address\n\nPassword\n\nForgot your password? " + strings.Repeat("Sign in with your account to continue. ", 6), false},
		{"# 404\n\nPage not found. The page you are looking for does not exist or has been moved somewhere else on this site, sorry. " + strings.Repeat("Go home. ", 10), false},
		{strings.Repeat("An article that mentions a password policy and how to sign in, at length. ", 40), true},
	} {
		if ok, why := judgeLocal(tc.md); ok != tc.ok {
			t.Errorf("judgeLocal(%.40q) = %v (%s), want %v", tc.md, ok, why, tc.ok)
		}
	}
}

func TestReader_ReadsAPDFLocally(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("pdf", "testdata", "pdflatex-4-pages.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	u := serve(t, 200, "application/pdf", string(data))
	x := &fakeExtractor{name: "x", page: &provider.Page{Content: "from the provider"}}
	res, err := loopbackReader(x).Read(context.Background(), Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != SourceLocal || !strings.Contains(res.Content, "[page 2]") || !strings.Contains(res.Note, "4 pages") || x.calls.Load() != 0 {
		t.Errorf("source %s note %q content %.200q provider calls %d", res.Source, res.Note, res.Content, x.calls.Load())
	}
	// Garbage served as a PDF goes to the provider.
	u = serve(t, 200, "application/pdf", "%PDF-1.7 not really a document")
	res, err = loopbackReader(x).Read(context.Background(), Request{URL: u})
	if err != nil || res.Source != SourceProvider || len(res.Misses) == 0 {
		t.Errorf("garbage PDF: res %+v err %v", res, err)
	}
}

// portalPage is a template-heavy page: a menu and linked teasers, the
// given one among them.
func portalPage(teaser string) string {
	var b strings.Builder
	b.WriteString("<html><head><title>Portal</title></head><body><nav>")
	for i := range 40 {
		b.WriteString(`<a href="/section/` + string(rune('a'+i%26)) + `">Section link</a> `)
	}
	b.WriteString("</nav><main>")
	for i := range 8 {
		b.WriteString(`<div class="teaser"><h3><a href="/story">` + teaser + `</a></h3><p>A short teaser sentence about story ` + strconv.Itoa(i) + ` that continues on another page.</p></div>`)
	}
	b.WriteString("</main><footer>Footer links</footer></body></html>")
	return b.String()
}

func TestReader_RendersATemplateHeavyPageOnlyWhenAsked(t *testing.T) {
	u := serve(t, 200, "text/html", portalPage("A story served with the page"))
	rend := &fakeRenderer{html: portalPage("A story the script filled in")}
	r := &Reader{Probe: ProbeConfig{AllowPrivate: true}, Renderer: rend}
	p, err := r.Plan(context.Background(), u)
	if err != nil || p.Verdict == nil || p.Verdict.Class.String() != "template-heavy" {
		t.Fatalf("plan %+v err %v: the test needs a template-heavy page", p, err)
	}
	res, err := r.Read(context.Background(), Request{URL: u})
	if err != nil || res.Source != SourceLocal || !strings.Contains(res.Content, "served with the page") || rend.calls != 0 {
		t.Fatalf("by default: source %s, renders %d, err %v\n%s", res.Source, rend.calls, err, res.Content)
	}
	r.RenderTemplateHeavy = true
	res, err = r.Read(context.Background(), Request{URL: u})
	if err != nil || res.Source != SourceRendered || !strings.Contains(res.Content, "the script filled in") || rend.calls != 1 {
		t.Fatalf("with RenderTemplateHeavy: source %s, renders %d, err %v\n%s", res.Source, rend.calls, err, res.Content)
	}
	if !strings.Contains(res.Content, "[A story the script filled in]") {
		t.Errorf("the rendered page was not read for its structure (its linked teasers):\n%s", res.Content)
	}
	rend.err = errors.New("browser crashed")
	res, err = r.Read(context.Background(), Request{URL: u})
	if err != nil || res.Source != SourceLocal || !strings.Contains(res.Content, "served with the page") {
		t.Errorf("when the render fails: source %s, err %v", res.Source, err)
	}
}

// A page the classifier calls template-heavy whose main body the article
// conversion finds — most of the page's text, mostly not links — is read
// as that article, not as its structure; a page whose readability pick is
// a list of links keeps its structure.
func TestReader_ReadsATemplateHeavyPagesArticleWhenReadabilityFindsItsBody(t *testing.T) {
	var menu strings.Builder
	for i := range 30 {
		menu.WriteString(`<li><a href="/section/` + strings.Repeat("x", i%5+1) + `">Section name ` + strings.Repeat("y", i%7+1) + `</a></li>`)
	}
	para := `<p>The council voted on Tuesday to extend the harbour wall by forty metres, after two winters of storms that flooded the lower town and closed the ferry for a week at a time.</p>`
	articlePage := `<html><head><title>Harbour wall to be extended</title></head><body><header><nav><ul>` + menu.String() + `</ul></nav></header>` +
		`<div class="content"><h1>Harbour wall to be extended</h1>` + strings.Repeat(para, 6) + `</div>` +
		`<footer><ul>` + menu.String() + `</ul></footer></body></html>`
	var links strings.Builder
	for i := range 40 {
		links.WriteString(`<div class="teaser"><a href="/story/` + strings.Repeat("z", i%9+1) + `">A headline about the town's news, number ` + strings.Repeat("n", i%4+1) + ` of the day</a></div>`)
	}
	listing := `<html><head><title>News</title></head><body><div class="stories">` + links.String() + `</div></body></html>`

	templateHeavy := func([]byte) classify.Result { return classify.Result{Class: classify.TemplateHeavy} }
	r := &Reader{Probe: ProbeConfig{AllowPrivate: true}, Classify: templateHeavy}
	for _, tc := range []struct {
		name, page string
		want       ConvertMode
	}{
		{"article", articlePage, ConvertArticle},
		{"link list", listing, ConvertStructure},
	} {
		res, err := r.Read(context.Background(), Request{URL: serve(t, 200, "text/html", tc.page)})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Mode != tc.want || res.Source != SourceLocal {
			t.Errorf("%s: mode %q source %s, want %q; note %q", tc.name, res.Mode, res.Source, tc.want, res.Note)
		}
		if tc.want == ConvertArticle && (strings.Contains(res.Content, "Section name") || res.Note != "" || !strings.Contains(res.Content, "harbour wall")) {
			t.Errorf("%s: note %q, content %q", tc.name, res.Note, res.Content)
		}
	}
}

// A shop category whose introduction readability picks (half the page's
// text, few links: found, on its own) is judged by its <main>, a third of
// it the grid's links: it is read as its structure, the grid with the
// introduction, whatever the classifier called it.
func TestReader_ReadsAShopCategoryWhoseGridReadabilityLeavesAsItsStructure(t *testing.T) {
	intro := `<p>Trail running shoes grip loose ground, shed mud and protect the foot from rocks and roots. Our fitters test each pair on the hills behind the shop before it goes on the wall, and we keep the ones that still feel right after a wet month of runs.</p>`
	var grid strings.Builder
	for i := range 12 {
		fmt.Fprintf(&grid, `<li class="product-card"><a href="/p/shoe-%d">Ridgeline Trail %d running shoe</a><div class="price">$%d.00</div><div class="badge">New</div></li>`, i, i, 100+i)
	}
	page := `<html><head><title>Trail running shoes | Fleet Shop</title></head><body>
<header><nav><a href="/">Home</a> <a href="/shoes">Shoes</a> <a href="/help">Help</a></nav></header>
<main><section class="category-intro"><h1>Trail running shoes</h1>` + intro + intro + `</section>
<ul class="product-grid">` + grid.String() + `</ul></main>
<footer><p>Fleet Shop, all rights reserved.</p></footer></body></html>`
	// The classifier may call it template-heavy or plainly readable.
	for _, class := range []classify.Class{classify.TemplateHeavy, classify.FetchReadable} {
		r := &Reader{Probe: ProbeConfig{AllowPrivate: true}, Classify: func([]byte) classify.Result { return classify.Result{Class: class} }}
		res, err := r.Read(context.Background(), Request{URL: serve(t, 200, "text/html", page)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Mode != ConvertStructure {
			t.Fatalf("%s: mode %q, want the structure; content:\n%s", class, res.Mode, res.Content)
		}
		for _, want := range []string{"grip loose ground", "Ridgeline Trail 7 running shoe", "$107.00"} {
			if !strings.Contains(res.Content, want) {
				t.Errorf("%s: the page lacks %q:\n%s", class, want, res.Content)
			}
		}
	}
}

func TestArticleFound_WeighsShareDeclarationAndLinks(t *testing.T) {
	prose := strings.Repeat("The council voted to extend the harbour wall. ", 10)
	linked := strings.Repeat("[A headline of the day](https://news.example/a) ", 10)
	structure := Document{Mode: ConvertStructure, TextChars: 1000}
	for _, tc := range []struct {
		name     string
		article  Document
		declared bool
		want     bool
	}{
		{"most of the page, prose", Document{Mode: ConvertArticle, TextChars: 500, Markdown: prose}, false, true},
		{"a small part, prose", Document{Mode: ConvertArticle, TextChars: 200, Markdown: prose}, false, false},
		{"just under two fifths, prose", Document{Mode: ConvertArticle, TextChars: 390, Markdown: prose}, false, true},
		{"a little over a third, prose", Document{Mode: ConvertArticle, TextChars: 360, Markdown: prose}, false, false},
		{"a small part of a declared article", Document{Mode: ConvertArticle, TextChars: 200, Markdown: prose}, true, true},
		{"a tiny part of a declared article", Document{Mode: ConvertArticle, TextChars: 50, Markdown: prose}, true, false},
		{"most of the page, links", Document{Mode: ConvertArticle, TextChars: 900, Markdown: linked}, true, false},
		{"already the structure", Document{Mode: ConvertStructure, TextChars: 900, Markdown: prose}, true, false},
	} {
		if got := articleFound(tc.article, structure, tc.declared); got != tc.want {
			t.Errorf("%s: articleFound = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A short documentation page beside a long table of contents: its article
// is a small share of the page's structure, but the rest of the structure
// is links.
func TestArticleFound_ArticleHoldingTheStructuresProse(t *testing.T) {
	prose := strings.Repeat("A mapped type builds a new type from the keys of another. ", 10)
	var toc strings.Builder
	for i := range 40 {
		fmt.Fprintf(&toc, "[Chapter %d of the handbook](https://docs.example/c%d)\n\n", i, i)
	}
	article := Document{Mode: ConvertArticle, Markdown: prose, TextChars: len(prose)}
	for _, tc := range []struct {
		name      string
		structure string
		want      bool
	}{
		{"beside links", toc.String() + "\n" + prose, true},
		{"beside more prose", strings.Repeat("Our offices are open from nine to five on weekdays. ", 30) + "\n" + prose, false},
	} {
		structure := Document{Mode: ConvertStructure, Markdown: tc.structure, TextChars: len(visibleText(tc.structure))}
		if got := articleFound(article, structure, false); got != tc.want {
			t.Errorf("%s: articleFound = %v, want %v (article %d of %d chars)", tc.name, got, tc.want, article.TextChars, structure.TextChars)
		}
	}
}

// A page the classifier takes for an app shell because of its scripts,
// whose HTML already holds an article with more text than the data it
// embeds, is read as that article.
func TestReader_ReadsTheServedArticleOfAShellThatHoldsMoreThanItsData(t *testing.T) {
	para := `<p>The council voted on Tuesday to extend the harbour wall by forty metres, after two winters of storms that flooded the lower town and closed the ferry for a week at a time.</p>`
	page := `<html><head><title>Harbour wall</title><script src="/app.js" defer></script></head><body><div id="root"><article><h1>Harbour wall</h1>` +
		strings.Repeat(para, 8) + `</article></div><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"page":{"summary":"The harbour wall will be extended by forty metres after two winters of storms, the council decided on Tuesday; work starts in May and the ferry keeps running meanwhile, with a temporary landing stage at the north quay for the duration of the works."}}}}</script></body></html>`
	shellVerdict := func([]byte) classify.Result { return classify.Result{Class: classify.BrowserRenderRequired} }
	r := &Reader{Probe: ProbeConfig{AllowPrivate: true}, Classify: shellVerdict}
	res, err := r.Read(context.Background(), Request{URL: serve(t, 200, "text/html", page)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != SourceLocal || res.Mode != ConvertArticle || strings.Count(res.Content, "forty metres") != 8 {
		t.Errorf("source %s mode %q misses %v content %q", res.Source, res.Mode, res.Misses, res.Content)
	}
}

// A page the classifier calls template-heavy that holds a discussion
// thread is read as the thread (every post), not as its structure, even
// when the posts are a small share of the page's text.
func TestReader_ReadsATemplateHeavyThreadAsItsPosts(t *testing.T) {
	var side strings.Builder
	for i := range 60 {
		side.WriteString(`<li><a href="/t/` + strings.Repeat("q", i%9+1) + `">Another topic of the forum about telescopes, mounts and eyepieces, number ` + strings.Repeat("n", i%5+1) + `</a></li>`)
	}
	posts := []string{
		"I am new to astronomy and would like to buy my first telescope this winter; the sky here is dark and I would mostly look at the planets.",
		"Start with binoculars and a planisphere: ten by fifty binoculars show the moons of Jupiter and you learn the sky before spending more.",
		"A six inch Dobsonian is the usual answer for a first telescope, easy to set up and with enough aperture for the planets.",
		"Join a local club before buying anything; members let you look through their instruments at star parties.",
	}
	var thread strings.Builder
	for i, p := range posts {
		if i == 1 {
			thread.WriteString(`<section class="replies">`)
		}
		thread.WriteString(`<div class="post"><div class="post-author"><a href="/u/` + strings.Repeat("u", i+1) + `">stargazer` + strings.Repeat("s", i+1) + `</a></div><div class="post-body"><p>` + p + `</p></div></div>`)
	}
	page := `<html><head><title>Which telescope first?</title></head><body><main><h1>Which telescope first?</h1><div class="topic">` + thread.String() + `</section></div>` +
		`<aside><ul>` + side.String() + `</ul></aside></main></body></html>`
	templateHeavy := func([]byte) classify.Result { return classify.Result{Class: classify.TemplateHeavy} }
	r := &Reader{Probe: ProbeConfig{AllowPrivate: true}, Classify: templateHeavy}
	res, err := r.Read(context.Background(), Request{URL: serve(t, 200, "text/html", page)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != ConvertArticle || res.Note != "" {
		t.Errorf("mode %q, note %q; want the thread read as the page's main content", res.Mode, res.Note)
	}
	for _, p := range posts {
		if !strings.Contains(res.Content, p[:40]) {
			t.Errorf("the thread lacks %q:\n%s", p[:40], res.Content)
		}
	}
	if strings.Contains(res.Content, "Another topic") {
		t.Errorf("the thread keeps the page's list of topics:\n%s", res.Content)
	}
}
