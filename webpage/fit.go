package webpage

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/internal/lazyre"
	"github.com/webgate-dev/webgate/internal/textfmt"
)

// OmissionMark stands where [FitContent] left text out of content it kept
// by relevance.
const OmissionMark = "[…]"

// Fit is the outcome of fitting content into a size cap with [FitContent].
type Fit struct {
	// Text is the content that fits.
	Text string
	// Cut is true when anything was left out.
	Cut bool
	// ByRelevance is true when parts were chosen by prompt relevance rather
	// than by position.
	ByRelevance bool
	// Omitted and Total count the blocks left out and the blocks there were
	// (only when ByRelevance).
	Omitted, Total int
}

// FitContent returns content within max UTF-16 code units (as Claude Code
// counts its output caps). Content that
// fits is returned as is. Otherwise, when prompt has useful terms that occur
// in the content, the paragraphs and sections most relevant to the prompt
// are kept in their original order with [OmissionMark] where text was left
// out; else the beginning is kept, cut at a paragraph or line boundary.
func FitContent(content, prompt string, max int) Fit {
	content = strings.TrimSpace(content)
	if TextLen(content) <= max {
		return Fit{Text: content}
	}
	if r, ok := selectRelevant(content, prompt, max); ok {
		return r
	}
	return Fit{Text: cutAtBoundary(content, max), Cut: true}
}

// cutAtBoundary cuts s to max code units, preferring the last paragraph or
// line break in the final fifth.
func cutAtBoundary(s string, max int) string {
	cut := CutText(s, max)
	for _, sep := range []string{"\n\n", "\n", ". ", " "} {
		if i := strings.LastIndex(cut, sep); i > len(cut)*4/5 {
			return strings.TrimRight(cut[:i+len(sep)], " \n")
		}
	}
	return cut
}

// block is one paragraph or section of the content.
type block struct {
	text  string
	index int
	score float64
}

// splitBlocks splits Markdown into paragraphs; a heading is kept with the
// paragraph that follows it.
func splitBlocks(s string) []string {
	raw := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n")
	var out []string
	pending := ""
	for _, p := range raw {
		p = strings.Trim(p, "\n")
		if strings.TrimSpace(p) == "" {
			continue
		}
		if pending != "" {
			p = pending + "\n\n" + p
			pending = ""
		}
		if isHeading(p) {
			pending = p
			continue
		}
		out = append(out, p)
	}
	if pending != "" {
		out = append(out, pending)
	}
	return out
}

func isHeading(p string) bool {
	return !strings.Contains(p, "\n") && strings.HasPrefix(strings.TrimSpace(p), "#")
}

// selectRelevant keeps the blocks of content that best match prompt's
// terms. It reports false when the prompt has no term found in the content.
func selectRelevant(content, prompt string, max int) (Fit, bool) {
	terms := promptTerms(prompt)
	if len(terms) == 0 {
		return Fit{}, false
	}
	texts := splitBlocks(content)
	if len(texts) < 2 {
		return Fit{}, false
	}
	blocks := make([]block, len(texts))
	df := map[string]int{}
	tfs := make([]map[string]int, len(texts))
	for i, t := range texts {
		blocks[i] = block{text: t, index: i}
		tf := map[string]int{}
		for _, w := range words(t) {
			if _, ok := terms[w]; ok {
				tf[w]++
			}
		}
		for w := range tf {
			df[w]++
		}
		tfs[i] = tf
	}
	if len(df) == 0 {
		return Fit{}, false
	}
	n := float64(len(texts))
	for i := range blocks {
		var s float64
		for w, c := range tfs[i] {
			s += math.Log(1+n/float64(df[w])) * (1 + math.Log(float64(c)))
		}
		// Favour blocks matching several distinct terms over long blocks
		// repeating one.
		s *= 1 + 0.5*float64(len(tfs[i])-1)
		blocks[i].score = s
	}

	markLen := TextLen(OmissionMark) + 4
	room := max
	keep := make([]bool, len(blocks))
	take := func(i int) bool {
		cost := TextLen(blocks[i].text) + markLen
		if cost > room {
			return false
		}
		keep[i] = true
		room -= cost
		return true
	}
	// The opening block usually names the page; keep it when it is short.
	if TextLen(blocks[0].text) <= max/6 {
		take(0)
	}
	order := make([]int, 0, len(blocks))
	for i := range blocks {
		if blocks[i].score > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return blocks[order[a]].score > blocks[order[b]].score })
	for _, i := range order {
		if !keep[i] {
			take(i)
		}
	}
	// When even the best block is too long, keep its beginning.
	anyScored := false
	for _, i := range order {
		anyScored = anyScored || keep[i]
	}
	if !anyScored && len(order) > 0 && room > markLen+200 {
		best := order[0]
		blocks[best].text = cutAtBoundary(blocks[best].text, room-markLen) + "\n" + OmissionMark
		keep[best] = true
		room = 0
	}
	// Fill what room is left with unscored blocks near the start.
	for i := range blocks {
		if !keep[i] && blocks[i].score == 0 {
			if !take(i) {
				break
			}
		}
	}

	var b strings.Builder
	omitted := 0
	gap := false
	for i, bl := range blocks {
		if !keep[i] {
			omitted++
			gap = true
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if gap {
			b.WriteString(OmissionMark + "\n\n")
			gap = false
		}
		b.WriteString(bl.text)
	}
	if gap {
		b.WriteString("\n\n" + OmissionMark)
	}
	return Fit{Text: CutText(b.String(), max), Cut: true, ByRelevance: true, Omitted: omitted, Total: len(blocks)}, true
}

// stopwords are frequent English words that say nothing about relevance,
// plus words typical of fetch prompts.
var stopwords = wordSet(`the and for are but not you all any can had her was one our out has him his how its may new now old see two way who did get let put say she too use what when where which while with this that these those from have been were they them then than there their here into onto about above after again also some such only own same very will would should could just more most other each both few nor off over under until why does doing your yours page content text tell give find show list explain describe summarize summarise summary extract information info please article document site website web`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// promptTerms returns the distinct useful terms of a prompt.
func promptTerms(prompt string) map[string]struct{} {
	out := map[string]struct{}{}
	for _, w := range words(prompt) {
		if len([]rune(w)) >= 3 && !stopwords[w] {
			out[w] = struct{}{}
		}
	}
	return out
}

// words splits s into lower-case words of letters and digits, with a plural
// "s" removed so "tokens" matches "token".
func words(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, w := range fields {
		if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			fields[i] = w[:len(w)-1]
		}
	}
	return fields
}

// TextLen returns the length of s in UTF-16 code units, the unit in which
// Claude Code (JavaScript) measures its 10,000-character output cap.
func TextLen(s string) int { return textfmt.Len(s) }

// CutText returns the longest prefix of s that is at most max UTF-16 code
// units long, cut at a rune boundary.
func CutText(s string, max int) string { return textfmt.Cut(s, max) }

// Window is one part of a long content, cut by position with [CutWindow].
// Positions count UTF-16 code units, as [TextLen] does.
type Window struct {
	// Text is the part of the content from Start to End.
	Text string
	// Start and End are where Text begins and ends in the content; End is
	// where the next window starts.
	Start, End int
	// Total is the length of the whole content.
	Total int
}

// More reports whether content follows the window.
func (w Window) More() bool { return w.End < w.Total }

// markdownLink matches a Markdown link or image, "[text](target)" or
// "![alt](target)", with an image inside a link's text and one level of
// parentheses inside its target (as Wikipedia's URLs have).
var markdownLink = lazyre.New(`!?\[(?:[^\[\]\n]|!\[[^\[\]\n]*\]\((?:[^()\s]|\([^()\s]*\))*\))*\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"\n]*")?\)`)

// linkLookaround bounds how far around a cut [CutWindow] looks for a link
// that spans it, in bytes.
const linkLookaround = 4096

// CutWindow returns the part of content that starts at offset and is at
// most max UTF-16 code units long, so that a long document can be read in
// consecutive windows: each window's End is the next one's offset, and the
// windows together are the content, with nothing left out or repeated.
//
// An offset inside a character that takes two code units (a surrogate
// pair) starts at that character. The window ends at a character
// boundary, and, when content follows, preferably after a paragraph, a
// line, a sentence or a word in its last fifth, and never inside a
// Markdown link or image when the window can end before it. A window
// always holds at least one character unless it starts at the end; an
// offset past the end gives an empty window at the end. max <= 0 means no
// limit.
func CutWindow(content string, offset, max int) Window {
	total := TextLen(content)
	// The characters before offset; an offset inside a surrogate pair
	// leaves that character out of them.
	before := CutText(content, offset)
	startUnits := TextLen(before)
	w := Window{Start: startUnits, End: startUnits, Total: total}
	rest := content[len(before):]
	if rest == "" {
		return w
	}
	if max <= 0 || total-startUnits <= max {
		w.Text, w.End = rest, total
		return w
	}
	cut := len(CutText(rest, max))
	if cut == 0 {
		// The first character alone is longer than max: take it, so that
		// paging always moves on.
		_, size := utf8.DecodeRuneInString(rest)
		cut = size
	}
	cut = boundaryCut(rest, cut)
	cut = outsideLinks(rest, cut)
	w.Text = rest[:cut]
	w.End = startUnits + TextLen(w.Text)
	return w
}

// boundaryCut moves a cut of s at byte cut back to just after the last
// paragraph break, line break, sentence end or space in the cut's last
// fifth, if there is one.
func boundaryCut(s string, cut int) int {
	head := s[:cut]
	for _, sep := range []string{"\n\n", "\n", ". ", " "} {
		if i := strings.LastIndex(head, sep); i >= 0 && i+len(sep) > cut*4/5 {
			return i + len(sep)
		}
	}
	return cut
}

// outsideLinks moves a cut of s at byte cut back to the start of the
// Markdown link that spans it, if any, unless that leaves nothing before
// the cut.
func outsideLinks(s string, cut int) int {
	for {
		from := max(cut-linkLookaround, 0)
		to := min(cut+linkLookaround, len(s))
		moved := false
		for _, m := range markdownLink().FindAllStringIndex(s[from:to], -1) {
			a, b := from+m[0], from+m[1]
			if a < cut && cut < b {
				if a == 0 {
					return cut
				}
				cut, moved = a, true
				break
			}
		}
		if !moved {
			return cut
		}
	}
}
