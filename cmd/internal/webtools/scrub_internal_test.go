package webtools

import "testing"

// TestRedact_ScrubsTheSameSecretsAsEveryFrontend checks that the tools
// scrub by the one rule (internal/textfmt): a secret of four bytes or
// more, trimmed of space, is replaced; a shorter one is left alone.
func TestRedact_ScrubsTheSameSecretsAsEveryFrontend(t *testing.T) {
	tools := &Tools{Secrets: []string{"abcd", "xyz", " sk-live-123456\n"}}
	if got, want := tools.redact("abcd xyz sk-live-123456"), "[redacted] xyz [redacted]"; got != want {
		t.Errorf("redact = %q, want %q", got, want)
	}
}
