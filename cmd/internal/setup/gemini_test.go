package setup

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func (e env) geminiPath() string { return filepath.Join(e.home, ".gemini", "settings.json") }

const geminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "hooks": {
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "/usr/local/bin/guard", "timeout": 5000}]}
    ]
  },
  "ui": {"theme": "GitHub"}
}
`

type geminiFile struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string  `json:"type"`
			Command string  `json:"command"`
			Timeout float64 `json:"timeout"`
			Name    string  `json:"name"`
		} `json:"hooks"`
	} `json:"hooks"`
}

func readGemini(t *testing.T, path string) (geminiFile, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f geminiFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return f, string(data)
}

func TestGeminiInstall_RegistersBeforeToolHooksKeepingEverythingElse(t *testing.T) {
	e := newEnv(t)
	mustWrite(t, e.geminiPath(), []byte(geminiSettings), 0o600)

	p := install(t, e.opts(GeminiCLI))

	if p.Path != e.geminiPath() {
		t.Errorf("path %s", p.Path)
	}
	f, text := readGemini(t, e.geminiPath())
	for _, want := range []string{`"selectedType": "gemini-api-key"`, `/usr/local/bin/guard`, `"theme": "GitHub"`} {
		if !strings.Contains(text, want) {
			t.Errorf("settings lack %s:\n%s", want, text)
		}
	}
	groups := f.Hooks["BeforeTool"]
	if len(groups) != 3 || groups[0].Matcher != "run_shell_command" {
		t.Fatalf("BeforeTool groups = %+v", groups)
	}
	for i, want := range []struct{ matcher, command, name string }{
		{"^google_web_search$", e.ws, "webgate-websearch"},
		{"^web_fetch$", e.wf, "webgate-webfetch"},
	} {
		g := groups[i+1]
		if g.Matcher != want.matcher || len(g.Hooks) != 1 || g.Hooks[0].Type != "command" || g.Hooks[0].Command != want.command || g.Hooks[0].Name != want.name {
			t.Errorf("group %d = %+v, want %+v", i+1, g, want)
		}
	}
	if groups[1].Hooks[0].Timeout != 30000 || groups[2].Hooks[0].Timeout != 45000 {
		t.Errorf("timeouts are not in milliseconds: %+v", groups)
	}
	if _, ok := f.Hooks["SessionStart"]; ok {
		t.Error("SessionStart registered without --session-start")
	}
	if again, err := PlanInstall(e.opts(GeminiCLI)); err != nil || again.Changed() {
		t.Errorf("a second install changes the file: %v\n%s", err, again.Diff())
	}
}

func TestGeminiUninstall_RemovesOnlyWebgateEntries(t *testing.T) {
	e := newEnv(t)
	mustWrite(t, e.geminiPath(), []byte(geminiSettings), 0o600)
	o := e.opts(GeminiCLI)
	o.SessionStart = true
	install(t, o)
	p, err := PlanUninstall(e.opts(GeminiCLI))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(nil); err != nil {
		t.Fatal(err)
	}
	f, text := readGemini(t, e.geminiPath())
	if strings.Contains(text, e.ws) || strings.Contains(text, e.wf) || len(f.Hooks["BeforeTool"]) != 1 || f.Hooks["SessionStart"] != nil {
		t.Errorf("after uninstall:\n%s", text)
	}
}

func TestGeminiInstall_QuotesPathsForTheShellAndRefusesWhatGeminiWouldExpand(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/opt/web gate/websearch", "'/opt/web gate/websearch'"},
		{"/usr/local/bin/websearch", "/usr/local/bin/websearch"},
	} {
		if got, err := geminiCommand(tc.path); err != nil || got != tc.want {
			t.Errorf("geminiCommand(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
		if got, _ := geminiCommand(tc.path); hookBinary(got) != "websearch" || unquoted(got) != tc.path {
			t.Errorf("%q is not recognised again", got)
		}
	}
	for _, bad := range []string{"/home/$USER/websearch", "/it's/websearch"} {
		if _, err := geminiCommand(bad); err == nil {
			t.Errorf("geminiCommand(%q) succeeded", bad)
		}
	}
}

func TestGeminiInstall_SaysWhyAFileWithCommentsIsLeftAlone(t *testing.T) {
	e := newEnv(t)
	text := "{\n  // mine\n  \"ui\": {}\n}\n"
	mustWrite(t, e.geminiPath(), []byte(text), 0o600)
	_, err := PlanInstall(e.opts(GeminiCLI))
	if !errors.Is(err, ErrInvalidSettings) || !strings.Contains(err.Error(), "comments") {
		t.Errorf("error = %v", err)
	}
}

func TestGeminiInspect_SeesWhatInstallWrote(t *testing.T) {
	e := newEnv(t)
	o := e.opts(GeminiCLI)
	o.Scope = Project
	if p, _ := SettingsPath(o); p != filepath.Join(e.proj, ".gemini", "settings.json") {
		t.Errorf("project path %s", p)
	}
	o.SessionStart = true
	install(t, o)
	r, err := Inspect(o)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Registered() || !r.SessionStart || len(r.Hooks) != 3 || len(r.MissingBinaries()) != 0 {
		t.Errorf("registration = %+v", r)
	}
	o2 := e.opts(GeminiCLI)
	o2.Scope = Project
	if p, err := PlanInstall(r.InstallOptions(o2)); err != nil || p.Changed() {
		t.Errorf("the plan for what is registered changes the file: %v", err)
	}
	o3 := e.opts(GeminiCLI)
	o3.GeminiHome = filepath.Join(e.home, "g")
	if p, _ := SettingsPath(o3); p != filepath.Join(e.home, "g", ".gemini", "settings.json") {
		t.Errorf("GEMINI_CLI_HOME path %s", p)
	}
}

func TestGeminiInstall_SaysWhenHooksAreTurnedOff(t *testing.T) {
	e := newEnv(t)
	mustWrite(t, e.geminiPath(), []byte(`{"hooksConfig": {"enabled": false}}`), 0o600)
	p, err := PlanInstall(e.opts(GeminiCLI))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Found) != 1 || !strings.Contains(p.Found[0], "hooksConfig.enabled is false") {
		t.Errorf("found = %q", p.Found)
	}
}

func TestGeminiInstall_SaysWhereToKeepProviderKeys(t *testing.T) {
	e := newEnv(t)
	p, err := PlanInstall(e.opts(GeminiCLI))
	if err != nil {
		t.Fatal(err)
	}
	var said bool
	for _, n := range p.Notes {
		said = said || strings.Contains(n, "environmentVariableRedaction") && strings.Contains(n, "configuration file")
	}
	if !said {
		t.Errorf("notes %q do not say that Gemini CLI may withhold keys from hooks", p.Notes)
	}
}

// unquoted is the path of a shell word, "" when it is not one.
func unquoted(word string) string {
	p, _ := shellUnquote(word)
	return p
}
