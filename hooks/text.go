package hooks

import (
	"strings"

	"github.com/webgate-dev/webgate/internal/sanitize"
)

// textLen returns the length of s in UTF-16 code units, the unit in which
// Claude Code (JavaScript) measures its 10,000-character output cap.
func textLen(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// cutText returns the longest prefix of s that is at most max UTF-16 code
// units long, cut at a rune boundary.
func cutText(s string, max int) string {
	if max <= 0 {
		return ""
	}
	n := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > max {
			return s[:i]
		}
		n += w
	}
	return s
}

// oneLine applies the terminal rule to s ([sanitize.Line]): escape
// sequences, control, bidirectional and tag characters are removed, invalid
// UTF-8 is replaced, and every run of white space (newlines included)
// becomes one space, with the ends trimmed.
func oneLine(s string) string { return sanitize.Line(s) }

// shorten returns oneLine(s) cut to about max code units at a word
// boundary, with "…" appended when it was cut.
func shorten(s string, max int) string {
	s = oneLine(s)
	if textLen(s) <= max {
		return s
	}
	cut := cutText(s, max-1)
	if i := strings.LastIndexByte(cut, ' '); i >= len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}

// redact replaces every occurrence of each secret in s with "[redacted]".
// Secrets shorter than 6 characters are skipped: they are not real keys and
// replacing them would mangle ordinary text.
func redact(s string, secrets []string) string {
	for _, k := range secrets {
		if len(k) >= 6 && strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}

// redactDecision makes every text of d safe to hand over: the reason and
// the context, which reach the model, get the agent rule
// ([sanitize.Agent]: the terminal rule plus neutralised framing tags); the
// system message and the diagnostics, which reach the user's terminal or
// log, get the terminal rule ([sanitize.Text]). Then every secret is
// replaced by "[redacted]"; the rule runs first, so that a key split by an
// escape sequence is still found.
func redactDecision(d Decision, secrets []string) Decision {
	d.Reason = redact(sanitize.Agent(d.Reason), secrets)
	d.Context = redact(sanitize.Agent(d.Context), secrets)
	d.SystemMessage = redact(sanitize.Text(d.SystemMessage), secrets)
	for i, l := range d.Diagnostics {
		d.Diagnostics[i] = redact(sanitize.Text(l), secrets)
	}
	return d
}

// stepAsideMessage is the systemMessage shown when a hook steps aside
// because of problem.
func stepAsideMessage(in *Input, problem string) string {
	msg := "webgate: " + problem
	if in.Event == PreToolUse {
		msg += "; the native " + in.ToolName + " tool runs instead"
	}
	return shorten(msg, 300)
}

// linkURL reports whether raw is a URL worth handing to the model as a
// source ([sanitize.URL]): an absolute http or https URL with a host and no
// user information, at most [sanitize.MaxURL] bytes, with no white space,
// control or invisible formatting character.
func linkURL(raw string) bool { return sanitize.URL(raw) != "" }
