package routing

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A route's pattern is compiled only when a call could match it. Compiling
// a pattern costs tens of microseconds, and parsing it with regexp/syntax
// alone about half of that, so a configuration with a thousand routes would
// spend milliseconds on every hook call before matching anything. Instead,
// [scanPattern] reads the pattern once, by hand, in well under a
// microsecond: when the pattern stays within a plain subset of RE2 that
// always compiles, it returns the literal strings every match must contain
// (the literal runs at its top level). A value lacking one of them, compared
// case-insensitively, cannot match, and the pattern is not compiled at all.
// A pattern outside the subset is compiled when the router is built, so
// that one that does not compile is reported then, like any other.

// maxScannedPattern and maxScannedDepth bound the patterns [scanPattern]
// accepts, far below the limits of package regexp, so that every accepted
// pattern also compiles.
const (
	maxScannedPattern = 1024
	maxScannedDepth   = 64
	maxScannedRepeat  = 1000
)

// token kinds, for what a quantifier may follow.
const (
	tokNone  = iota // start of the pattern, "(" or "|": nothing to repeat
	tokAtom         // a literal, ".", a class or a Perl class escape
	tokGroup        // a closing parenthesis
	tokZero         // "^", "$", "\b", "\B", "\A", "\z", a flag group
	tokQuant        // a quantifier
	tokLazy         // a quantifier made lazy with "?"
)

// scanPattern reads pattern, which the router compiles as "(?i)" +
// pattern. It returns ok when the pattern is within the subset it
// understands, which always compiles, and then the literals every match
// contains, case-folded with [foldString], longest first. It returns
// ok false for anything else: a pattern it cannot vouch for, whether or
// not it compiles.
//
// The subset: literal characters; "." "^" "$"; the escapes of ASCII
// punctuation, \a \f \n \r \t \v, \d \D \s \S \w \W, \b \B \A \z;
// character classes of characters, ranges and those escapes; groups
// "(…)", "(?:…)" and flag groups "(?ims-U)" / "(?i:…)"; "|"; and the
// quantifiers * + ? {n} {n,} {n,m} (counts up to 1000, not on groups),
// each optionally lazy.
func scanPattern(pattern string) (literals []string, ok bool) {
	var set literalSet
	if _, ok = set.scan(pattern); !ok || len(set.ends) == 0 {
		return nil, ok
	}
	return set.strings(), true
}

// literalSet holds the literals of many patterns in one buffer, so that a
// router of a thousand routes allocates a few times, not thousands.
type literalSet struct {
	runs []byte  // the literals, one after another
	ends []int32 // where each literal ends in runs
}

// strings returns every literal in the set, in order.
func (ls *literalSet) strings() []string {
	all := string(ls.runs)
	out := make([]string, len(ls.ends))
	start := int32(0)
	for i, end := range ls.ends {
		out[i] = all[start:end]
		start = end
	}
	return out
}

// scan reads pattern as [scanPattern] does and adds its literals to the
// set, longest first; they are those from index first on in
// [literalSet.strings].
func (ls *literalSet) scan(pattern string) (first int, ok bool) {
	first = len(ls.ends)
	if len(pattern) > maxScannedPattern || !utf8.ValidString(pattern) {
		return first, false
	}
	sc := scanner{prev: tokNone, pending: -1}
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch c {
		case '\\':
			if i+1 >= len(pattern) {
				return first, false
			}
			e := pattern[i+1]
			i += 2
			switch {
			case e < utf8.RuneSelf && !isAlnum(e):
				sc.literal(rune(e))
			case strings.IndexByte("dDsSwW", e) >= 0:
				sc.other(tokAtom)
			case strings.IndexByte("bBAz", e) >= 0:
				sc.other(tokZero)
			case controlEscape(e) >= 0:
				sc.literal(controlEscape(e))
			default:
				return first, false
			}
		case '.':
			i++
			sc.other(tokAtom)
		case '^', '$':
			i++
			sc.other(tokZero)
		case '[':
			n := scanClass(pattern[i:])
			if n == 0 {
				return first, false
			}
			i += n
			sc.other(tokAtom)
		case '(':
			n, group := scanGroupStart(pattern[i:])
			if n == 0 {
				return first, false
			}
			i += n
			sc.other(tokNone)
			if group {
				sc.depth++
				if sc.depth > maxScannedDepth {
					return first, false
				}
			} else {
				sc.prev = tokZero // a flag group: nothing to repeat
			}
		case ')':
			if sc.depth == 0 {
				return first, false
			}
			i++
			sc.depth--
			sc.other(tokGroup)
		case '|':
			i++
			if sc.depth == 0 {
				sc.topAlt = true
			}
			sc.other(tokNone)
		case '*', '?', '+':
			i++
			if c == '?' && sc.prev == tokQuant {
				sc.prev = tokLazy
				continue
			}
			min := 0
			if c == '+' {
				min = 1
			}
			if !sc.quantified(min) {
				return first, false
			}
		case '{':
			n, min, max := scanRepeat(pattern[i:])
			if n == 0 || sc.prev == tokGroup || max > maxScannedRepeat || min > maxScannedRepeat || (max >= 0 && max < min) {
				return first, false
			}
			i += n
			if !sc.quantified(min) {
				return first, false
			}
		case ']', '}':
			return first, false
		default:
			if c >= utf8.RuneSelf {
				r, size := utf8.DecodeRuneInString(pattern[i:])
				i += size
				sc.literal(r)
				continue
			}
			// A run of plain ASCII characters: all but the last are
			// literals whatever follows (a quantifier applies to the last
			// alone), so they join the run at once.
			j := i + 1
			for j < len(pattern) && plainASCII[pattern[j]] {
				j++
			}
			if sc.depth == 0 {
				sc.settle()
				for _, b := range []byte(pattern[i : j-1]) {
					if 'a' <= b && b <= 'z' {
						b -= 'a' - 'A'
					}
					sc.runs[sc.size] = b
					sc.size++
				}
			}
			sc.literal(rune(pattern[j-1]))
			i = j
		}
	}
	if sc.depth != 0 {
		return first, false
	}
	sc.other(tokNone)
	if sc.topAlt || sc.n == 0 {
		return first, true
	}
	// Longest first: the longest literal is the likeliest to be missing.
	var start, order [maxLiterals]int
	for i := range sc.n {
		if i > 0 {
			start[i] = sc.ends[i-1]
		}
		order[i] = i
		for j := i; j > 0 && sc.ends[order[j]]-start[order[j]] > sc.ends[order[j-1]]-start[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	for _, i := range order[:sc.n] {
		ls.runs = append(ls.runs, sc.runs[start[i]:sc.ends[i]]...)
		ls.ends = append(ls.ends, int32(len(ls.runs)))
	}
	return first, true
}

// scanner is the state of [scanPattern].
type scanner struct {
	depth   int
	prev    int                     // the kind of the last token
	topAlt  bool                    // a "|" at the top level: no literal is required
	runs    [maxScannedPattern]byte // the runs of folded literals at the top level, one after another
	size    int                     // the bytes used in runs
	ends    [maxLiterals]int
	n       int  // the number of finished runs, whose ends are in ends
	pending rune // the last literal at the top level, until what follows it is known; -1 for none
}

// maxLiterals bounds the literals kept for a pattern; more would add
// little to the filter.
const maxLiterals = 8

// literal records a literal character; whether it joins the run depends
// on the quantifier that may follow it.
func (sc *scanner) literal(r rune) {
	if sc.depth == 0 {
		sc.settle()
		sc.pending = r
	}
	sc.prev = tokAtom
}

// settle adds the pending literal to the run.
func (sc *scanner) settle() {
	if sc.pending >= 0 {
		if c := sc.pending; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			sc.runs[sc.size] = byte(c)
			sc.size++
		} else {
			// Folding never lengthens a rune's encoding, so the runs fit.
			sc.size += utf8.EncodeRune(sc.runs[sc.size:], foldRune(c))
		}
		sc.pending = -1
	}
}

// other records anything but a literal or a quantifier: it ends the run.
func (sc *scanner) other(kind int) {
	if sc.depth == 0 {
		sc.settle()
		sc.flush()
	}
	sc.prev = kind
}

// flush ends the current run.
func (sc *scanner) flush() {
	start := 0
	if sc.n > 0 {
		start = sc.ends[sc.n-1]
	}
	switch {
	case sc.size == start:
	case sc.n == maxLiterals:
		sc.size = start // dropped: a filter with fewer literals is weaker, never wrong
	default:
		sc.ends[sc.n] = sc.size
		sc.n++
	}
}

// quantified applies a quantifier with minimum min to what precedes it,
// and reports whether there is something to repeat.
func (sc *scanner) quantified(min int) bool {
	if sc.prev != tokAtom && sc.prev != tokGroup {
		return false
	}
	if sc.depth == 0 && sc.pending >= 0 {
		if min == 0 {
			sc.pending = -1 // optional: not required
		}
		sc.settle()
		sc.flush() // repeated: what follows is not adjacent
	}
	sc.prev = tokQuant
	return true
}

// plainASCII tells the ASCII characters that stand for themselves in a
// pattern.
var plainASCII = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = strings.IndexByte(`\.+*?()|[]{}^$`, byte(c)) < 0
	}
	return t
}()

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// controlEscape returns the character of \a \f \n \r \t \v, or -1.
func controlEscape(e byte) rune {
	switch e {
	case 'a':
		return '\a'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return '\v'
	}
	return -1
}

// scanClass returns the length of the character class s starts with, or
// 0 when it is not within the subset.
func scanClass(s string) int {
	i := 1
	if i < len(s) && s[i] == '^' {
		i++
	}
	if i < len(s) && s[i] == ']' {
		return 0 // a leading "]" is a literal in RE2; not in the subset
	}
	// char reads one class character at s[i:]: its value, its length, and
	// whether it is a single character (not \d and the like).
	char := func(i int) (rune, int, bool) {
		if i >= len(s) {
			return 0, 0, false
		}
		switch c := s[i]; c {
		case '[', ']':
			return 0, 0, false
		case '\\':
			if i+1 >= len(s) {
				return 0, 0, false
			}
			e := s[i+1]
			switch {
			case e < utf8.RuneSelf && !isAlnum(e):
				return rune(e), 2, true
			case controlEscape(e) >= 0:
				return controlEscape(e), 2, true
			case strings.IndexByte("dDsSwW", e) >= 0:
				return 0, 2, false
			}
			return 0, 0, false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		return r, size, true
	}
	for i < len(s) {
		if s[i] == ']' {
			return i + 1
		}
		lo, n, single := char(i)
		if n == 0 {
			return 0
		}
		i += n
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			if !single {
				return 0
			}
			hi, m, ok := char(i + 1)
			if m == 0 || !ok || hi < lo {
				return 0
			}
			i += 1 + m
		}
	}
	return 0 // unclosed
}

// scanGroupStart returns the length of the group opening s starts with
// and whether it opens a group (false for a flag group such as "(?i)"),
// or 0 when it is not within the subset.
func scanGroupStart(s string) (int, bool) {
	if len(s) < 2 || s[1] != '?' {
		return 1, true
	}
	if len(s) >= 3 && s[2] == ':' {
		return 3, true
	}
	i := 2
	flags := func() bool {
		start := i
		for i < len(s) && strings.IndexByte("imsU", s[i]) >= 0 {
			i++
		}
		return i > start
	}
	if !flags() {
		return 0, false
	}
	if i < len(s) && s[i] == '-' {
		i++
		if !flags() {
			return 0, false
		}
	}
	if i < len(s) {
		switch s[i] {
		case ')':
			return i + 1, false
		case ':':
			return i + 1, true
		}
	}
	return 0, false
}

// scanRepeat reads a counted repetition {n}, {n,} or {n,m} at the start of
// s: its length, n, and m (-1 for no maximum), or a length of 0.
func scanRepeat(s string) (n, min, max int) {
	i := 1
	number := func() int {
		start, v := i, 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' && i-start < 5 {
			v = v*10 + int(s[i]-'0')
			i++
		}
		switch {
		case i == start, i < len(s) && '0' <= s[i] && s[i] <= '9':
			return -1 // no digits, or too many
		case i-start > 1 && s[start] == '0':
			return -1 // RE2 reads "{01}" as literal text
		}
		return v
	}
	if min = number(); min < 0 {
		return 0, 0, 0
	}
	max = min
	if i < len(s) && s[i] == ',' {
		i++
		max = -1
		if i < len(s) && s[i] != '}' {
			if max = number(); max < 0 {
				return 0, 0, 0
			}
		}
	}
	if i >= len(s) || s[i] != '}' {
		return 0, 0, 0
	}
	return i + 1, min, max
}

// foldRune maps r to the smallest rune of its case-folding orbit, the
// runes a case-insensitive regular expression treats as equal to it
// (unicode.SimpleFold). Two runes match case-insensitively exactly when
// they fold to the same rune.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// foldString folds every rune of s with [foldRune], reading invalid UTF-8
// as U+FFFD as package regexp does.
func foldString(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		b := []byte(s)
		for i, c := range b {
			if 'a' <= c && c <= 'z' {
				b[i] = c - 'a' + 'A'
			}
		}
		return string(b)
	}
	b := make([]byte, 0, len(s)+8)
	for _, r := range s {
		b = utf8.AppendRune(b, foldRune(r))
	}
	return string(b)
}
