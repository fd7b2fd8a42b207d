package hooks_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replacePayload is a Claude Code WebSearch payload of event for query in
// the session's working directory cwd.
func replacePayload(event, query, cwd string, extra map[string]any) []byte {
	m := map[string]any{
		"session_id": "5e7d1c2a-0000-4b4b-8c8c-000000000021", "cwd": cwd,
		"hook_event_name": event, "tool_name": "WebSearch", "tool_input": map[string]any{"query": query}, "tool_use_id": "toolu_replace",
	}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

func TestProcessReplace_PreToolUseAllowsTheNativeCallAndPostToolUseReplacesIt(t *testing.T) {
	f := newTavilyFake(t)
	env := memoryEnv(t, t.TempDir(), f, tavilyKey, roomyStore, "WEBGATE_HOOKS_ANSWER=replace")
	project := t.TempDir()

	pre := runBinary(t, "websearch", bytes.NewReader(replacePayload("PreToolUse", "go context cancellation", project, nil)), env)
	// Without the allow, `claude -p` with no WebSearch allow rule refuses
	// the native call, and the answer kept for it never reaches the model.
	o := decode(t, pre)
	if o.HookSpecificOutput == nil || o.HookSpecificOutput.HookEventName != "PreToolUse" || o.HookSpecificOutput.PermissionDecision != "allow" || o.HookSpecificOutput.PermissionDecisionReason != "" {
		t.Fatalf("PreToolUse under replace: %s\nstderr:\n%s\nwant an allow", pre.stdout, pre.stderr)
	}
	post := runBinary(t, "websearch", bytes.NewReader(replacePayload("PostToolUse", "go context cancellation", project, map[string]any{
		"tool_response": map[string]any{"query": "go context cancellation", "results": []any{}, "durationSeconds": 1.0},
	})), env)
	if !strings.Contains(post.stdout, `"updatedToolOutput"`) || !strings.Contains(post.stdout, "Tavily: context package") {
		t.Fatalf("PostToolUse: %s\nstderr:\n%s\nwant the kept answer as the tool's output", post.stdout, post.stderr)
	}
	if f.Count() != 1 {
		t.Errorf("provider requests = %d, want 1", f.Count())
	}
}

func TestProcessReplace_AProjectDenyRuleGetsTheDenyAnswer(t *testing.T) {
	f := newTavilyFake(t)
	env := memoryEnv(t, t.TempDir(), f, tavilyKey, roomyStore, "WEBGATE_HOOKS_ANSWER=replace")
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(`{"permissions":{"deny":["WebSearch"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, "websearch", bytes.NewReader(replacePayload("PreToolUse", "go context cancellation", project, nil)), env)
	// Claude Code refuses a denied tool whatever a hook says: the answer
	// goes to the model as the deny reason instead.
	wantDeny(t, r, "PreToolUse", "Tavily: context package")
}
