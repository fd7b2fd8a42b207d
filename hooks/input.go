package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Runtime is the agent that ran the hook.
type Runtime string

// The runtimes a hook recognises.
const (
	// ClaudeCode is Claude Code: snake_case fields, "hook_event_name".
	// Copilot CLI's PascalCase-event ("VS Code compatible") payloads have the
	// same shape and are answered the same way.
	ClaudeCode Runtime = "claude-code"
	// CopilotCLI is GitHub Copilot CLI with a camelCase event: "toolName",
	// "toolArgs" (a JSON string) and "sessionId", answered with a top-level
	// permission decision.
	CopilotCLI Runtime = "copilot-cli"
	// VSCode is VS Code agent hooks: "hookEventName" and "sessionId", with
	// snake_case tool fields and VS Code's own tool names.
	VSCode Runtime = "vscode"
	// GeminiCLI is Gemini CLI: Claude Code's snake_case fields with events
	// of its own, BeforeTool (read as PreToolUse) and AfterTool (read as
	// PostToolUse, or PostToolUseFailure when the tool's response carries
	// an error), answered with a top-level decision and reason.
	GeminiCLI Runtime = "gemini-cli"
)

// Event is a hook event name, normalised to Claude Code's PascalCase spelling.
type Event string

// The events the hooks act on. Any other event is kept as sent, so handlers
// can recognise and ignore it.
const (
	PreToolUse         Event = "PreToolUse"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	// SessionStart starts (or resumes, clears or compacts) a session.
	SessionStart Event = "SessionStart"
)

// DefaultMaxInputBytes caps how much of stdin [Run] reads: 4 MiB.
const DefaultMaxInputBytes = 4 << 20

// ErrInputTooLarge is returned by [ReadInput] when stdin holds more than the
// cap.
var ErrInputTooLarge = errors.New("hook input too large")

// Input is one decoded hook payload, whatever runtime sent it.
type Input struct {
	// Runtime is the agent that sent the payload.
	Runtime Runtime
	// Event is the hook event, PascalCase ("PreToolUse"). Copilot CLI's
	// camelCase payloads carry no event name; it is inferred from the fields
	// present (toolResult → PostToolUse, error → PostToolUseFailure,
	// otherwise PreToolUse). Gemini CLI's BeforeTool and AfterTool are
	// read as PreToolUse and PostToolUse (PostToolUseFailure when the
	// tool_response holds an error).
	Event Event
	// ToolName is the tool the event is about, as the runtime names it.
	ToolName string
	// ToolInput is the tool's arguments as a JSON object (Copilot's
	// "toolArgs" string is decoded into it); nil when absent.
	ToolInput json.RawMessage
	// ToolResponse is the tool's output on PostToolUse (for an MCP tool in
	// Claude Code, the MCP content array); nil when absent.
	ToolResponse json.RawMessage
	// Error is the failure message on PostToolUseFailure (for Gemini CLI,
	// the message of the tool_response's error).
	Error string
	// Interrupted reports a PostToolUseFailure caused by the user
	// interrupting the call ("is_interrupt").
	Interrupted bool
	// SessionID identifies the agent session; may be empty.
	SessionID string
	// ToolUseID identifies the tool call; may be empty.
	ToolUseID string
	// Cwd is the session's working directory; may be empty.
	Cwd string
	// TranscriptPath is the session's transcript file (Claude Code:
	// <config dir>/projects/<project>/<session>.jsonl); may be empty.
	TranscriptPath string
}

// wire is the union of every runtime's payload fields. Unknown fields are
// ignored and every field is optional.
type wire struct {
	HookEventName  string          `json:"hook_event_name"`
	HookEventNameC string          `json:"hookEventName"`
	ToolName       string          `json:"tool_name"`
	ToolNameC      string          `json:"toolName"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolArgs       json.RawMessage `json:"toolArgs"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	ToolResult     json.RawMessage `json:"tool_result"`
	ToolResultC    json.RawMessage `json:"toolResult"`
	Error          json.RawMessage `json:"error"`
	IsInterrupt    json.RawMessage `json:"is_interrupt"`
	SessionID      string          `json:"session_id"`
	SessionIDC     string          `json:"sessionId"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolUseIDC     string          `json:"toolUseId"`
	Cwd            string          `json:"cwd"`
	TranscriptPath string          `json:"transcript_path"`
}

// ReadInput reads at most max bytes of r (max ≤ 0 means
// [DefaultMaxInputBytes]) and decodes them with [ParseInput]. When r holds
// more, it returns an error wrapping [ErrInputTooLarge].
func ReadInput(r io.Reader, max int64) (*Input, error) {
	if max <= 0 {
		max = DefaultMaxInputBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading hook input: %w", err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrInputTooLarge, max)
	}
	return ParseInput(data)
}

// ParseInput decodes one hook payload leniently: unknown fields are
// ignored, optional ones may be absent, and the runtime is recognised from
// the field spelling. It fails only on empty input, input that is not a JSON
// object, or a payload that names neither an event nor a tool.
func ParseInput(data []byte) (*Input, error) {
	// A byte order mark is not JSON, but some Windows tools write one.
	data = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(data), []byte("\ufeff")))
	if len(data) == 0 {
		return nil, errors.New("hook input is empty")
	}
	if data[0] != '{' {
		return nil, errors.New("hook input is not a JSON object")
	}
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("hook input is not valid JSON: %w", err)
	}
	in := &Input{
		ToolName:  first(w.ToolName, w.ToolNameC),
		SessionID: first(w.SessionID, w.SessionIDC),
		ToolUseID: first(w.ToolUseID, w.ToolUseIDC),
		Cwd:       w.Cwd,
		// Only a Claude Code-shaped payload names its transcript.
		TranscriptPath: w.TranscriptPath,
		Error:          errorText(w.Error),
		// Any value but true (absent, false, a string) is no interrupt.
		Interrupted: bytes.Equal(bytes.TrimSpace(w.IsInterrupt), []byte("true")),
	}
	switch {
	case w.HookEventName != "":
		if ev, msg, ok := geminiEvent(w.HookEventName, w.ToolResponse); ok {
			in.Runtime, in.Event = GeminiCLI, ev
			if in.Error == "" {
				in.Error = msg
			}
			break
		}
		in.Runtime, in.Event = ClaudeCode, normaliseEvent(w.HookEventName)
	case w.HookEventNameC != "":
		in.Runtime, in.Event = VSCode, normaliseEvent(w.HookEventNameC)
	case w.ToolNameC != "":
		in.Runtime = CopilotCLI
		switch {
		case present(w.ToolResultC) || present(w.ToolResult):
			in.Event = PostToolUse
		case present(w.Error):
			in.Event = PostToolUseFailure
		default:
			in.Event = PreToolUse
		}
	default:
		return nil, errors.New("hook input names no hook event and no tool")
	}
	in.ToolInput = objectOf(first2(w.ToolInput, w.ToolArgs))
	in.ToolResponse = first2(w.ToolResponse, w.ToolResult, w.ToolResultC)
	return in, nil
}

// normaliseEvent maps camelCase event names ("preToolUse") to PascalCase.
func normaliseEvent(name string) Event {
	if name == "" {
		return ""
	}
	return Event(strings.ToUpper(name[:1]) + name[1:])
}

func first(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func present(m json.RawMessage) bool {
	t := bytes.TrimSpace(m)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

func first2(ms ...json.RawMessage) json.RawMessage {
	for _, m := range ms {
		if present(m) {
			return m
		}
	}
	return nil
}

// objectOf returns m when it is a JSON object, the object held in m when m
// is a JSON string containing one (Copilot's toolArgs), and nil otherwise.
func objectOf(m json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(m)
	if len(t) == 0 {
		return nil
	}
	if t[0] == '{' {
		return t
	}
	if t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil {
			s = strings.TrimSpace(s)
			if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
				return json.RawMessage(s)
			}
		}
	}
	return nil
}

// errorText returns the error field as text: a JSON string as is, an
// object's "message" field, or the raw JSON.
func errorText(m json.RawMessage) string {
	if !present(m) {
		return ""
	}
	var s string
	if json.Unmarshal(m, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(m, &o) == nil && o.Message != "" {
		return o.Message
	}
	return string(bytes.TrimSpace(m))
}

// SearchArgs are the arguments of a web search tool call.
type SearchArgs struct {
	// Query is the search query.
	Query string `json:"query"`
	// AllowedDomains restricts results to these domains.
	AllowedDomains []string `json:"allowed_domains"`
	// BlockedDomains removes results from these domains.
	BlockedDomains []string `json:"blocked_domains"`
}

// SearchArgs decodes the tool input as a web search call. Missing fields
// are empty; a domain list given as one string is accepted as a single
// domain.
func (in *Input) SearchArgs() SearchArgs {
	var raw struct {
		Query          string          `json:"query"`
		AllowedDomains json.RawMessage `json:"allowed_domains"`
		BlockedDomains json.RawMessage `json:"blocked_domains"`
		AllowedC       json.RawMessage `json:"allowedDomains"`
		BlockedC       json.RawMessage `json:"blockedDomains"`
	}
	if len(in.ToolInput) > 0 {
		_ = json.Unmarshal(in.ToolInput, &raw)
	}
	return SearchArgs{
		Query:          strings.TrimSpace(raw.Query),
		AllowedDomains: stringList(first2(raw.AllowedDomains, raw.AllowedC)),
		BlockedDomains: stringList(first2(raw.BlockedDomains, raw.BlockedC)),
	}
}

// FetchArgs are the arguments of a web fetch tool call.
type FetchArgs struct {
	// URL is the page to read.
	URL string
	// Prompt says what to look for in the page; may be empty.
	Prompt string
}

// FetchArgs decodes the tool input as a web fetch call: "url" (or the first
// of "urls") and "prompt" (or "query"). Gemini CLI's web_fetch has no URL
// field: its prompt holds the URL(s) and the instructions, so from Gemini
// CLI the first http(s) URL in the prompt is the URL and the rest of the
// prompt is the prompt.
func (in *Input) FetchArgs() FetchArgs {
	var raw struct {
		URL    string          `json:"url"`
		URLs   json.RawMessage `json:"urls"`
		Prompt string          `json:"prompt"`
		Query  string          `json:"query"`
	}
	if len(in.ToolInput) > 0 {
		_ = json.Unmarshal(in.ToolInput, &raw)
	}
	u := strings.TrimSpace(raw.URL)
	if u == "" {
		if l := stringList(raw.URLs); len(l) > 0 {
			u = l[0]
		}
	}
	if u == "" && in.Runtime == GeminiCLI {
		return geminiFetchArgs(first(raw.Prompt, raw.Query))
	}
	return FetchArgs{URL: u, Prompt: strings.TrimSpace(first(raw.Prompt, raw.Query))}
}

// stringList decodes a JSON array of strings, or a single string, dropping
// empty entries; anything else yields nil.
func stringList(m json.RawMessage) []string {
	if !present(m) {
		return nil
	}
	var list []string
	if json.Unmarshal(m, &list) != nil {
		var s string
		if json.Unmarshal(m, &s) != nil {
			return nil
		}
		list = []string{s}
	}
	out := list[:0]
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Command returns the shell command of a Bash tool call (tool_input's
// "command"), or "" when there is none.
func (in *Input) Command() string {
	var raw struct {
		Command string `json:"command"`
	}
	if len(in.ToolInput) > 0 {
		_ = json.Unmarshal(in.ToolInput, &raw)
	}
	return strings.TrimSpace(raw.Command)
}
