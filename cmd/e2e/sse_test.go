package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// outBlock is one content block of a fake model answer.
type outBlock struct {
	Type string
	Text string
	// tool_use and server_tool_use
	ID    string
	Name  string
	Input json.RawMessage
	// web_search_tool_result
	ToolUseID string
	Results   []map[string]any
}

// full returns the block as it appears in a non-streamed message.
func (b outBlock) full() map[string]any {
	switch b.Type {
	case "text":
		return map[string]any{"type": "text", "text": b.Text}
	case "tool_use", "server_tool_use":
		return map[string]any{"type": b.Type, "id": b.ID, "name": b.Name, "input": b.Input}
	default:
		return map[string]any{"type": b.Type, "tool_use_id": b.ToolUseID, "content": b.Results}
	}
}

// start returns the block as announced in content_block_start: text and
// tool input are empty there and arrive in deltas.
func (b outBlock) start() map[string]any {
	switch b.Type {
	case "text":
		return map[string]any{"type": "text", "text": ""}
	case "tool_use", "server_tool_use":
		return map[string]any{"type": b.Type, "id": b.ID, "name": b.Name, "input": map[string]any{}}
	default:
		return b.full()
	}
}

func usage(out int) map[string]any {
	return map[string]any{
		"input_tokens": 10, "output_tokens": out,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
	}
}

// writeSSE streams a message in the Messages API event-stream format.
func writeSSE(w http.ResponseWriter, model, id string, blocks []outBlock, stop string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_"+id)
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		_, _ = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage(1),
		},
	})
	for i, b := range blocks {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": b.start()})
		switch b.Type {
		case "text":
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		case "tool_use", "server_tool_use":
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5},
	})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// writeJSON answers a non-streamed request with the whole message.
func writeJSON(w http.ResponseWriter, model, id string, blocks []outBlock, stop string) {
	content := make([]any, 0, len(blocks))
	for _, b := range blocks {
		content = append(content, b.full())
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_"+id)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage(5),
	})
}
