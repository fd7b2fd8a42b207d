package markdown_test

import (
	"fmt"
	"strings"
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

// listingPage is a shop's listing with twelve items, then what follows
// them: tail, in <main> like the items.
func listingPage(tail string) string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Lamps | Shop</title></head><body><main><h1>Table lamps</h1><ul class="grid">`)
	for i := range 12 {
		fmt.Fprintf(&b, `<li><h3><a href="/p/%d">Brass table lamp model %d</a></h3><p>A warm light for reading, with a linen shade, number %d.</p>
		<div class="card-footer">$%d.00</div></li>`, i, i, i, 40+i)
	}
	b.WriteString(`</ul>` + tail + `</main></body></html>`)
	return b.String()
}

// A page read for its structure leaves out its footer when its markup
// calls it one by class or id rather than by element ("site-footer",
// "navFooter"), inside its <main> too; an item's card footer (a price)
// is not the page's footer and stays.
func TestConvert_StructureDropsAFooterNamedByItsClass(t *testing.T) {
	for _, footer := range []string{
		`<div class="site-footer">`,
		`<div id="navFooter" class="nav-sprite">`,
	} {
		page := listingPage(footer + `<h4>Get to know us</h4><ul><li><a href="/careers">Careers at the shop</a></li>
		<li><a href="/press">Press center</a></li><li><a href="/investors">Investor relations</a></li><li><a href="/stores">Find a store near you</a></li></ul></div>`)
		md := markdown.Convert([]byte(page), "https://shop.example/lamps", markdown.Options{Mode: markdown.ModeStructure}).Markdown
		for _, gone := range []string{"Get to know us", "Careers at the shop", "Find a store"} {
			if strings.Contains(md, gone) {
				t.Errorf("%s: %q kept:\n%s", footer, gone, md)
			}
		}
		for _, kept := range []string{"Brass table lamp model 11", "linen shade, number 0", "$51.00"} {
			if !strings.Contains(md, kept) {
				t.Errorf("%s: %q lost:\n%s", footer, kept, md)
			}
		}
	}
}

// A page read for its structure ends at its copyright notice: the notice
// and the links after it are its footer, whatever the markup calls them,
// and so is the block of links around the notice. A notice in the middle
// of the page, with much of its text after it, is not its footer; nor is
// a paragraph that speaks about copyright.
func TestConvert_StructureEndsAtTheCopyrightNotice(t *testing.T) {
	footer := `<div><div class="col"><a href="/about">About our company</a><a href="/jobs">Open positions</a></div>
	<p><span>© 2025 Lamp Shop Inc. All rights reserved.</span></p></div>
	<ul><li><a href="/terms">Terms of sale</a></li><li><a href="/privacy">Privacy statement</a></li><li><a href="/sitemap">Sitemap of the shop</a></li></ul>`
	md := markdown.Convert([]byte(listingPage(footer)), "https://shop.example/lamps", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	for _, gone := range []string{"All rights reserved", "Terms of sale", "Sitemap of the shop", "About our company"} {
		if strings.Contains(md, gone) {
			t.Errorf("%q kept:\n%s", gone, md)
		}
	}
	if !strings.Contains(md, "Brass table lamp model 11") {
		t.Errorf("the last item was cut:\n%s", md)
	}

	// The notice of a photo in the middle: most of the page follows it.
	middle := strings.Replace(listingPage(""), `<li><h3><a href="/p/3">`, `<li><p>Photo © 2024 Studio Light</p><h3><a href="/p/3">`, 1)
	md = markdown.Convert([]byte(middle), "https://shop.example/lamps", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	if !strings.Contains(md, "Brass table lamp model 11") || !strings.Contains(md, "Studio Light") {
		t.Errorf("a notice in the middle cut the page:\n%s", md)
	}

	// A paragraph about copyright, long, near the end.
	long := `<p>Copyright in these designs, registered in 2019, belongs to the makers; we sell each lamp with their consent, and every model
	carries the maker's mark on its base, with the year it was made and the workshop's name, so that a buyer can tell it from a copy sold elsewhere.</p>`
	md = markdown.Convert([]byte(listingPage(long)), "https://shop.example/lamps", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	if !strings.Contains(md, "maker's mark") {
		t.Errorf("a paragraph about copyright was cut:\n%s", md)
	}
}

// A page read for its structure leaves out, like an article, the
// sections its headings say are not its content: other products, related
// and recommended posts; a section that holds half the page stays, and
// so does a news portal's most-read list.
func TestConvert_StructureLeavesOutSectionsItsHeadingsNameAsNotContent(t *testing.T) {
	tail := `<h2>You may also like</h2><ul><li><a href="/p/90">Floor lamp with marble base</a></li><li><a href="/p/91">Desk lamp in black steel</a></li></ul>
	<h2>Recently viewed</h2><ul><li><a href="/p/92">Pendant lamp of woven rattan</a></li></ul>`
	md := markdown.Convert([]byte(listingPage(tail)), "https://shop.example/lamps", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	for _, gone := range []string{"You may also like", "Floor lamp with marble", "Recently viewed", "woven rattan"} {
		if strings.Contains(md, gone) {
			t.Errorf("%q kept:\n%s", gone, md)
		}
	}
	if !strings.Contains(md, "Brass table lamp model 11") {
		t.Errorf("the last item was cut:\n%s", md)
	}

	// A news portal's most-read list is its content.
	portal := listingPage(`<h2>Most read</h2><ol><li><a href="/n/1">Storm warning for the coast</a></li><li><a href="/n/2">Tram line opens in May</a></li></ol>`)
	md = markdown.Convert([]byte(portal), "https://news.example/", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	if !strings.Contains(md, "Most read") || !strings.Contains(md, "Storm warning") {
		t.Errorf("a portal's most-read list was dropped:\n%s", md)
	}

	// The page's own items under a heading that names them "related".
	page := strings.Replace(listingPage(""), `<h1>Table lamps</h1>`, `<h1>Table lamps</h1><h2>Related products</h2>`, 1)
	md = markdown.Convert([]byte(page), "https://shop.example/lamps", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	if !strings.Contains(md, "Brass table lamp model 11") {
		t.Errorf("a heading over the whole page took it away:\n%s", md)
	}
}

// A page read for its structure reads no image's alt text, not even in a
// <figure> without a caption: a listing's pictures are its teasers'
// thumbnails, and their titles say what they show.
func TestConvert_StructureReadsNoAltText(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><main><h1>Latest news</h1>`)
	for i := range 6 {
		fmt.Fprintf(&b, `<div class="teaser"><figure><a href="/n/%d"><img src="/i/%d.jpg" alt="A phone screen shows the company logo, picture %d"></a></figure>
		<h3><a href="/n/%d">Story number %d about the company's new phone</a></h3><p>By Reporter %d</p></div>`, i, i, i, i, i, i)
	}
	b.WriteString(`</main></body></html>`)
	md := markdown.Convert([]byte(b.String()), "https://news.example/", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	if strings.Contains(md, "phone screen shows") {
		t.Errorf("alt text kept:\n%s", md)
	}
	if !strings.Contains(md, "Story number 5") {
		t.Errorf("a teaser's title lost:\n%s", md)
	}
}

// Nor does a page read for its structure read its pictures' captions:
// a teaser's photo credit is not the listing's text.
func TestConvert_StructureReadsNoFigureCaption(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><main><h1>Latest news</h1>`)
	for i := range 6 {
		fmt.Fprintf(&b, `<div class="teaser"><figure><img src="/i/%d.jpg"><figcaption>Photo credit: Press Agency %d</figcaption></figure>
		<h3><a href="/n/%d">Story number %d about the company's new phone</a></h3></div>`, i, i, i, i)
	}
	b.WriteString(`</main></body></html>`)
	md := markdown.Convert([]byte(b.String()), "https://news.example/", markdown.Options{Mode: markdown.ModeStructure}).Markdown
	if strings.Contains(md, "Press Agency") {
		t.Errorf("caption kept:\n%s", md)
	}
	if !strings.Contains(md, "Story number 5") {
		t.Errorf("a teaser's title lost:\n%s", md)
	}
}
