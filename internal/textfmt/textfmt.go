// Package textfmt formats the short texts webgate writes for people and
// agents: messages with the configured secrets scrubbed out ([Scrub]),
// one-line texts shortened to a budget ([Shorten]), lists people write
// trimmed of blanks ([NonBlank]) and the age of a cached answer
// ([CachedAgo]). It imports only the standard library and
// internal/sanitize, so every layer, down to the providers, can use it.
package textfmt

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/sanitize"
)

// Redacted is what [Scrub] writes in place of a secret.
const Redacted = "[redacted]"

// MinSecret is the length, in bytes, below which a value is not treated
// as a secret. A value that short is no real key (a guess finds it in
// about a million tries) and replacing it everywhere would mangle ordinary
// text; every real key webgate handles is far longer.
const MinSecret = 4

// Scrub returns s with every occurrence of each secret replaced by
// [Redacted]. A secret is trimmed of white space first and skipped when it
// is shorter than [MinSecret]; longer secrets are replaced first, so a key
// that contains another is replaced whole.
func Scrub(s string, secrets ...string) string {
	if s == "" || len(secrets) == 0 {
		return s
	}
	var keys []string
	for _, k := range secrets {
		if k = strings.TrimSpace(k); len(k) >= MinSecret && strings.Contains(s, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) > 1 {
		slices.SortStableFunc(keys, func(a, b string) int { return len(b) - len(a) })
	}
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, Redacted)
	}
	return s
}

// IsSecret reports whether [Scrub] treats k as a secret: trimmed of white
// space, it is at least [MinSecret] bytes long.
func IsSecret(k string) bool { return len(strings.TrimSpace(k)) >= MinSecret }

// NonBlank returns the entries of in trimmed of white space, the blank
// ones dropped; nil when none is left. It reads lists that people write:
// keys, domain filters, names.
func NonBlank(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Len returns the length of s as the agents count text, in UTF-16 code
// units.
func Len(s string) int {
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

// Cut returns the longest prefix of s that is at most max UTF-16 code
// units long, cut at a rune boundary.
func Cut(s string, max int) string {
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

// Shorten returns s on one line ([sanitize.Line]) cut to at most max
// UTF-16 code units: at a word boundary when one falls in the second half,
// trimmed of trailing punctuation, with "…" appended when it was cut.
func Shorten(s string, max int) string {
	s = sanitize.Line(s)
	if Len(s) <= max {
		return s
	}
	if max <= 1 {
		return Cut("…", max)
	}
	cut := Cut(s, max-1)
	if i := strings.LastIndexByte(cut, ' '); i >= len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}

// CachedAgo says, for an answer from the cache fetched at at, how old it
// is, as a clause to append to the answer's source: ", cached 12 min ago".
// It returns "" for a fresh answer (the zero time).
func CachedAgo(at, now time.Time) string {
	if at.IsZero() {
		return ""
	}
	switch d := now.Sub(at); {
	case d < time.Minute:
		return ", cached less than a minute ago"
	case d < 2*time.Hour:
		return fmt.Sprintf(", cached %d min ago", int(d/time.Minute))
	default:
		return fmt.Sprintf(", cached %d h ago", int(d/time.Hour))
	}
}
