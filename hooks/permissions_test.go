package hooks

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// A domain rule stops the call whatever the spelling of the host: a
// trailing dot, the Unicode or punycode form of the name, spaces in the
// rule.
func TestStoppingRule_DomainRulesMatchTheHostAsClaudeCodeDoes(t *testing.T) {
	for _, tc := range []struct {
		rule, url string
		stops     bool
	}{
		{"WebFetch(domain:example.com)", "https://example.com./x", true},
		{"WebFetch(domain:example.com.)", "https://example.com/x", true},
		{"WebFetch(domain:EXAMPLE.com)", "https://Example.COM/x", true},
		{"WebFetch(domain:xn--bcher-kva.de)", "https://bücher.de/", true},
		{"WebFetch(domain:bücher.de)", "https://xn--bcher-kva.de/", true},
		{"WebFetch(domain:BÜCHER.de)", "https://b%C3%BCcher.de/", true},
		{"WebFetch(domain:*.corp.example)", "https://a.corp.example./", true},
		{"WebFetch(domain:*.corp.example)", "https://corp.example/", true},
		{"WebFetch(domain:*.bücher.de)", "https://www.xn--bcher-kva.de/", true},
		{"WebFetch( domain: spaced.example )", "https://spaced.example/", true},
		{" WebFetch (domain:spaced.example) ", "https://spaced.example/", true},
		{"WebFetch(domain:*)", "https://any.example/", true},
		{"WebFetch(domain:ex*ple.com)", "https://example.com/", true}, // a wildcard it cannot read
		{"WebFetch(domain:example.com)", "https://example.org./", false},
		{"WebFetch(domain:*.corp.example)", "https://notcorp.example./", false},
		{"WebFetch(domain:bücher.de)", "https://bucher.de/", false},
		{"WebFetchX(domain:example.com)", "https://example.com/", false},
	} {
		dir := t.TempDir()
		writeClaudeSettings(t, dir, false, `{"deny":[`+strconv.Quote(tc.rule)+`]}`)
		r, got := StoppingRule(ClaudeSettingsFiles("", dir), "WebFetch", tc.url)
		if got != tc.stops {
			t.Errorf("rule %q, %s: stops = %v, want %v", tc.rule, tc.url, got, tc.stops)
		}
		if got && r.Rule != tc.rule {
			t.Errorf("rule %q, %s: reported %+v", tc.rule, tc.url, r)
		}
	}
}

// A settings file that exists but cannot be read may hold a rule that
// stops the call, so it counts as one; a byte order mark does not keep
// the file's rules from being read.
func TestStoppingRule_AnUnreadableSettingsFileMayStopTheCall(t *testing.T) {
	write := func(t *testing.T, b []byte) []string {
		t.Helper()
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return ClaudeSettingsFiles("", dir)
	}
	deny := `{"permissions":{"deny":["WebSearch"]}}`
	t.Run("byte order mark", func(t *testing.T) {
		r, ok := StoppingRule(write(t, append([]byte("\xef\xbb\xbf"), deny...)), "WebSearch", "")
		if !ok || r.Rule != "WebSearch" || r.Err != nil {
			t.Fatalf("%+v, %v; want the deny rule read", r, ok)
		}
	})
	for name, b := range map[string][]byte{
		"too large":        []byte(`{"permissions":{"deny":["WebSearch"]},"pad":"` + strings.Repeat("x", maxSettingsBytes) + `"}`),
		"not JSON":         []byte(`{"permissions":{"deny":["WebSearch"],}}`),
		"wrong shape":      []byte(`{"permissions":{"deny":"WebSearch"}}`),
		"rules not listed": []byte(`{"permissions":{"ask":[{"tool":"WebSearch"}]}}`),
	} {
		t.Run(name, func(t *testing.T) {
			files := write(t, b)
			r, ok := StoppingRule(files, "WebSearch", "")
			if !ok || r.Err == nil || r.Kind != "deny" || !strings.HasSuffix(r.File, "settings.json") {
				t.Fatalf("%+v, %v; want the file counted as a rule that stops the call", r, ok)
			}
			if s := r.String(); !strings.Contains(s, r.File) || !strings.Contains(s, "could not be read") {
				t.Errorf("String() = %q", s)
			}
		})
	}
	t.Run("under a path that is not a directory", func(t *testing.T) {
		// As the team gateway pins the settings directories.
		if r, ok := StoppingRule([]string{"/dev/null/webgate-gateway/settings.json"}, "WebSearch", ""); ok {
			t.Fatalf("%+v: no file there holds no rule", r)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if r, ok := StoppingRule(ClaudeSettingsFiles(t.TempDir(), t.TempDir()), "WebSearch", ""); ok && r.File != "/etc/claude-code/managed-settings.json" {
			t.Fatalf("%+v: a missing file holds no rule", r)
		}
	})
}

// Under hooks.answer = replace, a settings file that cannot be read makes
// the hook deny with the answer rather than allow a native call a rule in
// it may stop (whose output the kept answer would then never replace).
func TestReplace_AnUnreadableSettingsFileGetsTheDenyAnswer(t *testing.T) {
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".claude", "settings.local.json"), []byte(`{"permissions":{"ask":["WebSearch"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &box{}
	env := &WebSearchEnv{Searcher: okSearcher(1), Answers: b, Settings: Settings{Answer: AnswerReplace, ClaudeProjectDir: project, ClaudeConfigDir: t.TempDir()}}
	in := claudeEvent(t, "PreToolUse", "WebSearch", `{"query":"go generics"}`, `,"cwd":`+strconv.Quote(project))
	d := HandleWebSearch(context.Background(), in, env)
	if d.Action != Deny || len(b.m) != 0 {
		t.Fatalf("%+v (kept %d), want a deny with the results", d, len(b.m))
	}
	if !strings.Contains(strings.Join(d.Diagnostics, "\n"), "settings.local.json, which could not be read") {
		t.Errorf("diagnostics %q do not name the unreadable file", d.Diagnostics)
	}
}

// A page one of the user's Claude Code deny rules forbids fetching is not
// read by webgate either, neither on PreToolUse nor after the native call
// failed: the hook passes and Claude Code refuses the call by its rule.
// Pages of other domains, ask rules and other runtimes are read as
// before.
func TestHandleWebFetch_DoesNotReadAPageTheUsersDenyRuleForbids(t *testing.T) {
	var hits atomic.Int64
	base := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><div id=root></div><script src=/app.js></script></body></html>"))
	}).URL
	host := strings.TrimPrefix(base, "http://")
	host = host[:strings.LastIndexByte(host, ':')]
	project := t.TempDir()
	writeClaudeSettings(t, project, false, `{"deny":["WebFetch(domain:`+host+`.)"]}`)
	settings := Settings{ClaudeProjectDir: project, ClaudeConfigDir: t.TempDir()}
	event := func(name, extra string) *Input {
		return claudeEvent(t, name, "WebFetch", `{"url":`+strconv.Quote(base+"/app")+`,"prompt":"what is it"}`, extra)
	}
	for _, in := range []*Input{event("PreToolUse", ""), event("PostToolUseFailure", `,"error":"fetch failed"`)} {
		x := pageExtractor("T", "the body")
		env := fetchEnv(x)
		env.Settings = settings
		d := HandleWebFetch(context.Background(), in, env)
		if d.Action != Pass || hits.Load() != 0 || x.calls.Load() != 0 {
			t.Fatalf("%s: %+v, %d page requests, %d extractions; want a pass with nothing read", in.Event, d, hits.Load(), x.calls.Load())
		}
		if msg := strings.Join(d.Diagnostics, "\n"); !strings.Contains(msg, "forbids fetching this page: webgate does not read it either") {
			t.Errorf("%s: diagnostics %q", in.Event, msg)
		}
	}
	// An ask rule lets the user allow the call: the page is read.
	asked := t.TempDir()
	writeClaudeSettings(t, asked, false, `{"ask":["WebFetch(domain:`+host+`)"]}`)
	x := pageExtractor("T", "the body")
	env := fetchEnv(x)
	env.Settings = Settings{ClaudeProjectDir: asked, ClaudeConfigDir: t.TempDir()}
	if d := HandleWebFetch(context.Background(), event("PreToolUse", ""), env); d.Action != Deny || hits.Load() == 0 {
		t.Errorf("ask rule: %+v, %d page requests; want the page read and the answer given", d, hits.Load())
	}
	env.Settings = settings
	// Claude Code's rules are not another runtime's.
	hits.Store(0)
	copilot, err := ParseInput([]byte(`{"toolName":"web_fetch","toolArgs":` + strconv.Quote(`{"url":"`+base+`/app"}`) + `,"cwd":` + strconv.Quote(project) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := HandleWebFetch(context.Background(), copilot, env); d.Action != Deny || hits.Load() == 0 {
		t.Errorf("Copilot CLI: %+v, %d page requests; want the page read", d, hits.Load())
	}
}
