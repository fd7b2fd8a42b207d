package hooks

import (
	"bytes"
	"encoding/json"
	"testing"
)

func decisionJSON(t *testing.T, d Decision, in *Input) string {
	t.Helper()
	var b bytes.Buffer
	if err := d.Write(&b, in); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestDecisionWrite_RendersEachRuntimeAndEvent(t *testing.T) {
	claudePre := &Input{Runtime: ClaudeCode, Event: PreToolUse}
	tests := []struct {
		name string
		d    Decision
		in   *Input
		want string
	}{
		{"claude deny", Decision{Action: Deny, Reason: "R <b>"}, claudePre,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R <b>"}}` + "\n"},
		{"vscode deny", Decision{Action: Deny, Reason: "R"}, &Input{Runtime: VSCode, Event: PreToolUse},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}` + "\n"},
		{"copilot deny is top level", Decision{Action: Deny, Reason: "R"}, &Input{Runtime: CopilotCLI, Event: PreToolUse},
			`{"permissionDecision":"deny","permissionDecisionReason":"R"}` + "\n"},
		{"copilot pass with system message writes nothing", Decision{SystemMessage: "m"}, &Input{Runtime: CopilotCLI, Event: PreToolUse}, ""},
		{"pass writes nothing", Decision{}, claudePre, ""},
		{"pass with system message", Decision{SystemMessage: "webgate: no keys"}, claudePre, `{"systemMessage":"webgate: no keys"}` + "\n"},
		{"mcp replacement", Decision{Action: ReplaceMCPOutput, MCPOutput: []json.RawMessage{json.RawMessage(`{"type":"text","text":"a"}`)}}, &Input{Runtime: ClaudeCode, Event: PostToolUse},
			`{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":[{"type":"text","text":"a"}]}}` + "\n"},
		{"failure context", Decision{Action: AddContext, Context: "C"}, &Input{Runtime: ClaudeCode, Event: PostToolUseFailure},
			`{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"C"}}` + "\n"},
		{"deny outside PreToolUse is dropped", Decision{Action: Deny, Reason: "R"}, &Input{Runtime: ClaudeCode, Event: PostToolUse}, ""},
		{"replacement outside PostToolUse is dropped", Decision{Action: ReplaceMCPOutput, MCPOutput: []json.RawMessage{json.RawMessage(`{}`)}}, claudePre, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decisionJSON(t, tt.d, tt.in); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
