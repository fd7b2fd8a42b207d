package markdown_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/internal/markdown"
)

func BenchmarkConvertHTML_DocsPage(b *testing.B) {
	page := fakeweb.Fixture(b, "readable/docs-page.html")
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		markdown.ConvertHTML(page, "https://example.org/docs/")
	}
}

// article100KB is a readable page of about 100 KB: an article of sections
// with paragraphs, links, lists, code and a table, under a menu, a sidebar
// and a footer.
func article100KB() []byte {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>A long guide | Example Docs</title>
<meta property="og:title" content="A long guide"><link rel="stylesheet" href="/s.css"><script>window.x = 1;</script></head><body>
<header class="site-header"><a href="/">Example</a><nav><ul>`)
	for i := range 30 {
		fmt.Fprintf(&b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav></header><div class="layout"><aside class="sidebar"><ul>`)
	for i := range 40 {
		fmt.Fprintf(&b, `<li><a href="/docs/page-%d">Related page %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></aside><main><article><h1>A long guide</h1><p class="byline">By A. Writer</p>`)
	for i := 0; b.Len() < 95_000; i++ {
		fmt.Fprintf(&b, `<h2 id="s%d">Part %d <a href="#s%d">¶</a></h2>`, i, i, i)
		for j := range 4 {
			fmt.Fprintf(&b, `<p>Paragraph %d.%d explains one more step of the process in plain words, with <strong>some emphasis</strong>, a <code>literal</code>, and <a href="/docs/ref/%d-%d">a link to the reference</a> so that the reader can follow along without guessing what comes next.</p>`, i, j, i, j)
		}
		b.WriteString(`<ul><li>First point of the list</li><li>Second point, with <em>emphasis</em></li><li>Third point</li></ul>`)
		fmt.Fprintf(&b, `<pre><code class="language-go">func step%d() error {
	return nil
}</code></pre>`, i)
		if i%3 == 0 {
			b.WriteString(`<table><tr><th>Key</th><th>Default</th></tr><tr><td>workers</td><td>8</td></tr><tr><td>timeout</td><td>30s</td></tr></table>`)
		}
	}
	b.WriteString(`</article></main></div><footer><p>© Example</p><a href="/privacy">Privacy</a></footer><div class="cookie-banner">We use cookies. <button>Accept</button></div></body></html>`)
	return []byte(b.String())
}

// A readable page of about 100 KB, the size of a long article. Besides
// the wall time it reports the process's CPU time per conversion
// (cpu-ns/op), which a busy machine does not inflate.
func BenchmarkConvertHTML_100KBArticle(b *testing.B) {
	page := article100KB()
	b.SetBytes(int64(len(page)))
	start := cpuTime()
	for b.Loop() {
		markdown.ConvertHTML(page, "https://example.org/docs/guide")
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// The same page read for its structure.
func BenchmarkConvert_100KBStructure(b *testing.B) {
	page := article100KB()
	b.SetBytes(int64(len(page)))
	start := cpuTime()
	for b.Loop() {
		markdown.Convert(page, "https://example.org/docs/guide", markdown.Options{Mode: markdown.ModeStructure})
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
