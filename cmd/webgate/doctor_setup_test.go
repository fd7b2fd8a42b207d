package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDoctor_NothingSetUpYetIsANextStepNotAFailure(t *testing.T) {
	h := newTestHost(t)
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d, want %d: not set up yet is no failure\n%s", code, exitOK, out)
	}
	line(t, out, `^  NEXT\s+providers\s+no provider has a key yet: until one has, WebSearch steps aside to the native tool; WebFetch reads pages locally \(see Local reading\) and steps aside for pages that need a provider$`)
	line(t, out, `^  NEXT\s+any target\s+the hooks are not registered for any agent yet$`)
	line(t, out, `^No failures, 0 warning\(s\): webgate is installed but not set up yet\.$`)
	line(t, out, `^Next steps:$`)
	line(t, out, `^  1\. give a provider a key: export one of TAVILY_API_KEY, .*EXA_API_KEY.* in your shell profile`)
	line(t, out, `^  2\. register the hooks: 'webgate install --target claude-code'`)
	if strings.Contains(out, "FAIL") || strings.Contains(out, "not fully working") {
		t.Errorf("a missing key or registration reads as a failure:\n%s", out)
	}

	code, out, _ = h.run("", "doctor", "--json")
	var rep struct {
		OK         bool `json:"ok"`
		Configured bool `json:"configured"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK || !rep.OK || rep.Configured {
		t.Errorf("--json: code %d, %+v (%v), want ok and not configured", code, rep, err)
	}
}

func TestDoctor_SomethingBrokenStillFailsBesideTheNextSteps(t *testing.T) {
	h := newTestHost(t)
	os.Remove(h.webfetch)
	code, out, _ := h.run("", "doctor")
	if code != exitFail {
		t.Fatalf("code %d, want %d\n%s", code, exitFail, out)
	}
	line(t, out, `^  FAIL\s+webfetch\s+not found`)
	line(t, out, `^1 failed, 0 warning\(s\): webgate is not fully working`)
	line(t, out, `^Next steps:$`)
}

func TestDoctor_NoWarningForTheBaseURLOfAProviderWithoutKeys(t *testing.T) {
	h := newTestHost(t).register()
	h.env["EXA_API_KEY"] = "exa-TESTSECRET-key"
	h.env["TAVILY_BASE_URL"] = "https://proxy.example.net/tavily"
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	if strings.Contains(out, "tavily base URL") {
		t.Errorf("warned about the base URL of tavily, which has no key:\n%s", out)
	}
	h.env["TAVILY_API_KEY"] = testKey
	_, out, _ = h.run("", "doctor")
	line(t, out, `^  WARN\s+tavily base URL\s+https://proxy\.example\.net/tavily`)
}

// writePlugin records webgate as Claude Code records an installed plugin,
// with its hooks built in the plugin's data directory.
func writePlugin(t *testing.T, h *testHost, id, record string, built bool) string {
	t.Helper()
	claude := filepath.Join(h.home, ".claude")
	if record != "" {
		h.write(filepath.Join(claude, "plugins", "installed_plugins.json"), record)
	}
	data := filepath.Join(claude, "plugins", "data", strings.NewReplacer("@", "-", ".", "-").Replace(id))
	h.write(filepath.Join(data, "build.state"), "ready\n")
	if built {
		for _, n := range []string{"websearch", "webfetch", "webgate-hook"} {
			if err := os.WriteFile(filepath.Join(h.write(filepath.Join(data, "bin", ".source"), "1"), "..", n), []byte(versionScript), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return data
}

func TestDoctor_ReportsAnInstalledClaudeCodePluginAsARegistration(t *testing.T) {
	h := newTestHost(t).withKey()
	install := filepath.Join(h.home, ".claude", "plugins", "cache", "webgate-dev", "webgate", "0.1.0")
	writePlugin(t, h, "webgate@webgate-dev", `{"version":2,"plugins":{
		"other@market":[{"scope":"user","installPath":"/x","version":"1"}],
		"webgate@webgate-dev":[{"scope":"user","installPath":"`+install+`","version":"0.1.0","installedAt":"2026-01-02T03:04:05Z"}]}}`, true)
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  OK\s+claude-code \(plugin\)\s+webgate@webgate-dev installed as a Claude Code plugin \(user scope\) from .*0\.1\.0; its hooks are built in .*webgate-webgate-dev/bin$`)
	if strings.Contains(out, "any target") || strings.Contains(out, "other@market") {
		t.Errorf("the plugin was not counted as a registration, or another plugin was reported:\n%s", out)
	}
}

func TestDoctor_FindsThePluginsHooksWhenNoneAreOnPath(t *testing.T) {
	h := newTestHost(t).withKey()
	for _, n := range []string{"websearch", "webfetch", "webgate-hook"} {
		os.Remove(filepath.Join(h.bin, n))
	}
	data := writePlugin(t, h, "webgate@inline", "", true)
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  OK\s+claude-code \(plugin\)\s+webgate@inline: a Claude Code plugin loaded with --plugin-dir has run here; its hooks are built in `)
	line(t, out, `^  OK\s+websearch\s+`+regexpQuote(filepath.Join(data, "bin", "websearch"))+` \(built by the Claude Code plugin webgate@inline\)`)
	line(t, out, `^  OK\s+webgate-hook\s+`+regexpQuote(filepath.Join(data, "bin", "webgate-hook")))
}

func TestDoctor_AClaudeCodePluginTurnedOffIsNoRegistration(t *testing.T) {
	h := newTestHost(t).withKey()
	writePlugin(t, h, "webgate@webgate-dev", `{"version":2,"plugins":{"webgate@webgate-dev":[{"scope":"user","installPath":"/p"}]}}`, false)
	h.write(h.userSettings(), `{"enabledPlugins":{"webgate@webgate-dev":false}}`)
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  WARN\s+claude-code \(plugin\)\s+webgate@webgate-dev installed .*, but turned off in enabledPlugins$`)
	line(t, out, `→ claude plugin enable webgate@webgate-dev$`)
	line(t, out, `^  NEXT\s+any target\s+`)
}

func regexpQuote(s string) string {
	return strings.NewReplacer(".", `\.`, "(", `\(`, ")", `\)`, "+", `\+`).Replace(s)
}

// A relative WEBGATE_STATE_DIR is ignored for the default, and doctor
// says so.
func TestDoctor_SaysARelativeStateDirIsIgnored(t *testing.T) {
	h := newTestHost(t)
	h.env["WEBGATE_STATE_DIR"] = "relative/state"
	_, out, _ := h.run("", "doctor")
	line(t, out, `^  WARN\s+ignored\s+state_dir \(env WEBGATE_STATE_DIR\): ignored, not an absolute path \(a relative path\); the default .*/\.local/state/webgate is used$`)
}
