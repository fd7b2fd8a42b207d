package hooks

import (
	"strings"
	"testing"
)

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

// What reaches the user's terminal also has what looks like a secret
// redacted, configured or not: a warning quoting a configured URL with a
// password, say. The reason and context (page text for the model) keep
// their text.
func TestRedactDecision_RedactsSecretLikeValuesInTheSystemMessage(t *testing.T) {
	const in = `searxng: base_url "http://user:PassW0rdSecret@127.0.0.1:47311" must not have user information`
	d := redactDecision(Decision{SystemMessage: in, Diagnostics: []string{in}}, nil)
	for _, got := range []string{d.SystemMessage, d.Diagnostics[0]} {
		if strings.Contains(got, "PassW0rdSecret") || !strings.Contains(got, "searxng: base_url") {
			t.Errorf("redacted = %q", got)
		}
	}
}
