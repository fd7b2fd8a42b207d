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

// FakeGemini is a scriptable fake of the Gemini API (generateContent and
// streamGenerateContent) on 127.0.0.1, for Gemini CLI. A request that
// declares functions is a turn of the agent loop and consumes the next
// scripted [Turn]: [CallTool] makes the model call a function, [Say]
// makes it answer and stop. The CLI's other model calls are answered
// without consuming turns: google_web_search's own request (it carries
// the googleSearch tool) with [FakeGemini.SearchText], web_fetch's
// (urlContext) with [FakeGemini.FetchText], and any other call (such as
// the model router's JSON-mode request) with a short JSON text. Every
// request is recorded.
type FakeGemini struct {
	// URL is the base URL to pass as GOOGLE_GEMINI_BASE_URL.
	URL string
	// SearchText and FetchText answer the native web tools' requests.
	SearchText, FetchText string

	mu       sync.Mutex
	turns    []Turn
	next     int
	extra    int
	requests []GeminiRequest
}

// GeminiRequest is one request FakeGemini received.
type GeminiRequest struct {
	// Kind is "main", "google_search", "url_context" or "side".
	Kind string
	// Path is the URL path, for example
	// "/v1beta/models/gemini-2.5-flash:streamGenerateContent".
	Path string
	// Body is the raw request body.
	Body []byte
	// Contents are the request's contents.
	Contents []GeminiContent
}

// GeminiContent is one content of a request.
type GeminiContent struct {
	Role  string       `json:"role"`
	Parts []GeminiPart `json:"parts"`
}

// GeminiPart is one part of a content, reduced to what the tests read.
type GeminiPart struct {
	Text         string `json:"text,omitempty"`
	FunctionCall *struct {
		ID   string         `json:"id,omitempty"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		ID       string         `json:"id,omitempty"`
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse,omitempty"`
}

// NewFakeGemini starts a FakeGemini answering agent-loop requests with
// turns, in order. It is closed when the test ends; the test fails then if
// the CLI asked for more turns than the script had.
func NewFakeGemini(t testing.TB, turns ...Turn) *FakeGemini {
	t.Helper()
	f := &FakeGemini{turns: append([]Turn(nil), turns...),
		SearchText: "FAKE-GOOGLE-SEARCH-ANSWER", FetchText: "FAKE-URL-CONTEXT-ANSWER"}
	f.URL = startScripted(t, f.serve, "fake Gemini API", "agent-loop request(s)", &f.mu, &f.extra, len(f.turns))
	return f
}

// Requests returns every request received so far.
func (f *FakeGemini) Requests() []GeminiRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]GeminiRequest(nil), f.requests...)
}

// RequestsOf returns the requests of the given kind.
func (f *FakeGemini) RequestsOf(kind string) []GeminiRequest {
	var out []GeminiRequest
	for _, r := range f.Requests() {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// FunctionResponses returns the functionResponse parts of the last
// agent-loop request, the whole history, in order: with a script whose
// first turns call tools, the i-th answers the call of turn i.
func (f *FakeGemini) FunctionResponses() []GeminiPart {
	main := f.RequestsOf("main")
	if len(main) == 0 {
		return nil
	}
	var out []GeminiPart
	for _, c := range main[len(main)-1].Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				out = append(out, p)
			}
		}
	}
	return out
}

func (f *FakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := GeminiRequest{Path: r.URL.Path, Body: body}
	var req struct {
		Contents []GeminiContent  `json:"contents"`
		Tools    []map[string]any `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	rec.Contents = req.Contents
	rec.Kind = "side"
	for _, tl := range req.Tools {
		switch {
		case tl["functionDeclarations"] != nil:
			rec.Kind = "main"
		case tl["googleSearch"] != nil:
			rec.Kind = "google_search"
		case tl["urlContext"] != nil:
			rec.Kind = "url_context"
		}
	}
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") {
		f.record(rec)
		http.NotFound(w, r)
		return
	}
	if strings.HasSuffix(r.URL.Path, ":countTokens") {
		f.record(rec)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"totalTokens":42}`)
		return
	}
	var parts []map[string]any
	var extra map[string]any
	switch rec.Kind {
	case "main":
		f.mu.Lock()
		turn, ok := takeTurn(f.turns, &f.next, &f.extra)
		f.mu.Unlock()
		switch {
		case !ok:
			parts = append(parts, map[string]any{"text": "FAKE-SCRIPT-EXHAUSTED"})
		case turn.ToolName != "":
			if turn.Text != "" {
				parts = append(parts, map[string]any{"text": turn.Text})
			}
			args := turn.ToolInput
			if args == nil {
				args = map[string]any{}
			}
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": turn.ToolName, "args": args}})
		default:
			parts = append(parts, map[string]any{"text": turn.Text})
		}
	case "google_search":
		parts = append(parts, map[string]any{"text": f.SearchText})
		extra = map[string]any{"groundingMetadata": map[string]any{
			"groundingChunks": []any{map[string]any{"web": map[string]any{"uri": "https://example.invalid/one", "title": "Fake result one"}}},
		}}
	case "url_context":
		parts = append(parts, map[string]any{"text": f.FetchText})
	default:
		// The model router and similar calls ask for JSON.
		parts = append(parts, map[string]any{"text": `{"reasoning":"fake","model_choice":"flash"}`})
	}
	f.record(rec)
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
	for k, v := range extra {
		cand[k] = v
	}
	resp := map[string]any{
		"candidates":    []any{cand},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-e2e",
	}
	b, _ := json.Marshal(resp)
	if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func (f *FakeGemini) record(r GeminiRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r)
}
