package markdown_test

import (
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// A page whose framework hides its whole content until its scripts have
// run ("visibility: hidden" on a wrapper) is read as its reader sees it
// once shown; an element hidden that holds less of the page (a dialog, a
// locked copy) stays out.
func TestConvert_APageHiddenUntilItsScriptsRunIsRead(t *testing.T) {
	var body strings.Builder
	for _, topic := range []string{"regression", "classification", "clustering", "evaluation"} {
		body.WriteString(`<h2>` + topic + `</h2><p>This part of the tutorial covers ` + topic +
			`: what the method learns from data, when it is the right tool, and how to check that a model trained with it generalises to data it has never seen.</p>`)
	}
	page := `<html><head><title>Machine learning tutorial</title></head><body>
<div id="app"><div style="visibility:hidden;min-height:100vh"><main><h1>Machine learning tutorial</h1>` + body.String() + `
<div style="display:none"><p>Sign in to save your progress.</p></div></main></div></div>
</body></html>`
	for _, mode := range []markdown.Mode{markdown.ModeAuto, markdown.ModeArticle, markdown.ModeStructure} {
		doc := markdown.Convert([]byte(page), "https://learn.example/ml", markdown.Options{Mode: mode})
		for _, want := range []string{"covers regression", "covers evaluation"} {
			if !strings.Contains(doc.Markdown, want) {
				t.Errorf("mode %q: the page lacks %q:\n%s", mode, want, doc.Markdown)
			}
		}
		if strings.Contains(doc.Markdown, "Sign in") {
			t.Errorf("mode %q: an element hidden inside the page is read:\n%s", mode, doc.Markdown)
		}
	}
}

// An element hidden by its style that holds most, but not nearly all, of
// a page's text (a modal repeating the article for republication, a
// locked copy beside the one shown) is not the page.
func TestConvert_AHiddenCopyOfMostOfThePageStaysHidden(t *testing.T) {
	para := `<p>The council voted on Tuesday to extend the cycle lanes along the river to the old harbour, after two years of consultation with residents and shop owners.</p>`
	page := `<html><body><article><h1>Cycle lanes extended</h1>` + strings.Repeat(para, 3) + `</article>
<div style="display:none"><textarea></textarea><p>Republish this story:</p>` + strings.Repeat(strings.ReplaceAll(para, "council", "committee"), 4) + `</div></body></html>`
	doc := markdown.Convert([]byte(page), "https://news.example/cycle", markdown.Options{Mode: markdown.ModeArticle})
	if strings.Contains(doc.Markdown, "committee") || strings.Contains(doc.Markdown, "Republish") {
		t.Errorf("a hidden copy is read:\n%s", doc.Markdown)
	}
}
