package setup

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Gemini CLI hooks live in settings.json under "hooks", one list of
// matcher groups per event, as in Claude Code:
//
//	{"hooks": {"BeforeTool": [{"matcher": "^google_web_search$",
//	  "hooks": [{"type": "command", "command": "/abs/websearch", "timeout": 30000, "name": "webgate-websearch"}]}]}}
//
// It differs from Claude Code in what setup writes: the event names, a
// matcher that is a JavaScript regular expression tested unanchored (so it
// is anchored here: "web_fetch" alone would also match an MCP tool named
// mcp_x_web_fetch), a timeout in milliseconds, and a command that always
// runs through a shell (there is no exec form), after Gemini CLI has
// expanded $VAR and ${VAR} in it.

// GeminiTools are the Gemini CLI tools webgate's hooks answer, by hook
// binary.
var GeminiTools = map[string]string{"websearch": "google_web_search", "webfetch": "web_fetch"}

type geminiEntry struct {
	event, matcher, bin, path, name string
	timeoutMS                       int
}

func geminiEntries(o Options) []geminiEntry {
	es := []geminiEntry{
		{"BeforeTool", "^" + GeminiTools["websearch"] + "$", "websearch", o.WebSearchBin, "webgate-websearch", o.SearchTimeout * 1000},
		{"BeforeTool", "^" + GeminiTools["webfetch"] + "$", "webfetch", o.WebFetchBin, "webgate-webfetch", o.FetchTimeout * 1000},
	}
	if o.SessionStart {
		es = append(es, geminiEntry{"SessionStart", "*", "websearch", o.WebSearchBin, "webgate-session-start", 10000})
	}
	return es
}

// geminiCommand returns path as a shell command line: as it is when it
// needs no quoting, else in single quotes. A path Gemini CLI would change
// before the shell sees it ($ expansion), or that cannot be quoted so that
// webgate recognises it again, is an error.
func geminiCommand(path string) (string, error) {
	if strings.ContainsAny(path, "$'\"\n\r\x00`") {
		return "", fmt.Errorf("the hook binary path %q cannot be written in a Gemini CLI hook command (it holds $, a quote or a control character); install webgate elsewhere", path)
	}
	for _, r := range path {
		if !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ':' || r == '@' || r == '%' || r == ',' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "'" + path + "'", nil
		}
	}
	return path, nil
}

func geminiHandler(e geminiEntry, cmd string) *object {
	h := newObject()
	h.set("type", "command")
	h.set("command", cmd)
	h.set("timeout", e.timeoutMS)
	h.set("name", e.name)
	return h
}

// editGemini adds or removes webgate's entries in a Gemini CLI settings
// object.
func editGemini(root *object, o Options, install bool, p *Plan) error {
	want := map[string]geminiEntry{}
	cmds := map[string]string{}
	if install {
		for _, e := range geminiEntries(o) {
			cmd, err := geminiCommand(e.path)
			if err != nil {
				return err
			}
			want[e.event+"\x00"+e.bin] = e
			cmds[e.event+"\x00"+e.bin] = cmd
		}
	}
	if hc, ok := root.get("hooksConfig"); ok {
		if hco, ok := hc.(*object); ok {
			if v, _ := hco.get("enabled"); v == false {
				p.Found = append(p.Found, "hooksConfig.enabled is false: Gemini CLI runs no hooks at all until it is true")
			}
		}
	}
	hooksV, _ := root.get("hooks")
	hooks, ok := hooksV.(*object)
	if !ok {
		if !install {
			return nil
		}
		if hooksV != nil {
			p.Found = append(p.Found, "\"hooks\" was not an object; it was replaced")
		}
		hooks = newObject()
		root.set("hooks", hooks)
	}
	done := map[string]bool{}
	for _, event := range hooks.names() {
		gv, _ := hooks.get(event)
		groups, ok := gv.([]any)
		if !ok {
			continue
		}
		var keptGroups []any
		for _, g := range groups {
			group, ok := g.(*object)
			if !ok {
				keptGroups = append(keptGroups, g)
				continue
			}
			hs, _ := group.get("hooks")
			list, _ := hs.([]any)
			var keptHooks []any
			for _, h := range list {
				ho, ok := h.(*object)
				if !ok {
					keptHooks = append(keptHooks, h)
					continue
				}
				cmd := textOf(ho, "command")
				bin := hookBinary(cmd)
				if bin == "" {
					keptHooks = append(keptHooks, h)
					continue
				}
				if _, err := os.Stat(firstField(cmd)); err != nil {
					p.Found = append(p.Found, fmt.Sprintf("%s: webgate hook %q points at a binary that does not exist", event, cmd))
				}
				key := event + "\x00" + bin
				e, wanted := want[key]
				if !install || !wanted {
					continue // removed
				}
				if done[key] {
					p.Found = append(p.Found, fmt.Sprintf("%s: duplicate webgate %s entry (matcher %s) removed", event, bin, matcherOf(group)))
					continue
				}
				done[key] = true
				ho.set("type", "command")
				ho.set("command", cmds[key])
				ho.set("timeout", e.timeoutMS)
				ho.set("name", e.name)
				if len(list) == 1 {
					group.set("matcher", e.matcher)
				}
				keptHooks = append(keptHooks, ho)
			}
			if len(keptHooks) == 0 && len(list) > 0 {
				continue
			}
			if len(list) > 0 {
				group.set("hooks", keptHooks)
			}
			keptGroups = append(keptGroups, group)
		}
		if len(keptGroups) == 0 && len(groups) > 0 {
			hooks.del(event)
			continue
		}
		hooks.set(event, keptGroups)
	}
	if install {
		for _, e := range geminiEntries(o) {
			key := e.event + "\x00" + e.bin
			if done[key] {
				continue
			}
			group := newObject()
			group.set("matcher", e.matcher)
			group.set("hooks", []any{geminiHandler(e, cmds[key])})
			gv, _ := hooks.get(e.event)
			groups, _ := gv.([]any)
			hooks.set(e.event, append(groups, group))
		}
	}
	if len(hooks.members) == 0 {
		root.del("hooks")
	}
	if install {
		if o.Scope == Project {
			p.Notes = append(p.Notes, "Gemini CLI runs a project's hooks only in a trusted folder, and warns the first time it sees them.")
		}
		// Gemini CLI drops variables named like secrets (…KEY…, …TOKEN…,
		// …PRIVATE…) from a hook's environment when it redacts it.
		p.Notes = append(p.Notes, "Gemini CLI withholds variables named like secrets (TAVILY_API_KEY, …) from hooks when it redacts the environment (security.environmentVariableRedaction, and always in GitHub Actions): keep provider keys in webgate's configuration file (~/.config/webgate/config.toml).")
		if len(o.MCPTools) > 0 {
			p.Notes = append(p.Notes, "MCP search tools get no companion results in Gemini CLI: --mcp-tool applies to Claude Code settings only.")
		}
		if o.BashRoutes {
			p.Notes = append(p.Notes, "Tool routes for shell commands are not registered for Gemini CLI (its run_shell_command tool): --tool-routes applies to Claude Code settings only.")
		}
	}
	return nil
}

// settingsError adds to an error reading target's settings file what the
// user needs to know about that target.
func settingsError(target Target, err error) error {
	if target == GeminiCLI && errors.Is(err, ErrInvalidSettings) && strings.Contains(err.Error(), "invalid character '/'") {
		return fmt.Errorf("%w; Gemini CLI accepts comments in settings.json, webgate does not edit a file with comments: remove them, or register the hooks by hand", err)
	}
	return err
}
