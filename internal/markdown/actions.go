package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// actionLabels, in lower case, are the labels of the controls a shop or
// a listing puts on each of its items: what the reader of the page
// clicks, not what the page says ("Add to cart", "Compare", "Quick
// view", "Read more"). The page's <button> elements are dropped already;
// these are the same controls made of links, spans and labels.
var actionLabels = map[string]bool{
	"add to cart": true, "add to bag": true, "add to basket": true, "add to trolley": true,
	"compare": true, "add to compare": true, "add to wishlist": true, "add to wish list": true, "add to favorites": true, "add to favourites": true,
	"quick view": true, "quickview": true, "quick shop": true, "quick add": true,
	"choose options": true, "select options": true, "show options": true, "view options": true,
	"read more": true, "view details": true, "see details": true,
}

// labelTrim is what a control's label may carry around its words: an
// arrow, an ellipsis, a plus sign, a bracket.
const labelTrim = " \t\n\r\u00a0.…»›→+>[]()"

// isActionLabel reports whether text, whole, is an item's control label
// ([actionLabels]).
func isActionLabel(text string) bool {
	// Every label is short; most text is not, and is not lowered.
	if len(text) > 40 {
		return false
	}
	return actionLabels[strings.ToLower(collapse(strings.Trim(text, labelTrim)))]
}

// dropActionLabels removes from converted content the controls each of
// a listing's items carries, made of links, spans and labels rather than
// buttons: the text whose whole is a control's label ([actionLabels]),
// with the elements around it that say nothing else. A listing says
// "Compare" and "Add to wishlist" under every product, a teaser "Read
// more" under its summary; [dropRepeats] kept the first of each, the
// article conversion every one. Headings, tables and code say what they
// say.
func dropActionLabels(root *html.Node) {
	var drop []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.TextNode {
			if isActionLabel(n.Data) {
				for n.Parent != root && isActionLabel(textOf(n.Parent)) {
					n = n.Parent
				}
				drop = append(drop, n)
			}
			return false
		}
		switch n.DataAtom {
		case atom.Table, atom.Pre, atom.Code, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return false
		}
		return true
	})
	for _, n := range drop {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}
