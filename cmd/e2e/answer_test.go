package e2e

import (
	"encoding/pem"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/cmd/internal/setup"
)

// The answer styles of the hooks under the real Claude Code CLI
// (hooks.answer): deny, which the model reads as a hook error, and
// replace, where the native tool runs and its output is replaced by
// webgate's answer, which the model reads as a normal result.

// installHooks registers the hooks as `webgate install` would, in the
// project's settings.
func installHooks(t *testing.T, project string, extra func(*setup.Options)) {
	t.Helper()
	o := setup.Options{
		Target: setup.ClaudeCode, Scope: setup.Project, ProjectDir: project,
		WebSearchBin: bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch"),
		WebFetchBin:  bins.Build(t, "github.com/webgate-dev/webgate/cmd/webfetch"),
	}
	if extra != nil {
		extra(&o)
	}
	plan, err := setup.PlanInstall(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Apply(nil); err != nil {
		t.Fatal(err)
	}
}

func TestAnswer_ReplaceGivesTheModelAPlainSearchResult(t *testing.T) {
	ClaudeBinary(t)
	project := t.TempDir()
	installHooks(t, project, nil)
	providers := newFakeProviders(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "replace style query"}),
		Say("done"),
	)

	res := RunClaude(t, api, Options{
		Dir:          project,
		AllowedTools: []string{"WebSearch"},
		Env:          providers.env(map[string]string{"WEBGATE_HOOKS_ANSWER": "replace"}),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	got := api.ToolResult(t, 0)
	t.Logf("model received (replace, is_error %v, first line): %q", got.IsError, firstLine(got.Body()))
	if got.IsError {
		t.Fatalf("tool_result is an error: %q", got.Body())
	}
	for _, want := range []string{
		`Web search results for query: "replace style query"`,
		"1. HOOK-RESULT-ONE for replace style query",
		"https://docs.example/one",
	} {
		if !strings.Contains(got.Body(), want) {
			t.Errorf("tool_result lacks %q:\n%s", want, got.Body())
		}
	}
	if strings.Contains(got.Body(), "FAKE native") || strings.Contains(got.Body(), "hook error") {
		t.Errorf("the native output or a hook error reached the model:\n%s", got.Body())
	}
	if n := len(api.RequestsOf(KindWebSearch)); n != 1 {
		t.Errorf("native web search calls = %d, want 1 (replace lets the native tool run)", n)
	}
	if p := providers.Paths(); len(p) != 1 || p[0] != "/tavily/search" {
		t.Errorf("provider requests = %q, want one Tavily search (done once, on PreToolUse)", p)
	}
}

func TestAnswer_ReplaceWithoutAnAllowRuleStillGivesTheModelTheAnswer(t *testing.T) {
	ClaudeBinary(t)
	project := t.TempDir()
	installHooks(t, project, nil)
	providers := newFakeProviders(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "no allow rule query"}),
		Say("done"),
	)

	// No --allowedTools and no allow rule: `claude -p` refuses a native
	// WebSearch nobody allowed ("Claude requested permissions to use
	// WebSearch, but you haven't granted it yet"), so the hook allows it.
	res := RunClaude(t, api, Options{
		Dir: project,
		Env: providers.env(map[string]string{"WEBGATE_HOOKS_ANSWER": "replace"}),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	got := api.ToolResult(t, 0)
	t.Logf("model received (replace, no allow rule, is_error %v, first line): %q", got.IsError, firstLine(got.Body()))
	if got.IsError || !strings.Contains(got.Body(), "1. HOOK-RESULT-ONE for no allow rule query") {
		t.Fatalf("tool_result = is_error %v, body %q; want webgate's results as a plain result", got.IsError, got.Body())
	}
	if strings.Contains(got.Body(), "requested permissions") {
		t.Errorf("the permission refusal reached the model:\n%s", got.Body())
	}
}

func TestAnswer_ReplaceUnderAProjectAskRuleDeniesWithTheAnswer(t *testing.T) {
	version := ClaudeVersion(t)
	project := t.TempDir()
	installHooks(t, project, nil)
	writeFile(t, filepath.Join(project, ".claude", "settings.local.json"), []byte(`{"permissions":{"ask":["WebSearch"]}}`))
	providers := newFakeProviders(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "ask rule query"}),
		Say("done"),
	)

	res := RunClaude(t, api, Options{
		Dir: project,
		Env: providers.env(map[string]string{"WEBGATE_HOOKS_ANSWER": "replace"}),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	got := api.ToolResult(t, 0)
	t.Logf("model received (replace, ask rule, is_error %v, first line): %q", got.IsError, firstLine(got.Body()))
	// The user's ask rule stands (a hook's allow does not override it, and
	// `claude -p` refuses what it would ask about), and the model still
	// gets webgate's answer, as the deny reason. (A bare deny rule takes
	// the tool away altogether: the model cannot call it, and no hook
	// runs.)
	if !got.IsError || !strings.HasPrefix(got.Body(), DenyContent(version, "WebSearch", "")) || !strings.Contains(got.Body(), "HOOK-RESULT-ONE for ask rule query") {
		t.Fatalf("tool_result = is_error %v, body %q; want the hook's deny with the results", got.IsError, got.Body())
	}
	if n := len(api.RequestsOf(KindWebSearch)); n != 0 {
		t.Errorf("native web search calls = %d, want 0 (the user asked to be asked)", n)
	}
}

func TestAnswer_ReplaceUnderAUserAskRuleDeniesWithTheAnswer(t *testing.T) {
	version := ClaudeVersion(t)
	project := t.TempDir()
	installHooks(t, project, nil)
	providers := newFakeProviders(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "user ask rule query"}),
		Say("done"),
	)

	// The rule is in the user's settings ($HOME/.claude), which the hook
	// finds next to the session's transcript.
	res := RunClaude(t, api, Options{
		Dir:      project,
		Settings: &Settings{Permissions: &Permissions{Ask: []string{"WebSearch"}}},
		Env:      providers.env(map[string]string{"WEBGATE_HOOKS_ANSWER": "replace"}),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	got := api.ToolResult(t, 0)
	t.Logf("model received (replace, user ask rule, is_error %v, first line): %q", got.IsError, firstLine(got.Body()))
	if !got.IsError || !strings.HasPrefix(got.Body(), DenyContent(version, "WebSearch", "")) || !strings.Contains(got.Body(), "HOOK-RESULT-ONE for user ask rule query") {
		t.Fatalf("tool_result = is_error %v, body %q; want the hook's deny with the results", got.IsError, got.Body())
	}
}

func TestAnswer_ReplaceAfterANativeSearchThatFailsAddsTheResultsToTheError(t *testing.T) {
	ClaudeBinary(t)
	project := t.TempDir()
	installHooks(t, project, nil)
	providers := newFakeProviders(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "custom endpoint query"}),
		Say("done"),
	)
	// A custom endpoint that does not support Anthropic's server tools.
	api.SetSearchError("web_search is not supported by this endpoint")

	res := RunClaude(t, api, Options{
		Dir:          project,
		AllowedTools: []string{"WebSearch"},
		Env:          providers.env(map[string]string{"WEBGATE_HOOKS_ANSWER": "replace"}),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	got := api.ToolResult(t, 0)
	t.Logf("model received (replace, native search failing, is_error %v, first line): %q", got.IsError, firstLine(got.Body()))
	text := got.Text()
	for _, want := range []string{
		"PostToolUseFailure:WebSearch hook additional context: webgate fallback: the WebSearch tool failed",
		"1. HOOK-RESULT-ONE for custom endpoint query",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the model did not receive %q:\n%s", want, text)
		}
	}
	if p := providers.Paths(); len(p) != 1 {
		t.Errorf("provider requests = %q, want one", p)
	}
}

func TestAnswer_AutoDeniesOnACustomEndpoint(t *testing.T) {
	version := ClaudeVersion(t)
	project := t.TempDir()
	installHooks(t, project, nil)
	providers := newFakeProviders(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "auto style query"}),
		Say("done"),
	)

	// The CLI talks to the fake API through ANTHROPIC_BASE_URL: a custom
	// endpoint, where auto denies.
	res := RunClaude(t, api, Options{
		Dir:          project,
		AllowedTools: []string{"WebSearch"},
		Env:          providers.env(map[string]string{"WEBGATE_HOOKS_ANSWER": "auto"}),
	})

	assertExitZero(t, res)
	got := api.ToolResult(t, 0)
	t.Logf("model received (auto on a custom endpoint, is_error %v, first line): %q", got.IsError, firstLine(got.Body()))
	if !got.IsError || !strings.HasPrefix(got.Body(), DenyContent(version, "WebSearch", "")) || !strings.Contains(got.Body(), "HOOK-RESULT-ONE for auto style query") {
		t.Fatalf("tool_result = is_error %v, body %q; want the hook's deny with the results", got.IsError, got.Body())
	}
	if n := len(api.RequestsOf(KindWebSearch)); n != 0 {
		t.Errorf("native web search calls = %d, want 0", n)
	}
}

func TestAnswer_ReplaceGivesTheModelAPlainWebFetchResult(t *testing.T) {
	ClaudeBinary(t)
	project := t.TempDir()
	installHooks(t, project, nil)
	providers := newFakeProviders(t)
	// The native WebFetch upgrades http to https, so the page is served
	// over TLS with a certificate the CLI is told to trust; webgate's own
	// probe does not trust it and leaves the page to the provider.
	page := newLoopbackServerTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, appShell)
	}))
	t.Cleanup(page.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	writeFile(t, ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: page.Certificate().Raw}))
	url := page.URL + "/app"
	api := NewFakeAPI(t,
		CallTool("WebFetch", map[string]any{"url": url, "prompt": "When is the deadline?"}),
		Say("done"),
	)

	res := RunClaude(t, api, Options{
		Dir:          project,
		Settings:     &Settings{SkipWebFetchPreflight: true},
		AllowedTools: []string{"WebFetch"},
		Env: providers.env(map[string]string{
			"WEBGATE_HOOKS_ANSWER":                 "replace",
			"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE": "1",
			"NODE_EXTRA_CA_CERTS":                  ca,
		}),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	got := api.ToolResult(t, 0)
	t.Logf("model received (replace WebFetch, is_error %v, first line): %q", got.IsError, firstLine(got.Body()))
	if got.IsError || !strings.Contains(got.Body(), "EXTRACTED-APP-CONTENT: the app's deadline is Friday.") {
		t.Fatalf("tool_result = is_error %v, body %q; want the extracted page as a plain result", got.IsError, got.Body())
	}
	if strings.Contains(got.Body(), "FAKE-FETCH-ANSWER") {
		t.Errorf("the native summary reached the model:\n%s", got.Body())
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
