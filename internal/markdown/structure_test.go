package markdown_test

import (
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// A page whose scripts fill in its content holds, as served, only its
// template: the header's menu and the footer's links are not its content,
// and the structure conversion reads nothing rather than them.
func TestConvert_StructureOfAPageThatIsItsTemplateAloneIsEmpty(t *testing.T) {
	page := `<html><head><title>Rug | Shop</title></head><body>
	<header><nav><ul><li><a href="/rugs">Rugs</a></li><li><a href="/runners">Runners</a></li><li><a href="/doormats">Doormats</a></li><li><a href="/sale">Sale</a></li></ul></nav></header>
	<div id="root"></div>
	<footer><ul><li><a href="/help">Help Center</a></li><li><a href="/returns">Returns and refunds</a></li><li><a href="/privacy">Privacy policy</a></li>
	<li><a href="/terms">Terms of use</a></li><li><a href="/imprint">Legal information and imprint</a></li></ul><p>© 2010-2025 Shop. All rights reserved.</p></footer>
	</body></html>`
	for _, mode := range []markdown.Mode{markdown.ModeStructure, markdown.ModeAuto} {
		if doc := markdown.Convert([]byte(page), "https://shop.example/p/rug", markdown.Options{Mode: mode}); doc.Markdown != "" {
			t.Errorf("%q: the template is read as content:\n%s", mode, doc.Markdown)
		}
	}
}
