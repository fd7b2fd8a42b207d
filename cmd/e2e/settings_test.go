package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Settings is a Claude Code settings file (settings.json, or the file given
// with --settings), reduced to what the tests set.
type Settings struct {
	// Hooks maps a hook event name ("PreToolUse", "PostToolUse",
	// "PostToolUseFailure", "SessionStart", ...) to its matcher groups.
	Hooks map[string][]HookMatcher `json:"hooks,omitempty"`
	// Permissions holds allow and deny rules.
	Permissions *Permissions `json:"permissions,omitempty"`
	// SkipWebFetchPreflight turns off WebFetch's domain-safety check, which
	// would otherwise go to a host other than the fake API.
	SkipWebFetchPreflight bool `json:"skipWebFetchPreflight,omitempty"`
	// Env sets environment variables for the session (and so the hooks).
	Env map[string]string `json:"env,omitempty"`
}

// Permissions is the permissions block of a settings file.
type Permissions struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	Ask   []string `json:"ask,omitempty"`
}

// HookMatcher is one matcher group of a hook event.
type HookMatcher struct {
	// Matcher selects tool names (or the SessionStart source); empty
	// matches everything.
	Matcher string `json:"matcher,omitempty"`
	// Hooks are the handlers run when the matcher matches.
	Hooks []HookCommand `json:"hooks"`
}

// HookCommand is a "command" hook handler.
type HookCommand struct {
	// Command is the shell command line (shell form), or the executable
	// (exec form).
	Command string
	// Args are the arguments in exec form.
	Args []string
	// Exec selects exec form (no shell) even when Args is empty.
	Exec bool
	// Timeout is the timeout in seconds; 0 leaves the CLI's default.
	Timeout int
}

// MarshalJSON writes the handler in the settings-file shape; "args" is
// present exactly in exec form.
func (h HookCommand) MarshalJSON() ([]byte, error) {
	m := map[string]any{"type": "command", "command": h.Command}
	if h.Exec || len(h.Args) > 0 {
		args := h.Args
		if args == nil {
			args = []string{}
		}
		m["args"] = args
	}
	if h.Timeout > 0 {
		m["timeout"] = h.Timeout
	}
	return json.Marshal(m)
}

// ShellHook returns a shell-form hook handler running command with sh -c.
func ShellHook(command string) HookCommand { return HookCommand{Command: command} }

// ExecHook returns an exec-form hook handler spawning path with args and no
// shell.
func ExecHook(path string, args ...string) HookCommand {
	return HookCommand{Command: path, Args: args, Exec: true}
}

// AddHook appends a matcher group with the given handlers to event and
// returns s, so calls can be chained.
func (s *Settings) AddHook(event, matcher string, hooks ...HookCommand) *Settings {
	if s.Hooks == nil {
		s.Hooks = map[string][]HookMatcher{}
	}
	s.Hooks[event] = append(s.Hooks[event], HookMatcher{Matcher: matcher, Hooks: hooks})
	return s
}

// JSON returns the settings file content.
func (s *Settings) JSON() []byte {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		// Every field marshals; this cannot happen.
		panic(err)
	}
	return b
}

// MCPServer is an MCP server entry of an --mcp-config file: a stdio server
// (Command, Args, Env) or, when URL is set, a streamable HTTP one (URL,
// Headers), as `claude mcp add --transport http NAME URL --header …`
// writes it.
type MCPServer struct {
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// mcpConfigJSON returns the content of an --mcp-config file.
func mcpConfigJSON(servers map[string]MCPServer) []byte {
	out := map[string]any{}
	for name, s := range servers {
		if s.URL != "" {
			e := map[string]any{"type": "http", "url": s.URL}
			if len(s.Headers) > 0 {
				e["headers"] = s.Headers
			}
			out[name] = e
			continue
		}
		e := map[string]any{"type": "stdio", "command": s.Command, "args": s.Args}
		if s.Args == nil {
			e["args"] = []string{}
		}
		if len(s.Env) > 0 {
			e["env"] = s.Env
		}
		out[name] = e
	}
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": out}, "", "  ")
	return b
}

// WritePlugin writes a plugin named name into a new directory (for
// --plugin-dir) whose hooks/hooks.json holds hooks, and returns the
// directory. Hook commands may use ${CLAUDE_PLUGIN_ROOT}.
func WritePlugin(t testing.TB, name string, hooks map[string][]HookMatcher) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	manifest, _ := json.MarshalIndent(map[string]any{
		"name": name, "version": "0.0.0", "description": "test plugin " + name,
	}, "", "  ")
	hooksJSON, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	writeFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), manifest)
	writeFile(t, filepath.Join(dir, "hooks", "hooks.json"), hooksJSON)
	return dir
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
