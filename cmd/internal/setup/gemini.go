package setup

import (
	"errors"
	"fmt"
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
	// No quote is left to escape: shellQuote's single quotes are plain.
	return shellQuote(path), nil
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
	var want []groupEntry
	if install {
		for _, e := range geminiEntries(o) {
			cmd, err := geminiCommand(e.path)
			if err != nil {
				return err
			}
			want = append(want, groupEntry{e.event, e.bin, e.matcher, geminiHandler(e, cmd)})
		}
	}
	if hc, ok := root.get("hooksConfig"); ok {
		if hco, ok := hc.(*object); ok {
			if v, _ := hco.get("enabled"); v == false {
				p.Found = append(p.Found, "hooksConfig.enabled is false: Gemini CLI runs no hooks at all until it is true")
			}
		}
	}
	editGroups(root, want, geminiForm, install, false, p)
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
	if !errors.Is(err, ErrInvalidSettings) || !strings.Contains(err.Error(), "invalid character '/'") {
		return err
	}
	switch target {
	case GeminiCLI:
		return fmt.Errorf("%w; Gemini CLI accepts comments in settings.json, webgate does not edit a file with comments: remove them, or register the hooks by hand", err)
	case ClaudeCode, CopilotVSCode:
		return fmt.Errorf("%w; it looks like it holds comments, which Claude Code refuses too (its settings are strict JSON): remove them", err)
	}
	return fmt.Errorf("%w; it looks like it holds comments, which webgate does not edit: remove them, or register the hooks by hand", err)
}
