package extractbench

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

var mdParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()

// PlainText turns Markdown into the plain text the benchmark compares:
// the text a reader sees, without markup, link targets, code fences'
// language names or escapes. Blocks are separated by blank lines, table
// cells by tabs.
func PlainText(markdown string) string {
	src := []byte(markdown)
	doc := mdParser.Parse(text.NewReader(src))
	var b strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n := n.(type) {
		case *ast.Text:
			if entering {
				v := n.Segment.Value(src)
				if !n.IsRaw() {
					v = util.UnescapePunctuations(util.ResolveNumericReferences(util.ResolveEntityNames(v)))
				}
				b.Write(v)
				if n.HardLineBreak() || n.SoftLineBreak() {
					b.WriteByte('\n')
				}
			}
		case *ast.String:
			if entering {
				b.Write(n.Value)
			}
		case *ast.CodeSpan:
			// Its text nodes are children; nothing to add.
		case *ast.AutoLink:
			if entering {
				b.Write(n.Label(src))
			}
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if entering {
				lines := n.Lines()
				for i := 0; i < lines.Len(); i++ {
					seg := lines.At(i)
					b.Write(seg.Value(src))
				}
				b.WriteString("\n")
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		case *east.TableCell:
			if !entering {
				b.WriteByte('\t')
			}
		case *east.TableRow, *east.TableHeader:
			if !entering {
				b.WriteByte('\n')
			}
		default:
			if n.Type() == ast.TypeBlock && !entering && !strings.HasSuffix(b.String(), "\n\n") {
				b.WriteString(strings.Repeat("\n", 2-trailingNewlines(b.String())))
			}
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

// trailingNewlines counts the line breaks s ends with, up to two.
func trailingNewlines(s string) int {
	n := 0
	for n < 2 && n < len(s) && s[len(s)-1-n] == '\n' {
		n++
	}
	return n
}
