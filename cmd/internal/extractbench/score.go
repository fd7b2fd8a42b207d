package extractbench

import (
	"strings"
	"unicode"
)

// Tokens splits text into the benchmark's word tokens: the runs of word
// characters of the lower-cased text, as Python's re.findall(r'\w+',
// text.lower()) finds them. A word character is a letter, a number or
// the underscore (Python's str.isalnum, which leaves out combining
// marks).
func Tokens(text string) []string {
	// Python lower-cases İ to i and a combining dot, which splits the
	// word; every other letter maps as strings.ToLower maps it (but for
	// Greek final sigma, which only changes which sigma both sides hold).
	text = strings.ToLower(strings.ReplaceAll(text, "İ", "i\u0307"))
	var out []string
	start := -1
	for i, r := range text {
		if isWord(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// Score is a page's word-level precision, recall and F1 against its
// ground truth.
type Score struct {
	Precision, Recall, F1 float64
}

// WordF1 scores predicted against reference the way the benchmark's
// evaluate.py does: tokens compared as multisets; an empty reference
// scores 1 when the prediction is empty too and 0 otherwise; an empty
// prediction scores 0.
func WordF1(predicted, reference string) Score {
	pred, ref := Tokens(predicted), Tokens(reference)
	if len(ref) == 0 {
		if len(pred) == 0 {
			return Score{1, 1, 1}
		}
		return Score{}
	}
	if len(pred) == 0 {
		return Score{}
	}
	counts := make(map[string]int, len(ref))
	for _, t := range ref {
		counts[t]++
	}
	overlap := 0
	for _, t := range pred {
		if counts[t] > 0 {
			counts[t]--
			overlap++
		}
	}
	s := Score{Precision: float64(overlap) / float64(len(pred)), Recall: float64(overlap) / float64(len(ref))}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}
