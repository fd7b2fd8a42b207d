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

// Some pages were saved while a dialog was open, with aria-hidden="true"
// on their <main>: it is still the page's content.
func TestConvert_AMainHiddenWhileADialogIsOpenIsRead(t *testing.T) {
	page := `<html><head><title>Clutch kit</title></head><body><div aria-hidden="false">
<main role="presentation" aria-hidden="true"><h1>Clutch kit for a delivery van</h1>
<p>A complete clutch kit with pressure plate, disc and release bearing, made by the original supplier and sold new in its box with the fitting instructions.</p>
<p>International shipment of items may be subject to customs processing and additional charges; the seller ships within two working days.</p>
<span aria-hidden="true">★★★★☆</span></main></div>
<div role="dialog"><p>Sign in to see your saved items.</p></div></body></html>`
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		doc := markdown.Convert([]byte(page), "https://shop.example/itm/1", markdown.Options{Mode: mode})
		if !strings.Contains(doc.Markdown, "pressure plate, disc and release bearing") {
			t.Errorf("%v: the page's main content is missing:\n%s", mode, doc.Markdown)
		}
		if strings.Contains(doc.Markdown, "★") {
			t.Errorf("%v: what aria-hidden hides inside it is read:\n%s", mode, doc.Markdown)
		}
	}
}

// A documentation page's instructions for each platform, in tabs: the
// hidden tabs' code is read too, in the article conversion as well.
func TestConvert_HiddenTabsOfCodeAreRead(t *testing.T) {
	page := `<html><head><title>Install the tools</title></head><body><main><h1>Install the tools</h1>
<p>The command-line tools let you build and test your functions on your own computer before you deploy them, and they run on every major system.</p>
<p>Pick your system below and run the commands in a terminal; each installs the same version of the tools and adds them to your path.</p>
<div class="tabGroup"><ul role="tablist"><li role="tab">Windows</li><li role="tab">Linux</li></ul>
<section role="tabpanel" id="tab-windows"><pre><code>winget install Example.Tools</code></pre></section>
<section role="tabpanel" id="tab-linux" aria-hidden="true" hidden="hidden"><ol><li><p>Add the package key:</p><pre><code>curl https://packages.example/key.asc | gpg --dearmor &gt; example.gpg</code></pre></li></ol></section>
</div><p>Once installed, check the version with the tools' own version command, and update them the same way you installed them.</p></main></body></html>`
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		doc := markdown.Convert([]byte(page), "https://docs.example/tools", markdown.Options{Mode: mode})
		for _, want := range []string{"winget install Example.Tools", "gpg --dearmor"} {
			if !strings.Contains(doc.Markdown, want) {
				t.Errorf("%v: the tab's code %q is missing:\n%s", mode, want, doc.Markdown)
			}
		}
	}
}
