package markdown

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// minItems is how many items of one element type, each with a link and
// its text, make a list of a collection's items ([findItemList]).
const minItems = 4

// itemStats is what findItemList measures of an element.
type itemStats struct {
	chars int  // its text, whitespace runs counted as one
	link  bool // it holds a link with text
}

// findItemList returns, in a cleaned tree, the element that holds the
// page's list of items: the element whose children are mostly of one
// type (at least [minItems] of them), each holding a link and some text
// of its own — a shop's grid of products, a collection's teasers — and
// that holds the most text of those; nil when root has none. It also
// returns the list's text and root's.
func findItemList(root *html.Node) (list *html.Node, listChars, rootChars int) {
	var measure func(n *html.Node) itemStats
	measure = func(n *html.Node) itemStats {
		var st itemStats
		counts := map[string]int{}
		var kids []itemStats
		var kinds []string
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			switch ch.Type {
			case html.TextNode:
				st.chars += textChars(ch.Data)
			case html.ElementNode:
				k := measure(ch)
				st.chars += k.chars
				st.link = st.link || k.link
				if ch.DataAtom == atom.A && k.chars > 0 {
					st.link = true
				}
				kids = append(kids, k)
				kinds = append(kinds, ch.Data)
				counts[ch.Data]++
			}
		}
		// The children of the most common type, each an item: a link and
		// more text than a label.
		best, most := "", 0
		for kind, c := range counts {
			if c > most {
				best, most = kind, c
			}
		}
		if most >= minItems && 5*most >= 4*len(kids) {
			items := 0
			for i, k := range kids {
				if kinds[i] == best && k.link && k.chars >= 15 {
					items++
				}
			}
			if items >= minItems && 5*items >= 4*most && st.chars > listChars {
				list, listChars = n, st.chars
			}
		}
		return st
	}
	rootChars = measure(root).chars
	return list, listChars, rootChars
}

// textChars counts the characters of a text, whitespace runs counted as
// one (as [textLength] does).
func textChars(s string) int {
	space := false
	return countChars(s, &space)
}

// minListShare is the share of a page's structure its list of items
// must hold for the page to be read as that list ([itemListRegion]).
const minListShare = 0.3

// itemListRegion returns the part of a collection's page that holds its
// list of items ([findItemList]) with its heading and introduction: the
// smallest element holding both the list and the page's first <h1>:
// the account links, promotions and menus around it that no element or
// class names as chrome are left out. Nil when the page has no such
// list, no <h1>, when that element is root itself, or when what would be
// left out holds prose ([maxProseLeft]). On the development split of the
// extraction benchmark (mean word F1), collection 0.6964 -> 0.6975,
// listing 0.7418 -> 0.7432, forum 0.8111 -> 0.8117, every other type
// unchanged; cutting the region's children before the heading and after
// the list as well lost collections that go on after their list
// (collection 0.6916).
func itemListRegion(root *html.Node) *html.Node {
	list, listChars, rootChars := findItemList(root)
	if list == nil || float64(listChars) < minListShare*float64(rootChars) {
		return nil
	}
	h1 := find(root, atom.H1)
	if h1 == nil {
		return nil
	}
	for region := list; region != nil && region != root; region = region.Parent {
		if contains(region, h1) {
			if proseOutside(root, region) > maxProseLeft {
				return nil
			}
			return region
		}
	}
	return nil
}

// minProse is how long a paragraph is to be prose, not a label or a
// link's blurb ([proseOutside]).
const minProse = 100

// maxProseLeft is how much prose the rest of a page may hold for the
// page to be read as its list of items: more is the collection's guide
// or questions and answers under the list, which is read with it. On
// the development split, 1,000 lost a collection whose questions and
// answers follow its list (collection 0.6975 -> 0.6939), 150 a forum
// index (forum 0.8117 -> 0.8111).
const maxProseLeft = 400

// proseOutside measures the paragraphs of root outside region that are
// prose ([minProse]).
func proseOutside(root, region *html.Node) int {
	total := 0
	walk(root, func(n *html.Node) bool {
		if n == region {
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.P {
			if l := textLength(n); l >= minProse {
				total += l
			}
			return false
		}
		return true
	})
	return total
}

// contains reports whether n is d or one of d's ancestors.
func contains(n, d *html.Node) bool {
	for ; d != nil; d = d.Parent {
		if d == n {
			return true
		}
	}
	return false
}
