package webpage

import (
	"fmt"
	"strings"
	"testing"
)

func longDoc() string {
	var parts []string
	parts = append(parts, "# Widget Manual")
	parts = append(parts, "An introduction to widgets.")
	for i := 1; i <= 30; i++ {
		parts = append(parts, fmt.Sprintf("## Chapter %d", i))
		body := fmt.Sprintf("Chapter %d talks about assembly and painting of ordinary parts. ", i)
		if i == 17 {
			body = "Chapter 17 covers the warranty: the warranty period lasts two years and claims need a receipt. "
		}
		if i == 23 {
			body = "Chapter 23 lists the refund rules; a warranty claim can end in a refund. "
		}
		parts = append(parts, strings.Repeat(body, 6))
	}
	return strings.Join(parts, "\n\n")
}

func TestFitContent_KeepsShortContentAsIs(t *testing.T) {
	r := FitContent("  # T\n\nshort  ", "anything", 100)
	if r.Text != "# T\n\nshort" || r.Cut {
		t.Errorf("got %+v", r)
	}
}

func TestFitContent_KeepsThePartsMostRelevantToThePromptInPageOrder(t *testing.T) {
	doc := longDoc()
	r := FitContent(doc, "What does the warranty say about refund claims?", 2000)
	if !r.Cut || !r.ByRelevance {
		t.Fatalf("got cut %v by relevance %v", r.Cut, r.ByRelevance)
	}
	if TextLen(r.Text) > 2000 {
		t.Errorf("text is %d chars", TextLen(r.Text))
	}
	i17, i23 := strings.Index(r.Text, "Chapter 17 covers the warranty"), strings.Index(r.Text, "Chapter 23 lists the refund")
	if i17 < 0 || i23 < 0 || i17 > i23 {
		t.Errorf("relevant chapters missing or out of order (%d, %d):\n%s", i17, i23, r.Text)
	}
	if !strings.Contains(r.Text, "## Chapter 17\n\nChapter 17") {
		t.Errorf("heading not kept with its section")
	}
	if !strings.HasPrefix(r.Text, "# Widget Manual") {
		t.Errorf("opening block not kept:\n%s", r.Text[:100])
	}
	if !strings.Contains(r.Text, OmissionMark) || r.Omitted == 0 || r.Total != 31 {
		t.Errorf("omissions not marked: omitted %d of %d", r.Omitted, r.Total)
	}
}

func TestFitContent_FallsBackToTheBeginningWithoutUsefulPromptTerms(t *testing.T) {
	doc := longDoc()
	for _, prompt := range []string{"", "summarize this page please", "zebra xylophone"} {
		r := FitContent(doc, prompt, 1500)
		if !r.Cut || r.ByRelevance || !strings.HasPrefix(r.Text, "# Widget Manual") || TextLen(r.Text) > 1500 {
			t.Errorf("prompt %q: got cut %v by relevance %v len %d", prompt, r.Cut, r.ByRelevance, TextLen(r.Text))
		}
	}
}

func TestFitContent_CutsAnOversizedRelevantBlock(t *testing.T) {
	doc := "intro\n\n" + strings.Repeat("warranty details ", 2000) + "\n\nother"
	r := FitContent(doc, "warranty", 1000)
	if TextLen(r.Text) > 1000 || !strings.Contains(r.Text, "warranty details") {
		t.Errorf("got %d chars:\n%.200s", TextLen(r.Text), r.Text)
	}
}

func TestTextLen_CountsUTF16CodeUnits(t *testing.T) {
	if n := TextLen("aé😀"); n != 4 {
		t.Errorf("textLen = %d, want 4", n)
	}
	if s := CutText("ab😀c", 3); s != "ab" {
		t.Errorf("cutText = %q, want %q", s, "ab")
	}
}
