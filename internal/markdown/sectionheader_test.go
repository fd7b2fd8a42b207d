package markdown_test

import (
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// A service page's sections open with a block its class calls a header
// (a heading and its blurb); readability takes it for the page's
// masthead and removes it unscored. It is read; the page's own header,
// mostly links, is not.
func TestConvert_ASectionsHeaderIsRead(t *testing.T) {
	for _, class := range []string{"section-header", "feature-banner"} {
		t.Run(class, func(t *testing.T) { sectionHeaderIsRead(t, class) })
	}
}

func sectionHeaderIsRead(t *testing.T, class string) {
	var sections strings.Builder
	for _, s := range []struct{ title, blurb string }{
		{"Track local rankings", "See where your business ranks in the local pack and the map results, for every keyword that matters."},
		{"Audit your listings", "Find the directories that list your business with a wrong address or phone number, and fix them."},
		{"Manage your reviews", "Ask happy customers for reviews, answer them in one place and show the best ones on your site."},
	} {
		sections.WriteString(`<div class="` + class + `"><h2>` + s.title + `</h2><p>` + s.blurb + `</p></div>
<p>Every plan includes this tool with no limit on the number of locations you track, reports you can send to your clients with your own logo, and a support team that answers within the hour on working days.</p>
<p>Agencies use it to win new clients with an audit sent before the first meeting, and to keep them with a monthly report that shows, in plain words and a few charts, what changed and why it matters to the business.</p>`)
	}
	page := `<html><head><title>Local SEO tools</title></head><body>
<div class="site-header"><h2><a href="/">Acme SEO</a></h2><a href="/pricing">Pricing plans for every business</a> <a href="/login">Log in to your account</a> <a href="/signup">Sign up for a free trial</a></div>
<div class="content">` + sections.String() + `</div></body></html>`
	doc := markdown.Convert([]byte(page), "https://seo.example/tools", markdown.Options{Mode: markdown.ModeArticle})
	for _, want := range []string{"Track local rankings", "local pack and the map results", "wrong address", "show the best ones"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the page lacks %q:\n%s", want, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "Log in") {
		t.Errorf("the page's own header is read:\n%s", doc.Markdown)
	}
}
