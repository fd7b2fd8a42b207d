package classify

import (
	"math"
	"strconv"
	"strings"
)

// Decision thresholds. They are round numbers chosen from what the classes
// mean, not fitted to particular pages; the package documentation explains
// each one.
const (
	// minModelBodyWords is the smallest main body the readable model is
	// asked about: shorter than a couple of paragraphs is no body.
	minModelBodyWords = 100
	// minBodyWords is a body of about two or three real paragraphs, for
	// the confidence of a verdict.
	minBodyWords = 150
	// maxTeaserRatio is the number of linked titles (teaser headlines) per
	// long paragraph in the main body at or above which the body is a list
	// of teasers.
	maxTeaserRatio = 0.5
	// shellWords is the amount of text outside page chrome below which a
	// page has nothing to read on its own.
	shellWords = 50
	// sparseWords and sparseLinks bound a page that has neither a body nor
	// navigation: with signs of a client-side application it is a shell.
	sparseWords = 300
	sparseLinks = 20
	// emptyMountWords is the most text a mount point may hold and still be
	// called empty (loaders, "Loading…", a skeleton label).
	emptyMountWords = 20
	// manyScripts is a count of external scripts typical of an application
	// bundle rather than a document with a few add-ons.
	manyScripts = 5
	// listedTitles is the number of linked headings outside page chrome
	// that shows a rendered list (of posts, products, results): content
	// the server has already put in the page.
	listedTitles = 3
	// minBindings is how many unrendered {{ }} bindings show that the page
	// is an uncompiled client-side template.
	minBindings = 2
	// manyBindings is how many unrendered bindings make a page an
	// application's template whatever the amount of interface text around
	// them (menus, dialogs, settings labels): the values come from script.
	manyBindings = 10
	// manyControls is a count of visible form controls and buttons typical
	// of an application's interface (settings, toolbars, dialogs) rather
	// than of a document's search box and newsletter form.
	manyControls = 25
)

// decide turns measured features into a Result.
func decide(f *features) Result {
	d := newDecision(f)
	var res Result
	switch {
	case d.appInterface():
		res.Class = BrowserRenderRequired
		res.Confidence = d.shellConfidence()
	case d.readable():
		res.Class = FetchReadable
		res.Confidence = d.readableConfidence()
	case d.shell():
		res.Class = BrowserRenderRequired
		res.Confidence = d.shellConfidence()
	default:
		res.Class = TemplateHeavy
		res.Confidence = d.templateConfidence()
	}
	res.Confidence = math.Round(clamp(res.Confidence, 0, 1)*100) / 100
	res.Signals = d.signals(res.Class)
	res.Article = f.articleMeta
	return res
}

type decision struct {
	f            *features
	linkDensity  float64
	contentWords float64
	contentLinkD float64 // link density outside page chrome
	teasers      int     // linked titles in the main body
	teaserRatio  float64
	emptyMounts  []string
	knownEmpty   bool
	evidence     []string // signs of a client-side application
	notes        map[string]string
	score        float64 // the readable model's log-odds, when scored
	scored       bool
}

func newDecision(f *features) *decision {
	d := &decision{f: f, notes: map[string]string{}}
	if f.visibleWords > 0 {
		d.linkDensity = f.linkWords / f.visibleWords
	}
	d.contentWords = math.Max(0, f.visibleWords-f.chromeWords)
	if d.contentWords > 0 {
		d.contentLinkD = math.Min(1, f.contentLinks/d.contentWords)
	}
	d.teasers = max(f.clusterHLinks, f.clusterTeases)
	d.teaserRatio = float64(d.teasers) / math.Max(1, float64(f.clusterParas))
	for _, m := range f.mounts {
		if m.words < emptyMountWords {
			d.emptyMounts = append(d.emptyMounts, m.desc)
			if m.known {
				d.knownEmpty = true
			}
		}
	}
	if len(d.emptyMounts) > 0 {
		d.evidence = append(d.evidence, "empty mount point")
	}
	if f.jsNotice {
		d.evidence = append(d.evidence, "JavaScript notice")
	}
	if f.bindings > 0 {
		d.evidence = append(d.evidence, "unrendered template bindings")
	}
	if len(f.dataMarkers) > 0 || f.dataBytes > 4096 {
		d.evidence = append(d.evidence, "state data in scripts")
	}
	if f.moduleScripts > 0 {
		d.evidence = append(d.evidence, "module scripts")
	}
	if f.scriptSrc >= manyScripts {
		d.evidence = append(d.evidence, "many external scripts")
	}
	if f.loaderText {
		d.evidence = append(d.evidence, "loader text")
	}
	// Far more inline code than text: the page is a program, not a document.
	if f.inlineScript > 10*int(f.visibleWords*6+1) && f.inlineScript > 4096 {
		d.evidence = append(d.evidence, "inline script dwarfs text")
	}
	return d
}

// readable reports whether the page holds one substantial body of prose:
// a body of at least minModelBodyWords, not a list of teasers, that the
// readable model scores above even odds.
func (d *decision) readable() bool {
	if signal, note := d.unscored(); signal != "" {
		d.notes[signal] = note
		return false
	}
	z, contrib := d.readableScore()
	d.score, d.scored = z, true
	d.notes["readable_score"] = scoreNote(z, contrib)
	return z > 0
}

// unscored says why the page's body is not put to the readable model — it
// is too short, or a list of teasers — as the signal that shows it and a
// note; "" when the body goes to the model.
func (d *decision) unscored() (signal, note string) {
	switch {
	case d.f.clusterWords < minModelBodyWords:
		return "body_words", "below " + itoa(minModelBodyWords) + ": no substantial body"
	case d.teaserRatio >= maxTeaserRatio && d.teasers >= 2:
		return "body_teasers", "body is a list of linked teasers"
	}
	return "", ""
}

// appInterface reports whether the page is an application's interface:
// many form controls and buttons, hardly any links. Websites, whether
// articles or listings, move between pages by links; an application moves
// between views by script, and its data fills the controls later.
func (d *decision) appInterface() bool {
	f := d.f
	if f.scripts == 0 || f.controls < manyControls || f.links >= sparseLinks {
		return false
	}
	d.notes["controls"] = "many controls and few links: an application's interface"
	return true
}

// readableConfidence is the model's probability that the page is
// readable.
func (d *decision) readableConfidence() float64 { return sigmoid(d.score) }

// shell reports whether the page's content comes from client-side code.
func (d *decision) shell() bool {
	f := d.f
	if f.scripts == 0 {
		d.notes["scripts"] = "no scripts: nothing renders later"
		return false
	}
	if d.contentWords < shellWords && (f.links < sparseLinks || len(d.evidence) > 0) {
		d.notes["content_words"] = "almost no text outside page chrome, with scripts"
		return true
	}
	if d.contentWords < sparseWords && d.knownEmpty && len(d.evidence) > 1 {
		d.notes["empty_mounts"] = "empty application mount point"
		d.notes["app_evidence"] = "signs of a client-side application"
		return true
	}
	// Unrendered bindings mean the page is the application's template: its
	// mount point holds the template itself instead of nothing.
	if d.contentWords < sparseWords && f.bindings >= minBindings && len(d.evidence) > 1 {
		d.notes["template_bindings"] = "the page is an unrendered template"
		d.notes["app_evidence"] = "signs of a client-side application"
		return true
	}
	if f.bindings >= manyBindings && len(d.evidence) > 1 {
		d.notes["template_bindings"] = "many unrendered bindings: the page is an application's template"
		d.notes["app_evidence"] = "signs of a client-side application"
		return true
	}
	if f.contentHLinks >= listedTitles {
		d.notes["content_linked_headings"] = "a rendered list of linked titles: content is in the page"
		return false
	}
	if d.contentWords < sparseWords && f.links < sparseLinks && len(d.evidence) > 0 {
		d.notes["content_words"] = "little text and little navigation"
		d.notes["app_evidence"] = "signs of a client-side application"
		return true
	}
	return false
}

func (d *decision) shellConfidence() float64 {
	f := d.f
	text := clamp(1-d.contentWords/sparseWords, 0, 1)
	ev := math.Min(1, float64(len(d.evidence))/3)
	if d.knownEmpty {
		ev = math.Max(ev, 0.9)
	}
	if f.visibleWords == 0 {
		text = 1
		ev = math.Max(ev, 0.8)
	}
	return 0.5 + 0.5*(0.5*text+0.5*ev)
}

func (d *decision) templateConfidence() float64 {
	f := d.f
	// Far from a readable body and far from a shell: confident.
	body := clamp(1-f.clusterWords/minBodyWords, 0, 1)
	switch {
	case d.scored:
		// A body exists but the model took it for a blurb: as sure as
		// the model is.
		body = clamp(1-2*sigmoid(d.score), 0, 1)
	case f.clusterWords >= minModelBodyWords:
		// A body exists but is a list of teasers.
		body = 0.3
	}
	nav := clamp(float64(f.links)/100, 0, 1)
	if f.scripts == 0 && f.links < sparseLinks {
		nav = 0
	}
	return 0.5 + 0.5*(0.6*body+0.4*nav)
}

func (d *decision) bodyShare() float64 {
	if d.contentWords <= 0 {
		return 0
	}
	return math.Min(1, d.f.clusterWords/d.contentWords)
}

func clamp(x, lo, hi float64) float64 {
	if math.IsNaN(x) {
		return lo
	}
	return math.Max(lo, math.Min(hi, x))
}

func itoa(i int) string { return strconv.Itoa(i) }

func fmtWords(x float64) string { return strconv.FormatFloat(math.Round(x), 'f', 0, 64) }

func fmtRatio(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// signals lists the measurements, the ones that decided first.
func (d *decision) signals(c Class) []Signal {
	f := d.f
	all := []Signal{
		{Name: "body_words", Value: fmtWords(f.clusterWords), Note: "long paragraphs of the best text container, in full (at least its score)"},
		{Name: "body_score", Value: fmtWords(f.clusterScore), Note: "container score that chose it (parent + share to ancestors)"},
		{Name: "body_paragraphs", Value: itoa(f.clusterParas), Note: "paragraphs of " + itoa(longParaWords) + "+ words in that container"},
		{Name: "body_share", Value: fmtRatio(d.bodyShare()), Note: "body words over words outside page chrome"},
		{Name: "body_teasers", Value: itoa(d.teasers), Note: "linked titles in that container (teasers)"},
		{Name: "visible_words", Value: fmtWords(f.visibleWords)},
		{Name: "content_words", Value: fmtWords(d.contentWords), Note: "outside nav/header/footer/aside"},
		{Name: "p_words", Value: fmtWords(f.pWords)},
		{Name: "main_words", Value: fmtWords(f.mainWords), Note: "inside <main>, <article> or role=main"},
		{Name: "long_paragraphs", Value: itoa(f.longParas)},
		{Name: "link_density", Value: fmtRatio(d.linkDensity), Note: "share of visible words inside links"},
		{Name: "content_link_density", Value: fmtRatio(d.contentLinkD), Note: "the same outside nav/header/footer/aside"},
		{Name: "links", Value: itoa(f.links)},
		{Name: "list_items", Value: itoa(f.listItems)},
		{Name: "controls", Value: itoa(f.controls), Note: "visible form controls and buttons"},
		{Name: "linked_headings", Value: itoa(f.headingLinks), Note: "headings that are mostly a link"},
		{Name: "content_linked_headings", Value: itoa(f.contentHLinks), Note: "the same outside nav/header/footer/aside"},
		{Name: "link_blocks", Value: itoa(f.linkBlocks), Note: "short link-dominated blocks"},
		{Name: "scripts", Value: itoa(f.scripts) + " (" + itoa(f.scriptSrc) + " external, " + itoa(f.moduleScripts) + " module)"},
		{Name: "inline_script_bytes", Value: itoa(f.inlineScript)},
	}
	if d.scored {
		// First among the signals; its note is the score's (see readable).
		all = append([]Signal{{Name: "readable_score", Value: fmtRatio(d.score)}}, all...)
	}
	if f.dataBytes > 0 || len(f.dataMarkers) > 0 {
		v := itoa(f.dataBytes) + " bytes"
		if len(f.dataMarkers) > 0 {
			v += " " + strings.Join(f.dataMarkers, ",")
		}
		all = append(all, Signal{Name: "state_data", Value: v, Note: "framework data handed to client code"})
	}
	if len(f.mounts) > 0 {
		var ms []string
		for _, m := range f.mounts {
			ms = append(ms, m.desc+"="+fmtWords(m.words))
		}
		all = append(all, Signal{Name: "mounts", Value: strings.Join(ms, " "), Note: "mount points and the words inside"})
	}
	if len(d.emptyMounts) > 0 {
		all = append(all, Signal{Name: "empty_mounts", Value: strings.Join(d.emptyMounts, " ")})
	}
	if f.jsNotice {
		all = append(all, Signal{Name: "js_notice", Value: strconv.Quote(f.jsNoticeText)})
	}
	if f.bindings > 0 {
		all = append(all, Signal{Name: "template_bindings", Value: itoa(f.bindings), Note: "unrendered {{ }} in visible text"})
	}
	if f.jsonLD > 0 || f.articleMeta || f.listingMeta {
		v := itoa(f.jsonLD) + " JSON-LD"
		if f.articleMeta {
			v += ", article metadata"
		}
		if f.listingMeta {
			v += ", listing metadata"
		}
		all = append(all, Signal{Name: "metadata", Value: v})
	}
	if len(d.evidence) > 0 {
		all = append(all, Signal{Name: "app_evidence", Value: strings.Join(d.evidence, ", ")})
	}
	// Deciding signals first, with the decision's note.
	var first, rest []Signal
	for _, s := range all {
		if n, ok := d.notes[s.Name]; ok {
			s.Note = n
			first = append(first, s)
		} else {
			rest = append(rest, s)
		}
	}
	if n, ok := d.notes["scripts"]; ok && c == TemplateHeavy {
		for i := range rest {
			if rest[i].Name == "scripts" {
				rest[i].Note = n
			}
		}
	}
	return append(first, rest...)
}
