package hooks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/hooks/gate"
)

// payloadShapes builds one payload of every runtime shape the hooks read
// for a tool event: Claude Code, Copilot CLI camelCase (no event name,
// toolArgs a JSON string), Copilot CLI PascalCase ("VS Code compatible")
// and VS Code (hookEventName, tool_response a string).
func payloadShapes(event Event, tool, args string) map[string]string {
	quoted := fmt.Sprintf("%q", args)
	out := map[string]string{}
	switch event {
	case PreToolUse:
		out["claude"] = `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + args + `,"tool_use_id":"t"}`
		out["copilot camelCase"] = `{"sessionId":"c","timestamp":1704614600000,"cwd":"/p","toolName":"` + tool + `","toolArgs":` + quoted + `}`
		out["copilot PascalCase"] = `{"hook_event_name":"PreToolUse","session_id":"c","timestamp":"2026-01-07T08:03:20.000Z","cwd":"/p","tool_name":"` + tool + `","tool_input":` + args + `}`
		out["vscode"] = `{"timestamp":"2026-01-07T08:03:20.000Z","cwd":"/p","sessionId":"v","hookEventName":"PreToolUse","tool_name":"` + tool + `","tool_input":` + args + `,"tool_use_id":"t"}`
	case PostToolUse:
		out["claude"] = `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"` + tool + `","tool_input":` + args + `,"tool_response":[{"type":"text","text":"r"}]}`
		out["copilot camelCase"] = `{"sessionId":"c","timestamp":1,"cwd":"/p","toolName":"` + tool + `","toolArgs":` + quoted + `,"toolResult":{"resultType":"success","textResultForLlm":"r"}}`
		out["copilot PascalCase"] = `{"hook_event_name":"PostToolUse","session_id":"c","timestamp":"2026-01-07T08:03:20.000Z","cwd":"/p","tool_name":"` + tool + `","tool_input":` + args + `,"tool_result":{"result_type":"success","text_result_for_llm":"r"}}`
		out["vscode"] = `{"sessionId":"v","hookEventName":"PostToolUse","tool_name":"` + tool + `","tool_input":` + args + `,"tool_response":"r"}`
	case PostToolUseFailure:
		out["claude"] = `{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"` + tool + `","tool_input":` + args + `,"error":"boom","is_interrupt":false}`
		out["copilot camelCase"] = `{"sessionId":"c","timestamp":1,"cwd":"/p","toolName":"` + tool + `","toolArgs":` + quoted + `,"error":"boom"}`
		out["copilot PascalCase"] = `{"hook_event_name":"PostToolUseFailure","session_id":"c","timestamp":"2026-01-07T08:03:20.000Z","cwd":"/p","tool_name":"` + tool + `","tool_input":` + args + `,"error":"boom"}`
	}
	return out
}

// TestFront_RunsTheWorkerForEveryPayloadTheWorkerActsOn checks the front
// (package gate) against the worker's own choice, for every runtime shape,
// event and tool: a payload the worker would act on must never be dropped
// by the front.
func TestFront_RunsTheWorkerForEveryPayloadTheWorkerActsOn(t *testing.T) {
	home := t.TempDir()
	plain := func(k string) (string, bool) {
		if k == "HOME" {
			return home, true
		}
		return "", false
	}
	routes := func(k string) (string, bool) {
		if k == "WEBGATE_TOOL_ROUTES" {
			return "/routes.json", true
		}
		return plain(k)
	}
	tools := []string{"WebSearch", "WebFetch", "web_fetch", "Bash", "bash", "mcp__ccs-websearch__WebSearch",
		"mcp__plugin_webgate_ccs-websearch__WebSearch", "mcp__other__WebSearch", "Read", "editFiles", "view"}
	var payloads []string
	for _, ev := range []Event{PreToolUse, PostToolUse, PostToolUseFailure} {
		for _, tool := range tools {
			for _, p := range payloadShapes(ev, tool, `{"query":"go generics","url":"https://example.com/","command":"curl x"}`) {
				payloads = append(payloads, p)
			}
		}
	}
	payloads = append(payloads,
		`{"session_id":"s","hook_event_name":"SessionStart","source":"startup"}`,
		`{"session_id":"s","hook_event_name":"SessionStart","source":"fork"}`,
		`{"timestamp":"2026-01-07T08:03:20.000Z","sessionId":"v","hookEventName":"SessionStart","source":"new"}`,
		`{"hook_event_name":"SessionStart","session_id":"c","timestamp":"2026-01-07T08:03:20.000Z","cwd":"/p","source":"startup"}`,
	)
	acted := map[string]int{}
	for _, p := range payloads {
		in, err := ParseInput([]byte(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		search := WantsWebSearch(in, ToolNames{}) || in.Event == SessionStart
		fetch := WantsWebFetch(in, ToolNames{})
		shell := WantsShell(in)
		if search {
			acted["websearch"]++
			if !gate.Relevant(gate.WebSearch, []byte(p), plain) {
				t.Errorf("the websearch front drops %s, which the worker acts on (%s %s from %s)", p, in.Event, in.ToolName, in.Runtime)
			}
		}
		if fetch {
			acted["webfetch"]++
			if !gate.Relevant(gate.WebFetch, []byte(p), plain) {
				t.Errorf("the webfetch front drops %s, which the worker acts on (%s %s from %s)", p, in.Event, in.ToolName, in.Runtime)
			}
		}
		if shell {
			acted["shell"]++
			if !gate.Relevant(gate.WebFetch, []byte(p), routes) {
				t.Errorf("with tool routes, the webfetch front drops %s, which the worker routes (%s %s from %s)", p, in.Event, in.ToolName, in.Runtime)
			}
		}
		// Tools no hook knows are dropped by both fronts, so that VS Code
		// and Copilot CLI, which run every hook for every tool, pay little.
		if strings.Contains(p, `"Read"`) || strings.Contains(p, `"editFiles"`) || strings.Contains(p, `"view"`) {
			if gate.Relevant(gate.WebSearch, []byte(p), plain) || gate.Relevant(gate.WebFetch, []byte(p), routes) {
				t.Errorf("a front runs the worker for %s", p)
			}
		}
	}
	// websearch: WebSearch in 4 shapes, 2 MCP names on PostToolUse in 3
	// shapes (not Copilot camelCase) and on PostToolUseFailure in 2, and 4
	// SessionStarts; webfetch: 2 names on PreToolUse in 4 shapes and on
	// PostToolUseFailure in 2 (not Copilot camelCase); shell: 2 names in 4.
	if acted["websearch"] != 18 || acted["webfetch"] != 12 || acted["shell"] != 8 {
		t.Errorf("payloads acted on: %v, want websearch 18, webfetch 12, shell 8", acted)
	}
}
