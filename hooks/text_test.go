package hooks

import "testing"

func TestText_CountsAndCutsInUTF16CodeUnits(t *testing.T) {
	if n := textLen("aé😀"); n != 4 {
		t.Errorf("textLen = %d, want 4", n)
	}
	if s := cutText("ab😀c", 3); s != "ab" {
		t.Errorf("cutText = %q, want %q", s, "ab")
	}
	if s := oneLine(" a\n\tb \x00 c "); s != "a b c" {
		t.Errorf("oneLine = %q", s)
	}
}

// TestRedactDecision_ScrubsTheSameSecretsAsEveryFrontend checks that the
// hooks scrub by the one rule (internal/textfmt): a secret of four bytes
// or more, trimmed of space, is replaced; a shorter one is left alone.
func TestRedactDecision_ScrubsTheSameSecretsAsEveryFrontend(t *testing.T) {
	const in, want = "abcd xyz sk-live-123456", "[redacted] xyz [redacted]"
	d := redactDecision(Decision{Reason: in, Context: in, SystemMessage: in, Diagnostics: []string{in}},
		[]string{"abcd", "xyz", " sk-live-123456\n"})
	for _, got := range []string{d.Reason, d.Context, d.SystemMessage, d.Diagnostics[0]} {
		if got != want {
			t.Errorf("scrubbed = %q, want %q", got, want)
		}
	}
}
