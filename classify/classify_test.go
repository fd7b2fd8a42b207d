package classify

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFixtures_AreClassifiedAsTheirDirectorySays(t *testing.T) {
	root := filepath.Join("..", "fixtures")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[Class]int{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		want, err := ParseClass(d.Name())
		if err != nil {
			t.Fatalf("fixture directory %s: %v", d.Name(), err)
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*.html"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r := ClassifyBytes(b)
			counts[want]++
			if r.Class != want {
				t.Errorf("%s: got %s (%.2f), want %s; signals: %v", f, r.Class, r.Confidence, want, r.Signals)
			}
			if r.Title == "" {
				t.Errorf("%s: empty title", f)
			}
		}
	}
	for _, c := range Classes {
		if counts[c] < 3 {
			t.Errorf("only %d fixtures for %s, want at least 3", counts[c], c)
		}
	}
}

func TestClassify_ServerRenderedMountWithArticleIsReadable(t *testing.T) {
	body := strings.Repeat("<p>"+strings.Repeat("word ", 60)+"</p>", 8)
	page := `<html><body><div id="__next">` + body + `</div><script id="__NEXT_DATA__" type="application/json">{"props":{}}</script></body></html>`
	r := ClassifyBytes([]byte(page))
	if r.Class != FetchReadable {
		t.Fatalf("got %s, want %s; %v", r.Class, FetchReadable, r.Signals)
	}
}

func TestClassify_EmptyMountWithBundleIsBrowserRenderRequired(t *testing.T) {
	for _, mount := range []string{`<div id="root"></div>`, `<div id="app"></div>`, `<app-root></app-root>`, `<div id="q-app"></div>`, `<div id="___gatsby"></div>`} {
		page := `<html><head><title>x</title></head><body>` + mount + `<script src="/main.js"></script></body></html>`
		if r := ClassifyBytes([]byte(page)); r.Class != BrowserRenderRequired {
			t.Errorf("%s: got %s, want %s", mount, r.Class, BrowserRenderRequired)
		}
	}
}

func TestClassify_TeaserListWithExcerptsIsTemplateHeavy(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><div class="posts">`)
	for i := 0; i < 10; i++ {
		b.WriteString(`<div class="post"><h2><a href="/post/` + string(rune('a'+i)) + `">A post title here</a></h2><p>` + strings.Repeat("excerpt ", 40) + `</p><a href="/post/x">Read more</a></div>`)
	}
	b.WriteString(`</div></body></html>`)
	if r := ClassifyBytes([]byte(b.String())); r.Class != TemplateHeavy {
		t.Fatalf("got %s, want %s; %v", r.Class, TemplateHeavy, r.Signals)
	}
}

func TestClassify_PageWithoutScriptsOrTextIsTemplateHeavy(t *testing.T) {
	if r := ClassifyBytes([]byte(`<html><body><img src="a.png"></body></html>`)); r.Class != TemplateHeavy {
		t.Fatalf("got %s, want %s", r.Class, TemplateHeavy)
	}
}

func TestClassify_UnrenderedBindingsAreBrowserRenderRequired(t *testing.T) {
	page := `<html><body ng-app="news"><h1>{{ article.title }}</h1><div ng-view></div><p>{{ article.lead }}</p>` +
		`<script src="angular.js"></script><script src="app.js"></script></body></html>`
	if r := ClassifyBytes([]byte(page)); r.Class != BrowserRenderRequired {
		t.Fatalf("got %s, want %s; %v", r.Class, BrowserRenderRequired, r.Signals)
	}
}

func TestClassify_IsDeterministic(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "fixtures", "template-heavy", "news-homepage.html"))
	if err != nil {
		t.Fatal(err)
	}
	first := ClassifyBytes(b)
	for i := 0; i < 5; i++ {
		r := ClassifyBytes(b)
		if r.String() != first.String() || len(r.Signals) != len(first.Signals) {
			t.Fatalf("run %d: %v differs from %v", i, r, first)
		}
		for j := range r.Signals {
			if r.Signals[j] != first.Signals[j] {
				t.Fatalf("run %d: signal %d %v differs from %v", i, j, r.Signals[j], first.Signals[j])
			}
		}
	}
}

func TestClassify_ConfidenceStaysInRangeForOddInputs(t *testing.T) {
	inputs := []string{"", "<", "\x00\xff\xfe", "<html>", "<body><div id=root>", strings.Repeat("<div>", 5000), "<script>" + strings.Repeat("x", 10000)}
	for _, in := range inputs {
		r := ClassifyBytes([]byte(in))
		if r.Confidence < 0 || r.Confidence > 1 {
			t.Errorf("%q: confidence %v out of range", in[:min(len(in), 20)], r.Confidence)
		}
		if r.Class != FetchReadable && r.Class != TemplateHeavy && r.Class != BrowserRenderRequired {
			t.Errorf("%q: unknown class %q", in[:min(len(in), 20)], r.Class)
		}
	}
}

func TestClassify_InputBeyondCapIsIgnoredAndMarkedTruncated(t *testing.T) {
	shell := `<html><body><div id="root"></div><script src="/main.js"></script>`
	tail := strings.Repeat("<p>"+strings.Repeat("word ", 60)+"</p>", 50)
	c := New(&Options{MaxBytes: int64(len(shell))})
	r, err := c.Classify(strings.NewReader(shell + tail))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || r.Class != BrowserRenderRequired {
		t.Fatalf("got %s truncated=%v, want %s truncated", r.Class, r.Truncated, BrowserRenderRequired)
	}
	if r := New(nil).ClassifyBytes([]byte(shell + tail)); r.Truncated || r.Class != FetchReadable {
		t.Fatalf("default cap: got %s truncated=%v", r.Class, r.Truncated)
	}
}

func TestClassify_ReturnsReadErrors(t *testing.T) {
	boom := errors.New("boom")
	_, err := Classify(iotest.ErrReader(boom))
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want wrapped %v", err, boom)
	}
}

func TestClassify_ReadsReaderLikeBytes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "fixtures", "readable", "docs-page.html"))
	if err != nil {
		t.Fatal(err)
	}
	r1, err := Classify(iotest.OneByteReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatal(err)
	}
	if r2 := ClassifyBytes(b); r1.String() != r2.String() || r1.Title != r2.Title {
		t.Fatalf("reader %v / %q, bytes %v / %q", r1, r1.Title, r2, r2.Title)
	}
}

func TestParseClass_AcceptsCanonicalAndShortNames(t *testing.T) {
	cases := map[string]Class{
		"fetch-readable": FetchReadable, "readable": FetchReadable, " Template-Heavy ": TemplateHeavy,
		"browser-render-required": BrowserRenderRequired, "browser": BrowserRenderRequired,
	}
	for in, want := range cases {
		if got, err := ParseClass(in); err != nil || got != want {
			t.Errorf("ParseClass(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseClass("spa"); err == nil {
		t.Error("ParseClass(spa) succeeded, want error")
	}
}

func TestCountWords_CountsDenseScriptsByCharacterPairs(t *testing.T) {
	cases := map[string]float64{
		"hello world":       2,
		"it's a test-case":  4,
		"日本語のテキスト":          4,
		"ภาษาไทย":           3.5,
		"mixed 中文 text":     3,
		"  \n\t ":           0,
		"naïve café résumé": 3,
	}
	for in, want := range cases {
		if got := countWords(in); got != want {
			t.Errorf("countWords(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestReadLabels_ParsesRowsAndRejectsBadClasses(t *testing.T) {
	ls, err := ReadLabels(strings.NewReader("file\tclass\treason\npages/a.html\treadable\tx\n\npages/b.html\tbrowser-render-required\ty\n"))
	if err != nil || len(ls) != 2 || ls[0].Class != FetchReadable || ls[1].File != "pages/b.html" {
		t.Fatalf("got %v, %v", ls, err)
	}
	if _, err := ReadLabels(strings.NewReader("file\tclass\na.html\tnope\n")); err == nil {
		t.Fatal("want error for unknown class")
	}
}

func TestConfusion_ReportsPerClassAndOverallAccuracy(t *testing.T) {
	var m Confusion
	m.Add(FetchReadable, FetchReadable)
	m.Add(FetchReadable, TemplateHeavy)
	m.Add(TemplateHeavy, TemplateHeavy)
	if m.Accuracy(FetchReadable) != 0.5 || m.Accuracy(TemplateHeavy) != 1 || m.Accuracy(BrowserRenderRequired) != 0 {
		t.Fatalf("per-class accuracy wrong: %v", m.String())
	}
	if got := m.Overall(); got < 0.66 || got > 0.67 {
		t.Fatalf("overall %v", got)
	}
	if !strings.Contains(m.String(), "expected \\ decided") {
		t.Fatalf("missing matrix header:\n%s", m.String())
	}
}

// sentence is ordinary running text for synthetic pages (15 words).
const sentence = "The council voted on Tuesday to repair the old bridge before the winter storms arrive. "

func TestClassify_ArticleSplitIntoParagraphGroupsIsReadable(t *testing.T) {
	// Four groups of two paragraphs, each group two levels below the
	// article body and separated by ad slots: no single parent holds 150
	// words, but the body does.
	var b strings.Builder
	b.WriteString(`<html><body><main><article><h1>Bridge repairs</h1><section name="articleBody">`)
	for i := 0; i < 4; i++ {
		b.WriteString(`<div class="group"><div class="inner"><p>` + strings.Repeat(sentence, 3) + `</p><p>` + strings.Repeat(sentence, 2) + `</p></div></div><div class="ad"><p>Advertisement</p></div>`)
	}
	b.WriteString(`</section></article></main></body></html>`)
	if r := ClassifyBytes([]byte(b.String())); r.Class != FetchReadable {
		t.Fatalf("got %s, want %s; %v", r.Class, FetchReadable, r.Signals)
	}
}

func TestClassify_TeaserListWithTitleLinksInDivsIsTemplateHeavy(t *testing.T) {
	// The titles are links in plain divs, not headings.
	var b strings.Builder
	b.WriteString(`<html><body><h1>Posts tagged garden</h1><div class="post-list">`)
	for i := 0; i < 8; i++ {
		b.WriteString(`<div class="item"><div class="date">May 3, 2024</div><div class="title"><a href="/p/` + string(rune('a'+i)) + `">A post about the garden</a></div><p>` + strings.Repeat(sentence, 3) + `</p></div>`)
	}
	b.WriteString(`</div></body></html>`)
	if r := ClassifyBytes([]byte(b.String())); r.Class != TemplateHeavy {
		t.Fatalf("got %s, want %s; %v", r.Class, TemplateHeavy, r.Signals)
	}
}

func TestClassify_SectionLinksUnderHeadingsAreNotTeasers(t *testing.T) {
	// Encyclopedia layout: each section opens with "Main article: …".
	var b strings.Builder
	b.WriteString(`<html><body><div id="content"><h1>Mozilla</h1>`)
	for i := 0; i < 6; i++ {
		b.WriteString(`<h2>Section</h2><div class="hatnote">Main article: <a href="/wiki/X">Some Project</a></div><p>` + strings.Repeat(sentence, 3) + `</p>`)
	}
	b.WriteString(`</div></body></html>`)
	if r := ClassifyBytes([]byte(b.String())); r.Class != FetchReadable {
		t.Fatalf("got %s, want %s; %v", r.Class, FetchReadable, r.Signals)
	}
}

func TestClassify_ShortArticleUnderLargeMenuIsReadable(t *testing.T) {
	// A 165-word news brief; the menu and footer hold far more link text
	// than the article has words, but they are page chrome.
	var menu strings.Builder
	for i := 0; i < 60; i++ {
		menu.WriteString(`<li><a href="/s/` + itoa(i) + `">Section name here</a></li>`)
	}
	page := `<html><body><header><nav><ul>` + menu.String() + `</ul></nav></header><main><article><h1>Bridge to close</h1><div class="body">` +
		strings.Repeat(`<p>`+strings.Repeat(sentence, 2)+`</p>`, 5) + `</div></article></main><footer><ul>` + menu.String() + `</ul></footer></body></html>`
	if r := ClassifyBytes([]byte(page)); r.Class != FetchReadable {
		t.Fatalf("got %s, want %s; %v", r.Class, FetchReadable, r.Signals)
	}
}

func TestClassify_UnrenderedBindingsUnderAMenuAreBrowserRenderRequired(t *testing.T) {
	var menu strings.Builder
	for i := 0; i < 25; i++ {
		menu.WriteString(`<a href="/r/` + itoa(i) + `">Vie locale</a> `)
	}
	page := `<html ng-app="news"><body><div class="menu">` + menu.String() + `</div><div ng-controller="ArticleCtrl"><h1>{{ article.title }}</h1>` +
		`<div class="date">{{ article.date }}</div><div ng-bind-html="article.body"></div></div>` +
		`<script src="angular.js"></script><script src="angular-route.js"></script><script src="angular-sanitize.js"></script>` +
		`<script src="app.js"></script><script src="controllers.js"></script></body></html>`
	if r := ClassifyBytes([]byte(page)); r.Class != BrowserRenderRequired {
		t.Fatalf("got %s, want %s; %v", r.Class, BrowserRenderRequired, r.Signals)
	}
}

func TestClassify_ServerRenderedListingWithFewLinksIsTemplateHeavy(t *testing.T) {
	// A small Next.js blog index: full #__next, six linked post titles with
	// short excerpts, fewer than 20 links, framework state and chunks.
	var b strings.Builder
	b.WriteString(`<html><head>`)
	for i := 0; i < 5; i++ {
		b.WriteString(`<script src="/_next/static/chunks/c` + itoa(i) + `.js" defer></script>`)
	}
	b.WriteString(`</head><body><div id="__next"><main><h1>Engineering blog</h1>`)
	for i := 0; i < 6; i++ {
		b.WriteString(`<article><a href="/blog/p` + itoa(i) + `"><h2>How we rebuilt the deploy pipeline</h2></a><p>A short summary of what changed and why it mattered to us.</p></article>`)
	}
	b.WriteString(`</main></div><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{}}}</script></body></html>`)
	if r := ClassifyBytes([]byte(b.String())); r.Class != TemplateHeavy {
		t.Fatalf("got %s, want %s; %v", r.Class, TemplateHeavy, r.Signals)
	}
}

func TestHasJSNotice_RecognisesNoticesInSeveralLanguages(t *testing.T) {
	for _, s := range []string{
		"You need to enable JavaScript to run this app.",
		"このサイトはJavaScriptを有効にしてください。",
		"Для работы сайта необходимо включить JavaScript.",
	} {
		if !hasJSNotice(s) {
			t.Errorf("hasJSNotice(%q) = false, want true", s)
		}
	}
	if hasJSNotice("JavaScript is a programming language.") {
		t.Error("an ordinary sentence about JavaScript was taken for a notice")
	}
}
