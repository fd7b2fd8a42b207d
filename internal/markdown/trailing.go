package markdown

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A prose block that follows a page's <main> outside it (a shop's text
// about the category, set below the grid and above the footer) must hold
// this much text, at most a fifth of it link text, and paragraphs of at
// least minTrailingParagraph characters must hold half of it: a store
// locator's hours, a cart drawer and a gift-wrap dialog are short lines.
const (
	minTrailingProse     = 200
	minTrailingParagraph = 80
)

// trailingProse returns the prose blocks ([isTrailingProse]) that come
// after main, the element the structure conversion reads as the page's
// content ([mainContent]), in body, outside main. On the development
// split of the extraction benchmark: collection 0.7134 -> 0.7164 (one
// shop's page whose ground truth keeps its category text up by 0.475,
// two whose truth leaves it out down by 0.06), every other type
// unchanged.
func trailingProse(body, main *html.Node) []*html.Node {
	var prose []*html.Node
	after := false
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c == main:
				after = true
			case c.Type != html.ElementNode:
			case contains(c, main):
				visit(c)
			case !after:
			default:
				// A long block that is not prose may hold some.
				if t := textLength(c); isTrailingProse(c, t) {
					prose = append(prose, c)
				} else if t >= minTrailingProse {
					visit(c)
				}
			}
		}
	}
	visit(body)
	return prose
}

// followedBy returns n followed by blocks, moved with n under a new
// element that takes n's place; n itself when there are no blocks.
func followedBy(n *html.Node, blocks []*html.Node) *html.Node {
	if len(blocks) == 0 {
		return n
	}
	wrap := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	if n.Parent != nil {
		n.Parent.InsertBefore(wrap, n)
		n.Parent.RemoveChild(n)
	}
	wrap.AppendChild(n)
	for _, b := range blocks {
		if b.Parent != nil {
			b.Parent.RemoveChild(b)
		}
		wrap.AppendChild(b)
	}
	return wrap
}

// isTrailingProse reports whether n, which holds total characters of
// text, is a block of prose: long enough, few links, most of it long
// paragraphs or list items.
func isTrailingProse(n *html.Node, total int) bool {
	if total < minTrailingProse || 5*linkLength(n) > total {
		return false
	}
	long := 0
	walk(n, func(d *html.Node) bool {
		if d.Type == html.ElementNode && (d.DataAtom == atom.P || d.DataAtom == atom.Li) {
			if t := textLength(d); t >= minTrailingParagraph {
				long += t
			}
			return false
		}
		return true
	})
	return 2*long >= total
}
