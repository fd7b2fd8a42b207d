package markdown_test

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// mdParser reads Markdown the way a CommonMark renderer would, with
// GitHub's tables and strikethrough.
var mdParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()

// unsafeMarkdown parses md as CommonMark and returns what a renderer would
// turn into something other than text and web links: a link or autolink
// to anything but an absolute http(s) URL, an image, or raw HTML. It
// returns "" when md is safe.
func unsafeMarkdown(md string) string {
	src := []byte(md)
	doc := mdParser.Parse(text.NewReader(src))
	var found string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || found != "" {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if !webURL(string(n.Destination)) {
				found = fmt.Sprintf("link to %q", n.Destination)
			}
		case *ast.AutoLink:
			if u := string(n.URL(src)); !webURL(u) {
				found = fmt.Sprintf("autolink to %q", u)
			}
		case *ast.Image:
			found = fmt.Sprintf("image %q", n.Destination)
		case *ast.RawHTML:
			found = fmt.Sprintf("raw HTML %q", n.Segments.Value(src))
		case *ast.HTMLBlock:
			found = fmt.Sprintf("HTML block %q", n.Lines().Value(src))
		}
		return ast.WalkContinue, nil
	})
	return found
}

func webURL(u string) bool {
	return strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")
}
