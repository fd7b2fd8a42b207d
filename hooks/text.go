package hooks

import (
	"strings"

	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/webpage"
)

// textLen and cutText measure and cut text as the agents count it, in
// UTF-16 code units ([webpage.TextLen], [webpage.CutText]).
func textLen(s string) int             { return webpage.TextLen(s) }
func cutText(s string, max int) string { return webpage.CutText(s, max) }

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

// afterError composes the additional context of a PostToolUseFailure: what
// webgate adds, rendered by render within the room it is given, then the
// tool's original error. The error gets at most a quarter of max (and at
// most 1,500 characters), the addition the rest, and the whole stays
// within max however small it is set.
func afterError(in *Input, max int, render func(room int) string) string {
	errText := "Original error from " + in.ToolName + ": " + shorten(in.Error, min(1500, max/4))
	return cutText(render(max-textLen(errText)-2)+"\n\n"+errText, max)
}
