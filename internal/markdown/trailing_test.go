package markdown_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// A shop's category page sets its text about the category below the
// grid, outside <main>: the structure reads it after the grid. Short
// lines after <main> (a store's hours, a cart drawer) stay out, and so
// does a list of links with long titles.
func TestConvert_StructureKeepsTheProseThatFollowsTheMain(t *testing.T) {
	var grid, links strings.Builder
	for i := range 40 {
		fmt.Fprintf(&grid, `<li class="card"><a href="/p/grill-%d">Ember %d gas grill</a><span class="price">%d,00 €</span></li>`, i, i, 400+i)
	}
	for i := range 5 {
		fmt.Fprintf(&links, `<li><a href="/guides/%d">A guide to grilling, part %d, for the summer evenings on the terrace</a></li>`, i, i)
	}
	para := `<p>A gas grill lights at the press of a button and is ready in five minutes; its burners hold the heat you set, from a gentle roast to a hard sear, and there are no ashes to clear away afterwards.</p>`
	page := `<html><head><title>Gas grills | Ember Shop</title></head><body>
<header><nav><a href="/">Home</a> <a href="/grills">Grills</a></nav></header>
<main><h1>Gas grills</h1><ul class="products">` + grid.String() + `</ul></main>
<div class="category-text"><h2>Choosing a gas grill</h2>` + para + para + `</div>
<div class="stores"><p>Lille</p><p>28 rue Basse</p><p>Monday to Saturday: 10:30 to 19:00</p><p>Sunday: closed</p><p>Nantes</p><p>15 rue Crébillon</p><p>Monday to Saturday: 10:30 to 19:00</p></div>
<div class="guides"><ul>` + links.String() + `</ul></div>
<footer><p>Ember Shop, all rights reserved.</p></footer></body></html>`
	doc := markdown.Convert([]byte(page), "https://shop.example/grills/gas", markdown.Options{Mode: markdown.ModeStructure})
	for _, want := range []string{"Ember 31 gas grill", "Choosing a gas grill", "no ashes to clear away"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the structure lacks %q:\n%s", want, doc.Markdown)
		}
	}
	for _, noise := range []string{"rue Basse", "Sunday: closed", "part 3", "all rights reserved"} {
		if strings.Contains(doc.Markdown, noise) {
			t.Errorf("the structure keeps %q:\n%s", noise, doc.Markdown)
		}
	}
	if i, j := strings.Index(doc.Markdown, "Ember 31"), strings.Index(doc.Markdown, "Choosing a gas grill"); i < 0 || j < i {
		t.Errorf("the prose is not after the grid:\n%s", doc.Markdown)
	}
}
