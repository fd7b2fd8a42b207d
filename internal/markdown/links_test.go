package markdown_test

import (
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

func TestConvertHTML_KeepsOnlyHTTPAndHTTPSLinks(t *testing.T) {
	page := `<p>
	<a href="javascript:alert(1)">js</a> <a href=" JavaScript:alert(1)">js2</a>
	<a href="data:text/html,x">data</a> <a href="vbscript:msgbox(1)">vbs</a>
	<a href="file:///etc/passwd">file</a> <a href="mailto:a@example.org">mail</a>
	<a href="ftp://example.org/f">ftp</a> <a href="https://user:pw@example.org/">creds</a>
	<a href="/docs/a b">rel</a> <a href="//cdn.example/x">proto</a> <a href="http://plain.example/">plain</a>
	</p>`
	doc := markdown.ConvertHTML([]byte(page), "https://example.org/dir/")
	want := "js js2 data vbs file mail ftp creds [rel](https://example.org/docs/a%20b) [proto](https://cdn.example/x) [plain](http://plain.example/)"
	if doc.Markdown != want {
		t.Errorf("markdown =\n%s\nwant\n%s", doc.Markdown, want)
	}

	// Without a base URL a relative link cannot be resolved to a web link.
	doc = markdown.ConvertHTML([]byte(`<p><a href="/x">rel</a> <a href="https://go.dev/">abs</a></p>`), "")
	if doc.Markdown != "rel [abs](https://go.dev/)" {
		t.Errorf("without a base: %q", doc.Markdown)
	}

	// A base element cannot turn relative links into script.
	doc = markdown.ConvertHTML([]byte(`<head><base href="javascript:alert(1)//"></head><p><a href="x">rel</a></p>`), "https://example.org/")
	if strings.Contains(doc.Markdown, "javascript") || doc.Markdown != "rel" {
		t.Errorf("with a javascript: base: %q", doc.Markdown)
	}
}
