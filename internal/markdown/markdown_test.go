package markdown_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/internal/markdown"
)

func TestConvertHTML_KeepsTheArticleAndDropsPageChrome(t *testing.T) {
	doc := markdown.ConvertHTML(fakeweb.Fixture(t, "readable/blog-article.html"), "https://notes.example/2024/02/ice/")
	if doc.Title != "Measuring the ice on the mill river | Field Notes" {
		t.Errorf("title = %q", doc.Title)
	}
	// The title and byline are fields, not lines put in front of the
	// content: the content starts with the article's first paragraph.
	if !strings.HasPrefix(doc.Markdown, "Every winter the river") {
		t.Errorf("content does not start with the article's text:\n%s", doc.Markdown)
	}
	if strings.Contains(doc.Markdown, "Measuring the ice on the mill river") || strings.Contains(doc.Markdown, "Ruth Okafor") {
		t.Errorf("content repeats the title or byline:\n%s", doc.Markdown)
	}
	if !strings.Contains(doc.Byline, "Ruth Okafor") || doc.Language != "en" {
		t.Errorf("byline %q, language %q; want Ruth Okafor's, en", doc.Byline, doc.Language)
	}
	for _, want := range []string{"## What the town decided", "[rivers](https://notes.example/tags/rivers/)"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("content lacks %q", want)
		}
	}
	for _, noise := range []string{"Archive", "Related posts", "Counting swifts", "static site generator", "BlogPosting", "highlight.js"} {
		if strings.Contains(doc.Markdown, noise) {
			t.Errorf("content keeps %q:\n%s", noise, doc.Markdown)
		}
	}
}

func TestConvertHTML_RendersListsCodeQuotesAndTables(t *testing.T) {
	page := `<html><head><title> T </title><style>p{}</style></head><body>
	<h2>Steps <a href="#steps">¶</a></h2>
	<ol start="3"><li>First <b>bold</b></li><li>Second<ul><li>nested <a href="/x?a=(1)">link</a></li></ul></li></ol>
	<pre class="language-go"><code>func main() {
	fmt.Println("hi")
}</code></pre>
	<blockquote><p>Quoted</p><p>twice</p></blockquote>
	<p>Line one<br>line two and <code>x := 1</code>, <em>em</em>.<i> i</i></p>
	<table><tr><th>A</th><th>B|C</th></tr><tr><td>1</td></tr></table>
	<p hidden>hidden text</p><div aria-hidden="true">aria hidden</div>
	<a href="javascript:alert(1)">js link</a>
	</body></html>`
	doc := markdown.ConvertHTML([]byte(page), "https://example.org/dir/page")
	want := "## Steps\n\n" +
		"3. First **bold**\n4. Second\n   \n   - nested [link](https://example.org/x?a=%281%29)\n\n" +
		"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n" +
		"> Quoted\n> \n> twice\n\n" +
		"Line one  \nline two and `x := 1`, *em*. *i*\n\n" +
		"| A | B\\|C |\n|---|---|\n| 1 |  |\n\n" +
		"js link"
	if doc.Markdown != want {
		t.Errorf("markdown =\n%s\n---- want ----\n%s", doc.Markdown, want)
	}
	if doc.Title != "T" {
		t.Errorf("title = %q", doc.Title)
	}
}

// An image's alt text is read only where it is the image's caption: in a
// <figure> without a <figcaption>. A logo, an icon or a photo beside the
// text is not text of the page.
func TestConvertHTML_ImageAltTextOnlyAsACaption(t *testing.T) {
	page := `<html><body><main><h1>Harbour</h1>
	<p><img src="/logo.png" alt="Harbour Gazette logo">` + strings.Repeat("The council voted to extend the harbour wall by forty metres. ", 8) + `</p>
	<figure><img src="/a.jpg" alt="The wall at high tide"></figure>
	<figure><img src="/b.jpg" alt="A photo of a wall"><figcaption>Work starts in May</figcaption></figure>
	<p><a href="/share"><img src="/fb.svg" alt="Share on Facebook"></a>` + strings.Repeat("Residents welcomed the plan at the meeting. ", 6) + `</p>
	</main></body></html>`
	doc := markdown.ConvertHTML([]byte(page), "https://example.org/")
	for _, want := range []string{"The wall at high tide", "Work starts in May", "forty metres"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("lacks %q:\n%s", want, doc.Markdown)
		}
	}
	for _, noise := range []string{"Harbour Gazette logo", "A photo of a wall", "Share on Facebook"} {
		if strings.Contains(doc.Markdown, noise) {
			t.Errorf("keeps the alt text %q:\n%s", noise, doc.Markdown)
		}
	}
}

func TestConvertHTML_NeverFailsOnBrokenOrEmptyInput(t *testing.T) {
	for _, in := range []string{"", "<", "<html><body><div><p>unclosed", "\x00\xff binary", strings.Repeat("<div>", 5000) + "deep"} {
		doc := markdown.ConvertHTML([]byte(in), "")
		_ = doc.Markdown
	}
	if d := markdown.ConvertHTML([]byte(strings.Repeat("<div>", 5000)+"deep"), ""); d.Markdown != "" && !strings.Contains(d.Markdown, "deep") {
		t.Errorf("deep nesting lost its text: %q", d.Markdown)
	}
}

func FuzzConvertHTML(f *testing.F) {
	f.Add([]byte("<p>hello <a href='/x'>x</a></p>"), "https://example.org/")
	f.Add([]byte("<ul><li><ol><li><pre>x</pre></li></ol></li></ul>"), "")
	f.Add([]byte(`<base href="javascript:x//"><a href="y">t</a><img alt="[a](javascript:b)">`), "https://example.org/")
	f.Add([]byte("<table><tr><td><p>a<br>b</p><table><tr><td>c</td></tr></table></td></tr></table>"), "http://h/")
	f.Add([]byte("<main><h1>T</h1><p>"+strings.Repeat("word ", 100)+"</p><pre class='language-go'>```x```</pre></main>"), "https://e/")
	f.Add([]byte(strings.Repeat("<p><b><a href=/x>", 50)), "https://e/")
	f.Fuzz(func(t *testing.T, page []byte, base string) {
		start := time.Now()
		for _, mode := range []markdown.Mode{markdown.ModeAuto, markdown.ModeStructure} {
			doc := markdown.Convert(page, base, markdown.Options{Mode: mode})
			if bad := unsafeMarkdown(doc.Markdown); bad != "" {
				t.Errorf("%q: %s in\n%s", mode, bad, doc.Markdown)
			}
			if again := markdown.Convert(page, base, markdown.Options{Mode: mode}); again != doc {
				t.Errorf("%s: two conversions differ", mode)
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%d bytes took %v", len(page), d)
		}
	})
}

// ConvertHTML turns a page's main content into Markdown; relative links
// are resolved against the page's URL, and navigation is dropped.
func ExampleConvertHTML() {
	page := `<html><head><title>Version 2 released</title></head><body>
	<nav><a href="/">Home</a></nav>
	<main><h1>Version 2 released</h1><p>Adds <code>--json</code>. See <a href="/docs/cli">the CLI docs</a>.</p></main>
	</body></html>`
	doc := markdown.ConvertHTML([]byte(page), "https://example.org/releases/")
	fmt.Println(doc.Title)
	fmt.Println(doc.Markdown)
	// Output:
	// Version 2 released
	// Adds `--json`. See [the CLI docs](https://example.org/docs/cli).
}

// What is hidden, for screen readers only, or a cookie banner is dropped
// whatever the case and spacing of its class, id or style; a class that
// only contains a screen-reader class's name is not.
func TestConvertHTML_DropsHiddenScreenReaderAndCookieElements(t *testing.T) {
	page := []byte(`<html><body><main><h1>Heading</h1>
<p>Kept paragraph one with enough words to be read as the content of the page.</p>
<p style="DISPLAY : None">hidden-by-style</p>
<p style="color:red;visibility:hidden">hidden-by-visibility</p>
<span class="icon SR-Only">screen-reader-text</span>
<span class="not-sr-only-here">kept-partial-class</span>
<div id="CookieConsentBanner">cookie-banner-text</div>
<div class="GDPR-notice">gdpr-text</div>
<span class="edit-note hidden">hidden-by-class</span>
<div class="menu d-none">hidden-by-bootstrap</div>
<span class="hidden lg:block">shown-on-large-screens</span>
<span class="hidden-xs small">shown-but-on-phones</span>
<p>Kept paragraph two with enough words to be read as the content of the page.</p>
</main></body></html>`)
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		md := markdown.Convert(page, "https://example.org/", markdown.Options{Mode: mode}).Markdown
		for _, gone := range []string{"hidden-by-style", "hidden-by-visibility", "screen-reader-text", "cookie-banner-text", "gdpr-text", "hidden-by-class", "hidden-by-bootstrap"} {
			if strings.Contains(md, gone) {
				t.Errorf("%s: %q kept:\n%s", mode, gone, md)
			}
		}
		for _, kept := range []string{"Kept paragraph one", "Kept paragraph two", "kept-partial-class", "shown-on-large-screens", "shown-but-on-phones"} {
			if !strings.Contains(md, kept) {
				t.Errorf("%s: %q lost:\n%s", mode, kept, md)
			}
		}
	}
}

// A page read for its structure says each block once: the labels every
// item repeats and a second copy of a banner go, a table's repeated cells
// and code stay.
func TestConvert_StructureSaysEachBlockOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><div class="promo"><p>Free shipping on every order</p></div><ul>`)
	for i := range 5 {
		fmt.Fprintf(&b, `<li><h3><a href="/item/%d">Item number %d</a></h3><p>Blurb of item %d, with its own words.</p><div>Ships in two days</div></li>`, i, i, i)
	}
	b.WriteString(`</ul><div class="promo mobile"><p>Free shipping on every order</p></div>
<table><tr><th>Size</th><th>Stock</th></tr><tr><td>S</td><td>yes</td></tr><tr><td>M</td><td>yes</td></tr></table>
<pre><code>x := 1
x := 1</code></pre></body></html>`)
	md := markdown.Convert([]byte(b.String()), "https://example.org/", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	for label, want := range map[string]int{"Ships in two days": 1, "Free shipping on every order": 1, "| yes": 2, "x := 1": 2} {
		if got := strings.Count(md, label); got != want {
			t.Errorf("%q appears %d times, want %d:\n%s", label, got, want, md)
		}
	}
	for i := range 5 {
		for _, s := range []string{fmt.Sprintf("Item number %d", i), fmt.Sprintf("Blurb of item %d", i)} {
			if !strings.Contains(md, s) {
				t.Errorf("%q lost:\n%s", s, md)
			}
		}
	}
}

// A page read for its structure leaves out its template's widgets, even
// inside <main>: a filter panel, a sort box, a menu, breadcrumbs,
// pagination, a newsletter box. An element so named that holds most of
// the page's text (a restaurant's menu) is the content and stays.
func TestConvert_StructureDropsTemplateWidgets(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><main>
<div class="breadcrumbs"><a href="/">Home</a> / <a href="/shoes">Shoes</a></div>
<aside id="facet-panel"><h4>Brand</h4><ul><li>Brandone-filter</li><li>Brandtwo-filter</li></ul></aside>
<div class="sort_by">Sort by price-sorting</div>
<div class="mega-menu"><a href="/a">Menu entry one</a> <a href="/b">Menu entry two</a></div>
<h1>Running shoes</h1><ul class="product-grid">`)
	for i := range 6 {
		fmt.Fprintf(&b, `<li><h3><a href="/p/%d">Shoe model %d</a></h3><p>Light trainer number %d for daily runs.</p></li>`, i, i, i)
	}
	b.WriteString(`</ul><nav class="pagination"><a href="?p=2">Next page-link</a></nav>
<div class="newsletter-signup"><p>Subscribe-to-our-letter for offers.</p></div>
</main></body></html>`)
	md := markdown.Convert([]byte(b.String()), "https://example.org/", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	for _, gone := range []string{"Home", "Brandone-filter", "price-sorting", "Menu entry one", "page-link", "Subscribe-to-our-letter"} {
		if strings.Contains(md, gone) {
			t.Errorf("%q kept:\n%s", gone, md)
		}
	}
	for i := range 6 {
		if s := fmt.Sprintf("Shoe model %d", i); !strings.Contains(md, s) {
			t.Errorf("%q lost:\n%s", s, md)
		}
	}

	menu := `<html><body><main><h1>Our restaurant</h1><div class="menu"><h2>Starters</h2>
<p>Tomato soup with basil and cream, served with fresh bread from our own bakery.</p>
<p>Grilled vegetables with goat cheese, olive oil and herbs from the garden.</p>
<h2>Mains</h2><p>Roast chicken with potatoes, seasonal vegetables and a red wine sauce.</p></div>
<p>Open daily.</p></main></body></html>`
	md = markdown.Convert([]byte(menu), "https://example.org/", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	if !strings.Contains(md, "Roast chicken") {
		t.Errorf("a menu that is the page's content was dropped:\n%s", md)
	}
}

// A service page: a hero, feature cards under their headings, plans, and
// one long section readability keeps alone. The page's <main> holds all
// of it, little of it links, and no comments: it is read whole.
func TestConvertHTML_ReadsTheMainOfAPageReadabilityCutsToASection(t *testing.T) {
	long := strings.Repeat("Our campaign team plans each campaign with you, from the audience and the goals to the channels, the messages and the schedule, and reports on what each one brought in, every month, in plain words. ", 4)
	var cards strings.Builder
	for i := range 24 {
		fmt.Fprintf(&cards, `<div class="card"><h3>Service %d</h3><p>Task %d done.</p></div>`, i, i)
	}
	page := `<html><head><title>Marketing and advertising - Brand Studio</title></head><body>
	<header><nav><a href="/">Home</a> <a href="/services">Services</a> <a href="/contact">Contact</a></nav></header>
	<main>
	<section class="hero"><h1>Marketing and advertising for clinics</h1><p>Campaigns that bring patients, not just clicks.</p><a class="btn" href="/contact">Begin the journey</a></section>
	<section class="promo-grid"><h2>Why it matters</h2>
	<div class="card"><h3>Visibility</h3><p>Known in town.</p></div>
	<div class="card"><h3>Contact</h3><p>Heard between visits.</p></div>
	<div class="card"><h3>Bookings</h3><p>More bookings.</p></div>
	</section>
	<div class="row"><div class="container"><section class="detail"><h2>Campaign strategy</h2><p>` + long + `</p><p>` + long + `</p></section></div></div>
	<section class="pricing media-block"><h2>Plans</h2><div class="plan"><h3>Starter</h3><p>One channel, monthly report, from 900 euros a month.</p></div>
	<div class="plan"><h3>Growth</h3><p>Three channels, weekly report, from 2,400 euros a month.</p></div></section>
	<section class="services-grid"><h2>What we do</h2>` + cards.String() + `</section>
	</main>
	<footer><p>Brand Studio, all rights reserved.</p></footer></body></html>`
	doc := markdown.ConvertHTML([]byte(page), "https://studio.example/services/marketing")
	for _, want := range []string{"Campaign strategy", "Visibility", "Known in town", "Heard between visits", "Growth", "from 2,400 euros a month", "Service 17", "Task 17 done."} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the page lacks %q:\n%s", want, doc.Markdown)
		}
	}
	for _, noise := range []string{"Services", "all rights reserved"} {
		if strings.Contains(doc.Markdown, noise) {
			t.Errorf("the page keeps %q:\n%s", noise, doc.Markdown)
		}
	}
	// A <main> that holds a comment section is a post's page: its
	// comments and the rest stay out.
	withComments := strings.Replace(page, "</main>", `<section id="comments"><h2>Comments</h2><p>Great post, thanks.</p></section></main>`, 1)
	if doc := markdown.ConvertHTML([]byte(withComments), "https://studio.example/services/marketing"); strings.Contains(doc.Markdown, "Great post") || strings.Contains(doc.Markdown, "Service 17") {
		t.Errorf("a main with comments is read whole:\n%s", doc.Markdown)
	}
}

// A documentation page's tabs (one per platform) are all read from its
// structure: the panels a script shows on a click are hidden in the
// HTML, but they are content. A panel hidden by its style that holds no
// code is a carousel's slide and stays out.
func TestConvert_KeepsHiddenTabPanels(t *testing.T) {
	page := []byte(`<html><body><main><h1>Install the tool</h1>
<p>Pick your platform below and run the commands in a terminal; each platform has its own package.</p>
<div role="tablist"><a role="tab" href="#win">Windows</a><a role="tab" href="#linux">Linux</a></div>
<section id="win" role="tabpanel"><pre><code>winget install example.tool</code></pre></section>
<section id="linux" role="tabpanel" hidden="hidden"><pre><code>sudo apt-get install example-tool</code></pre></section>
<section id="mac" role="tabpanel" style="display:none"><pre><code>brew install example-tool</code></pre></section>
<div role="tabpanel" style="display: none"><p>slide-two-repeats-the-first</p></div>
<div hidden>hidden-note</div>
<p>Then check the version it prints, which should match the release notes of the current month.</p>
</main></body></html>`)
	for _, mode := range []markdown.Mode{markdown.ModeStructure} {
		md := markdown.Convert(page, "https://docs.example/install", markdown.Options{Mode: mode}).Markdown
		for _, want := range []string{"winget install example.tool", "sudo apt-get install example-tool", "brew install example-tool"} {
			if !strings.Contains(md, want) {
				t.Errorf("%s: %q lost:\n%s", mode, want, md)
			}
		}
		for _, gone := range []string{"hidden-note", "slide-two-repeats-the-first"} {
			if strings.Contains(md, gone) {
				t.Errorf("%s: %q kept: a hidden element that is not a tab panel, or a panel hidden by its style without code:\n%s", mode, gone, md)
			}
		}
	}
}

// An accordion's panels (a service page's offers, a page's questions and
// answers) are hidden in the HTML until their button is clicked; a
// panel labelled by its button is content, in both conversions. A
// hidden element that labels nothing stays out.
func TestConvert_KeepsHiddenAccordionPanels(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><header><nav><a href="/">Home</a> <a href="/services">Services</a></nav></header><main><h1>Data analytics services</h1>
<p>Leverage the power of data analytics consulting for insights that change how your business decides, plans and grows.</p>
<div class="accordion">`)
	for i, name := range []string{"Business intelligence", "Customer insights", "Analytics as a service", "Tax data analytics"} {
		fmt.Fprintf(&b, `<h3><button id="item-%d-button" aria-controls="item-%d-panel" aria-expanded="false">%s</button></h3>
<div id="item-%d-panel" class="accordion__panel" aria-labelledby="item-%d-button" hidden><p>Panel %d: our consultants turn the data you already hold into %s that your teams read every week, with dashboards, reports and training for everyone who uses them.</p></div>`, i, i, name, i, i, i, strings.ToLower(name))
	}
	b.WriteString(`</div><div hidden>hidden-note</div><p>Contact our team to see how analytics can help your business grow.</p></main></body></html>`)
	page := []byte(b.String())
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		md := markdown.Convert(page, "https://consulting.example/services/analytics", markdown.Options{Mode: mode}).Markdown
		for i := range 4 {
			if want := fmt.Sprintf("Panel %d: our consultants", i); !strings.Contains(md, want) {
				t.Errorf("%s: %q lost:\n%s", mode, want, md)
			}
		}
		if strings.Contains(md, "hidden-note") {
			t.Errorf("%s: a hidden element that is no panel is kept:\n%s", mode, md)
		}
	}
}

// Rust's API documentation (rustdoc, docs.rs) prints beside each item
// the version it is stable since and a link to its source, and folds the
// description under a toggle: they are not the documentation. Its items'
// signatures are headings of class "code-header": readability took them
// for the page's header.
func TestConvert_ReadsRustdocsItemsWithoutTheirVersionAndSourceLinks(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><nav><a href="/std">std</a></nav><main><section id="main-content" class="content"><div class="main-heading"><h1>Enum <span class="enum">Outcome</span></h1><span class="sub-heading"><span class="since" title="Stable since Rust version 1.0.0">1.0.0</span> · <a class="src" href="../src/outcome.rs.html#5">Source</a></span></div>
<details class="toggle top-doc" open><summary class="hideme"><span>Expand description</span></summary><div class="docblock"><p>Outcome is a type that represents either success or failure of an observation, with the reason it failed.</p></div></details>`)
	for i, name := range []string{"is_ok", "is_err", "ok", "err", "map"} {
		fmt.Fprintf(&b, `<details class="toggle method-toggle" open><summary><section id="method.%s" class="method"><span class="rightside"><span class="since" title="Stable since Rust version 1.%d.0">1.%d.0</span> · <a class="src" href="../src/outcome.rs.html#%d">Source</a></span><h4 class="code-header">pub fn %s(&amp;self) -&gt; bool</h4></section></summary><div class="docblock"><p>Method %s tells the caller about the observation's outcome, and never panics whatever the outcome holds.</p></div></details>`, name, i, i, i*10, name, name)
	}
	b.WriteString(`</section></main></body></html>`)
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		md := markdown.Convert([]byte(b.String()), "https://doc.example/std/enum.Outcome.html", markdown.Options{Mode: mode}).Markdown
		for _, want := range []string{"Outcome is a type", "pub fn map", "Method map tells"} {
			if !strings.Contains(md, want) {
				t.Errorf("%s: %q lost:\n%s", mode, want, md)
			}
		}
		for _, noise := range []string{"Source", "1.3.0", "Expand description"} {
			if strings.Contains(md, noise) {
				t.Errorf("%s: %q kept:\n%s", mode, noise, md)
			}
		}
	}
}

// What opens over the page on a click or a key (mdBook's keyboard help,
// an offer's popup) is not the page, in either conversion.
func TestConvert_LeavesOutPopups(t *testing.T) {
	page := []byte(`<html><body><div id="mdbook-help-container"><div id="mdbook-help-popup"><h2 class="mdbook-help-title">Keyboard shortcuts</h2>
<div><p>Press <kbd>←</kbd> or <kbd>→</kbd> to navigate between chapters</p><p>Press <kbd>S</kbd> or <kbd>/</kbd> to search in the book</p></div></div></div>
<div class="offer-popup"><p>Get 10% off your first order when you subscribe today.</p></div>
<main><h1>Defining shared behaviour with traits</h1>
<p>A trait defines the functionality a particular type has and can share with other types. We can use traits to define shared behaviour in an abstract way.</p>
<p>Trait bounds specify that a generic type can be any type that has certain behaviour, and the compiler checks every use of it against those bounds.</p>
<p>Different types share the same behaviour if we can call the same methods on all of those types; trait definitions group method signatures together.</p></main></body></html>`)
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		md := markdown.Convert(page, "https://book.example/ch10-02-traits.html", markdown.Options{Mode: mode}).Markdown
		if !strings.Contains(md, "A trait defines the functionality") {
			t.Errorf("%s: the page lost its text:\n%s", mode, md)
		}
		for _, noise := range []string{"Keyboard shortcuts", "navigate between chapters", "10% off"} {
			if strings.Contains(md, noise) {
				t.Errorf("%s: %q kept:\n%s", mode, noise, md)
			}
		}
	}
}

// A ticker's or a carousel's slides that scroll without end are copied
// in the HTML, three or six times over: each is read once. Code keeps
// its repeated lines, and short labels their repeats.
func TestConvert_ReadsACarouselsCopiedSlidesOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><main><h1>Clarity, finally</h1>
<p>Join millions of people who organize work and life with the planner, and plan every project from the first idea to its delivery.</p>
<div class="ticker">`)
	for range 4 {
		b.WriteString(`<ul class="ticker__group"><li><strong>30+ million</strong> app downloads</li><li><strong>2+ billion</strong> tasks completed</li></ul>`)
	}
	b.WriteString(`</div><p>Capture tasks at the speed of thought: the planner reads dates and places as you type and files every task where it belongs.</p>
<pre><code>repeat
repeat the same line of code
repeat the same line of code
</code></pre></main></body></html>`)
	md := markdown.Convert([]byte(b.String()), "https://planner.example/", markdown.Options{Mode: markdown.ModeArticle}).Markdown
	if n := strings.Count(md, "30+ million"); n != 1 {
		t.Errorf("the slides are read %d times, want once:\n%s", n, md)
	}
	if n := strings.Count(md, "repeat the same line of code"); n != 2 {
		t.Errorf("the code's repeated line is read %d times, want 2:\n%s", n, md)
	}
	if !strings.Contains(md, "Capture tasks at the speed of thought") {
		t.Errorf("the page lost its text:\n%s", md)
	}
}

// A MediaWiki page's chrome around its article (the site's notice, "From
// <wiki>", the jump links, the table of contents, each section's
// "[edit]", the categories and "Retrieved from") is not the article, in
// either conversion.
func TestConvert_LeavesOutMediaWikisChrome(t *testing.T) {
	page := []byte(`<html><body><div id="content" class="mw-body" role="main"><div id="siteNotice">Want to edit, but see no edit button? Click here.</div>
<h1 id="firstHeading" class="firstHeading">Performance optimization</h1><div id="bodyContent" class="vector-body"><div id="siteSub">From Stargazers wiki</div>
<div id="contentSub"></div><div id="jump-to-nav"></div><a class="mw-jump-link" href="#mw-head">Jump to navigation</a>
<div id="mw-content-text"><div class="mw-parser-output"><p>Tuning the observatory's database starts with knowing which queries are slow, and why, before any setting is changed.</p>
<div id="toc" class="toc" role="navigation" aria-labelledby="mw-toc-heading"><div class="toctitle"><h2 id="mw-toc-heading">Contents</h2></div><ul><li><a href="#General_setup"><span class="tocnumber">1</span> <span class="toctext">General setup</span></a></li></ul></div>
<h2><span class="mw-headline" id="General_setup">General setup</span><span class="mw-editsection"><span class="mw-editsection-bracket">[</span><a href="/edit?section=1">edit</a><span class="mw-editsection-bracket">]</span></span></h2>
<p>Give the server enough memory for its working set, and measure each change against the same workload before keeping it.</p>
<p>Keep statistics fresh: the planner's choices are only as good as what it knows about the tables it reads.</p></div></div>
<div class="printfooter">Retrieved from "https://wiki.example/index.php?title=Performance"</div>
<div id="catlinks" class="catlinks"><div id="mw-normal-catlinks" class="mw-normal-catlinks"><a href="/Special:Categories">Categories</a>: <ul><li><a href="/Category:Administration">Administration</a></li></ul></div></div></div></div></body></html>`)
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		md := markdown.Convert(page, "https://wiki.example/wiki/Performance", markdown.Options{Mode: mode}).Markdown
		for _, want := range []string{"Tuning the observatory's database", "General setup", "Keep statistics fresh"} {
			if !strings.Contains(md, want) {
				t.Errorf("%s: %q lost:\n%s", mode, want, md)
			}
		}
		for _, noise := range []string{"Want to edit", "From Stargazers wiki", "Jump to navigation", "Contents", "edit]", "Retrieved from", "Administration"} {
			if strings.Contains(md, noise) {
				t.Errorf("%s: %q kept:\n%s", mode, noise, md)
			}
		}
	}
}

// A highlighter that marks each line of a code block as an element of
// class "line" shown as a block (Shiki, Prism), with nothing between the
// lines, keeps them apart: the code is read line by line, verbatim.
func TestConvert_KeepsTheLinesOfAHighlightedCodeBlock(t *testing.T) {
	page := []byte(`<html><body><main><h1>Installation</h1>
<p>Start by creating a new project if you do not have one set up already; the most common approach is to use the project generator.</p>
<pre class="shiki"><code><span class="line"><span style="color:pink">npm</span><span> create</span><span> vite@latest</span><span> my-project</span></span><span class="line"><span>cd</span><span> my-project</span></span></code></pre>
<pre class="prism"><code><div class="token-line">import a from 'a'</div><div class="token-line">export default a</div></code></pre>
<p>Then install the package and its plugin, and add the plugin to the configuration of the build before starting it.</p></main></body></html>`)
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		md := markdown.Convert(page, "https://docs.example/install", markdown.Options{Mode: mode}).Markdown
		for _, want := range []string{"npm create vite@latest my-project\ncd my-project\n", "import a from 'a'\nexport default a\n"} {
			if !strings.Contains(md, want) {
				t.Errorf("%s: %q lost:\n%s", mode, want, md)
			}
		}
	}
}

// shopCategory is a shop's category page: an introduction, then a grid
// of cards (a product link, a price, a badge) in the same <main>.
func shopCategory(cards int) string {
	intro := `<p>Trail running shoes grip loose ground, shed mud and protect the foot from rocks and roots. Our fitters test each pair on the hills behind the shop before it goes on the wall, and we keep the ones that still feel right after a wet month of runs.</p>`
	var grid strings.Builder
	for i := range cards {
		fmt.Fprintf(&grid, `<li class="product-card"><a href="/p/shoe-%d">Ridgeline Trail %d running shoe</a><div class="price">$%d.00</div><div class="badge">New</div></li>`, i, i, 100+i)
	}
	return `<html><head><title>Trail running shoes | Fleet Shop</title></head><body>
<header><nav><a href="/">Home</a> <a href="/shoes">Shoes</a> <a href="/help">Help</a></nav></header>
<main><section class="category-intro"><h1>Trail running shoes</h1>` + intro + intro + `</section>
<ul class="product-grid">` + grid.String() + `</ul></main>
<footer><p>Fleet Shop, all rights reserved.</p></footer></body></html>`
}

// Readability picks a shop category's introduction and leaves its grid;
// the page's <main>, a third of it links, is the reading the page is
// judged by (Listed), while the article stays readability's pick. A
// <main> that is mostly links is not a reading of the page at all.
func TestConvertHTML_ListsTheMainOfAPageWhoseGridReadabilityLeaves(t *testing.T) {
	const base = "https://shop.example/c/trail-running"
	doc := markdown.ConvertHTML([]byte(shopCategory(12)), base)
	if !strings.Contains(doc.Markdown, "grip loose ground") || strings.Contains(doc.Markdown, "Ridgeline Trail 3") {
		t.Errorf("the article is not the introduction alone:\n%s", doc.Markdown)
	}
	if doc.Listed == nil {
		t.Fatalf("no listed reading of the page's <main>; article:\n%s", doc.Markdown)
	}
	for _, want := range []string{"grip loose ground", "Ridgeline Trail 3 running shoe", "$111.00"} {
		if !strings.Contains(doc.Listed.Markdown, want) {
			t.Errorf("the listed reading lacks %q:\n%s", want, doc.Listed.Markdown)
		}
	}
	if strings.Contains(doc.Listed.Markdown, "all rights reserved") {
		t.Errorf("the listed reading keeps the footer:\n%s", doc.Listed.Markdown)
	}
	// A page that says it sells (og:type product) is not read as its
	// <main>, but it is listed all the same.
	selling := strings.Replace(shopCategory(12), "<head>", `<head><meta property="og:type" content="product">`, 1)
	if doc := markdown.ConvertHTML([]byte(selling), base); doc.Listed == nil || strings.Contains(doc.Markdown, "Ridgeline Trail 3") {
		t.Errorf("a selling page: listed %v, article:\n%s", doc.Listed != nil, doc.Markdown)
	}
	if doc := markdown.ConvertHTML([]byte(shopCategory(24)), base); doc.Listed != nil {
		t.Errorf("a <main> half links is listed:\n%s", doc.Listed.Markdown)
	}
	if doc := markdown.Convert([]byte(shopCategory(12)), base, markdown.Options{Mode: markdown.ModeStructure}); doc.Listed != nil {
		t.Error("the structure conversion lists a <main>")
	}
}
