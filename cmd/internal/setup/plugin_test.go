package setup

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The repository is a Claude Code plugin; these tests check its files'
// structure as Claude Code reads them.

func TestPluginManifest_IsValid(t *testing.T) {
	data, err := os.ReadFile("../../../.claude-plugin/plugin.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("plugin.json: %v", err)
	}
	if name, _ := m["name"].(string); !regexp.MustCompile(`^[a-z0-9-]+$`).MatchString(name) {
		t.Errorf("plugin name %q must be kebab-case", name)
	}
	if _, ok := m["hooks"]; ok {
		t.Error("hooks belong in hooks/hooks.json, not inline")
	}
}

func TestPluginHooks_HaveTheShapeClaudeCodeExpects(t *testing.T) {
	data, err := os.ReadFile("../../../hooks/hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Hooks map[string][]struct {
			Matcher *json.RawMessage `json:"matcher"`
			Hooks   []struct {
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Args    []string `json:"args"`
				Timeout int      `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("hooks.json is not an object with hooks: %v", err)
	}
	if len(f.Hooks) == 0 {
		t.Fatal("no hooks")
	}
	// A failed WebFetch goes to the webfetch hook, which reads the page
	// itself.
	if g := f.Hooks["PostToolUseFailure"]; len(g) == 0 || g[0].Matcher == nil || string(*g[0].Matcher) != `"WebFetch"` || len(g[0].Hooks) != 1 || strings.Join(g[0].Hooks[0].Args, " ") != "webfetch" {
		t.Error("no PostToolUseFailure entry running the webfetch hook for WebFetch")
	}
	placeholder := regexp.MustCompile(`\$\{?CLAUDE_[A-Z_]+\}?`)
	for event, groups := range f.Hooks {
		for _, g := range groups {
			var m string
			if g.Matcher == nil || json.Unmarshal(*g.Matcher, &m) != nil {
				t.Errorf("%s: matcher must be a string", event)
			}
			for _, h := range g.Hooks {
				if h.Type != "command" || h.Command == "" || h.Timeout <= 0 {
					t.Errorf("%s %s: incomplete handler %+v", event, m, h)
				}
				for _, s := range append([]string{h.Command}, h.Args...) {
					for _, p := range placeholder.FindAllString(s, -1) {
						if !strings.HasPrefix(p, "${") || !strings.HasSuffix(p, "}") {
							t.Errorf("%s: placeholder %s must be braced", event, p)
						}
					}
				}
				script := strings.Replace(h.Command, "${CLAUDE_PLUGIN_ROOT}", "../../..", 1)
				if info, err := os.Stat(script); err != nil || info.Mode()&0o111 == 0 {
					t.Errorf("%s: %s is not an executable file in the plugin", event, h.Command)
				}
			}
		}
	}
}

func TestRunHook_StepsAsideWhenTheHookCannotBeBuilt(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "scripts"), 0o755)
	os.MkdirAll(filepath.Join(root, ".claude-plugin"), 0o755)
	script, _ := os.ReadFile("../../../scripts/run-hook")
	os.WriteFile(filepath.Join(root, "scripts", "run-hook"), script, 0o755)
	os.WriteFile(filepath.Join(root, ".claude-plugin", "plugin.json"), []byte(`{"name":"webgate"}`), 0o644)
	cmd := exec.Command(filepath.Join(root, "scripts", "run-hook"), "websearch")
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + t.TempDir(), "CLAUDE_PLUGIN_ROOT=" + root, "CLAUDE_PLUGIN_DATA=" + t.TempDir()}
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"x"}}`)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	// With a Go toolchain at /usr/local/go the script tries to build; the
	// fake plugin root has no source, so it must step aside all the same.
	if err != nil {
		t.Fatalf("exit: %v (stderr %s)", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	if !strings.Contains(stderr.String(), "webgate:") {
		t.Errorf("no hint on stderr: %q", stderr.String())
	}
}
