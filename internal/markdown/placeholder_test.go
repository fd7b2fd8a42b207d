package markdown_test

import (
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// A template's placeholder text left on a page is no one's content.
func TestConvert_PlaceholderTextIsLeftOut(t *testing.T) {
	page := `<html><head><title>Our services</title></head><body><main><h1>Our services</h1>
<p>We repair bicycles of every kind in our workshop by the river, from city bikes to racing frames, and we keep spare parts for models thirty years old.</p>
<p>Most repairs are done within two days, and a bike left before noon on a weekday is often ready the same evening, cleaned and tuned.</p>
<div class="card"><h3>Head Line 1</h3><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p></div>
<div class="card"><h3>Head Line 2</h3><p><span>Lorem ipsum</span> dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt.</p></div>
<pre><code>lorem ipsum, kept in code</code></pre>
</main></body></html>`
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		doc := markdown.Convert([]byte(page), "https://bikes.example/services", markdown.Options{Mode: mode})
		if !strings.Contains(doc.Markdown, "spare parts for models thirty years old") {
			t.Errorf("%v: the content is missing:\n%s", mode, doc.Markdown)
		}
		if strings.Contains(doc.Markdown, "dolor sit amet") {
			t.Errorf("%v: the placeholder text is read:\n%s", mode, doc.Markdown)
		}
	}
}
