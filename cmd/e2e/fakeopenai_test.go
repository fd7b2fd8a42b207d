package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// FakeResponses is a scriptable fake of the OpenAI Responses API on
// 127.0.0.1, for Codex CLI: each POST /v1/responses consumes the next
// scripted [Turn] and is answered with the streamed event sequence
// (response.created, response.output_item.done, response.completed). A
// turn calling a tool named "mcp__<server>__<tool>" calls the MCP tool as
// Codex offers it, the function <tool> in the namespace "mcp__<server>";
// any other name is a plain function call. Every request is recorded.
type FakeResponses struct {
	// URL is the base URL for a Codex model provider's base_url, ending in
	// "/v1".
	URL string

	mu     sync.Mutex
	turns  []Turn
	next   int
	extra  int
	bodies [][]byte
	paths  []string
}

// NewFakeResponses starts a FakeResponses answering with turns, in order.
// It is closed when the test ends; the test fails then if the CLI asked
// for more turns than the script had.
func NewFakeResponses(t testing.TB, turns ...Turn) *FakeResponses {
	t.Helper()
	f := &FakeResponses{turns: append([]Turn(nil), turns...)}
	f.URL = startScripted(t, f.serve, "fake Responses API", "request(s)", &f.mu, &f.extra, len(f.turns)) + "/v1"
	return f
}

// Requests returns the bodies of the POST /v1/responses requests received
// so far.
func (f *FakeResponses) Requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies...)
}

// Paths returns the method and path of every request received, in order.
func (f *FakeResponses) Paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}

// ResponsesInputItem is one item of a request's input, reduced to what
// the tests read.
type ResponsesInputItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role,omitempty"`
	Name      string          `json:"name,omitempty"`
	Namespace string          `json:"namespace,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Arguments string          `json:"arguments,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

// OutputText returns a function_call_output's output as text: the string
// itself, or the text parts of a list of content items, one per line.
func (it ResponsesInputItem) OutputText() string {
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(it.Output, &parts) == nil {
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.Text
		}
		return strings.Join(texts, "\n")
	}
	return string(it.Output)
}

// Input returns the input items of request i.
func (f *FakeResponses) Input(t testing.TB, i int) []ResponsesInputItem {
	t.Helper()
	reqs := f.Requests()
	if i >= len(reqs) {
		t.Fatalf("fake Responses API: request %d not received (%d seen)", i, len(reqs))
	}
	var body struct {
		Input []ResponsesInputItem `json:"input"`
	}
	if err := json.Unmarshal(reqs[i], &body); err != nil {
		t.Fatalf("fake Responses API: request %d: %v", i, err)
	}
	return body.Input
}

// ToolOutput returns the function_call_output answering the tool call of
// script turn i, failing the test when none reached the model.
func (f *FakeResponses) ToolOutput(t testing.TB, i int) ResponsesInputItem {
	t.Helper()
	id := callID(i)
	for n := range f.Requests() {
		for _, it := range f.Input(t, n) {
			if it.Type == "function_call_output" && it.CallID == id {
				return it
			}
		}
	}
	t.Fatalf("fake Responses API: no function_call_output for the call of turn %d (%s) reached the model", i, id)
	return ResponsesInputItem{}
}

// ToolNames returns the names of the tools the first request offered,
// "namespace/name" for the tools of a namespace.
func (f *FakeResponses) ToolNames(t testing.TB) []string {
	t.Helper()
	reqs := f.Requests()
	if len(reqs) == 0 {
		t.Fatal("fake Responses API: no request received")
	}
	var body struct {
		Tools []struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0], &body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range body.Tools {
		if tl.Type == "namespace" {
			for _, sub := range tl.Tools {
				out = append(out, tl.Name+"/"+sub.Name)
			}
			continue
		}
		out = append(out, tl.Name)
	}
	return out
}

func callID(turn int) string { return fmt.Sprintf("call_e2e_%02d", turn) }

func (f *FakeResponses) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	f.mu.Lock()
	f.paths = append(f.paths, r.Method+" "+r.URL.Path)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		f.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	f.bodies = append(f.bodies, body)
	idx := f.next
	turn, ok := takeTurn(f.turns, &f.next, &f.extra)
	seq := len(f.bodies)
	f.mu.Unlock()

	respID := fmt.Sprintf("resp_e2e_%02d", seq)
	var items []map[string]any
	switch {
	case !ok:
		items = append(items, responsesMessage(seq, "FAKE-SCRIPT-EXHAUSTED"))
	case turn.ToolName != "":
		args, err := json.Marshal(turn.ToolInput)
		if err != nil || string(args) == "null" {
			args = []byte("{}")
		}
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_e2e_%02d", idx), "call_id": callID(idx),
			"name": turn.ToolName, "arguments": string(args), "status": "completed"}
		if ns, name, found := strings.Cut(strings.TrimPrefix(turn.ToolName, "mcp__"), "__"); found && strings.HasPrefix(turn.ToolName, "mcp__") {
			item["namespace"] = "mcp__" + ns
			item["name"] = name
		}
		if turn.Text != "" {
			items = append(items, responsesMessage(seq, turn.Text))
		}
		items = append(items, item)
	default:
		items = append(items, responsesMessage(seq, turn.Text))
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(data map[string]any) {
		b, _ := json.Marshal(data)
		_, _ = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})
	for i, it := range items {
		send(map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		send(map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	send(map[string]any{"type": "response.completed", "response": map[string]any{
		"id": respID,
		"usage": map[string]any{
			"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": 15,
		},
	}})
}

func responsesMessage(seq int, text string) map[string]any {
	return map[string]any{
		"type": "message", "id": fmt.Sprintf("msg_e2e_%02d", seq), "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}},
	}
}
