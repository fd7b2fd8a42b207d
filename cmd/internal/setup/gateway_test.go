package setup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// install --gateway writes Claude Code HTTP hooks that post to the
// gateway's hook endpoints with the token from an environment variable
// the registration names; everything else in the file is kept byte for
// byte; a second install changes nothing; uninstall gives the file back.
func TestInstall_GatewayWritesClaudeHTTPHooksKeepingEverythingElse(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(userSettings), 0o600)
	o := e.opts(ClaudeCode)
	o.WebSearchBin, o.WebFetchBin = "", "" // no binary on this machine
	o.Gateway = "https://gw.example:8787/"
	o.SessionStart = true
	p := install(t, o)
	data, _ := os.ReadFile(path)
	var v struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []map[string]any
		}
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for event, groups := range v.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if h["type"] != "http" {
					continue
				}
				u, _ := h["url"].(string)
				seen[event+" "+g.Matcher+" "+u] = true
				headers, _ := h["headers"].(map[string]any)
				allowed, _ := h["allowedEnvVars"].([]any)
				if headers["Authorization"] != "Bearer $WEBGATE_GATEWAY_TOKEN" || len(allowed) != 1 || allowed[0] != "WEBGATE_GATEWAY_TOKEN" || h["timeout"] == nil || h["command"] != nil {
					t.Errorf("%s handler %v", event, h)
				}
			}
		}
	}
	for _, want := range []string{"PreToolUse WebSearch https://gw.example:8787/v1/hooks/websearch", "PreToolUse WebFetch https://gw.example:8787/v1/hooks/webfetch",
		"PostToolUseFailure WebFetch https://gw.example:8787/v1/hooks/webfetch", "PostToolUse WebFetch https://gw.example:8787/v1/hooks/webfetch"} {
		if !seen[want] {
			t.Errorf("no %s in\n%s", want, data)
		}
	}
	if _, ok := v.Hooks["SessionStart"]; ok || !strings.Contains(strings.Join(p.Notes, "\n"), "SessionStart") {
		t.Errorf("SessionStart takes no HTTP hook: notes %v\n%s", p.Notes, data)
	}
	if strings.Contains(string(data), "wg_") {
		t.Error("a token was written")
	}
	if again, _ := PlanInstall(o); again.Changed() {
		t.Fatalf("second install changes the file:\n%s", again.Diff())
	}
	r, err := Inspect(o)
	if err != nil || !r.Registered() || r.Gateway() != "https://gw.example:8787" || len(r.MissingBinaries()) != 0 {
		t.Fatalf("inspect: %+v %v", r, err)
	}
	un, _ := PlanUninstall(o)
	if _, err := un.Apply(o.Now); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	var got, want any
	json.Unmarshal(data, &got)
	json.Unmarshal([]byte(userSettings), &want)
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Fatalf("uninstall left\n%s\nwant\n%s", data, userSettings)
	}
}

// An install --gateway over a local install turns webgate's command
// hooks into HTTP hooks (no command left behind), and a plain install
// turns them back.
func TestInstall_GatewaySwitchesTheFormOfWebgatesHandlersOnly(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(userSettings), 0o600)
	local := e.opts(ClaudeCode)
	install(t, local)
	localData, _ := os.ReadFile(path)
	remote := local
	remote.Gateway = "http://127.0.0.1:8787"
	remote.GatewayTokenEnv = "TEAM_TOKEN"
	install(t, remote)
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), e.ws) || strings.Contains(string(data), `"args"`) || !strings.Contains(string(data), "/usr/local/bin/guard") ||
		!strings.Contains(string(data), `"Bearer $TEAM_TOKEN"`) {
		t.Fatalf("after install --gateway:\n%s", data)
	}
	install(t, local)
	if data, _ := os.ReadFile(path); string(data) != string(localData) {
		t.Fatalf("back to local hooks:\n%s\nwant\n%s", data, localData)
	}
}

// Copilot CLI gets an HTTP preToolUse hook; the other runtimes have none.
func TestInstall_GatewayCopilotCLIAndRefusals(t *testing.T) {
	e := newEnv(t)
	o := e.opts(CopilotCLI)
	o.Gateway = "https://gw.example"
	p := install(t, o)
	var f struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	data, _ := os.ReadFile(p.Path)
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	h := f.Hooks["preToolUse"]
	if len(h) != 1 || h[0]["type"] != "http" || h[0]["url"] != "https://gw.example/v1/hooks/webfetch" || h[0]["timeoutSec"] == nil || h[0]["bash"] != nil {
		t.Fatalf("file:\n%s", data)
	}
	if again, _ := PlanInstall(o); again.Changed() {
		t.Fatal("second install changes the file")
	}
	if strings.Contains(strings.Join(p.Notes, "\n"), "https://") {
		t.Errorf("an https gateway gets the note about http: %v", p.Notes)
	}
	plain := o
	plain.Gateway = "http://127.0.0.1:8787"
	if pp, _ := PlanInstall(plain); !strings.Contains(strings.Join(pp.Notes, "\n"), "COPILOT_HOOK_ALLOW_LOCALHOST=1") {
		t.Errorf("an http gateway: no note that Copilot CLI skips its hook: %v", pp.Notes)
	}
	if r, _ := Inspect(o); !r.Registered() {
		t.Fatalf("not registered: %+v", r)
	}
	for _, target := range []Target{GeminiCLI, Codex, CopilotVSCode} {
		o := e.opts(target)
		o.Gateway = "https://gw.example"
		if _, err := PlanInstall(o); err == nil {
			t.Errorf("%s: install --gateway accepted", target)
		}
	}
	for _, bad := range []string{"ftp://gw", "https://user:wg_secret@gw.example", "https://gw.example/?token=x", "gw.example"} {
		o := e.opts(ClaudeCode)
		o.Gateway = bad
		if _, err := PlanInstall(o); err == nil || strings.Contains(err.Error(), "wg_secret") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
