package hooks

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
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

// oneLine collapses every run of white space (newlines included) into one
// space and trims the ends; control characters are dropped.
func oneLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || r == utf8.RuneError:
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

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

// redactDecision scrubs every text of d.
func redactDecision(d Decision, secrets []string) Decision {
	if len(secrets) == 0 {
		return d
	}
	d.Reason = redact(d.Reason, secrets)
	d.Context = redact(d.Context, secrets)
	d.SystemMessage = redact(d.SystemMessage, secrets)
	for i, l := range d.Diagnostics {
		d.Diagnostics[i] = redact(l, secrets)
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

// maxLinkURL is the longest URL a result may carry to be shown.
const maxLinkURL = 2048

// linkURL reports whether raw is a URL worth handing to the model as a
// source: an absolute http or https URL with a host, at most
// [maxLinkURL] bytes, with no white space or control characters.
func linkURL(raw string) bool {
	if raw == "" || len(raw) > maxLinkURL || strings.ContainsFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	s := strings.ToLower(u.Scheme)
	return s == "http" || s == "https"
}
