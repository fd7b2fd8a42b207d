package markdown_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// manualPage is a command's manual page as AsciiDoc writes it: sibling
// sect1 blocks, each a heading and its body, the options the longest.
func manualPage() []byte {
	var b strings.Builder
	b.WriteString(`<html><head><title>stargaze-log - Record an observation</title></head><body>
	<nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/about">About</a></nav>
	<div id="content"><div id="main"><h1>stargaze-log(1)</h1>
	<div class="sect1"><h2 id="_name">NAME</h2><div class="sectionbody"><p>stargaze-log - Record an observation of the night sky in the observing log</p></div></div>
	<div class="sect1"><h2 id="_synopsis">SYNOPSIS</h2><div class="sectionbody"><pre>stargaze-log [--object=&lt;name&gt;] [--seeing=&lt;n&gt;] [--eyepiece=&lt;mm&gt;] [--] &lt;note&gt;...</pre></div></div>
	<div class="sect1"><h2 id="_description">DESCRIPTION</h2><div class="sectionbody"><p>Writes a new entry to the observing log holding the object observed, the conditions of the night and the observer's note. The entry is dated with the time of the observation and the observer's place, read from the configuration.</p><p>An entry may be amended later with stargaze-amend; the log keeps every version of it, and lists show the latest with the number of its versions.</p>
	<p>The object is named as the catalogues name it (M31, NGC 7000, Jupiter); a name the log does not know is kept as written and marked for the observer to check when the log is next listed.</p>
	<p>The seeing is a number from one to five, the eyepiece its focal length in millimetres; with the telescope's focal length from the configuration, the log works out and records the magnification.</p></div></div>
	<div class="sect1"><h2 id="_examples">EXAMPLES</h2><div class="sectionbody"><p>Record a first look at the Andromeda galaxy on a clear night, through a 25 mm eyepiece:</p><pre>stargaze-log --object=M31 --seeing=4 --eyepiece=25 "Core bright, dust lane hinted at with averted vision"</pre><p>Record a planet, leaving the eyepiece to the configuration's default, and note the moons seen beside it on the night of the observation:</p><pre>stargaze-log --object=Jupiter "Four moons, two belts, the red spot near the meridian"</pre></div></div>
	<div class="sect1"><h2 id="_options">OPTIONS</h2><div class="sectionbody"><div class="dlist"><dl>`)
	for i := range 48 {
		fmt.Fprintf(&b, `<dt>--option-%d=&lt;value&gt;</dt><dd><p>Sets setting %d of the entry, beside the note.</p></dd>`, i, i)
	}
	b.WriteString(`</dl></div></div></div>
	<div class="sect1"><h2 id="_configuration">CONFIGURATION</h2><div class="sectionbody"><p>The observer's name and place, the telescope's focal length and aperture and the default eyepiece are read from the configuration file, written by stargaze-config the first time the tools run.</p>
	<p>A setting given on the command line wins over the configuration for that entry alone; the configuration is never changed by stargaze-log, whatever options it is given.</p>
	<p>When the configuration file is missing, stargaze-log asks for the observer's name and place before it writes the entry, and writes the file for the next time.</p></div></div>
	<div class="sect1"><h2 id="_files">FILES</h2><div class="sectionbody"><p>The log lives in the observer's data folder as one file a year, each entry a line of its own, so that the files can be read and searched with the usual tools.</p></div></div>
	<div class="sect1"><h2 id="_see_also">SEE ALSO</h2><div class="sectionbody"><p>stargaze-amend(1), stargaze-list(1), stargaze-config(5) and the observer's guide.</p></div></div>
	</div></div><footer><p>Stargazing tools, all rights reserved.</p></footer></body></html>`)
	return []byte(b.String())
}

func TestConvertHTML_AReferencePageCutIntoSectionsIsReadWhole(t *testing.T) {
	doc := markdown.ConvertHTML(manualPage(), "https://docs.example/stargaze-log")
	for _, want := range []string{"Record an observation of the night sky", "stargaze-log [--object=", "Writes a new entry to the observing log",
		"--option-47", "stargaze-amend(1)", "SYNOPSIS", "DESCRIPTION"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the page lacks %q:\n%s", want, doc.Markdown)
		}
	}
	for _, noise := range []string{"About", "all rights reserved"} {
		if strings.Contains(doc.Markdown, noise) {
			t.Errorf("the page keeps %q:\n%s", noise, doc.Markdown)
		}
	}
}
