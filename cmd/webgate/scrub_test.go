package main

import (
	"bytes"
	"testing"
)

// TestScrub_SetupAndDiagnoseScrubTheSameSecretsAsEveryFrontend checks
// that setup's and diagnose's writers scrub by the one rule
// (internal/textfmt): a secret of four bytes or more, trimmed of space,
// is replaced; a shorter one is left alone.
func TestScrub_SetupAndDiagnoseScrubTheSameSecretsAsEveryFrontend(t *testing.T) {
	const in, want = "abcd xyz sk-live-123456", "[redacted] xyz [redacted]"
	secrets := []string{"abcd", "xyz", " sk-live-123456\n"}

	var set secretSet
	set.add(secrets...)
	var out bytes.Buffer
	if _, err := (&secretWriter{w: &out, secrets: &set}).Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want {
		t.Errorf("setup wrote %q, want %q", got, want)
	}

	out.Reset()
	w := &scrubWriter{w: &out, secrets: secrets}
	_, _ = w.Write([]byte(in))
	w.flush()
	if got := out.String(); got != want {
		t.Errorf("diagnose wrote %q, want %q", got, want)
	}
}
