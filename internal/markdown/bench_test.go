package markdown_test

import (
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

// A 1 MiB article: what a long page costs at the probe's usual read cap.
func BenchmarkConvertHTML_OneMiBArticle(b *testing.B) {
	para := "<p>Some text with <b>bold</b>, <code>code</code> and <a href='/x'>a link</a> in it.</p>\n"
	page := []byte("<html><body><main>" + strings.Repeat(para, (1<<20)/len(para)) + "</main></body></html>")
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		markdown.ConvertHTML(page, "https://example.org/")
	}
}
