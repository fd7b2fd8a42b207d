package hooks

import (
	"bytes"
	"encoding/json"
	"io"
)

// Action is what a hook asks the runtime to do.
type Action int

// The actions a [Decision] may carry.
const (
	// Pass steps aside: no decision, the tool runs its normal course. With a
	// SystemMessage the output is {"systemMessage": …} only; without one,
	// nothing is written.
	Pass Action = iota
	// Deny blocks a PreToolUse call; Reason becomes the tool result the
	// model receives, and Context, when set, is added next to it
	// (additionalContext; Copilot CLI gets it appended to the reason).
	Deny
	// ReplaceMCPOutput replaces an MCP tool's output on PostToolUse with
	// MCPOutput (updatedMCPToolOutput).
	ReplaceMCPOutput
	// AddContext adds Context next to the tool result (additionalContext),
	// on PreToolUse, PostToolUse and PostToolUseFailure, or to the session's
	// first message on SessionStart.
	AddContext
	// ReplaceToolOutput replaces a native tool's output on PostToolUse with
	// ToolOutput, which must have the tool's own output shape
	// (updatedToolOutput; Claude Code only).
	ReplaceToolOutput
	// Allow lets a PreToolUse call run without a permission prompt
	// (permissionDecision "allow"; Claude Code only). It does not
	// override the user's deny or ask rules. Under [AnswerReplace] it
	// lets the native tool run whose output the answer kept for the call
	// replaces: without it, `claude -p` with no allow rule refuses the
	// call and the model receives neither.
	Allow
)

// String names the action.
func (a Action) String() string {
	switch a {
	case Pass:
		return "pass"
	case Deny:
		return "deny"
	case ReplaceMCPOutput:
		return "replace-mcp-output"
	case AddContext:
		return "add-context"
	case ReplaceToolOutput:
		return "replace-tool-output"
	case Allow:
		return "allow"
	}
	return "unknown"
}

// Decision is a handler's answer to one hook event. The zero value passes
// through silently.
type Decision struct {
	// Action is what to ask of the runtime.
	Action Action
	// Reason is the deny reason: for Claude Code it is exactly the tool
	// result the model receives.
	Reason string
	// Context is the additional context of AddContext, or added to a
	// Deny.
	Context string
	// MCPOutput is the replacement MCP content array of ReplaceMCPOutput.
	MCPOutput []json.RawMessage
	// ToolOutput is the replacement output of ReplaceToolOutput, in the
	// tool's own output shape.
	ToolOutput json.RawMessage
	// SystemMessage is a short notice for the user (never sent to the
	// model). Copilot CLI gets none.
	SystemMessage string
	// Diagnostics are lines for stderr; never written to stdout.
	Diagnostics []string
}

// passWith returns a pass-through decision whose diagnostics explain why.
func passWith(diag ...string) Decision { return Decision{Action: Pass, Diagnostics: diag} }

// hookSpecific is Claude Code's (and VS Code's) hookSpecificOutput.
type hookSpecific struct {
	HookEventName            Event             `json:"hookEventName"`
	PermissionDecision       string            `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string            `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string            `json:"additionalContext,omitempty"`
	UpdatedMCPToolOutput     []json.RawMessage `json:"updatedMCPToolOutput,omitempty"`
	UpdatedToolOutput        json.RawMessage   `json:"updatedToolOutput,omitempty"`
}

type claudeOutput struct {
	HookSpecificOutput *hookSpecific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string        `json:"systemMessage,omitempty"`
}

// copilotOutput is Copilot CLI's top-level preToolUse answer.
type copilotOutput struct {
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// Output returns the JSON value to write for d in answer to in, or nil when
// nothing is to be written. Claude Code and VS Code get
// hookSpecificOutput with hookEventName; Copilot CLI's camelCase runtime
// gets a top-level permissionDecision and nothing for other actions;
// Gemini CLI gets a top-level decision and reason for a deny, whose reason
// opens by saying that webgate answered the call (the model reads it
// after "Tool execution blocked: "), and additionalContext after a tool
// ran. A
// decision that does not fit the event (a deny outside PreToolUse, an
// output replacement outside PostToolUse) is dropped rather than sent.
func (d Decision) Output(in *Input) any {
	if in == nil {
		return nil
	}
	if in.Runtime == GeminiCLI {
		return geminiOutput(d, in)
	}
	if in.Runtime == CopilotCLI {
		if d.Action == Deny && in.Event == PreToolUse {
			// Copilot CLI takes no additional context: it follows the
			// reason.
			reason := d.Reason
			if d.Context != "" {
				reason += "\n\n" + d.Context
			}
			return copilotOutput{PermissionDecision: "deny", PermissionDecisionReason: reason}
		}
		return nil
	}
	out := claudeOutput{SystemMessage: d.SystemMessage}
	switch d.Action {
	case Deny:
		if in.Event == PreToolUse {
			out.HookSpecificOutput = &hookSpecific{HookEventName: in.Event, PermissionDecision: "deny", PermissionDecisionReason: d.Reason, AdditionalContext: d.Context}
		}
	case Allow:
		if in.Event == PreToolUse {
			out.HookSpecificOutput = &hookSpecific{HookEventName: in.Event, PermissionDecision: "allow"}
		}
	case ReplaceMCPOutput:
		if in.Event == PostToolUse && len(d.MCPOutput) > 0 {
			out.HookSpecificOutput = &hookSpecific{HookEventName: in.Event, UpdatedMCPToolOutput: d.MCPOutput}
		}
	case ReplaceToolOutput:
		if in.Event == PostToolUse && len(d.ToolOutput) > 0 {
			out.HookSpecificOutput = &hookSpecific{HookEventName: in.Event, UpdatedToolOutput: d.ToolOutput}
		}
	case AddContext:
		if (in.Event == PostToolUse || in.Event == PostToolUseFailure || in.Event == PreToolUse || in.Event == SessionStart) && d.Context != "" {
			out.HookSpecificOutput = &hookSpecific{HookEventName: in.Event, AdditionalContext: d.Context}
		}
	}
	if out.HookSpecificOutput == nil && out.SystemMessage == "" {
		return nil
	}
	return out
}

// Write writes d's output for in to w as exactly one JSON object followed
// by a newline, or nothing when d has no output (see [Decision.Output]).
func (d Decision) Write(w io.Writer, in *Input) error {
	v := d.Output(in)
	if v == nil {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
