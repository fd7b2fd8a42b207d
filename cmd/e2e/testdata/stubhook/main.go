// Command stubhook is a Claude Code hook used by the e2e tests.
//
// Usage: stubhook [MODE]
//
// It reads the hook payload from stdin, appends it as one line to the file
// named by STUBHOOK_LOG (when set), and answers according to MODE (the first
// argument, else STUBHOOK_MODE):
//
//	deny    (default) deny with reason MARKER
//	silent  print nothing, exit 0 (no decision)
//	exit2   write MARKER to stderr, exit 2
//	context no decision, additionalContext MARKER
//
// The answer's hookEventName is the payload's hook_event_name. MARKER is
// MARKER-<tool_name>-<arg>, where <arg> is tool_input.query, or
// tool_input.url when there is no query; for events without a tool it is
// MARKER-<hook_event_name>-<source>.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

func main() {
	in, _ := io.ReadAll(os.Stdin)
	if p := os.Getenv("STUBHOOK_LOG"); p != "" {
		if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_, _ = f.Write(append(in, '\n'))
			_ = f.Close()
		}
	}
	var p struct {
		HookEventName string `json:"hook_event_name"`
		Source        string `json:"source"`
		ToolName      string `json:"tool_name"`
		ToolInput     struct {
			Query string `json:"query"`
			URL   string `json:"url"`
		} `json:"tool_input"`
	}
	_ = json.Unmarshal(in, &p)
	arg := p.ToolInput.Query
	if arg == "" {
		arg = p.ToolInput.URL
	}
	marker := fmt.Sprintf("MARKER-%s-%s", p.ToolName, arg)
	if p.ToolName == "" {
		marker = fmt.Sprintf("MARKER-%s-%s", p.HookEventName, p.Source)
	}

	mode := os.Getenv("STUBHOOK_MODE")
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	out := map[string]any{"hookEventName": p.HookEventName}
	switch mode {
	case "silent":
		return
	case "exit2":
		fmt.Fprint(os.Stderr, marker)
		os.Exit(2)
	case "context":
		out["additionalContext"] = marker
	default:
		out["permissionDecision"] = "deny"
		out["permissionDecisionReason"] = marker
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"hookSpecificOutput": out})
}
