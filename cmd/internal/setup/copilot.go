package setup

import (
	"fmt"
	"os"
	"strings"
)

// editCopilot adds or removes webgate's entries in a Copilot CLI hooks file
// ({"version":1,"hooks":{"preToolUse":[…]}}). Copilot CLI has no matchers:
// every preToolUse hook sees every tool, and webgate's hooks ignore the
// tools they do not handle. It has no built-in web search tool, so only the
// webfetch hook is registered, for preToolUse. Nothing is registered for
// postToolUse or postToolUseFailure: Copilot CLI ignores a command hook's
// postToolUse output and takes postToolUseFailure guidance only from exit
// code 2, which webgate's hooks never use; entries an older install wrote
// there are removed.
func editCopilot(root *object, o Options, install bool, p *Plan) {
	if install {
		if _, ok := root.get("version"); !ok {
			root.set("version", 1)
		}
	}
	hooksV, _ := root.get("hooks")
	hooks, ok := hooksV.(*object)
	if !ok {
		if !install {
			return
		}
		hooks = newObject()
		root.set("hooks", hooks)
	}
	var want []copilotEntry
	if install {
		want = append(want, copilotEntry{"preToolUse", "webfetch", o.WebFetchBin, o.FetchTimeout})
	}
	// Lists and a "hooks" object the user left empty stay; ones emptied
	// here go.
	had := len(hooks.members) > 0
	done := map[string]bool{}
	for _, event := range hooks.names() {
		lv, _ := hooks.get(event)
		list, ok := lv.([]any)
		if !ok {
			continue
		}
		kept := editObjects(list, func(ho *object) *object {
			cmd := textOf(ho, "bash")
			bin, path, remote, foreign := ownHandler(ho, copilotForm)
			if foreign != "" {
				p.Found = append(p.Found, foreignHook(event, foreign, cmd))
			}
			if bin == "" {
				return ho
			}
			if _, err := os.Stat(path); err != nil && !remote {
				p.Found = append(p.Found, fmt.Sprintf("%s: webgate hook %q points at a binary that does not exist", event, cmd))
			}
			var match *copilotEntry
			for i := range want {
				if want[i].event == event && want[i].bin == bin {
					match = &want[i]
				}
			}
			if match == nil {
				return nil
			}
			key := event + "\x00" + bin
			if done[key] {
				p.Found = append(p.Found, fmt.Sprintf("%s: duplicate webgate %s entry removed", event, bin))
				return nil
			}
			done[key] = true
			setHandler(ho, copilotHandler(o, *match))
			return ho
		})
		hooks.setKept(event, kept, len(list))
	}
	for _, e := range want {
		if done[e.event+"\x00"+e.bin] {
			continue
		}
		h := copilotHandler(o, e)
		lv, _ := hooks.get(e.event)
		list, _ := lv.([]any)
		hooks.set(e.event, append(list, h))
	}
	if had && len(hooks.members) == 0 {
		root.del("hooks")
		if !install && len(root.names()) == 1 {
			root.del("version")
		}
	}
	if install && strings.HasPrefix(strings.ToLower(o.Gateway), "http://") {
		p.Notes = append(p.Notes, "Copilot CLI skips a preToolUse HTTP hook, and one with allowedEnvVars, whose URL is not https://: serve the gateway over https, or, for a gateway on localhost, set COPILOT_HOOK_ALLOW_LOCALHOST=1 where Copilot CLI runs.")
	}
	if install {
		p.Notes = append(p.Notes, "Copilot CLI has no built-in web search tool: only the webfetch hook is registered (it sees every tool and acts on web_fetch).")
		p.Notes = append(p.Notes, "VS Code agent hooks read this file too; with --target copilot-vscode as well, VS Code runs the webfetch hook twice for each tool call.")
		if len(o.MCPTools) > 0 {
			p.Notes = append(p.Notes, "MCP search tools get no companion results in Copilot CLI: it ignores postToolUse hook output and takes postToolUseFailure guidance only from exit code 2, which webgate's hooks never use.")
		}
	}
}

// copilotEntry is one handler webgate registers in a Copilot CLI hooks
// file.
type copilotEntry struct {
	event, bin, path string
	timeout          int
}

// copilotHandler is the handler of e: the hook binary, or with
// o.Gateway the gateway's hook endpoint.
func copilotHandler(o Options, e copilotEntry) *object {
	if o.Gateway != "" {
		return httpHandler(o, e.bin, "timeoutSec", e.timeout)
	}
	h := newObject()
	h.set("type", "command")
	// Copilot CLI runs each field as a script: the path is quoted for
	// the shell that runs it.
	h.set("bash", shellQuote(e.path))
	h.set("powershell", powershellCommand(e.path))
	h.set("timeoutSec", e.timeout)
	return h
}
