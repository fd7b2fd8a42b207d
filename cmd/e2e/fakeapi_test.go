package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// assembled is a model answer rebuilt from the fake's SSE stream or JSON.
type assembled struct {
	events     []string
	blocks     []map[string]any
	stopReason string
}

func post(t *testing.T, api *FakeAPI, path string, body any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(api.URL+path, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// readSSE rebuilds the message the way a Messages API client does.
func readSSE(t *testing.T, r io.Reader) assembled {
	t.Helper()
	var a assembled
	partial := map[int]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if ev, ok := strings.CutPrefix(line, "event: "); ok {
			a.events = append(a.events, ev)
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var e struct {
			Type         string         `json:"type"`
			Index        int            `json:"index"`
			ContentBlock map[string]any `json:"content_block"`
			Delta        map[string]any `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("bad SSE data %q: %v", data, err)
		}
		switch e.Type {
		case "content_block_start":
			a.blocks = append(a.blocks, e.ContentBlock)
		case "content_block_delta":
			switch e.Delta["type"] {
			case "text_delta":
				a.blocks[e.Index]["text"] = a.blocks[e.Index]["text"].(string) + e.Delta["text"].(string)
			case "input_json_delta":
				partial[e.Index] += e.Delta["partial_json"].(string)
			}
		case "content_block_stop":
			if p, ok := partial[e.Index]; ok {
				var in any
				if err := json.Unmarshal([]byte(p), &in); err != nil {
					t.Fatalf("tool input %q is not JSON: %v", p, err)
				}
				a.blocks[e.Index]["input"] = in
			}
		case "message_delta":
			a.stopReason, _ = e.Delta["stop_reason"].(string)
		}
	}
	return a
}

func mainRequest(messages ...any) map[string]any {
	return map[string]any{
		"model": DefaultModel, "max_tokens": 32000, "stream": true,
		"tools":    []any{map[string]any{"name": "WebSearch", "input_schema": map[string]any{"type": "object"}}},
		"messages": messages,
	}
}

func userText(s string) map[string]any { return map[string]any{"role": "user", "content": s} }

func TestFakeAPI_StreamsScriptedToolCallThenTextInMessagesEventOrder(t *testing.T) {
	api := NewFakeAPI(t, CallTool("WebSearch", map[string]any{"query": "go"}), Say("all done"))

	resp := post(t, api, "/v1/messages?beta=true", mainRequest(userText("hi")))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q, want text/event-stream", ct)
	}
	first := readSSE(t, resp.Body)
	wantEvents := "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(first.events, " "); got != wantEvents {
		t.Errorf("events = %q, want %q", got, wantEvents)
	}
	if first.stopReason != "tool_use" || len(first.blocks) != 1 {
		t.Fatalf("first answer = %+v, want one tool_use block", first)
	}
	b := first.blocks[0]
	if b["type"] != "tool_use" || b["name"] != "WebSearch" || b["id"] != "toolu_e2e_00" ||
		b["input"].(map[string]any)["query"] != "go" {
		t.Errorf("tool_use block = %v", b)
	}

	second := readSSE(t, post(t, api, "/v1/messages", mainRequest(userText("hi"))).Body)
	if second.stopReason != "end_turn" || len(second.blocks) != 1 || second.blocks[0]["text"] != "all done" {
		t.Errorf("second answer = %+v, want the text \"all done\" and end_turn", second)
	}
	if api.TurnsUsed() != 2 {
		t.Errorf("turns used = %d, want 2", api.TurnsUsed())
	}
}

func TestFakeAPI_AnswersNativeWebSearchCallWithoutUsingATurn(t *testing.T) {
	api := NewFakeAPI(t, Say("unused"))
	body := map[string]any{
		"model": DefaultModel, "max_tokens": 32000, "stream": true,
		"tools":    []any{map[string]any{"type": "web_search_20250305", "name": "web_search", "max_uses": 8}},
		"messages": []any{userText("Perform a web search for the query: golang generics")},
	}
	got := readSSE(t, post(t, api, "/v1/messages?beta=true", body).Body)

	if api.TurnsUsed() != 0 {
		t.Errorf("turns used = %d, want 0", api.TurnsUsed())
	}
	if len(got.blocks) != 3 || got.blocks[0]["type"] != "server_tool_use" ||
		got.blocks[1]["type"] != "web_search_tool_result" || got.blocks[2]["text"] != api.SearchText {
		t.Fatalf("answer blocks = %v, want server_tool_use, web_search_tool_result, text", got.blocks)
	}
	if q := got.blocks[0]["input"].(map[string]any)["query"]; q != "golang generics" {
		t.Errorf("server_tool_use query = %v, want %q", q, "golang generics")
	}
	results := got.blocks[1]["content"].([]any)
	if len(results) != len(api.SearchHits) || results[0].(map[string]any)["url"] != api.SearchHits[0].URL {
		t.Errorf("search results = %v, want the configured hits", results)
	}
	if k := api.Requests()[0].Kind; k != KindWebSearch {
		t.Errorf("recorded kind = %q, want %q", k, KindWebSearch)
	}
}

func TestFakeAPI_AnswersWebFetchApplyAndSideCallsWithoutUsingTurns(t *testing.T) {
	api := NewFakeAPI(t, Say("unused"))
	api.FetchAnswer = func(prompt string) string { return "ANSWER(" + prompt[:17] + ")" }

	fetch := map[string]any{
		"model": DefaultModel, "max_tokens": 1024, "stream": false,
		"messages": []any{userText("Web page content:\n---\nhello\n---\n\nsummarise")},
	}
	resp := post(t, api, "/v1/messages", fetch)
	var msg struct {
		Content    []map[string]any `json:"content"`
		StopReason string           `json:"stop_reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 1 || msg.Content[0]["text"] != "ANSWER(Web page content:)" || msg.StopReason != "end_turn" {
		t.Errorf("fetch answer = %+v", msg)
	}

	side := readSSE(t, post(t, api, "/v1/messages", map[string]any{
		"model": DefaultModel, "max_tokens": 50, "stream": true, "messages": []any{userText("Write a title")},
	}).Body)
	if len(side.blocks) != 1 || side.blocks[0]["type"] != "text" {
		t.Errorf("side answer = %+v, want one text block", side)
	}
	if api.TurnsUsed() != 0 {
		t.Errorf("turns used = %d, want 0", api.TurnsUsed())
	}
	kinds := []RequestKind{api.Requests()[0].Kind, api.Requests()[1].Kind}
	if kinds[0] != KindWebFetchApply || kinds[1] != KindSide {
		t.Errorf("recorded kinds = %v, want [%s %s]", kinds, KindWebFetchApply, KindSide)
	}
}

func TestFakeAPI_CountsTokensAndRefusesUnknownPaths(t *testing.T) {
	api := NewFakeAPI(t)
	resp := post(t, api, "/v1/messages/count_tokens", map[string]any{"messages": []any{userText("x")}})
	var ct struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ct); err != nil || resp.StatusCode != 200 || ct.InputTokens <= 0 {
		t.Errorf("count_tokens = %d %+v (%v), want 200 and a positive count", resp.StatusCode, ct, err)
	}
	get, err := http.Get(api.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	_ = get.Body.Close()
	if get.StatusCode != http.StatusNotFound {
		t.Errorf("GET /v1/models = %d, want 404", get.StatusCode)
	}
	got := []RequestKind{api.Requests()[0].Kind, api.Requests()[1].Kind}
	if got[0] != KindCountTokens || got[1] != KindOther {
		t.Errorf("recorded kinds = %v", got)
	}
}

func TestFakeAPI_ExtractsToolResultsErrorsAndRemindersTheModelReceived(t *testing.T) {
	api := NewFakeAPI(t, CallTool("WebSearch", map[string]any{"query": "q"}), Say("done"))
	readSSE(t, post(t, api, "/v1/messages", mainRequest(userText("hi"))).Body)
	readSSE(t, post(t, api, "/v1/messages", mainRequest(
		userText("hi"),
		map[string]any{"role": "assistant", "content": []any{map[string]any{
			"type": "tool_use", "id": "toolu_e2e_00", "name": "WebSearch", "input": map[string]any{"query": "q"}}}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_e2e_00", "is_error": true,
				"content": "denied: q\n\n<system-reminder>\n<total_tokens>9 tokens left</total_tokens>\n</system-reminder>"},
			map[string]any{"type": "text", "text": "<system-reminder>\nPreToolUse:WebSearch hook additional context: C\n</system-reminder>"},
		}},
	)).Body)

	got := api.ToolResult(t, 0)
	if got.ToolName != "WebSearch" || !got.IsError || got.Body() != "denied: q" {
		t.Errorf("tool result = %+v (body %q), want the WebSearch error \"denied: q\"", got, got.Body())
	}
	if !got.HasReminder("PreToolUse:WebSearch hook additional context: C") || !got.HasReminder("<total_tokens>") {
		t.Errorf("reminders = %q, want the hook context and the token count", got.Reminders())
	}
	if n := len(api.ToolResults()); n != 1 {
		t.Errorf("tool results = %d, want 1", n)
	}
}

func TestContent_AcceptsStringOrBlocksAndWritesBackTheSameShape(t *testing.T) {
	for _, in := range []string{`"plain"`, `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`} {
		var c Content
		if err := json.Unmarshal([]byte(in), &c); err != nil {
			t.Fatalf("unmarshal %s: %v", in, err)
		}
		out, _ := json.Marshal(c)
		if string(out) != in {
			t.Errorf("round trip of %s = %s", in, out)
		}
	}
}

func TestSettings_WritesArgsOnlyForExecFormHooks(t *testing.T) {
	s := new(Settings).
		AddHook("PreToolUse", "WebSearch", ShellHook("/bin/hook pre")).
		AddHook("SessionStart", "", ExecHook("/bin/hook"), HookCommand{Command: "/bin/x", Args: []string{"a"}, Timeout: 5})
	var got map[string]any
	if err := json.Unmarshal(s.JSON(), &got); err != nil {
		t.Fatal(err)
	}
	hooks := got["hooks"].(map[string]any)
	shell := hooks["PreToolUse"].([]any)[0].(map[string]any)
	if shell["matcher"] != "WebSearch" {
		t.Errorf("matcher = %v", shell["matcher"])
	}
	if h := shell["hooks"].([]any)[0].(map[string]any); h["type"] != "command" || h["command"] != "/bin/hook pre" || h["args"] != nil {
		t.Errorf("shell-form hook = %v, want type command without args", h)
	}
	start := hooks["SessionStart"].([]any)[0].(map[string]any)
	if _, ok := start["matcher"]; ok {
		t.Errorf("empty matcher written: %v", start)
	}
	execs := start["hooks"].([]any)
	if a, ok := execs[0].(map[string]any)["args"].([]any); !ok || len(a) != 0 {
		t.Errorf("exec-form hook without arguments = %v, want an empty args list", execs[0])
	}
	if h := execs[1].(map[string]any); h["timeout"] != 5.0 || h["args"].([]any)[0] != "a" {
		t.Errorf("exec-form hook = %v, want args [a] and timeout 5", h)
	}
}

func TestVersionAtLeast_ComparesDottedVersionsNumerically(t *testing.T) {
	for _, tc := range []struct {
		v, min string
		want   bool
	}{
		{"2.1.330", "2.1.281", true},
		{"2.1.281", "2.1.281", true},
		{"2.1.280", "2.1.281", false},
		{"2.1.1000", "2.1.999", true},
		{"2.2", "2.1.999", true},
		{"1.9.9", "2.0", false},
	} {
		if got := VersionAtLeast(tc.v, tc.min); got != tc.want {
			t.Errorf("VersionAtLeast(%q, %q) = %v, want %v", tc.v, tc.min, got, tc.want)
		}
	}
	if got := DenyContent("2.1.197", "WebSearch", "R"); got != "R" {
		t.Errorf("DenyContent on 2.1.197 = %q, want the bare reason", got)
	}
	if got := DenyContent("2.1.330", "WebFetch", "R"); got != "PreToolUse:WebFetch hook error: R" {
		t.Errorf("DenyContent on 2.1.330 = %q", got)
	}
}

func TestRefusingProxy_RefusesConnectAndRecordsIt(t *testing.T) {
	p := NewRefusingProxy(t)
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_, _ = io.WriteString(c, "CONNECT api.example.invalid:443 HTTP/1.1\r\nHost: api.example.invalid:443\r\n\r\n")
	status, _ := bufio.NewReader(c).ReadString('\n')
	if !strings.HasPrefix(status, "HTTP/1.1 403") {
		t.Errorf("proxy answered %q, want 403", status)
	}
	if got := p.Attempts(); len(got) != 1 || got[0] != "CONNECT api.example.invalid:443 HTTP/1.1" {
		t.Errorf("attempts = %q", got)
	}
}
