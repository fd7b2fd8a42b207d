package markdown_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// collectionPage is a shop's collection with no <main>, <nav> or
// <footer>: a bar of account links above its heading, introduction and
// list of items, and after them promotions and a guide (tail).
func collectionPage(tail string) string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Lamps | Shop</title></head><body>
	<div class="top"><a href="/account">My account</a> <a href="/orders">Track my order</a> <a href="/stores">Find a store near you</a></div>
	<div class="page"><div class="head"><h1>Table lamps</h1><p>Warm light for reading and working.</p></div><div class="grid"><ul>`)
	for i := range 6 {
		fmt.Fprintf(&b, `<li><a href="/p/%d">Brass table lamp model %d</a><p>With a linen shade, %d cm high.</p></li>`, i, i, 30+i)
	}
	b.WriteString(`</ul></div></div><div class="promo"><p>Free delivery on orders over fifty pounds</p><p>Pay in three instalments at no cost</p></div>` + tail + `</body></html>`)
	return b.String()
}

// A collection read for its structure is its list of items with the
// heading and introduction above it: the account links and promotions
// around it, which no class or element names as chrome, are left out.
func TestConvert_CollectionIsReadAsItsListOfItems(t *testing.T) {
	md := markdown.Convert([]byte(collectionPage("")), "https://shop.example/lamps", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	for _, want := range []string{"# Table lamps", "Warm light for reading", "Brass table lamp model 0", "Brass table lamp model 5", "35 cm high"} {
		if !strings.Contains(md, want) {
			t.Errorf("%q lost:\n%s", want, md)
		}
	}
	for _, gone := range []string{"Track my order", "Free delivery", "three instalments"} {
		if strings.Contains(md, gone) {
			t.Errorf("%q read:\n%s", gone, md)
		}
	}
}

// A collection whose page goes on with prose after its list (a buyer's
// guide, questions and answers) is read whole.
func TestConvert_CollectionWithAGuideIsReadWhole(t *testing.T) {
	guide := `<div class="guide"><h2>How to choose a table lamp</h2>
	<p>A reading lamp wants a shade that sends the light down onto the page and a height that puts the bulb just below your eye line when you sit.</p>
	<p>A lamp for a hall or a sideboard is seen more than it is used: choose it for its shape and its glow, a warm bulb behind glass or paper.</p>
	<p>Brass ages to a soft brown unless it is lacquered; a lacquered base keeps its shine and needs no more than a dry cloth now and then.</p>
	<p>Measure the table before you buy: a lamp whose shade is wider than half the table's depth will be knocked over sooner or later, by someone.</p></div>`
	md := markdown.Convert([]byte(collectionPage(guide)), "https://shop.example/lamps", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	for _, want := range []string{"Brass table lamp model 5", "How to choose a table lamp", "Measure the table", "Free delivery"} {
		if !strings.Contains(md, want) {
			t.Errorf("%q lost:\n%s", want, md)
		}
	}
}
