package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Turn is one scripted answer of the fake model to a main-loop request.
// A turn with a ToolName calls that tool (stop_reason "tool_use"); a turn
// without one says Text and ends the conversation (stop_reason "end_turn").
// A tool-calling turn may also carry Text, which is sent as a text block
// before the tool_use block.
type Turn struct {
	// ToolName is the tool the model calls, for example "WebSearch" or
	// "mcp__server__tool". Empty means a plain text answer.
	ToolName string
	// ToolInput is marshalled to JSON and streamed as the tool input.
	ToolInput any
	// Text is the text the model says.
	Text string
	// Before, when set, runs before the turn is answered: a test waits in
	// it for something an earlier turn started (the CLI waits for the
	// model meanwhile).
	Before func()
}

// CallTool returns a turn in which the model calls the tool name with input.
func CallTool(name string, input any) Turn { return Turn{ToolName: name, ToolInput: input} }

// Say returns a turn in which the model says text and ends its turn.
func Say(text string) Turn { return Turn{Text: text} }

// RequestKind tells which part of the CLI sent a request to the fake API.
type RequestKind string

// The kinds of request the fake API tells apart.
const (
	// KindMain is a request of the agent loop; each one consumes a script turn.
	KindMain RequestKind = "main"
	// KindWebSearch is the separate call the native WebSearch tool makes,
	// carrying a web_search_* server tool.
	KindWebSearch RequestKind = "web_search"
	// KindWebFetchApply is the call the native WebFetch tool makes to apply
	// its prompt to the fetched page (no tools, "Web page content:").
	KindWebFetchApply RequestKind = "web_fetch_apply"
	// KindSide is any other model call (title generation, quota checks and
	// the like). It is answered with a short text and consumes no turn.
	KindSide RequestKind = "side"
	// KindCountTokens is a POST to /v1/messages/count_tokens.
	KindCountTokens RequestKind = "count_tokens"
	// KindOther is any other request; it is answered with 404.
	KindOther RequestKind = "other"
)

// SearchHit is one result of the fake native web search.
type SearchHit struct {
	Title string
	URL   string
}

// FakeAPI is a scriptable fake of the Anthropic Messages API on 127.0.0.1.
// Main-loop requests are answered from the script in order; the separate
// calls of the native WebSearch and WebFetch tools and other side calls are
// recognised and answered without consuming turns. Every request is recorded.
//
// Fields may be changed before the CLI runs, not while it runs.
type FakeAPI struct {
	// URL is the base URL to pass as ANTHROPIC_BASE_URL.
	URL string

	// SearchHits are returned by the fake native web search.
	SearchHits []SearchHit
	// SearchText is the commentary text of the fake native web search.
	SearchText string
	// FetchAnswer computes the answer of the WebFetch apply-prompt call from
	// the prompt text the CLI sent. The default returns a fixed prefix
	// followed by the first 200 bytes of the page content.
	FetchAnswer func(prompt string) string

	t      testing.TB
	server *httptest.Server

	mu sync.Mutex
	// searchError is the SetSearchError message.
	searchError string
	turns       []Turn
	next        int
	requests    []Request
	extra       int
	seq         int
}

// Request is one request the fake API received.
type Request struct {
	// Kind says which part of the CLI sent it.
	Kind RequestKind
	// Method and Path are the HTTP method and URL path (without the query).
	Method, Path string
	// Query is the raw URL query, for example "beta=true".
	Query string
	// Body is the raw request body.
	Body []byte
	// Messages is the parsed body of a Messages API request.
	Messages MessagesRequest
	// Turn is the index of the script turn answered for a KindMain request,
	// or -1.
	Turn int
}

// MessagesRequest is the part of a Messages API request body the tests use.
type MessagesRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	System    Content         `json:"system"`
	Messages  []Message       `json:"messages"`
	Tools     []Tool          `json:"tools"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// Message is one message of a Messages API request.
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Tool is one entry of the tools list of a request.
type Tool struct {
	Type        string          `json:"type,omitempty"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// Block is one content block of a message. Only the fields of its Type are
// set.
type Block struct {
	Type string `json:"type"`
	// Text is set for "text" blocks.
	Text string `json:"text,omitempty"`
	// ID, Name and Input are set for "tool_use" blocks.
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// ToolUseID, Content and IsError are set for "tool_result" blocks.
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   Content `json:"content,omitzero"`
	IsError   bool    `json:"is_error,omitempty"`
}

// Content is message or tool_result content: the API accepts either a plain
// string or an array of blocks. A plain string is held as one text block
// with IsString set.
type Content struct {
	Blocks   []Block
	IsString bool
}

// UnmarshalJSON accepts a string or an array of blocks.
func (c *Content) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Content{Blocks: []Block{{Type: "text", Text: s}}, IsString: true}
		return nil
	}
	if string(b) == "null" {
		*c = Content{}
		return nil
	}
	var blocks []Block
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	*c = Content{Blocks: blocks}
	return nil
}

// MarshalJSON writes the string form when IsString is set, else the blocks.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.IsString {
		return json.Marshal(c.Text())
	}
	if c.Blocks == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(c.Blocks)
}

// Text joins the text of all text blocks, without separators.
func (c Content) Text() string {
	var sb strings.Builder
	for _, b := range c.Blocks {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

// ToolResult is a tool_result the CLI sent to the model, with the text
// blocks that came after it in the same user message.
type ToolResult struct {
	// ToolUseID is the id of the scripted tool_use this result answers.
	ToolUseID string
	// ToolName is the tool the script called, when known.
	ToolName string
	// Content is the tool_result content as sent.
	Content Content
	// IsError is the tool_result is_error flag.
	IsError bool
	// After holds the text of the text blocks that follow the tool_result in
	// the same user message (for example hook additional context wrapped in
	// <system-reminder> tags).
	After []string
}

// Text returns the tool_result content as one string, exactly as sent.
func (r ToolResult) Text() string { return r.Content.Text() }

// Body returns the tool_result content without the <system-reminder>
// blocks the CLI appends to it (such as the remaining-token count), with
// surrounding white space trimmed: the tool's own answer.
func (r ToolResult) Body() string {
	return strings.TrimSpace(reminderRE.ReplaceAllString(r.Text(), ""))
}

// Reminders returns the inner text of every <system-reminder> inside the
// tool_result content and in the text blocks after it, in order. Hook
// additional context arrives here, for example
// "PostToolUse:<tool> hook additional context: C".
func (r ToolResult) Reminders() []string {
	out := reminders(r.Text())
	for _, s := range r.After {
		out = append(out, reminders(s)...)
	}
	return out
}

// HasReminder reports whether one of r's reminders contains substr.
func (r ToolResult) HasReminder(substr string) bool {
	for _, s := range r.Reminders() {
		if strings.Contains(s, substr) {
			return true
		}
	}
	return false
}

func reminders(s string) []string {
	var out []string
	for _, sm := range reminderRE.FindAllStringSubmatch(s, -1) {
		out = append(out, sm[1])
	}
	return out
}

// NewFakeAPI starts a fake Messages API on 127.0.0.1 that answers main-loop
// requests with turns, in order. It is closed when the test ends; the test
// fails then if the CLI asked for more turns than the script had.
func NewFakeAPI(t testing.TB, turns ...Turn) *FakeAPI {
	t.Helper()
	f := &FakeAPI{
		t:     t,
		turns: append([]Turn(nil), turns...),
		SearchHits: []SearchHit{
			{Title: "Fake result one", URL: "https://example.invalid/one"},
			{Title: "Fake result two", URL: "https://example.invalid/two"},
		},
		SearchText:  "FAKE-NATIVE-SEARCH-SUMMARY",
		FetchAnswer: defaultFetchAnswer,
	}
	f.server = newLoopbackServer(t, http.HandlerFunc(f.serveHTTP))
	f.URL = f.server.URL
	t.Cleanup(func() {
		f.server.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.extra > 0 {
			t.Errorf("fake API: the CLI made %d main-loop request(s) beyond the %d scripted turn(s)", f.extra, len(f.turns))
		}
	})
	return f
}

func defaultFetchAnswer(prompt string) string {
	page := prompt
	if i := strings.Index(page, "---\n"); i >= 0 {
		page = page[i+4:]
	}
	if i := strings.Index(page, "\n---"); i >= 0 {
		page = page[:i]
	}
	if len(page) > 200 {
		page = page[:200]
	}
	return "FAKE-FETCH-ANSWER: " + page
}

// Requests returns a copy of every request received so far.
func (f *FakeAPI) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// RequestsOf returns the requests of the given kind, in order.
func (f *FakeAPI) RequestsOf(kind RequestKind) []Request {
	var out []Request
	for _, r := range f.Requests() {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// TurnsUsed returns how many script turns have been answered.
func (f *FakeAPI) TurnsUsed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next
}

// ToolResults returns every tool_result answering a scripted tool call, in
// the order the CLI sent them to the model. Each is taken from the first
// main-loop request that carried it.
func (f *FakeAPI) ToolResults() []ToolResult {
	var out []ToolResult
	seen := map[string]bool{}
	for _, r := range f.RequestsOf(KindMain) {
		for _, tr := range r.ToolResults() {
			if seen[tr.ToolUseID] {
				continue
			}
			seen[tr.ToolUseID] = true
			tr.ToolName = f.toolNameOf(tr.ToolUseID)
			out = append(out, tr)
		}
	}
	return out
}

// ToolResult returns the tool_result answering the tool call of script turn
// i, failing the test when there is none.
func (f *FakeAPI) ToolResult(t testing.TB, i int) ToolResult {
	t.Helper()
	id := toolUseID(i)
	for _, tr := range f.ToolResults() {
		if tr.ToolUseID == id {
			return tr
		}
	}
	t.Fatalf("fake API: no tool_result for the tool call of turn %d (%s) reached the model; %d main-loop request(s) seen", i, id, len(f.RequestsOf(KindMain)))
	return ToolResult{}
}

func (f *FakeAPI) toolNameOf(id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, turn := range f.turns {
		if toolUseID(i) == id {
			return turn.ToolName
		}
	}
	return ""
}

// ToolResults returns the tool_result blocks of the last user message of r.
func (r Request) ToolResults() []ToolResult {
	msgs := r.Messages.Messages
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" {
		return nil
	}
	var out []ToolResult
	for _, b := range msgs[len(msgs)-1].Content.Blocks {
		switch b.Type {
		case "tool_result":
			out = append(out, ToolResult{ToolUseID: b.ToolUseID, Content: b.Content, IsError: b.IsError})
		case "text":
			if len(out) > 0 {
				out[len(out)-1].After = append(out[len(out)-1].After, b.Text)
			}
		}
	}
	return out
}

var reminderRE = regexp.MustCompile(`(?s)<system-reminder>\n?(.*?)\n?</system-reminder>`)

// SystemReminders returns the inner text of every <system-reminder> in the
// user messages of r, in order.
func (r Request) SystemReminders() []string {
	var out []string
	for _, m := range r.Messages.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.Content.Blocks {
			out = append(out, reminders(b.Text)...)
			out = append(out, reminders(b.Content.Text())...)
		}
	}
	return out
}

// HasTool reports whether the request offered the model a tool named name.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Messages.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func toolUseID(turn int) string { return fmt.Sprintf("toolu_e2e_%02d", turn) }

func (f *FakeAPI) serveHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 64<<20))
	rec := Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Body: body, Turn: -1}

	switch {
	case req.Method == http.MethodPost && req.URL.Path == "/v1/messages/count_tokens":
		rec.Kind = KindCountTokens
		f.record(rec)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"input_tokens":42}`)
		return
	case req.Method == http.MethodPost && req.URL.Path == "/v1/messages":
	default:
		rec.Kind = KindOther
		f.record(rec)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"not found"}}`)
		return
	}

	if err := json.Unmarshal(body, &rec.Messages); err != nil {
		rec.Kind = KindOther
		f.record(rec)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, err.Error())
		return
	}
	rec.Kind = classify(rec.Messages)

	var blocks []outBlock
	stop := "end_turn"
	switch rec.Kind {
	case KindMain:
		turn, idx, ok := f.takeTurn()
		rec.Turn = idx
		if !ok {
			blocks = []outBlock{{Type: "text", Text: "FAKE-SCRIPT-EXHAUSTED"}}
			break
		}
		if turn.Before != nil {
			turn.Before()
		}
		if turn.Text != "" {
			blocks = append(blocks, outBlock{Type: "text", Text: turn.Text})
		}
		if turn.ToolName != "" {
			input, err := json.Marshal(turn.ToolInput)
			if err != nil || string(input) == "null" {
				input = []byte("{}")
			}
			blocks = append(blocks, outBlock{Type: "tool_use", ID: toolUseID(idx), Name: turn.ToolName, Input: input})
			stop = "tool_use"
		}
		if len(blocks) == 0 {
			blocks = []outBlock{{Type: "text", Text: "OK"}}
		}
	case KindWebSearch:
		f.mu.Lock()
		searchError := f.searchError
		f.mu.Unlock()
		if searchError != "" {
			f.record(rec)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			msg, _ := json.Marshal(searchError)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%s}}`, msg)
			return
		}
		blocks = f.searchBlocks(rec.Messages)
	case KindWebFetchApply:
		blocks = []outBlock{{Type: "text", Text: f.FetchAnswer(lastUserText(rec.Messages))}}
	default:
		blocks = []outBlock{{Type: "text", Text: "Fake side answer"}}
	}
	f.record(rec)

	if rec.Messages.Stream {
		writeSSE(w, rec.Messages.Model, f.newMessageID(), blocks, stop)
	} else {
		writeJSON(w, rec.Messages.Model, f.newMessageID(), blocks, stop)
	}
}

// SetSearchError makes the fake answer the native web search's call with
// an HTTP 400 error carrying msg, as an endpoint that does not support
// Anthropic's server tools does; "" restores the normal answer.
func (f *FakeAPI) SetSearchError(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.searchError = msg
}

func (f *FakeAPI) record(r Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r)
}

func (f *FakeAPI) takeTurn() (Turn, int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.next >= len(f.turns) {
		f.extra++
		return Turn{}, -1, false
	}
	i := f.next
	f.next++
	return f.turns[i], i, true
}

func (f *FakeAPI) newMessageID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	return fmt.Sprintf("msg_e2e_%04d", f.seq)
}

// classify tells the agent loop's requests apart from the CLI's other calls.
func classify(m MessagesRequest) RequestKind {
	for _, t := range m.Tools {
		if strings.HasPrefix(t.Type, "web_search_") {
			return KindWebSearch
		}
	}
	if len(m.Tools) == 0 {
		if strings.Contains(lastUserText(m), "Web page content:") {
			return KindWebFetchApply
		}
		return KindSide
	}
	return KindMain
}

// lastUserText returns the text of the last user message, tool_result
// contents included.
func lastUserText(m MessagesRequest) string {
	for i := len(m.Messages) - 1; i >= 0; i-- {
		if m.Messages[i].Role != "user" {
			continue
		}
		var sb strings.Builder
		for _, b := range m.Messages[i].Content.Blocks {
			sb.WriteString(b.Text)
			sb.WriteString(b.Content.Text())
		}
		return sb.String()
	}
	return ""
}

var searchQueryRE = regexp.MustCompile(`(?m)Perform a web search for the query:\s*(.*)$`)

func (f *FakeAPI) searchBlocks(m MessagesRequest) []outBlock {
	query := ""
	if sm := searchQueryRE.FindStringSubmatch(lastUserText(m)); sm != nil {
		query = strings.TrimSpace(sm[1])
	}
	input, _ := json.Marshal(map[string]string{"query": query})
	results := make([]map[string]any, 0, len(f.SearchHits))
	for _, h := range f.SearchHits {
		results = append(results, map[string]any{
			"type": "web_search_result", "title": h.Title, "url": h.URL,
			"encrypted_content": "ZmFrZQ==", "page_age": nil,
		})
	}
	return []outBlock{
		{Type: "server_tool_use", ID: "srvtoolu_e2e_01", Name: "web_search", Input: input},
		{Type: "web_search_tool_result", ToolUseID: "srvtoolu_e2e_01", Results: results},
		{Type: "text", Text: f.SearchText},
	}
}
