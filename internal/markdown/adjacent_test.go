package markdown_test

import (
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// A shop's card says its brand and its product's name in two spans that
// touch, which its style sets on two lines: the words stay apart. A
// drop cap stays part of its word, and code keeps its text.
func TestConvert_TouchingElementsKeepTheirWordsApart(t *testing.T) {
	var cards strings.Builder
	for _, name := range []string{"Moab 3 Mid Waterproof Hiking Boots", "Targhee IV Mid Waterproof Hiking Boots", "Sawtooth X Mid Hiking Boots"} {
		cards.WriteString(`<li><a href="/p/1"><span class="brand">Merrell</span><span class="title">` + name + `</span></a><span class="price">$170.00</span><span>4.6 out of 5 stars</span></li>`)
	}
	page := `<html><head><title>Hiking boots | Outfitters</title></head><body><main>
	<h1>Hiking boots</h1>
	<p><span class="dropcap">T</span>he right boot keeps your ankle steady on loose ground and your feet dry in the rain, mile after mile.
	Call <code><span>parseBoots</span><span>Now</span>()</code> to list them.</p>
	<ul>` + cards.String() + `</ul></main></body></html>`
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		doc := markdown.Convert([]byte(page), "https://outfitters.example/c/hiking-boots", markdown.Options{Mode: mode})
		for _, want := range []string{"Merrell Moab 3 Mid", "The right boot", "parseBootsNow()"} {
			if !strings.Contains(doc.Markdown, want) {
				t.Errorf("%s: the page lacks %q:\n%s", mode, want, doc.Markdown)
			}
		}
	}
}
