package setup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInvalidSettings_ErrorSaysLineAndColumn(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	for _, tc := range []struct{ text, want string }{
		{"{\n  \"model\": \"x\",\n  \"hooks\": {,\n}\n", `invalid character ',' looking for the beginning of an object key (line 3, column 13)`},
		{"{\n  \"é\": 1 2\n}", `invalid character '2' after an object member (line 2, column 10)`},
		{"{\n  \"a\": [1,\n", "unexpected end of JSON input looking for the beginning of a value (line 3, column 1)"},
		{"{\"a\": \"\\x\"}", `invalid character 'x' in a string escape (line 1, column 9)`},
	} {
		os.WriteFile(path, []byte(tc.text), 0o600)
		_, err := PlanInstall(e.opts(ClaudeCode))
		if !errors.Is(err, ErrInvalidSettings) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v\nwant it to contain %q", tc.text, err, tc.want)
		}
	}
}

func TestUninstall_RemovesTheFileItsInstallCreated(t *testing.T) {
	for _, target := range []Target{ClaudeCode, CopilotCLI, GeminiCLI, Codex} {
		t.Run(string(target), func(t *testing.T) {
			e := newEnv(t)
			o := e.opts(target)
			o.WebgateBin = e.ws
			p := install(t, o)
			if p.Before != nil {
				t.Fatalf("%s existed before the install", p.Path)
			}
			u, err := PlanUninstall(o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := u.Apply(o.Now); err != nil {
				t.Fatal(err)
			}
			if data, err := os.ReadFile(p.Path); err == nil {
				t.Errorf("uninstall left %s holding %q where there was no file", p.Path, data)
			}
			if m, _ := filepath.Glob(p.Path + ".*.bak"); len(m) != 1 {
				t.Errorf("backups %v, want the one of the removed file", m)
			}
		})
	}
}

func TestUninstall_KeepsAFileThatHoldsOtherSettings(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"model":"opus"}`), 0o600)
	o := e.opts(ClaudeCode)
	install(t, o)
	u, err := PlanUninstall(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Apply(o.Now); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != `{"model":"opus"}` {
		t.Errorf("settings after uninstall: %q", data)
	}
}
