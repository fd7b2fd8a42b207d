package hooks

import "testing"

func TestText_CountsCutsAndShortensInUTF16CodeUnits(t *testing.T) {
	if n := textLen("aé😀"); n != 4 {
		t.Errorf("textLen = %d, want 4", n)
	}
	if s := cutText("ab😀c", 3); s != "ab" {
		t.Errorf("cutText = %q, want %q", s, "ab")
	}
	if s := shorten("one two three four five", 12); s != "one two…" {
		t.Errorf("shorten = %q", s)
	}
	if s := oneLine(" a\n\tb \x00 c "); s != "a b c" {
		t.Errorf("oneLine = %q", s)
	}
}
