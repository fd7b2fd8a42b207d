package webpage_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/webpage"
)

func TestConvertHTML_ReadableFixturesAreArticles(t *testing.T) {
	for _, tc := range []struct {
		file      string
		want      []string
		notWanted []string
	}{
		{"readable/blog-article.html",
			[]string{"## What the town decided", "[rivers](https://example.org/tags/rivers/)"},
			// The title and byline are the Document's, not lines of the
			// content.
			[]string{"Related posts", "Counting swifts", "BlogPosting", "# Measuring the ice on the mill river", "Ruth Okafor"}},
		{"readable/docs-page.html",
			[]string{"## Workers", "```\nworkers: 8", "| `read_timeout` | 30s |"},
			nil},
		{"readable/sphinx-rtd-docs.html",
			[]string{"```python\nsession = fetchkit.Session(timeout=(3.05, 27))"},
			nil},
		{"readable/docusaurus-docs.html",
			[]string{"```bash\nflowctl backfill orders_daily"},
			nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			doc := webpage.ConvertHTML(fakeweb.Fixture(t, tc.file), "https://example.org/dir/page")
			if doc.Mode != webpage.ConvertArticle {
				t.Errorf("mode = %q, want article", doc.Mode)
			}
			if doc.TextChars < 500 {
				t.Errorf("text chars = %d", doc.TextChars)
			}
			for _, w := range tc.want {
				if !strings.Contains(doc.Markdown, w) {
					t.Errorf("lacks %q:\n%s", w, doc.Markdown)
				}
			}
			for _, n := range tc.notWanted {
				if strings.Contains(doc.Markdown, n) {
					t.Errorf("keeps %q", n)
				}
			}
		})
	}
}

func TestConvertHTMLMode_StructureKeepsSectionsAndLinkLists(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"template-heavy/news-homepage.html", []string{
			"### [City approves budget for new tram line](https://example.org/local/2024/03/tram-budget)",
			"## Most read",
			"1. [City approves budget for new tram line](https://example.org/local/2024/03/tram-budget)",
		}},
		{"template-heavy/university-homepage.html", []string{
			"## News",
			"- [Chemistry team wins grant for battery research](https://example.org/news/chemistry-team-wins-grant-for-battery-research/) June 14",
		}},
		{"template-heavy/forum-index.html", []string{
			"| Forum | Topics | Posts | Last post |",
			"| [Getting started](https://example.org/f/getting-started) Questions about installing and first steps. | 1204 | 9876 |",
		}},
		{"template-heavy/ja-portal-homepage.html", []string{
			"## アクセスランキング",
			"1. [夏休みの旅行先 人気ランキング](https://news.portal.example/articles/700000)",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			doc := webpage.ConvertHTMLMode(fakeweb.Fixture(t, tc.file), "https://example.org/", webpage.ConvertStructure)
			if doc.Mode != webpage.ConvertStructure || doc.TextChars < 200 {
				t.Errorf("mode = %q, text chars = %d", doc.Mode, doc.TextChars)
			}
			for _, w := range tc.want {
				if !strings.Contains(doc.Markdown, w) {
					t.Errorf("lacks %q:\n%s", w, doc.Markdown)
				}
			}
		})
	}
}

// Every fixture, in every mode: only web links, no HTML, no images, the
// same output twice.
func TestConvertHTMLMode_EveryFixtureIsSafeAndDeterministic(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fakeweb.FixturesDir(t), "*", "*.html"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		page, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []webpage.ConvertMode{webpage.ConvertAuto, webpage.ConvertArticle, webpage.ConvertStructure} {
			a := webpage.ConvertHTMLMode(page, "https://example.org/a/b", mode)
			b := webpage.ConvertHTMLMode(page, "https://example.org/a/b", mode)
			if a != b {
				t.Errorf("%s (%q): two conversions differ", filepath.Base(f), mode)
			}
			checkSafeMarkdown(t, filepath.Base(f), a.Markdown)
		}
	}
}

// mdParser reads Markdown the way a CommonMark renderer would, with
// GitHub's tables and strikethrough.
var mdParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()

// checkSafeMarkdown parses md as CommonMark and fails when a renderer
// would turn any of it into something other than text and web links: a
// link to anything but an absolute http(s) URL, an image, or raw HTML.
func checkSafeMarkdown(t *testing.T, what, md string) {
	t.Helper()
	src := []byte(md)
	_ = ast.Walk(mdParser.Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if d := string(n.Destination); !strings.HasPrefix(d, "https://") && !strings.HasPrefix(d, "http://") {
				t.Errorf("%s: link to %q", what, d)
			}
		case *ast.AutoLink:
			if u := string(n.URL(src)); !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
				t.Errorf("%s: autolink to %q", what, u)
			}
		case *ast.Image:
			t.Errorf("%s: image %q", what, n.Destination)
		case *ast.RawHTML:
			t.Errorf("%s: raw HTML %q", what, n.Segments.Value(src))
		case *ast.HTMLBlock:
			t.Errorf("%s: HTML block %q", what, n.Lines().Value(src))
		}
		return ast.WalkContinue, nil
	})
}

func TestConvertHTML_HostileMarkupStaysText(t *testing.T) {
	page := `<html><body><main><h1>T</h1>
	<p>Text &lt;script&gt;alert(1)&lt;/script&gt; and here.</p><figure><img src="x" onerror="alert(1)" alt="a cat"></figure>
	<p><a href="javascript:alert(1)">click</a> <a href="data:text/html,<b>x</b>">data</a> <a href="mailto:x@example.org">mail</a>
	<a href="https://example.org/ok) [evil](javascript:alert(1)">tricky</a> <a href="/rel">rel</a></p>
	<svg><a href="https://svg.example/">svg link</a></svg><iframe src="https://frame.example/"></iframe>
	<!-- comment --><div hidden>hidden</div><div style="display:none">invisible</div>
	<div id="cookie-consent">We use cookies. <button>OK</button></div>
	<p>` + strings.Repeat("Enough text to be an article. ", 20) + `</p></main></body></html>`
	doc := webpage.ConvertHTML([]byte(page), "https://example.org/")
	checkSafeMarkdown(t, "hostile", doc.Markdown)
	for _, w := range []string{"a cat", "click", "data", "mail", "[rel](https://example.org/rel)", "tricky"} {
		if !strings.Contains(doc.Markdown, w) {
			t.Errorf("lacks %q:\n%s", w, doc.Markdown)
		}
	}
	for _, n := range []string{"svg link", "frame.example", "comment", "hidden", "invisible", "We use cookies", "](javascript", "<script>"} {
		if strings.Contains(doc.Markdown, n) {
			t.Errorf("keeps %q:\n%s", n, doc.Markdown)
		}
	}
}

// hostilePages are pages built to make a converter's work explode: deep
// nesting, formatting the parser reopens in every paragraph, unclosed
// links, lists and tables, and text far past the input bound. Each is
// larger than the conversion reads, in bytes or in elements.
var hostilePages = []struct {
	name string
	page string
}{
	{"deep divs", strings.Repeat("<div>", 100000) + "deep" + strings.Repeat("</div>", 100000)},
	{"paragraphs reopening formatting", strings.Repeat("<p><b>", 700000)},
	{"open links", strings.Repeat("<a href=/x>", 400000)},
	{"nested lists", strings.Repeat("<ul><li>", 300000)},
	{"nested tables", strings.Repeat("<table><tr><td>", 200000)},
	{"huge text", "<p>" + strings.Repeat("word ", 2<<20) + "</p>"},
}

// A hostile page is converted only up to the bound and says so; how long
// that takes is measured by BenchmarkConvertHTML_Hostile.
func TestConvertHTML_BoundsInput(t *testing.T) {
	for _, tc := range hostilePages {
		t.Run(tc.name, func(t *testing.T) {
			doc := webpage.ConvertHTML([]byte(tc.page), "https://example.org/")
			if !doc.Truncated {
				t.Errorf("a page over the bound (%d bytes) is not reported truncated", len(tc.page))
			}
			if len(doc.Markdown) > webpage.MaxConvertBytes {
				t.Errorf("%d bytes of Markdown from a bound of %d", len(doc.Markdown), webpage.MaxConvertBytes)
			}
		})
	}
	if strings.Contains(webpage.ConvertHTML([]byte(hostilePages[0].page), "https://example.org/").Markdown, "deep") {
		t.Error("text past the element bound was converted")
	}
}

// The time a hostile page's conversion takes, which the input bound keeps
// near that of an ordinary page of the bound's size.
func BenchmarkConvertHTML_Hostile(b *testing.B) {
	for _, tc := range hostilePages {
		b.Run(tc.name, func(b *testing.B) {
			page := []byte(tc.page)
			for b.Loop() {
				webpage.ConvertHTML(page, "https://example.org/")
			}
		})
	}
}

// ConvertHTML reads a page's main content; relative links are resolved
// against the page's URL and links to anything but the web keep their
// text alone.
func ExampleConvertHTML() {
	page := `<html><head><title>Release notes</title></head><body>
	<nav><a href="/">Home</a> <a href="/blog/">Blog</a></nav>
	<main><h1>Release notes</h1>
	<p>Version 2 adds <code>--json</code>. See <a href="/docs/cli">the CLI docs</a>
	or <a href="javascript:openChat()">ask us</a>.</p></main>
	</body></html>`
	doc := webpage.ConvertHTML([]byte(page), "https://example.org/releases/")
	fmt.Println(doc.Title, "|", doc.Mode)
	fmt.Println(doc.Markdown)
	// Output:
	// Release notes | article
	// Version 2 adds `--json`. See [the CLI docs](https://example.org/docs/cli) or ask us.
}

// A template-heavy page — a portal, a listing — is read for its
// structure: its sections and link lists, without the page's menu.
func ExampleConvertHTMLMode() {
	page := `<html><head><title>Example News</title></head><body>
	<header><nav><a href="/">Home</a> <a href="/world/">World</a></nav></header>
	<section><h2>Top stories</h2><ul>
	<li><a href="/a/1">Harbour plan approved</a></li>
	<li><a href="/a/2">Tram line opens in May</a></li></ul></section>
	<aside><h2>Most read</h2><ol><li><a href="/a/3">Storm warning for the coast</a></li></ol></aside>
	<footer>© Example News</footer></body></html>`
	doc := webpage.ConvertHTMLMode([]byte(page), "https://news.example/", webpage.ConvertStructure)
	fmt.Println(doc.Markdown)
	// Output:
	// ## Top stories
	//
	// - [Harbour plan approved](https://news.example/a/1)
	// - [Tram line opens in May](https://news.example/a/2)
	//
	// ## Most read
	//
	// 1. [Storm warning for the coast](https://news.example/a/3)
}
