package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stubHook returns the path of the stub hook program.
func stubHook(t *testing.T) string { return bins.Build(t, "./testdata/stubhook") }

// assertNoOutbound fails the test when the CLI tried to reach any host
// other than 127.0.0.1.
func assertNoOutbound(t *testing.T, res *Result) {
	t.Helper()
	if len(res.ProxyAttempts) != 0 {
		t.Errorf("the CLI tried to leave the machine: %q", res.ProxyAttempts)
	}
}

func assertExitZero(t *testing.T, res *Result) {
	t.Helper()
	if res.ExitCode != 0 {
		t.Fatalf("claude exit code = %d, want 0\nstdout:\n%s", res.ExitCode, tail(res.Stdout, 4000))
	}
}

func TestClaude_PreToolUseDenyReasonReachesModelAsErrorToolResult(t *testing.T) {
	version := ClaudeVersion(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "harness query"}),
		CallTool("WebFetch", map[string]any{"url": "https://example.invalid/page", "prompt": "summarise"}),
		Say("done"),
	)
	settings := new(Settings).AddHook("PreToolUse", "WebSearch|WebFetch", ShellHook(stubHook(t)))

	res := RunClaude(t, api, Options{Settings: settings})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	for i, tc := range []struct{ tool, reason string }{
		{"WebSearch", "MARKER-WebSearch-harness query"},
		{"WebFetch", "MARKER-WebFetch-https://example.invalid/page"},
	} {
		got := api.ToolResult(t, i)
		want := DenyContent(version, tc.tool, tc.reason)
		if !got.IsError || got.Body() != want {
			t.Errorf("%s tool_result = is_error %v, body %q; want is_error true, body %q",
				tc.tool, got.IsError, got.Body(), want)
		}
	}
	if n := len(api.RequestsOf(KindWebSearch)) + len(api.RequestsOf(KindWebFetchApply)); n != 0 {
		t.Errorf("native tool model calls = %d, want 0 after denies", n)
	}
	if hr := res.HookResponses(); len(hr) != 2 || hr[0].HookName != "PreToolUse:WebSearch" || hr[0].Outcome != "success" {
		t.Errorf("hook responses = %+v, want two successful PreToolUse responses, the first for WebSearch", hr)
	}
}

func TestClaude_SilentHookWithAllowedToolsLetsNativeWebSearchRun(t *testing.T) {
	ClaudeBinary(t)
	log := filepath.Join(t.TempDir(), "hook.log")
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "native query"}),
		Say("done"),
	)
	settings := new(Settings).AddHook("PreToolUse", "WebSearch", ExecHook(stubHook(t), "silent"))

	res := RunClaude(t, api, Options{
		Settings:     settings,
		AllowedTools: []string{"WebSearch"},
		Env:          map[string]string{"STUBHOOK_LOG": log},
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	searches := api.RequestsOf(KindWebSearch)
	if len(searches) != 1 {
		t.Fatalf("native web search calls = %d, want 1", len(searches))
	}
	if !strings.Contains(searches[0].Messages.Messages[0].Content.Text(), "native query") {
		t.Errorf("native web search call does not carry the query: %s", searches[0].Body)
	}
	got := api.ToolResult(t, 0)
	if got.IsError {
		t.Errorf("tool_result is_error = true, want false; body %q", got.Body())
	}
	for _, want := range []string{`Web search results for query: "native query"`, `"url":"https://example.invalid/one"`, api.SearchText} {
		if !strings.Contains(got.Body(), want) {
			t.Errorf("tool_result body lacks %q:\n%s", want, got.Body())
		}
	}
	var payload struct {
		HookEventName string         `json:"hook_event_name"`
		ToolName      string         `json:"tool_name"`
		ToolInput     map[string]any `json:"tool_input"`
		ToolUseID     string         `json:"tool_use_id"`
	}
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("hook payload log: %v", err)
	}
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatalf("hook payload %q: %v", raw, err)
	}
	if payload.HookEventName != "PreToolUse" || payload.ToolName != "WebSearch" ||
		payload.ToolInput["query"] != "native query" || payload.ToolUseID != "toolu_e2e_00" {
		t.Errorf("hook payload = %+v, want the PreToolUse WebSearch call of turn 0", payload)
	}
}

func TestClaude_MCPToolResultsCarryPostToolUseAndFailureContext(t *testing.T) {
	ClaudeBinary(t)
	tool := MCPToolName("stub", "search")
	api := NewFakeAPI(t,
		CallTool(tool, map[string]any{"query": "good query"}),
		CallTool(tool, map[string]any{"query": "FAIL query"}),
		Say("done"),
	)
	hook := stubHook(t)
	settings := new(Settings).
		AddHook("PostToolUse", tool, ExecHook(hook, "context")).
		AddHook("PostToolUseFailure", tool, ExecHook(hook, "context"))

	res := RunClaude(t, api, Options{
		Settings:     settings,
		MCPServers:   map[string]MCPServer{"stub": {Command: bins.Build(t, "./testdata/stubmcp")}},
		AllowedTools: []string{tool},
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	ok := api.ToolResult(t, 0)
	if ok.IsError || ok.Body() != "MCP-OUTPUT-good query" {
		t.Errorf("first tool_result = is_error %v, body %q; want the server's output", ok.IsError, ok.Body())
	}
	if want := "PostToolUse:" + tool + " hook additional context: MARKER-" + tool + "-good query"; !ok.HasReminder(want) {
		t.Errorf("first tool_result reminders = %q, want one containing %q", ok.Reminders(), want)
	}
	failed := api.ToolResult(t, 1)
	if !failed.IsError || !strings.Contains(failed.Body(), "MCP-ERROR-FAIL query") {
		t.Errorf("second tool_result = is_error %v, body %q; want the server's error", failed.IsError, failed.Body())
	}
	if want := "PostToolUseFailure:" + tool + " hook additional context: MARKER-" + tool + "-FAIL query"; !failed.HasReminder(want) {
		t.Errorf("second tool_result reminders = %q, want one containing %q", failed.Reminders(), want)
	}
}

func TestClaude_SessionStartContextReachesFirstModelRequest(t *testing.T) {
	ClaudeBinary(t)
	api := NewFakeAPI(t, Say("done"))
	settings := new(Settings).AddHook("SessionStart", "startup", ExecHook(stubHook(t), "context"))

	res := RunClaude(t, api, Options{Settings: settings})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	main := api.RequestsOf(KindMain)
	if len(main) != 1 {
		t.Fatalf("main-loop requests = %d, want 1", len(main))
	}
	want := "SessionStart hook additional context: MARKER-SessionStart-startup"
	found := false
	for _, r := range main[0].SystemReminders() {
		found = found || strings.Contains(r, want)
	}
	if !found {
		t.Errorf("first request reminders lack %q:\n%q", want, main[0].SystemReminders())
	}
	if got := res.FinalText(); got != "done" {
		t.Errorf("final result = %q, want %q", got, "done")
	}
}

func TestClaude_NativeWebFetchAppliesPromptThroughSeparateModelCall(t *testing.T) {
	ClaudeBinary(t)
	page := NewPageServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<html><head><title>T</title></head><body><h1>PAGE-MARKER heading</h1><p>Body text.</p></body></html>")
	}))
	api := NewFakeAPI(t,
		CallTool("WebFetch", map[string]any{"url": page.URL + "/doc", "prompt": "What is the heading?"}),
		Say("done"),
	)

	res := RunClaude(t, api, Options{
		FlagSettings: &Settings{SkipWebFetchPreflight: true},
		AllowedTools: []string{"WebFetch"},
		Env:          page.Env(),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	applies := api.RequestsOf(KindWebFetchApply)
	if len(applies) != 1 {
		t.Fatalf("WebFetch apply-prompt calls = %d, want 1", len(applies))
	}
	prompt := applies[0].Messages.Messages[0].Content.Text()
	if !strings.Contains(prompt, "PAGE-MARKER heading") || !strings.Contains(prompt, "What is the heading?") {
		t.Errorf("apply-prompt call lacks the page or the prompt:\n%s", prompt)
	}
	got := api.ToolResult(t, 0)
	if got.IsError || !strings.HasPrefix(got.Body(), "FAKE-FETCH-ANSWER: ") || !strings.Contains(got.Body(), "PAGE-MARKER") {
		t.Errorf("tool_result = is_error %v, body %q; want the fake apply answer", got.IsError, got.Body())
	}
}
