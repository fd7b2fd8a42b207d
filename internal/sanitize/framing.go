package sanitize

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// framingTags are the tag names agent runtimes use to frame tool calls,
// tool results, hook output, slash commands and reminders, written with
// "-" (Neutralize treats "_" alike) and without a namespace prefix.
var framingTags = []string{
	// Reminders and injected context.
	"system-reminder",
	"user-prompt-submit-hook",
	// Roles.
	"system", "user", "assistant", "human",
	// Tool traffic.
	"function-calls", "function-results", "invoke", "parameter",
	"tool-use", "tool-result", "tool-use-error",
	// Slash commands and shell escapes.
	"command-name", "command-message", "command-args",
	"local-command-stdout", "local-command-stderr", "local-command-caveat",
	"bash-input", "bash-stdout", "bash-stderr",
	// Reasoning.
	"thinking",
}

// FramingTags returns the tag names [Neutralize] treats as framing, in
// their canonical spelling.
func FramingTags() []string { return slices.Clone(framingTags) }

// neutral replaces the "<" of a framing tag.
const neutral = '‹'

// opener reports whether r can open a tag: "<" or one of its full-width
// and small look-alikes.
func opener(r rune) bool { return r == '<' || r == '＜' || r == '﹤' }

// Neutralize replaces the opening "<" (or a look-alike) of every
// tag-shaped run in s whose name is a framing name ([FramingTags]) with
// "‹" (U+2039), and likewise for chat special tokens shaped "<|name|>".
// A tag matches opening or closing ("</name"), in any letter case, with
// white space or invisible formatting characters before or after the slash
// and inside the name, with "_" and "-" alike, with any namespace prefix
// ("ns:invoke") and followed by anything that cannot continue a name (">",
// white space, "/", the end of the text). "<invoker>" or "<systems>" are
// left alone. Nothing else in s changes, and the text keeps its length in
// characters.
func Neutralize(s string) string {
	if !strings.Contains(s, "<") && !strings.Contains(s, "＜") && !strings.Contains(s, "﹤") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if c := s[i]; c != '<' && c != 0xef {
			// Only "<" and the three-byte look-alikes (EF BC 9C, EF B9 A4)
			// open a tag; a byte that starts neither is skipped.
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if opener(r) && framing(s[i+size:]) {
			if b.Len() == 0 {
				b.Grow(len(s) + 8)
			}
			b.WriteString(s[last:i])
			b.WriteRune(neutral)
			last = i + size
		}
		i += size
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// ignorable reports whether r may sit inside a tag without changing how a
// reader sees it: white space and invisible formatting characters.
func ignorable(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError
}

// nameRune reports whether r can be part of a tag name.
func nameRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':' || r == '.')
}

// maxName bounds the name read after an opener; no framing name is longer.
const maxName = 64

// framing reports whether rest, the text just after an opener, makes it a
// framing tag or a special token.
func framing(rest string) bool {
	i := skipIgnorable(rest, 0)
	if i < len(rest) && rest[i] == '|' {
		return specialToken(rest[i+1:])
	}
	if i < len(rest) && rest[i] == '/' {
		i = skipIgnorable(rest, i+1)
	}
	var name strings.Builder
	for i < len(rest) {
		r, size := utf8.DecodeRuneInString(rest[i:])
		switch {
		case nameRune(r):
			if name.Len() == maxName {
				return false
			}
			if r == '_' {
				r = '-'
			}
			name.WriteRune(unicode.ToLower(r))
		case unicode.Is(unicode.Cf, r):
		default:
			return framingName(name.String())
		}
		i += size
	}
	return framingName(name.String())
}

// framingName reports whether a tag name, lower-cased, is a framing name
// once any namespace prefix is removed.
func framingName(n string) bool {
	if i := strings.LastIndexByte(n, ':'); i >= 0 {
		n = n[i+1:]
	}
	return n != "" && slices.Contains(framingTags, n)
}

// specialToken reports whether rest, the text just after "<|", is a chat
// special token: a name of letters, digits, "_", "-" or spaces, then "|>".
func specialToken(rest string) bool {
	n := 0
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '|':
			return n > 0 && i+1 < len(rest) && rest[i+1] == '>'
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == ' ':
			n++
			if n > maxName {
				return false
			}
		default:
			return false
		}
	}
	return false
}

func skipIgnorable(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !ignorable(r) {
			break
		}
		i += size
	}
	return i
}
