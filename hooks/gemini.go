package hooks

import (
	"encoding/json"
	"strings"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/internal/sanitize"
)

// Gemini CLI's hook protocol, as far as webgate uses it.
//
// Its payloads have Claude Code's snake_case fields ("hook_event_name",
// "tool_name", "tool_input", "tool_response") plus "timestamp", but events
// of its own: BeforeTool and AfterTool around a tool call. Its web tools
// are google_web_search {query} and web_fetch {prompt}, where the prompt
// is one string holding the URL(s) and the instructions.
//
// It reads top-level "decision" and "reason": a "deny" on BeforeTool
// skips the tool, and the model receives {"error": "Tool execution
// blocked: <reason>"} as its result. It reads no permissionDecision;
// hookSpecificOutput.additionalContext is read on AfterTool (appended to
// the tool's result) and SessionStart, and a top-level systemMessage is
// shown to the user. When a hook writes nothing on stdout, Gemini CLI
// reads its stderr instead, as a systemMessage with no decision.

// The event names of Gemini CLI's hooks that only Gemini CLI sends.
const (
	geminiBeforeTool = "BeforeTool"
	geminiAfterTool  = "AfterTool"
)

// geminiOnlyEvents are Gemini CLI's events that no other runtime sends.
// SessionStart, SessionEnd and Notification are shared with Claude Code,
// and so is the answer they take.
var geminiOnlyEvents = map[string]bool{
	geminiBeforeTool: true, geminiAfterTool: true,
	"BeforeAgent": true, "AfterAgent": true,
	"BeforeModel": true, "AfterModel": true,
	"BeforeToolSelection": true, "PreCompress": true,
}

// geminiEvent maps a Gemini CLI event name to the event it means, and
// reports whether the name is Gemini CLI's own. BeforeTool is PreToolUse;
// AfterTool is PostToolUse, or PostToolUseFailure when the tool's
// response carries an error. Other Gemini events are kept as sent.
func geminiEvent(name string, response json.RawMessage) (Event, string, bool) {
	if !geminiOnlyEvents[name] {
		return "", "", false
	}
	switch name {
	case geminiBeforeTool:
		return PreToolUse, "", true
	case geminiAfterTool:
		if msg, failed := geminiToolError(response); failed {
			return PostToolUseFailure, msg, true
		}
		return PostToolUse, "", true
	}
	return Event(name), "", true
}

// geminiToolError returns the message of an AfterTool tool_response's
// "error" ({"message", "type"}), and whether there is one.
func geminiToolError(response json.RawMessage) (string, bool) {
	e, failed := gate.GeminiToolError(response)
	if !failed {
		return "", false
	}
	msg := errorText(e)
	if msg == "" {
		msg = "the tool failed"
	}
	return msg, true
}

// geminiFetchArgs splits web_fetch's prompt, one string holding URL(s)
// and instructions, into the first http(s) URL and the rest. Words are
// split at white space, as Gemini CLI splits them; brackets, quotes and
// sentence punctuation around a URL are not part of it. A URL that may
// not be shown as a link ([sanitize.URL]) is skipped. The prompt returned
// is the text without that URL, on one line; with no URL, URL is empty
// and the prompt is kept whole.
func geminiFetchArgs(prompt string) FetchArgs {
	words := strings.Fields(prompt)
	for i, w := range words {
		u := trimURLWord(w)
		scheme, _, ok := strings.Cut(u, "://")
		if !ok || !(strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")) {
			continue
		}
		if u = sanitize.URL(u); u == "" {
			continue
		}
		rest := append(append([]string(nil), words[:i]...), words[i+1:]...)
		return FetchArgs{URL: u, Prompt: strings.TrimSpace(strings.Join(rest, " "))}
	}
	return FetchArgs{Prompt: strings.TrimSpace(strings.Join(words, " "))}
}

// trimURLWord removes what surrounds a URL written in prose: opening
// brackets and quotes before it, closing ones and sentence punctuation
// after it. A closing bracket that the URL opened stays
// ("https://en.wikipedia.org/wiki/Go_(language)").
func trimURLWord(w string) string {
	w = strings.TrimLeft(w, "([{<\"'`")
	for w != "" {
		last := w[len(w)-1]
		switch last {
		case '.', ',', ';', ':', '!', '?', '"', '\'', '`', '>':
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[last]
			if strings.Count(w, string(open)) >= strings.Count(w, string(last)) {
				return w
			}
		default:
			return w
		}
		w = w[:len(w)-1]
	}
	return w
}

// geminiDecision is Gemini CLI's answer: a top-level decision and reason,
// and hookSpecificOutput for added context.
type geminiDecision struct {
	Decision           string          `json:"decision,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	HookSpecificOutput *geminiSpecific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string          `json:"systemMessage,omitempty"`
}

type geminiSpecific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// geminiAnswerLead opens a deny reason for Gemini CLI. The model reads the
// reason after "Tool execution blocked: ", which alone would say the call
// failed; the lead says it was answered.
func geminiAnswerLead(tool string) string {
	return "webgate answered this " + oneLine(tool) + " call in place of the native tool; this is its answer, not a failure.\n\n"
}

// geminiOutput is [Decision.Output] for Gemini CLI: a deny on BeforeTool
// becomes {"decision": "deny", "reason": …} with the context after the
// reason, added context on AfterTool becomes additionalContext, and what
// Gemini CLI cannot take (an MCP output replacement, context before a
// tool runs) is dropped, keeping the systemMessage.
func geminiOutput(d Decision, in *Input) any {
	out := geminiDecision{SystemMessage: d.SystemMessage}
	switch d.Action {
	case Deny:
		if in.Event == PreToolUse {
			reason := geminiAnswerLead(in.ToolName) + d.Reason
			if d.Context != "" {
				reason += "\n\n" + d.Context
			}
			out.Decision, out.Reason = "deny", reason
		}
	case AddContext:
		if (in.Event == PostToolUse || in.Event == PostToolUseFailure) && d.Context != "" {
			out.HookSpecificOutput = &geminiSpecific{HookEventName: geminiAfterTool, AdditionalContext: d.Context}
		}
	}
	if out.Decision == "" && out.HookSpecificOutput == nil && out.SystemMessage == "" {
		return nil
	}
	return out
}
