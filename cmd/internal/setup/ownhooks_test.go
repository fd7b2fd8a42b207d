package setup

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hostileBinDir makes a bin directory whose path holds a space, a quote,
// $( ) and backquotes, with hook scripts that record that they ran.
func hostileBinDir(t *testing.T) (e env, ran, pwned string) {
	t.Helper()
	d := t.TempDir()
	ran, pwned = filepath.Join(d, "ran"), filepath.Join(d, "PWNED")
	bin := filepath.Join(d, "b d", "it's $(touch "+pwned+")`touch "+pwned+"`")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Skip("cannot make the directory:", err)
	}
	e = env{home: filepath.Join(d, "home"), proj: filepath.Join(d, "proj"), ws: filepath.Join(bin, "websearch"), wf: filepath.Join(bin, "webfetch")}
	for _, p := range []string{e.ws, e.wf} {
		mustWrite(t, p, []byte("#!/bin/sh\necho ran > '"+ran+"'\n"), 0o755)
	}
	return e, ran, pwned
}

// TestCopilotInstall_QuotesTheHookPathForEachShell: the bash field runs
// the hook itself from a bin directory with a space, a quote, $( ) and
// backquotes in its path, and runs nothing else; the powershell field
// calls it as one single-quoted string; doctor's reading (Inspect) finds
// the hook registered at that path, and uninstall removes it.
func TestCopilotInstall_QuotesTheHookPathForEachShell(t *testing.T) {
	e, ran, pwned := hostileBinDir(t)
	o := e.opts(CopilotCLI)
	p := install(t, o)
	var f struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	data, _ := os.ReadFile(p.Path)
	if err := json.Unmarshal(data, &f); err != nil || len(f.Hooks["preToolUse"]) != 1 {
		t.Fatalf("%v:\n%s", err, data)
	}
	h := f.Hooks["preToolUse"][0]
	if want := "& '" + strings.ReplaceAll(e.wf, "'", "''") + "'"; h["powershell"] != want {
		t.Errorf("powershell %q, want %q", h["powershell"], want)
	}
	bash, _ := h["bash"].(string)
	if sh, err := exec.LookPath("bash"); err == nil && runtime.GOOS != "windows" {
		cmd := exec.Command(sh, "-c", bash)
		cmd.Stdin = strings.NewReader("{}")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("bash -c %q: %v: %s", bash, err, out)
		}
		if _, err := os.Stat(ran); err != nil {
			t.Errorf("the hook did not run from %q", bash)
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Errorf("the bash field ran code from the path: %q", bash)
		}
	}
	r, err := Inspect(o)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Registered() || len(r.Hooks) != 1 || r.Hooks[0].Path != e.wf || r.Hooks[0].Missing {
		t.Errorf("inspect: registered %v, hooks %+v", r.Registered(), r.Hooks)
	}
	if again, err := PlanInstall(o); err != nil || again.Changed() {
		t.Errorf("a second install changes the file (%v):\n%s", err, again.Diff())
	}
	u, err := PlanUninstall(o)
	if err != nil {
		t.Fatal(err)
	}
	if u.After != nil {
		t.Errorf("uninstall left:\n%s", u.After)
	}
}

// TestCopilotUninstall_RemovesTheUnquotedEntriesOfEarlierVersions: an
// entry written before the fields were quoted (the bare path in both,
// a space in it) is still webgate's: install rewrites it quoted, and
// uninstall removes it.
func TestCopilotUninstall_RemovesTheUnquotedEntriesOfEarlierVersions(t *testing.T) {
	e, _, _ := hostileBinDir(t)
	o := e.opts(CopilotCLI)
	path, _ := SettingsPath(o)
	raw, _ := json.Marshal(e.wf)
	old := `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":` + string(raw) + `,"powershell":` + string(raw) + `,"timeoutSec":45},{"type":"command","bash":"./audit.sh"}]}}`
	writeSettings(t, path, old)
	r, err := Inspect(o)
	if err != nil || len(r.Hooks) != 1 || r.Hooks[0].Path != e.wf {
		t.Fatalf("inspect %v: %+v", err, r)
	}
	u, err := PlanUninstall(o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(u.After), "webfetch") || !strings.Contains(string(u.After), "./audit.sh") {
		t.Errorf("uninstall:\n%s", u.After)
	}
	p, err := PlanInstall(o)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(p.After), "webfetch"); n != 2 || !strings.Contains(string(p.After), "& '") {
		t.Errorf("install over the old entry (%d mentions):\n%s", n, p.After)
	}
}

// TestClaudeInstall_InABinDirWithASpaceIsRecognisedAgain: Claude Code's
// exec form takes the command as the path it is, so doctor (Inspect)
// finds an install into "/…/b d/" registered, and a second install
// changes nothing.
func TestClaudeInstall_InABinDirWithASpaceIsRecognisedAgain(t *testing.T) {
	e, _, _ := hostileBinDir(t)
	o := e.opts(ClaudeCode)
	install(t, o)
	r, err := Inspect(o)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Registered() || len(r.Hooks) == 0 || r.Hooks[0].Path != e.ws || r.Hooks[0].Missing {
		t.Errorf("inspect: registered %v (absent %v), hooks %+v", r.Registered(), r.Absent(), r.Hooks)
	}
	if again, err := PlanInstall(o); err != nil || again.Changed() {
		t.Errorf("a second install changes the file (%v):\n%s", err, again.Diff())
	}
}

// TestShellQuoting round-trips paths through the bash and PowerShell
// forms.
func TestShellQuoting(t *testing.T) {
	for _, tc := range []struct{ path, bash, ps string }{
		{"/usr/local/bin/webfetch", "/usr/local/bin/webfetch", "/usr/local/bin/webfetch"},
		{"/home/Jane Doe/bin/webfetch", "'/home/Jane Doe/bin/webfetch'", "& '/home/Jane Doe/bin/webfetch'"},
		{"/it's/webfetch", `'/it'\''s/webfetch'`, "& '/it''s/webfetch'"},
		{`C:\Program Files\webgate\webfetch.exe`, `'C:\Program Files\webgate\webfetch.exe'`, `& 'C:\Program Files\webgate\webfetch.exe'`},
	} {
		if got := shellQuote(tc.path); got != tc.bash {
			t.Errorf("shellQuote(%q) = %q, want %q", tc.path, got, tc.bash)
		}
		if got, ok := shellUnquote(tc.bash); !ok || got != tc.path {
			t.Errorf("shellUnquote(%q) = %q, %v", tc.bash, got, ok)
		}
		if got := powershellCommand(tc.path); got != tc.ps {
			t.Errorf("powershellCommand(%q) = %q, want %q", tc.path, got, tc.ps)
		}
	}
	for _, bad := range []string{"/a b/webfetch", "'/a'x", "'/a", "$(x)/webfetch", ""} {
		if p, ok := shellUnquote(bad); ok {
			t.Errorf("shellUnquote(%q) = %q, ok", bad, p)
		}
	}
}

// TestInstallUninstall_LeaveAHookWebgateDidNotWrite: a user's own hook
// whose program is named websearch or webfetch (another path, arguments,
// no marker) is not webgate's: install and uninstall keep it byte for
// byte and report it, and uninstall does not remove the settings file.
func TestInstallUninstall_LeaveAHookWebgateDidNotWrite(t *testing.T) {
	for _, tc := range []struct {
		target      Target
		text, entry string
	}{
		{ClaudeCode, `{"hooks":{"PreToolUse":[{"matcher":"WebSearch","hooks":[%s]}]}}`, `{"type":"command","command":"/home/me/other/websearch --site docs"}`},
		{ClaudeCode, `{"hooks":{"PreToolUse":[{"matcher":"WebSearch","hooks":[%s]}]}}`, `{"type":"command","command":"/home/me/other/websearch"}`},
		{GeminiCLI, `{"hooks":{"BeforeTool":[{"matcher":"^web_fetch$","hooks":[%s]}]}}`, `{"type":"command","command":"/home/me/other/webfetch","timeout":5000}`},
		{CopilotCLI, `{"version":1,"hooks":{"preToolUse":[%s]}}`, `{"type":"command","bash":"/home/me/other/webfetch --log","powershell":"x","timeoutSec":5}`},
	} {
		t.Run(string(tc.target), func(t *testing.T) {
			e := newEnv(t)
			o := e.opts(tc.target)
			path, _ := SettingsPath(o)
			text := strings.Replace(tc.text, "%s", tc.entry, 1)
			writeSettings(t, path, text)
			u, err := PlanUninstall(o)
			if err != nil {
				t.Fatal(err)
			}
			if u.Changed() {
				t.Errorf("uninstall changes the file:\n%s", u.Diff())
			}
			if !strings.Contains(strings.Join(u.Found, "\n"), "that webgate did not write is left alone") {
				t.Errorf("uninstall does not report the hook: %q", u.Found)
			}
			if _, err := u.Apply(o.Now); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != text {
				t.Fatalf("after uninstall (%v): %q", err, got)
			}
			p := install(t, o)
			got, _ := os.ReadFile(path)
			if !strings.Contains(string(got), tc.entry) {
				t.Errorf("install rewrote the user's hook:\n%s", got)
			}
			if !strings.Contains(strings.Join(p.Found, "\n"), "that webgate did not write is left alone") {
				t.Errorf("install does not report the hook: %q", p.Found)
			}
			r, err := Inspect(o)
			if err != nil || !r.Registered() || len(r.Foreign) != 1 {
				t.Errorf("inspect after install (%v): registered %v, foreign %q", err, r.Registered(), r.Foreign)
			}
			u, err = PlanUninstall(o)
			if err != nil {
				t.Fatal(err)
			}
			if string(u.After) != text {
				t.Errorf("install then uninstall:\n%s\nwant\n%s", u.After, text)
			}
		})
	}
}

// TestUninstall_KeepsASettingsFileTheUserWrote: a settings file the user
// wrote that holds nothing but webgate's entries keeps an empty object
// after the uninstall; it is not removed.
func TestUninstall_KeepsASettingsFileTheUserWrote(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	path := e.settingsPath()
	writeSettings(t, path, "{\n    \"hooks\": {}\n}\n")
	install(t, o)
	u, err := PlanUninstall(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Apply(o.Now); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || strings.Contains(string(got), "websearch") {
		t.Errorf("after uninstall (%v): %q", err, got)
	}
}
