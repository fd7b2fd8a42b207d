package textfmt

import (
	"strings"
	"testing"
	"time"
)

func TestScrub_ReplacesEverySecretOfAtLeastMinSecretBytes(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		secrets  []string
		want     string
	}{
		{"a key", "key sk-abcdef1234 rejected", []string{"sk-abcdef1234"}, "key [redacted] rejected"},
		{"every occurrence", "abcd and abcd", []string{"abcd"}, "[redacted] and [redacted]"},
		{"exactly MinSecret bytes", "pw wxyz", []string{"wxyz"}, "pw [redacted]"},
		{"shorter than MinSecret", "the cat sat", []string{"cat", "", " "}, "the cat sat"},
		{"trimmed first", "token abcdef!", []string{"  abcdef\n"}, "token [redacted]!"},
		{"longest first", "k=abcd1234", []string{"abcd", "abcd1234"}, "k=[redacted]"},
		{"no secrets", "plain", nil, "plain"},
	} {
		if got := Scrub(tc.in, tc.secrets...); got != tc.want {
			t.Errorf("%s: Scrub(%q, %q) = %q, want %q", tc.name, tc.in, tc.secrets, got, tc.want)
		}
	}
	if IsSecret("abc") || !IsSecret(" abcd ") {
		t.Error("IsSecret disagrees with MinSecret")
	}
}

func TestShorten_CutsAtAWordInUTF16CodeUnits(t *testing.T) {
	if n := Len("aé😀"); n != 4 {
		t.Errorf("Len = %d, want 4", n)
	}
	if s := Cut("ab😀c", 3); s != "ab" {
		t.Errorf("Cut = %q, want %q", s, "ab")
	}
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"one two three four five", 12, "one two…"},
		{" a\n\tb \x1b[31mc ", 10, "a b c"},
		{"abcdefghij", 5, "abcd…"},
		{"abcdef", 1, "…"},
		{"abcdef", 0, ""},
		{"😀😀😀😀", 5, "😀😀…"},
	} {
		got := Shorten(tc.in, tc.max)
		if got != tc.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
		if Len(got) > max(tc.max, 0) {
			t.Errorf("Shorten(%q, %d) is %d code units long", tc.in, tc.max, Len(got))
		}
		if strings.ContainsAny(got, "\n\x1b") {
			t.Errorf("Shorten(%q) = %q is not one safe line", tc.in, got)
		}
	}
}

func TestCachedAgo_SaysHowOldAnAnswerIs(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Time{}, ""},
		{now.Add(-30 * time.Second), ", cached less than a minute ago"},
		{now.Add(-12 * time.Minute), ", cached 12 min ago"},
		{now.Add(-119 * time.Minute), ", cached 119 min ago"},
		{now.Add(-5 * time.Hour), ", cached 5 h ago"},
	} {
		if got := CachedAgo(tc.at, now); got != tc.want {
			t.Errorf("CachedAgo(%v) = %q, want %q", tc.at, got, tc.want)
		}
	}
}

func TestNonBlank(t *testing.T) {
	got := NonBlank([]string{" a ", "", " \t", "b"})
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("NonBlank = %q, want [a b]", got)
	}
	if got := NonBlank([]string{" ", ""}); got != nil {
		t.Fatalf("NonBlank of blanks = %q, want nil", got)
	}
}
