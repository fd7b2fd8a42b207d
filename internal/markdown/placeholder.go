package markdown

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// placeholderMark is how placeholder text begins, in lower case.
const placeholderMark = "lorem ipsum"

// dropPlaceholders removes the blocks of a page that hold a template's
// placeholder text ("Lorem ipsum dolor sit amet…") where the site left
// it: a paragraph, heading, list item or cell whose text starts with it
// is no one's content.
func dropPlaceholders(root *html.Node, page []byte) {
	if !bytes.Contains(page, []byte("orem ipsum")) && !bytes.Contains(page, []byte("OREM IPSUM")) {
		return
	}
	var drop []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Pre || n.DataAtom == atom.Code) {
			return false // code may show placeholder text on purpose
		}
		if n.Type != html.TextNode {
			return true
		}
		t := strings.TrimSpace(n.Data)
		if len(t) < len(placeholderMark) || !strings.EqualFold(t[:len(placeholderMark)], placeholderMark) {
			return true
		}
		if b := textBlock(n); b != nil {
			drop = append(drop, b)
		}
		return true
	})
	for _, b := range drop {
		if b.Parent != nil {
			b.Parent.RemoveChild(b)
		}
	}
}

// textBlock returns the paragraph, heading, list item or cell a text node
// stands in, looking at most three elements up, or nil.
func textBlock(n *html.Node) *html.Node {
	for p, i := n.Parent, 0; p != nil && i < 3; p, i = p.Parent, i+1 {
		if p.Type != html.ElementNode {
			return nil
		}
		switch p.DataAtom {
		case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Li, atom.Td, atom.Dd, atom.Dt, atom.Blockquote, atom.Figcaption:
			return p
		}
	}
	return nil
}
