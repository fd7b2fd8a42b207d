package markdown_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// A shop's items carry their controls as links and labels, not buttons:
// "Compare", "Add to wishlist", "Quick view →". The items are read, their
// controls are not, in either conversion; a heading or a table cell that
// says "Compare" stays.
func TestConvert_ItemControlLabelsAreNotRead(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Lamps | Shop</title></head><body><main><h1>Table lamps</h1>
	<p>Our table lamps give a warm light for reading and working, each with a shade of linen or glass, made in our workshop.</p><ul class="grid">`)
	for i := range 8 {
		fmt.Fprintf(&b, `<li><h3><a href="/p/%d">Brass table lamp model %d</a></h3><p>A warm light for reading, with a linen shade, number %d.</p>
		<span class="price">$%d.00</span><a href="/compare?id=%d"><span>Compare</span></a> <a href="/wish/%d">Add to Wishlist</a>
		<a href="/p/%d#quick"><span>Quick view</span> <span>→</span></a><a href="/p/%d">Read more…</a></li>`, i, i, i, 40+i, i, i, i, i)
	}
	b.WriteString(`</ul><h2>Compare</h2><table><tr><th>Lamp</th><th>Height</th></tr><tr><td>Compare</td><td>40 cm</td></tr></table></main></body></html>`)
	for _, mode := range []markdown.Mode{markdown.ModeStructure, markdown.ModeArticle} {
		doc := markdown.Convert([]byte(b.String()), "https://shop.example/lamps", markdown.Options{Mode: mode})
		if !strings.Contains(doc.Markdown, "Brass table lamp model 7") || !strings.Contains(doc.Markdown, "$47.00") {
			t.Fatalf("%q: an item is missing:\n%s", mode, doc.Markdown)
		}
		for _, label := range []string{"Add to Wishlist", "Quick view", "Read more", "/compare?id="} {
			if strings.Contains(doc.Markdown, label) {
				t.Errorf("%q: an item's control %q is read:\n%s", mode, label, doc.Markdown)
			}
		}
		if mode == markdown.ModeStructure && (!strings.Contains(doc.Markdown, "## Compare") || !strings.Contains(doc.Markdown, "| Compare |")) {
			t.Errorf("%q: a heading or a table cell that says Compare is gone:\n%s", mode, doc.Markdown)
		}
	}
}
