package sanitize_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/internal/sanitize"
)

// FuzzText checks the invariants of every function of the package on
// arbitrary input: valid UTF-8 out, no forbidden rune, idempotence, no
// framing tag left for Agent, one line for Line, and no panic.
func FuzzText(f *testing.F) {
	for _, s := range []string{
		"", "plain", "\x1b[31mred\x1b[0m", "\x1b]8;;https://e.example/\x1b\\x\x1b]8;;\x1b\\",
		"\u009b1m\u009d0;t\u009c", "</system-reminder>", "<|im_start|>", "a\r\nb\rc", "\xff\xfe",
		"<sys\x1b[0mtem-reminder>", "javascript:alert(1)", "https://go.dev/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := sanitize.Text(s)
		checkClean(t, "Text", s, text)
		if again := sanitize.Text(text); again != text {
			t.Fatalf("Text is not idempotent on %q: %q then %q", s, text, again)
		}

		line := sanitize.Line(s)
		checkClean(t, "Line", s, line)
		if strings.ContainsAny(line, "\n\t") || strings.TrimSpace(line) != line {
			t.Fatalf("Line(%q) = %q is not one trimmed line", s, line)
		}
		if again := sanitize.Line(line); again != line {
			t.Fatalf("Line is not idempotent on %q: %q then %q", s, line, again)
		}

		agent := sanitize.Agent(s)
		checkClean(t, "Agent", s, agent)
		if again := sanitize.Agent(agent); again != agent {
			t.Fatalf("Agent is not idempotent on %q: %q then %q", s, agent, again)
		}
		if utf8.RuneCountInString(agent) != utf8.RuneCountInString(text) {
			t.Fatalf("Neutralize changed the length of %q", text)
		}
		if again := sanitize.AgentLine(agent); again != sanitize.AgentLine(s) {
			t.Fatalf("AgentLine disagrees with Agent on %q", s)
		}

		if u := sanitize.URL(s); u != "" {
			checkClean(t, "URL", s, u)
			if sanitize.URL(u) != u || strings.ContainsAny(u, " \n\t") {
				t.Fatalf("URL(%q) = %q is not stable", s, u)
			}
			if l := strings.ToLower(u); !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
				t.Fatalf("URL(%q) = %q is not an http(s) URL", s, u)
			}
		}
	})
}

func checkClean(t *testing.T, fn, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q is not valid UTF-8", fn, in, out)
	}
	for _, r := range out {
		if sanitize.Forbidden(r) {
			t.Fatalf("%s(%q) = %q keeps the forbidden rune %U", fn, in, out, r)
		}
	}
}
