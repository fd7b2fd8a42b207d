package markdown

import (
	"bytes"
	"strings"

	"github.com/webgate-dev/webgate/internal/lazyre"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A product page (a shop's page for one product) surrounds the product's
// name, price, description and specifications with its customers' reviews
// and other products ("you may also like", "customers also viewed"). What
// its readers want, and what the extraction benchmark's ground truth
// keeps, is the product.

// declaresProduct reports whether a page declares a product, in JSON-LD
// or microdata, and not many of them (a listing of products declares
// one per item).
func declaresProduct(page []byte) bool {
	n := typeMentions(page, "Product", nil, 4)
	return n >= 1 && n <= 3
}

// sellsProduct reports whether a page declares a product ([declaresProduct])
// or says it is one in its Open Graph metadata (og:type product, a
// product:price).
func sellsProduct(page []byte) bool {
	return declaresProduct(page) || bytes.Contains(page, []byte(`"product:price:amount"`)) ||
		bytes.Contains(page, []byte(`og:type" content="product`)) || bytes.Contains(page, []byte(`content="product" property="og:type"`))
}

// productExtras are the words of the classes and ids of a product page's
// blocks that are not about the product: reviews and ratings, related and
// recommended products, upsells, recently viewed items.
var productExtras = []string{"review", "rating", "recommend", "related", "upsell", "cross-sell", "crosssell", "recently"}

// dropProductExtras removes from a cleaned product page the blocks that
// are not about the product ([productExtras]). The elements around the
// page's first <h1> (the product's name) stay, and so does a block that
// holds most of the page's text.
func dropProductExtras(body *html.Node) {
	keep := map[*html.Node]bool{}
	for p := find(body, atom.H1); p != nil; p = p.Parent {
		keep[p] = true
	}
	half := -1
	var drop []*html.Node
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode || keep[n] {
			return true
		}
		class, id := attr(n, "class"), attr(n, "id")
		if class == "" && id == "" {
			return true
		}
		if !containsAny(strings.ToLower(class), productExtras) && !containsAny(strings.ToLower(id), productExtras) {
			return true
		}
		if half < 0 {
			half = textLength(body) / 2
		}
		if textLength(n) > half {
			return true
		}
		drop = append(drop, n)
		return false
	})
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
	dropOtherProducts(body, keep)
}

// otherProductsHeadings are, in lower case, what a product page's
// headings say above other products than its own: carousels of what other
// customers viewed or bought, similar and sponsored items. Shops whose
// class names are generated ("tr7D") name them nowhere else.
var otherProductsHeadings = []string{"also viewed", "also bought", "also purchased", "also like", "also liked", "also love", "also searched",
	"similar items", "similar products", "similar styles", "related products", "related items", "recommended for you",
	"recently viewed", "you might like", "you may like", "more from this seller", "sponsored items", "complete the look",
	"inspired by your", "shop similar", "more to consider", "more like this"}

// dropOtherProducts removes from a product page each block that a heading
// naming other products ([otherProductsHeadings]) opens: the largest
// element around the heading that holds less than a third of the page's
// text and not the page's first <h1> (keep holds it and its ancestors).
func dropOtherProducts(body *html.Node, keep map[*html.Node]bool) {
	var heads []*html.Node
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.H2, atom.H3, atom.H4:
			t := strings.ToLower(textOf(n))
			if len(t) < 80 && containsAny(t, otherProductsHeadings) {
				heads = append(heads, n)
			}
			return false
		}
		return true
	})
	if len(heads) == 0 {
		return
	}
	limit := textLength(body) / 3
	for _, h := range heads {
		if h.Parent == nil {
			continue // inside a block already dropped
		}
		block := h
		for p := h.Parent; p != nil && p != body && !keep[p] && textLength(p) < limit; p = p.Parent {
			block = p
		}
		if block.Parent != nil {
			block.Parent.RemoveChild(block)
		}
	}
}

// minProductShare is how much of a product page's structure the article
// conversion must keep for [ModeAuto] to read the page as an article.
// Readability often picks one block of a product page (the description,
// or a review) and leaves the name, price and specifications out; the
// structure keeps them. Measured on the development split of the
// extraction benchmark (mean word F1): product 0.592 -> 0.604 with a
// share of 0.35, other types unchanged; 0.637 -> 0.639 at 0.5 once the
// article says each block once (0.638 at 0.45, 0.635 at 0.6).
const minProductShare = 0.5

// minProductProse is how much of the text of a product page's structure
// that is not link text the article conversion must keep, at the least,
// for [ModeAuto] to read the page as an article, whatever its share of
// the whole: a shop's collection that declares a product holds a short
// introduction beside a grid of links to its items, and the introduction
// is what it says. Measured on the development split of the extraction
// benchmark (mean word F1): collection 0.6971 -> 0.7015, product
// 0.6702 -> 0.6733, every other type unchanged (the same at 0.6).
const minProductProse = 0.7

// productFallback returns the structure of a page that declares a
// product when the article conversion doc kept less than
// [minProductShare] of it and less than [minProductProse] of its text
// that is not links, else doc.
func productFallback(doc Document, page []byte, base string) Document {
	s := convertStructure(page, base)
	read := float64(doc.TextChars + doc.titleChars)
	if read < minProductShare*float64(s.TextChars) && read < minProductProse*float64(s.TextChars-linkChars(s.Markdown)) {
		return s
	}
	return doc
}

// mdLinkText matches a Markdown link or image, keeping its text.
var mdLinkText = lazyre.New(`!?\[([^\]]*)\]\([^)]*\)`)

// linkChars counts the visible characters of md's link texts.
func linkChars(md string) int {
	n := 0
	for _, m := range mdLinkText().FindAllStringSubmatch(md, -1) {
		n += visibleChars(m[1])
	}
	return n
}
