package webpage

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// pageThrough reads content in windows of max, as an agent pages through
// a document, and checks that the windows tile it.
func pageThrough(t *testing.T, content string, max int) []Window {
	t.Helper()
	var out []Window
	var joined strings.Builder
	offset := 0
	for i := 0; ; i++ {
		if i > TextLen(content)+1 {
			t.Fatalf("paging does not end (offset %d)", offset)
		}
		w := CutWindow(content, offset, max)
		if w.Start != offset || w.Total != TextLen(content) || w.End-w.Start != TextLen(w.Text) {
			t.Fatalf("window %d: start %d end %d total %d text len %d, asked offset %d", i, w.Start, w.End, w.Total, TextLen(w.Text), offset)
		}
		if !utf8.ValidString(w.Text) {
			t.Fatalf("window %d splits a character: %q", i, w.Text)
		}
		if TextLen(w.Text) > max && utf8.RuneCountInString(w.Text) > 1 {
			t.Fatalf("window %d is %d code units, more than %d", i, TextLen(w.Text), max)
		}
		out = append(out, w)
		joined.WriteString(w.Text)
		if !w.More() {
			break
		}
		if w.End == w.Start {
			t.Fatalf("window %d is empty before the end", i)
		}
		offset = w.End
	}
	if joined.String() != content {
		t.Fatalf("the windows do not add up to the content")
	}
	return out
}

func TestCutWindow_WindowsTileTheContentWithoutGapsOrRepeats(t *testing.T) {
	doc := longDoc()
	for _, max := range []int{50, 333, 1000, 4000} {
		ws := pageThrough(t, doc, max)
		if len(ws) < TextLen(doc)/max {
			t.Errorf("max %d: only %d windows", max, len(ws))
		}
	}
}

func TestCutWindow_EndsAtAParagraphOrWordWhenContentFollows(t *testing.T) {
	doc := longDoc()
	w := CutWindow(doc, 0, 1000)
	if !w.More() || !(strings.HasSuffix(w.Text, "\n\n") || strings.HasSuffix(w.Text, " ") || strings.HasSuffix(w.Text, "\n")) {
		t.Errorf("window ends mid-word: %q", w.Text[len(w.Text)-30:])
	}
	if w.End < 800 {
		t.Errorf("window ends at %d, before the last fifth of 1000", w.End)
	}
}

func TestCutWindow_NeverSplitsASurrogatePair(t *testing.T) {
	// "a😀b": a at 0, the emoji at 1–2, b at 3.
	content := "a😀b" + strings.Repeat("😀", 50)
	if w := CutWindow(content, 0, 2); w.Text != "a" || w.End != 1 {
		t.Errorf("cut inside the pair: %q end %d", w.Text, w.End)
	}
	// An offset inside the pair starts at the pair.
	if w := CutWindow(content, 2, 3); w.Start != 1 || w.Text != "😀b" || w.End != 4 {
		t.Errorf("offset inside the pair: start %d text %q end %d", w.Start, w.Text, w.End)
	}
	// A window too small for the character still moves on.
	if w := CutWindow(content, 1, 1); w.Text != "😀" || w.End != 3 {
		t.Errorf("max 1 on a pair: %q end %d", w.Text, w.End)
	}
	for _, max := range []int{1, 2, 3, 7} {
		pageThrough(t, content, max)
	}
}

func TestCutWindow_DoesNotSplitAMarkdownLinkWhenItCanEndBefore(t *testing.T) {
	link := "[the warranty terms](https://example.org/warranty_(2024)?x=1 \"Terms\")"
	content := strings.Repeat("word ", 30) + link + " and more text after the link."
	// A cut at 170 falls inside the link, which starts at 150.
	w := CutWindow(content, 0, 170)
	if strings.Contains(w.Text, "[the") || !strings.HasPrefix(content[len(w.Text):], link) {
		t.Errorf("window splits the link: %q", w.Text)
	}
	next := CutWindow(content, w.End, 200)
	if !strings.HasPrefix(next.Text, link) {
		t.Errorf("next window does not start with the link: %q", next.Text)
	}
	// An image inside a link is part of the link.
	nested := strings.Repeat("x", 20) + " [![logo](https://example.org/logo.png)](https://example.org/) tail"
	if w := CutWindow(nested, 0, 40); strings.Contains(w.Text, "[") {
		t.Errorf("window splits a linked image: %q", w.Text)
	}
	// A link longer than the window, at its start, is cut: nothing else
	// could be returned.
	long := "[" + strings.Repeat("a", 100) + "](https://example.org/)"
	if w := CutWindow(long, 0, 50); w.End != 50 {
		t.Errorf("a link longer than the window: end %d, want 50", w.End)
	}
}

func TestCutWindow_AtAndPastTheEnd(t *testing.T) {
	content := "short content"
	w := CutWindow(content, 0, 100)
	if w.Text != content || w.More() || w.End != w.Total || w.Total != 13 {
		t.Errorf("whole content: %+v", w)
	}
	w = CutWindow(content, 6, 0)
	if w.Text != "content" || w.More() {
		t.Errorf("no limit: %+v", w)
	}
	for _, off := range []int{13, 50} {
		w = CutWindow(content, off, 5)
		if w.Text != "" || w.More() || w.Start != 13 || w.End != 13 {
			t.Errorf("offset %d: %+v", off, w)
		}
	}
	if w = CutWindow(content, -4, 5); w.Start != 0 || w.Text != "short" {
		t.Errorf("negative offset: %+v", w)
	}
}

func ExampleCutWindow() {
	doc := strings.Repeat("One paragraph of text.\n\n", 4)
	for offset := 0; ; {
		w := CutWindow(doc, offset, 50)
		fmt.Printf("characters %d–%d of %d: %q\n", w.Start, w.End, w.Total, w.Text)
		if !w.More() {
			break
		}
		offset = w.End
	}
	// Output:
	// characters 0–48 of 96: "One paragraph of text.\n\nOne paragraph of text.\n\n"
	// characters 48–96 of 96: "One paragraph of text.\n\nOne paragraph of text.\n\n"
}
