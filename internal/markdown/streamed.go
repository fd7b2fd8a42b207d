package markdown

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// streamedMark is what a page that React streamed part by part holds: a
// finished segment, sent after the shell in <div hidden id="S:…">.
var streamedMark = []byte(`id="S:`)

// revealStreamed puts in place what a server streamed after a page's
// shell, as React's inline runtime does in the browser ($RC, $RS): each
// <div hidden id="S:x"> holds a finished segment; it completes the
// boundary that starts at <template id="B:x"> (whose loading fallback
// follows it, up to the comment "/$"), or fills the placeholder <template
// id="P:x">. Without the runtime, which a reader does not run (and which
// saved copies of pages often lack), the segments stay hidden and the
// page reads as its loading fallback ("Loading…") or as nothing. A
// segment with no boundary or placeholder of its id stays as it is.
func revealStreamed(root *html.Node, page []byte) {
	if !bytes.Contains(page, streamedMark) {
		return
	}
	var segments []*html.Node
	holes := map[string]*html.Node{}
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		id := attr(n, "id")
		switch {
		case n.DataAtom == atom.Div && strings.HasPrefix(id, "S:"):
			if _, hidden := attrOK(n, "hidden"); hidden {
				segments = append(segments, n)
			}
		case n.DataAtom == atom.Template && (strings.HasPrefix(id, "B:") || strings.HasPrefix(id, "P:")):
			holes[id] = n
		}
		return true
	})
	for _, seg := range segments {
		x := attr(seg, "id")[2:]
		hole, boundary := holes["B:"+x], true
		if hole == nil {
			hole, boundary = holes["P:"+x], false
		}
		if hole == nil || hole.Parent == nil || seg.Parent == nil || within(hole, seg) {
			continue
		}
		if boundary {
			dropFallback(hole)
		}
		for c := seg.FirstChild; c != nil; c = seg.FirstChild {
			seg.RemoveChild(c)
			hole.Parent.InsertBefore(c, hole)
		}
		hole.Parent.RemoveChild(hole)
		seg.Parent.RemoveChild(seg)
	}
}

// dropFallback removes what follows a boundary's template up to the
// comment that ends the boundary ("/$"), nested boundaries included: the
// loading fallback its content replaces. Without that comment nothing is
// removed.
func dropFallback(template *html.Node) {
	depth := 0
	var end *html.Node
	for n := template.NextSibling; n != nil && end == nil; n = n.NextSibling {
		if n.Type != html.CommentNode {
			continue
		}
		switch n.Data {
		case "$", "$?", "$!":
			depth++
		case "/$":
			if depth == 0 {
				end = n
			}
			depth--
		}
	}
	if end == nil {
		return
	}
	for n := template.NextSibling; n != end; n = template.NextSibling {
		template.Parent.RemoveChild(n)
	}
}

// within reports whether n is a or lies inside a.
func within(n, a *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == a {
			return true
		}
	}
	return false
}
