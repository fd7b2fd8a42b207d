package extractbench

import (
	"math"
	"slices"
	"testing"
)

// The tokens Python's re.findall(r'\w+', s.lower()) finds, as evaluate.py
// tokenizes.
func TestTokensLikePython(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Héllo wörld_x 3.14 é", []string{"héllo", "wörld_x", "3", "14", "é"}},
		{"naïve café — ÇA", []string{"naïve", "café", "ça"}},
		{"हिन्दी भाषा", []string{"ह", "न", "द", "भ", "ष"}}, // combining marks are not word characters
		{"日本語のテキスト", []string{"日本語のテキスト"}},
		{"x² ½ ٣", []string{"x²", "½", "٣"}},
		{"İstanbul ß", []string{"i", "stanbul", "ß"}},
		{"snake_case a-b", []string{"snake_case", "a", "b"}},
		{"", nil},
	} {
		if got := Tokens(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Tokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWordF1(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	for _, c := range []struct {
		pred, ref string
		want      Score
	}{
		{"", "", Score{1, 1, 1}},
		{"a", "", Score{}},
		{"", "a", Score{}},
		{"the cat the", "The cat sat", Score{2.0 / 3, 2.0 / 3, 2.0 / 3}},
		// Counts are compared as multisets: the second "the" matches
		// nothing.
		{"the the the the", "the cat", Score{0.25, 0.5, 2 * 0.25 * 0.5 / 0.75}},
		{"x y", "a b", Score{}},
	} {
		got := WordF1(c.pred, c.ref)
		if !near(got.Precision, c.want.Precision) || !near(got.Recall, c.want.Recall) || !near(got.F1, c.want.F1) {
			t.Errorf("WordF1(%q, %q) = %+v, want %+v", c.pred, c.ref, got, c.want)
		}
	}
}

func TestPlainText(t *testing.T) {
	for _, c := range []struct{ md, want string }{
		{"# Title\n\nSome [linked text](https://example.org/a_b) and ![an image](https://example.org/i.png).",
			"Title\n\nSome linked text and an image."},
		{"snake\\_case &amp; `code_span` **bold**", "snake_case & code_span bold"},
		{"```go\nfunc main() {}\n```", "func main() {}"},
		{"| a | b |\n|---|---|\n| 1 | 2 |", "a\tb\t\n1\t2"},
		{"- one\n- two", "one\n\ntwo"},
		{"<https://example.org/x>", "https://example.org/x"},
	} {
		if got := PlainText(c.md); got != c.want {
			t.Errorf("PlainText(%q) = %q, want %q", c.md, got, c.want)
		}
	}
}
