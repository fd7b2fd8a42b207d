package routing

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestScanPattern_FindsTheLiteralsEveryMatchContains(t *testing.T) {
	cases := []struct {
		pattern string
		ok      bool
		want    []string
	}{
		{`^https?://(www\.)?site990\.example/(issues|pulls)/[0-9]+`, true, []string{"SITE990.EXAMPLE/", "HTTP", "://", "/"}},
		{`\bcurl\b.*api\.github\.com`, true, []string{"API.GITHUB.COM", "CURL"}},
		{`github`, true, []string{"GITHUB"}},
		{`ab+c`, true, []string{"AB", "C"}},
		{`ab*c`, true, []string{"A", "C"}},
		{`ab{0,2}c`, true, []string{"A", "C"}},
		{`ab{2}c`, true, []string{"AB", "C"}},
		{`ab+?c`, true, []string{"AB", "C"}},
		{`a(?i)b`, true, []string{"A", "B"}},
		{`\.\-\/`, true, []string{".-/"}},
		{`a\tb`, true, []string{"A\tB"}},
		{`ſtraße`, true, []string{"STRAßE"}},
		{`foo|bar`, true, nil},
		{`(foo|bar)baz`, true, []string{"BAZ"}},
		{`x[ab]y`, true, []string{"X", "Y"}},
		{`()`, true, nil},
		{`a{1000}`, true, []string{"A"}},
		// Outside the subset: compiled at once instead.
		{`(?<=x)y`, false, nil},
		{`\x41`, false, nil},
		{`\pL`, false, nil},
		{`\Qa.b\E`, false, nil},
		{`a{1001}`, false, nil},
		{`a{01}`, false, nil},
		{`(ab){2}`, false, nil},
		{`a**`, false, nil},
		{`*a`, false, nil},
		{`a]`, false, nil},
		{`[]a]`, false, nil},
		{`[[:alpha:]]`, false, nil},
		{`[z-a]`, false, nil},
		{`([unclosed`, false, nil},
		{`(a`, false, nil},
		{`a)`, false, nil},
		{"\xff", false, nil},
		{strings.Repeat("a", maxScannedPattern+1), false, nil},
	}
	for _, c := range cases {
		lits, ok := scanPattern(c.pattern)
		if ok != c.ok || !slices.Equal(lits, c.want) {
			t.Errorf("scanPattern(%q) = %q, %v; want %q, %v", c.pattern, lits, ok, c.want, c.ok)
		}
	}
}

func TestFoldString_FoldsAsCaseInsensitiveRegexpsMatch(t *testing.T) {
	for _, pair := range [][2]string{{"k", "K"}, {"k", "\u212a"}, {"s", "\u017f"}, {"σ", "ς"}, {"Σ", "σ"}, {"é", "É"}} {
		if foldString(pair[0]) != foldString(pair[1]) {
			t.Errorf("%q and %q fold apart", pair[0], pair[1])
		}
		if !regexp.MustCompile("(?i)" + regexp.QuoteMeta(pair[0])).MatchString(pair[1]) {
			t.Errorf("regexp does not fold %q and %q together", pair[0], pair[1])
		}
	}
	if foldString("a\xffb") != "A\uFFFDB" {
		t.Errorf("invalid UTF-8 folded to %q", foldString("a\xffb"))
	}
}

// patternPieces are what generated patterns are made of: plain and
// case-folding literals, escapes, classes, groups and operators, valid or
// not, within the scanned subset or outside it.
var patternPieces = []string{
	"a", "b", "c", "K", "k", "s", "S", "\u017f", "\u212a", "ß", "ẞ", "σ", "ς", "Σ", "é", "É", "0", "1", "-", "/", ":", " ", "_", "\ufffd", "=",
	"site", "github.com", "curl ", "https://", "api",
	`\.`, `\/`, `\-`, `\\`, `\_`, `\ `, `\d`, `\w`, `\s`, `\D`, `\W`, `\S`, `\b`, `\B`, `\A`, `\z`, `\t`, `\n`, `\x41`, `\Q`, `\E`, `\pL`, `\1`, `\q`, `\`,
	"[a-c]", "[^a]", "[ks]", "[0-9]", `[\d-]`, "[a-]", "[-a]", "[]a]", "[[:alpha:]]", "[z-a]", `[\w]`, "[K\u017f]", "[.]", `[\]]`, "[^-a]", `[\t-\r]`, "[", "[^",
	"(", ")", "(?:", "(?i)", "(?-i)", "(?i:", "(?s)", "(?ms-i)", "(?P<n>", "(?=", "(?U)", "(?-)", "(?)", "(?i-)",
	"|", "*", "+", "?", "??", "*?", "{2}", "{0,3}", "{1,}", "{01}", "{1001}", "{3,2}", "{,2}", "{2}?", "{", "}", "]", ".", "^", "$",
}

// inputPieces are what random inputs are made of.
var inputPieces = []string{"a", "b", "c", "A", "K", "k", "s", "S", "\u017f", "\u212a", "ß", "ẞ", "σ", "ς", "é", "0", "1", "-", "/", ".", ":", " ", "_", "\t", "\n", "\xff", "site", "github.com", "curl ", "https://"}

// subsetPieces are pieces of patterns within the scanned subset, so that
// half of the generated patterns mostly are.
var subsetPieces = []string{
	"a", "b", "K", "k", "s", "\u017f", "\u212a", "ß", "σ", "ς", "é", "0", "-", "/", ":", " ",
	"site", "github.com", "curl ", "https://",
	`\.`, `\/`, `\-`, `\d`, `\w`, `\s`, `\b`, `\t`,
	"[a-c]", "[^a]", "[ks]", "[0-9]", `[\d-]`, "[K\u017f]", "[.]",
	"(", ")", "(?:", "(?i)", "(?-i)", "(?i:",
	"|", "*", "+", "?", "*?", "{2}", "{0,3}", "{1,}", ".", "^", "$",
}

func randomPattern(rng *rand.Rand) string {
	pieces := patternPieces
	if rng.IntN(2) == 0 {
		pieces = subsetPieces
	}
	var b strings.Builder
	for range 1 + rng.IntN(10) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func randomText(rng *rand.Rand, max int) string {
	var b strings.Builder
	for range rng.IntN(max + 1) {
		b.WriteString(inputPieces[rng.IntN(len(inputPieces))])
	}
	return b.String()
}

// sample writes a random string re matches (for most of its forms; the
// anchors are ignored, so the caller checks with the real regexp).
func sample(rng *rand.Rand, re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				orbit := []rune{r}
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					orbit = append(orbit, f)
				}
				r = orbit[rng.IntN(len(orbit))]
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return
		}
		i := rng.IntN(len(re.Rune)/2) * 2
		lo, hi := re.Rune[i], re.Rune[i+1]
		r := lo + rune(rng.IntN(int(min(hi-lo, 200))+1))
		if !utf8.ValidRune(r) {
			r = lo
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteString(inputPieces[rng.IntN(len(inputPieces))])
	case syntax.OpCapture:
		sample(rng, re.Sub[0], b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 2
		switch re.Op {
		case syntax.OpPlus:
			lo, hi = 1, 3
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 || hi > lo+2 {
				hi = lo + 2
			}
		}
		for range lo + rng.IntN(hi-lo+1) {
			sample(rng, re.Sub[0], b)
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			sample(rng, s, b)
		}
	case syntax.OpAlternate:
		sample(rng, re.Sub[rng.IntN(len(re.Sub))], b)
	}
}

// containsAll reports whether s contains every one of subs.
func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// checkPattern checks the scan of pattern against package regexp on
// inputs, and returns how many inputs the pattern matched.
func checkPattern(t *testing.T, pattern string, inputs []string) (matched int) {
	t.Helper()
	lits, ok := scanPattern(pattern)
	re, err := regexp.Compile("(?i)" + pattern)
	if !ok {
		return 0
	}
	if err != nil {
		t.Fatalf("scanPattern accepted %q, which does not compile: %v", pattern, err)
	}
	for _, in := range inputs {
		if re.MatchString(in) {
			matched++
			if !containsAll(foldString(in), lits) {
				t.Fatalf("pattern %q matches %q, but the prefilter (literals %q) ruled it out", pattern, in, lits)
			}
		}
	}
	return matched
}

// TestScanPattern_NeverRulesOutAMatch is the prefilter's property: for
// generated patterns, every pattern it accepts compiles, and every input
// the compiled pattern matches contains every literal it found. Inputs are
// random text and strings generated from the pattern itself (with random
// case variants, between random text), so that many of them match.
func TestScanPattern_NeverRulesOutAMatch(t *testing.T) {
	n := 30000
	if testing.Short() {
		n = 3000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var accepted, filtered, matched, checked int
	for range n {
		pattern := randomPattern(rng)
		var inputs []string
		for range 4 {
			inputs = append(inputs, randomText(rng, 6))
		}
		if re, err := syntax.Parse("(?i)"+pattern, syntax.Perl); err == nil {
			for range 12 {
				var b strings.Builder
				b.WriteString(randomText(rng, 2))
				sample(rng, re, &b)
				b.WriteString(randomText(rng, 2))
				inputs = append(inputs, b.String())
			}
		}
		lits, ok := scanPattern(pattern)
		if ok {
			accepted++
			if len(lits) > 0 {
				filtered++
			}
		}
		m := checkPattern(t, pattern, inputs)
		if len(lits) > 0 {
			matched += m
		}
		checked += len(inputs)
	}
	t.Logf("%d patterns, %d accepted, %d with literals; %d inputs, %d matches by patterns with literals", n, accepted, filtered, checked, matched)
	if accepted < n/10 || filtered < n/20 || matched < n/5 {
		t.Errorf("the generator covers too little: %d accepted, %d with literals, %d matches", accepted, filtered, matched)
	}
}

// FuzzScanPattern checks the same property on fuzzed patterns and inputs:
// go test -fuzz FuzzScanPattern ./routing/
func FuzzScanPattern(f *testing.F) {
	for _, p := range []string{`^https?://(www\.)?github\.com/`, `\bcurl\b.*api\.github\.com`, `ſtraße`, `a{2}b+?[c-e]`, `(?i:K)k`} {
		f.Add(p, "CURL https://API.GITHUB.COM/x straSSe")
	}
	f.Fuzz(func(t *testing.T, pattern, input string) {
		checkPattern(t, pattern, []string{input, strings.ToUpper(input), strings.ToLower(input)})
	})
}

// TestToolRouter_MatchesAsEagerCompilation compares the router with a
// reference that compiles every pattern and tries them in order, on
// generated route lists and inputs.
func TestToolRouter_MatchesAsEagerCompilation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tools := []string{ToolWebFetch, ToolBash}
	for range 300 {
		var routes []ToolRoute
		for i := range 1 + rng.IntN(30) {
			routes = append(routes, ToolRoute{Name: fmt.Sprint("r", i), Tool: tools[rng.IntN(2)], Pattern: randomPattern(rng), Message: "m"})
		}
		r, warns := NewToolRouter(routes)
		type ref struct {
			ToolRoute
			re *regexp.Regexp
		}
		var refs []ref
		bad := 0
		for _, rt := range routes {
			if strings.TrimSpace(rt.Pattern) == "" {
				continue
			}
			re, err := regexp.Compile("(?i)" + rt.Pattern)
			if err != nil {
				bad++
				continue
			}
			refs = append(refs, ref{rt, re})
		}
		if len(warns) != len(routes)-len(refs) || len(r.Routes()) != len(refs) {
			t.Fatalf("warnings %d, routes %d; want %d (%d bad patterns), %d routes", len(warns), len(r.Routes()), len(routes)-len(refs), bad, len(refs))
		}
		for range 40 {
			in := randomText(rng, 8)
			if rng.IntN(2) == 0 && len(refs) > 0 {
				if re, err := syntax.Parse("(?i)"+refs[rng.IntN(len(refs))].Pattern, syntax.Perl); err == nil {
					var b strings.Builder
					sample(rng, re, &b)
					in = randomText(rng, 2) + b.String()
				}
			}
			tool := tools[rng.IntN(2)]
			want := ""
			for _, f := range refs {
				if f.Tool == tool && f.re.MatchString(in) {
					want = f.Name
					break
				}
			}
			got, ok := r.Match(tool, in)
			if in == "" {
				want = ""
			}
			if got.Name != want || ok != (want != "") {
				t.Fatalf("Match(%s, %q) = %q, %v; want %q", tool, in, got.Name, ok, want)
			}
		}
	}
}
