package hooks

import (
	"github.com/webgate-dev/webgate/internal/redact"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/internal/textfmt"
)

// textLen and cutText measure and cut text as the agents count it, in
// UTF-16 code units ([textfmt.Len], [textfmt.Cut]).
func textLen(s string) int             { return textfmt.Len(s) }
func cutText(s string, max int) string { return textfmt.Cut(s, max) }

// oneLine applies the terminal rule to s ([sanitize.Line]): escape
// sequences, control, bidirectional and tag characters are removed, invalid
// UTF-8 is replaced, and every run of white space (newlines included)
// becomes one space, with the ends trimmed.
func oneLine(s string) string { return sanitize.Line(s) }

// redactDecision makes every text of d safe to hand over: the reason and
// the context, which reach the model, get the agent rule
// ([sanitize.Agent]: the terminal rule plus neutralised framing tags); the
// system message and the diagnostics, which reach the user's terminal or
// log, get the terminal rule ([sanitize.Text]). Then every secret is
// replaced by "[redacted]" ([textfmt.Scrub]); the rule runs first, so that a key split by an
// escape sequence is still found.
func redactDecision(d Decision, secrets []string) Decision {
	d.Reason = textfmt.Scrub(sanitize.Agent(d.Reason), secrets...)
	d.Context = textfmt.Scrub(sanitize.Agent(d.Context), secrets...)
	d.SystemMessage = terminalText(d.SystemMessage, secrets)
	for i, l := range d.Diagnostics {
		d.Diagnostics[i] = terminalText(l, secrets)
	}
	return d
}

// terminalText makes s safe for the user's terminal or log: the terminal
// rule, the secrets replaced, and what looks like a secret redacted too
// ([redact.String]: a password in a configured URL that a warning quotes,
// say).
func terminalText(s string, secrets []string) string {
	return redact.String(textfmt.Scrub(sanitize.Text(s), secrets...))
}

// stepAsideMessage is the systemMessage shown when a hook steps aside
// because of problem.
func stepAsideMessage(in *Input, problem string) string {
	msg := "webgate: " + problem
	if in.Event == PreToolUse {
		msg += "; the native " + in.ToolName + " tool runs instead"
	}
	return textfmt.Shorten(msg, 300)
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
	errText := "Original error from " + in.ToolName + ": " + textfmt.Shorten(in.Error, min(1500, max/4))
	return cutText(render(max-textLen(errText)-2)+"\n\n"+errText, max)
}
