package markdown_test

import (
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// Readability removes, unscored, an element whose class says "sidebar" or
// "header"; a template that names the article's own container that way
// must not cost the page its article.
func TestConvert_AnArticleInAContainerNamedLikeASidebarIsRead(t *testing.T) {
	var body strings.Builder
	for i, topic := range []string{"soil", "seeds", "watering", "light", "feeding", "pruning"} {
		body.WriteString(`<h2>Part ` + string(rune('1'+i)) + `: ` + topic + `</h2><p>Tomatoes grown in pots need good ` + topic +
			` above all else, and a gardener who gets it right is rewarded with a long harvest of sweet fruit through the summer, week after week.</p>
		<p>The ` + topic + ` matters more than the variety chosen: even the hardiest plant sulks when it is neglected, while a modest one thrives when it is looked after every week of the season.</p>`)
	}
	page := `<html><head><title>Growing tomatoes in pots</title></head><body><div class="page">
<div class="disclosure"><h3>Advertiser disclosure</h3><p>Some of the offers on this site come from partners who pay us when a reader clicks on a link or buys something, and this may change where and in which order the offers appear on the page, though never what our writers think of them.</p><p>Our editors choose the offers they write about by themselves, test the products they recommend where they can, and update each guide when an offer changes; partners do not review or approve what we publish, and the offers shown are not every offer available to a reader.</p></div>
<div class="layout layout-with-sidebar"><div class="post"><h1>Growing tomatoes in pots</h1>` + body.String() + `</div></div>
</div></body></html>`
	doc := markdown.Convert([]byte(page), "https://garden.example/tomatoes", markdown.Options{Mode: markdown.ModeArticle})
	for _, want := range []string{"Part 1: soil", "Part 6: pruning", "hardiest plant sulks"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the article lacks %q:\n%s", want, doc.Markdown)
		}
	}
}
