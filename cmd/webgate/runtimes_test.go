package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// withWebgate makes the running binary, as install and doctor see it, a
// "webgate" in the host's bin directory.
func (h *testHost) withWebgate() string {
	h.t.Helper()
	p := filepath.Join(h.bin, "webgate")
	if err := os.WriteFile(p, []byte(versionScript), 0o755); err != nil {
		h.t.Fatal(err)
	}
	saved := webgateExecutable
	webgateExecutable = func() (string, error) { return p, nil }
	h.t.Cleanup(func() { webgateExecutable = saved })
	return p
}

func TestInstall_CodexRegistersTheMCPServerAndDoctorAgrees(t *testing.T) {
	h := newTestHost(t).withKey().register()
	webgate := h.withWebgate()
	config := h.write(filepath.Join(h.home, ".codex", "config.toml"), "# mine\nmodel = \"o3\"\n")

	code, out, errOut := h.run("", "install", "--target", "codex", "--dry-run")
	if code != exitOK || !strings.Contains(out, "+[mcp_servers.webgate]") || !strings.Contains(out, "(dry run: nothing written)") {
		t.Fatalf("dry run: %d\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(config); string(data) != "# mine\nmodel = \"o3\"\n" {
		t.Fatalf("the dry run wrote:\n%s", data)
	}
	code, out, errOut = h.run("", "install", "--target", "codex")
	if code != exitOK || !strings.Contains(out, "MCP server registered") || !regexp.MustCompile(`backup: `+regexp.QuoteMeta(config)+`\.\d{8}T\d{6}Z\.bak\n`).MatchString(out) {
		t.Fatalf("install: %d\n%s%s", code, out, errOut)
	}
	want := "# mine\nmodel = \"o3\"\n\n[mcp_servers.webgate]\ncommand = \"" + webgate + "\"\nargs = [\"mcp\"]\n"
	if data, _ := os.ReadFile(config); string(data) != want {
		t.Fatalf("config.toml:\n%s\nwant:\n%s", data, want)
	}
	if code, out, _ := h.run("", "install", "--target", "codex"); code != exitOK || !strings.Contains(out, "already up to date") {
		t.Errorf("second install: %d\n%s", code, out)
	}

	code, out, _ = h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("doctor: %d\n%s", code, out)
	}
	line(t, out, `^  OK\s+codex \(user\)\s+MCP server registered in .*\.codex/config\.toml \(tools mcp__webgate: web_search, web_fetch\)$`)
	line(t, out, `^  WARN\s+codex \(user\)\s+Codex starts webgate mcp without these variables, which webgate reads here: TAVILY_API_KEY$`)
	line(t, out, `^  INFO\s+codex \(project\)\s+not registered \(no .*proj/\.codex/config\.toml\)$`)

	code, out, _ = h.run("", "uninstall", "--target", "codex")
	if code != exitOK || !strings.Contains(out, "MCP server removed") {
		t.Fatalf("uninstall: %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(config); string(data) != "# mine\nmodel = \"o3\"\n" {
		t.Errorf("config.toml after uninstall:\n%s", data)
	}
}

func TestInstall_CodexAloneCountsAsARegistration(t *testing.T) {
	h := newTestHost(t).withKey()
	h.withWebgate()
	if code, out, errOut := h.run("", "install", "--target", "codex", "--scope", "project", "--project-dir", h.proj); code != exitOK {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("doctor: %d\n%s", code, out)
	}
	line(t, out, `^  OK\s+codex \(project\)\s+MCP server registered in .*proj/\.codex/config\.toml`)
}

func TestDoctor_CodexProblems(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		code         int
		want         string
	}{
		{"missing binary", "[mcp_servers.webgate]\ncommand = \"/gone/webgate\"\nargs = [\"mcp\"]\n", exitFail,
			`^  FAIL\s+codex \(user\)\s+\[mcp_servers\.webgate\] starts /gone/webgate, which does not exist$`},
		{"disabled", "[mcp_servers.webgate]\ncommand = \"WEBGATE\"\nargs = [\"mcp\"]\nenabled = false\n", exitOK,
			`^  WARN\s+codex \(user\)\s+.* has enabled = false: Codex does not start it$`},
		{"other server", "[mcp_servers.webgate]\nurl = \"http://127.0.0.1:9/mcp\"\n", exitOK,
			`^  WARN\s+codex \(user\)\s+\[mcp_servers\.webgate\] in .* does not start 'webgate mcp'$`},
		{"invalid TOML", "[mcp_servers.webgate\n", exitFail,
			`^  FAIL\s+codex \(user\)\s+.*config\.toml: config file is not valid TOML`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHost(t).withKey().register()
			webgate := h.withWebgate()
			h.write(filepath.Join(h.home, ".codex", "config.toml"), strings.ReplaceAll(tc.config, "WEBGATE", webgate))
			code, out, _ := h.run("", "doctor")
			if code != tc.code {
				t.Errorf("code %d, want %d\n%s", code, tc.code, out)
			}
			line(t, out, tc.want)
		})
	}
}

func TestInstall_GeminiCLIRegistersTheHooksAndDoctorAgrees(t *testing.T) {
	h := newTestHost(t).withKey()
	settings := h.write(filepath.Join(h.home, ".gemini", "settings.json"), "{\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}\n}\n")
	code, out, errOut := h.run("", "install", "--target", "gemini-cli")
	if code != exitOK || !strings.Contains(out, "hooks registered") {
		t.Fatalf("install: %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(settings)
	for _, want := range []string{`"selectedType": "gemini-api-key"`, `"BeforeTool"`, `"matcher": "^google_web_search$"`, `"command": "` + h.websearch + `"`, `"timeout": 45000`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("settings lack %s:\n%s", want, data)
		}
	}
	code, out, _ = h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("doctor: %d\n%s", code, out)
	}
	line(t, out, `^  OK\s+gemini-cli \(user\)\s+registered in .*\.gemini/settings\.json \(BeforeTool: google_web_search, web_fetch\)$`)
	line(t, out, `^  INFO\s+gemini-cli \(project\)\s+not registered`)
	if code, out, _ := h.run("", "uninstall", "--target", "gemini-cli"); code != exitOK || !strings.Contains(out, "hooks removed") {
		t.Fatalf("uninstall: %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(settings); strings.Contains(string(data), h.websearch) {
		t.Errorf("settings after uninstall:\n%s", data)
	}
}

func TestInstall_UnknownTargetNamesTheNewOnes(t *testing.T) {
	h := newTestHost(t)
	code, _, errOut := h.run("", "install", "--target", "cursor")
	if code != exitUsage || !strings.Contains(errOut, "gemini-cli, codex") {
		t.Errorf("code %d, stderr %q", code, errOut)
	}
}

func TestInstall_AllAddsGeminiAndCodexOnlyWhereTheyAreInUse(t *testing.T) {
	h := newTestHost(t).withKey().register()
	h.withWebgate()
	if err := os.MkdirAll(filepath.Join(h.home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := h.run("", "install", "--target", "all")
	if code != exitOK {
		t.Fatalf("install --target all: %d\n%s%s", code, out, errOut)
	}
	for _, p := range []string{".claude/settings.json", ".copilot/hooks/webgate.json", ".gemini/settings.json"} {
		if _, err := os.Stat(filepath.Join(h.home, p)); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(h.home, ".codex")); err == nil {
		t.Errorf("a Codex configuration was created where Codex is not in use")
	}
	code, out, errOut = h.run("", "uninstall", "--target", "all")
	if code != exitOK {
		t.Fatalf("uninstall --target all: %d\n%s%s", code, out, errOut)
	}
	if data, err := os.ReadFile(filepath.Join(h.home, ".gemini", "settings.json")); err == nil && strings.Contains(string(data), "websearch") {
		t.Errorf("uninstall --target all left the Gemini hooks:\n%s", data)
	}
}

// GEMINI_CLI_HOME is where Gemini CLI's .gemini directory is, as the
// install writes it: the home alone existing does not mean Gemini CLI is
// in use there.
func TestInstall_AllLooksForGeminiWhereItsHomeSaysTheSettingsAre(t *testing.T) {
	h := newTestHost(t).withKey().register()
	h.withWebgate()
	gemHome := filepath.Join(h.dir, "gemini-home")
	if err := os.MkdirAll(gemHome, 0o755); err != nil {
		t.Fatal(err)
	}
	h.env["GEMINI_CLI_HOME"] = gemHome
	if code, out, errOut := h.run("", "install", "--target", "all"); code != exitOK {
		t.Fatalf("install --target all: %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(gemHome, ".gemini", "settings.json")); err == nil {
		t.Error("Gemini CLI's hooks were installed where its home has no .gemini directory")
	}
	if err := os.MkdirAll(filepath.Join(gemHome, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := h.run("", "install", "--target", "all"); code != exitOK {
		t.Fatalf("install --target all: %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(gemHome, ".gemini", "settings.json")); err != nil {
		t.Errorf("Gemini CLI's hooks were not installed in its home: %v", err)
	}
}
