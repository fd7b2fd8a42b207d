package hooks

import (
	"errors"
	"strings"
	"testing"
)

func TestParseInput_RecognisesEachRuntimeShape(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		runtime Runtime
		event   Event
		tool    string
		session string
		query   string
	}{
		{
			name:    "claude code pre tool use",
			payload: `{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","prompt_id":"x","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"go generics"},"tool_use_id":"toolu_1","effort":{"level":"high"}}`,
			runtime: ClaudeCode, event: PreToolUse, tool: "WebSearch", session: "s1", query: "go generics",
		},
		{
			name:    "copilot camelCase with toolArgs as a JSON string",
			payload: `{"sessionId":"c1","timestamp":1704614600000,"cwd":"/p","toolName":"web_fetch","toolArgs":"{\"url\":\"https://example.com\"}"}`,
			runtime: CopilotCLI, event: PreToolUse, tool: "web_fetch", session: "c1",
		},
		{
			name:    "copilot camelCase with toolArgs as an object",
			payload: `{"sessionId":"c2","toolName":"web_fetch","toolArgs":{"url":"https://example.com"}}`,
			runtime: CopilotCLI, event: PreToolUse, tool: "web_fetch", session: "c2",
		},
		{
			name:    "copilot camelCase post tool use",
			payload: `{"sessionId":"c3","toolName":"web_fetch","toolArgs":"{}","toolResult":{"resultType":"success","textResultForLlm":"x"}}`,
			runtime: CopilotCLI, event: PostToolUse, tool: "web_fetch", session: "c3",
		},
		{
			name:    "copilot PascalCase payload is answered like claude code",
			payload: `{"hook_event_name":"PreToolUse","session_id":"c4","timestamp":"2026-01-01T00:00:00Z","cwd":"/p","tool_name":"WebSearch","tool_input":{"query":"abc"}}`,
			runtime: ClaudeCode, event: PreToolUse, tool: "WebSearch", session: "c4", query: "abc",
		},
		{
			name:    "vscode",
			payload: `{"timestamp":"2026-01-01T00:00:00Z","cwd":"/p","sessionId":"v1","hookEventName":"PreToolUse","transcript_path":"/t","tool_name":"editFiles","tool_input":{"filePath":"a.go"},"tool_use_id":"u"}`,
			runtime: VSCode, event: PreToolUse, tool: "editFiles", session: "v1",
		},
		{
			name:    "camelCase event name is normalised",
			payload: `{"hookEventName":"preToolUse","sessionId":"v2","tool_name":"WebSearch","tool_input":{"query":"xy"}}`,
			runtime: VSCode, event: PreToolUse, tool: "WebSearch", session: "v2", query: "xy",
		},
		{
			name:    "session start without a tool",
			payload: `{"session_id":"s","hook_event_name":"SessionStart","source":"startup"}`,
			runtime: ClaudeCode, event: "SessionStart", session: "s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := ParseInput([]byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			if in.Runtime != tt.runtime || in.Event != tt.event || in.ToolName != tt.tool || in.SessionID != tt.session {
				t.Errorf("got runtime %q event %q tool %q session %q", in.Runtime, in.Event, in.ToolName, in.SessionID)
			}
			if q := in.SearchArgs().Query; q != tt.query {
				t.Errorf("query = %q, want %q", q, tt.query)
			}
		})
	}
}

func TestParseInput_DecodesCopilotToolArgsString(t *testing.T) {
	in, err := ParseInput([]byte(`{"toolName":"web_fetch","toolArgs":"{\"url\":\"https://example.com/a\",\"max_length\":5000}"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := in.FetchArgs().URL; got != "https://example.com/a" {
		t.Errorf("url = %q", got)
	}
}

func TestParseInput_RejectsInputThatIsNoHookPayload(t *testing.T) {
	for _, payload := range []string{"", "   \n", "null", "[1,2]", "not json", `{"a":1}`, `{"hook_event_name":`, `{"tool_name":"WebSearch"}`} {
		if _, err := ParseInput([]byte(payload)); err == nil {
			t.Errorf("ParseInput(%q) succeeded, want an error", payload)
		}
	}
}

func TestParseInput_ReadsPostToolUseFields(t *testing.T) {
	in, err := ParseInput([]byte(`{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__ccs-websearch__WebSearch","tool_input":{"query":"q q"},"error":"MCP error -32000: boom","is_interrupt":false,"duration_ms":12}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.Event != PostToolUseFailure || in.Error != "MCP error -32000: boom" {
		t.Errorf("event %q error %q", in.Event, in.Error)
	}
	in, _ = ParseInput([]byte(`{"hook_event_name":"PostToolUse","tool_name":"m","tool_response":[{"type":"text","text":"x"}]}`))
	if string(in.ToolResponse) != `[{"type":"text","text":"x"}]` {
		t.Errorf("tool_response = %s", in.ToolResponse)
	}
}

func TestSearchArgs_ReadsDomainListsLeniently(t *testing.T) {
	in, _ := ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"  q1  ","allowed_domains":["go.dev"," ",""],"blocked_domains":"spam.example"}}`))
	a := in.SearchArgs()
	if a.Query != "q1" || strings.Join(a.AllowedDomains, ",") != "go.dev" || strings.Join(a.BlockedDomains, ",") != "spam.example" {
		t.Errorf("args = %+v", a)
	}
}

func TestFetchArgs_AcceptsURLListAndQuery(t *testing.T) {
	in, _ := ParseInput([]byte(`{"hookEventName":"PreToolUse","tool_name":"fetch","tool_input":{"urls":["https://a.example/"],"query":"what"}}`))
	if a := in.FetchArgs(); a.URL != "https://a.example/" || a.Prompt != "what" {
		t.Errorf("args = %+v", a)
	}
}

func TestReadInput_RejectsInputOverTheCap(t *testing.T) {
	big := `{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"` + strings.Repeat("a", 200) + `"}}`
	_, err := ReadInput(strings.NewReader(big), 100)
	if !errors.Is(err, ErrInputTooLarge) {
		t.Fatalf("err = %v, want ErrInputTooLarge", err)
	}
	if _, err := ReadInput(strings.NewReader(big), int64(len(big))); err != nil {
		t.Fatalf("input of exactly the cap: %v", err)
	}
}

func FuzzParseInput(f *testing.F) {
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"x"}}`))
	f.Add([]byte(`{"toolName":"web_fetch","toolArgs":"{\"url\":\"u\"}"}`))
	f.Add([]byte(`{"hookEventName":"PostToolUse","tool_name":"t","tool_response":"s"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseInput(data)
		if err != nil {
			return
		}
		_ = in.SearchArgs()
		_ = in.FetchArgs()
		for _, d := range []Decision{{Action: Deny, Reason: "r"}, {Action: AddContext, Context: "c"}, {SystemMessage: "m"}} {
			if err := d.Write(&strings.Builder{}, in); err != nil {
				t.Fatal(err)
			}
		}
	})
}
