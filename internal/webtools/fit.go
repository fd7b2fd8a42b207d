package webtools

import "strings"

// fitResult is content fitted into a size cap.
type fitResult struct {
	// Text is the content that fits.
	Text string
	// Cut is true when anything was left out.
	Cut bool
	// ByRelevance is true when parts were chosen by relevance to the
	// prompt rather than by position; Omitted and Total then count the
	// sections left out and the sections there were.
	ByRelevance    bool
	Omitted, Total int
}

// fitContent returns content within max characters, keeping its beginning
// and cutting at a paragraph, line or sentence boundary.
//
// The hooks package selects the parts most relevant to the prompt in the
// same situation; fitContent is the plain stand-in until that selection is
// exported, and keeps its signature so the swap is one line.
var fitContent = func(content, _ string, max int) fitResult {
	content = strings.TrimSpace(content)
	r := []rune(content)
	if len(r) <= max {
		return fitResult{Text: content}
	}
	cut := string(r[:max])
	for _, sep := range []string{"\n\n", "\n", ". ", " "} {
		if i := strings.LastIndex(cut, sep); i > len(cut)*4/5 {
			return fitResult{Text: strings.TrimRight(cut[:i+len(sep)], " \n"), Cut: true}
		}
	}
	return fitResult{Text: cut, Cut: true}
}
