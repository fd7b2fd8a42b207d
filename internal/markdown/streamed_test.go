package markdown_test

import (
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// A page React streamed: the shell holds a boundary's loading fallback and
// a placeholder; the finished segments follow in hidden divs, and the
// inline runtime that would move them into place is not there (nor run).
func TestConvert_ContentStreamedAfterTheShellIsReadInPlace(t *testing.T) {
	page := `<html><head><title>Growing tomatoes in pots</title></head><body>
<nav><a href="/">Home</a> <a href="/blog">Blog</a></nav>
<main><h1>Growing tomatoes in pots</h1>
<!--$?--><template id="B:0"></template><p>Loading paragraph...</p><!--$--><p>Loading image...</p><!--/$--><!--/$-->
<template id="P:1"></template>
<p>Written by the garden team.</p></main>
<footer>Footer links</footer>
<div hidden id="S:0"><p>Tomatoes grown in pots need good soil above all else, and a gardener who gets it right is rewarded with a long harvest of sweet fruit through the summer.</p>
<p>The watering matters more than the variety chosen: even the hardiest plant sulks when it is neglected, while a modest one thrives when it is looked after every week of the season.</p></div>
<div hidden id="S:1"><p>Light is the last part of it: six hours of sun a day keep the plants compact, and a pot moved along a sunny wall follows the light through the afternoon.</p></div>
<div hidden id="S:7"><p>An orphan segment that nothing on the page asks for stays hidden.</p></div>
</body></html>`
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		doc := markdown.Convert([]byte(page), "https://garden.example/tomatoes", markdown.Options{Mode: mode})
		for _, want := range []string{"long harvest of sweet fruit", "hardiest plant sulks", "six hours of sun"} {
			if !strings.Contains(doc.Markdown, want) {
				t.Errorf("%v: the streamed content lacks %q:\n%s", mode, want, doc.Markdown)
			}
		}
		for _, gone := range []string{"Loading paragraph", "Loading image", "orphan segment"} {
			if strings.Contains(doc.Markdown, gone) {
				t.Errorf("%v: %q is still read:\n%s", mode, gone, doc.Markdown)
			}
		}
		// In place: the segments stand where the shell asked for them.
		if i, j := strings.Index(doc.Markdown, "hardiest plant"), strings.Index(doc.Markdown, "six hours"); i < 0 || j < i {
			t.Errorf("%v: the segments are out of order:\n%s", mode, doc.Markdown)
		}
	}
}
