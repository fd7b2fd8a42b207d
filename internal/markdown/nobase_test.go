package markdown_test

import (
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// A page read without its URL keeps its relative links' text alone, and
// readability still weighs them as links: the teasers beside a service's
// description (mostly links to the site's other pages) are left out as
// they are when the page's URL is known.
func TestConvert_APageReadWithoutItsURLIsReadAsWithIt(t *testing.T) {
	var teasers strings.Builder
	for _, topic := range []string{"cloud security", "identity", "privacy", "resilience", "threat detection", "compliance"} {
		teasers.WriteString(`<div class="card"><p><a href="/insights/` + strings.ReplaceAll(topic, " ", "-") + `">Our latest report on ` + topic +
			` explains how leaders across industries are rethinking their programmes, and what the survey found about budgets, talent and priorities for next year, in detail.</a></p></div>`)
	}
	page := `<html><head><title>Security consulting</title></head><body><div class="page">
<div class="intro"><h1>Security consulting</h1>
<p>We help leaders think differently about security: to succeed in a digital world, a company adapts, adopts and secures what it builds, one step at a time, with advisers who know its industry.</p>
<p>Our consultants assess where a business stands, design what it needs, implement it alongside its teams and run it for as long as it wants, from strategy to the security operations centre.</p></div>
<div class="insights">` + teasers.String() + `</div></div></body></html>`
	with := markdown.Convert([]byte(page), "https://consult.example/security", markdown.Options{Mode: markdown.ModeArticle})
	if strings.Contains(with.Markdown, "latest report") || !strings.Contains(with.Markdown, "think differently") {
		t.Fatalf("with its URL, the page reads:\n%s", with.Markdown)
	}
	without := markdown.Convert([]byte(page), "", markdown.Options{Mode: markdown.ModeArticle})
	if strings.Contains(without.Markdown, "latest report") || !strings.Contains(without.Markdown, "think differently") {
		t.Errorf("without its URL, the page reads:\n%s", without.Markdown)
	}
	if strings.Contains(without.Markdown, "](") {
		t.Errorf("without its URL, a relative link is kept as a link:\n%s", without.Markdown)
	}
}
