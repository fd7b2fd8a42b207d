package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// line returns the doctor's report line that matches pattern, or fails.
func line(t *testing.T, out, pattern string) string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	for _, l := range strings.Split(out, "\n") {
		if re.MatchString(l) {
			return l
		}
	}
	t.Fatalf("no line matches %q in:\n%s", pattern, out)
	return ""
}

func TestDoctor_AllGreenExitsZero(t *testing.T) {
	h := newTestHost(t).withKey().register()
	code, out, errOut := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d\n%s%s", code, out, errOut)
	}
	line(t, out, `^  OK\s+tavily\s+1 key \(env TAVILY_API_KEY\); in order: search #1, extraction #2$`)
	line(t, out, `^  OK\s+claude-code \(user\)\s+registered in `)
	line(t, out, `^  OK\s+websearch\s+.*bin/websearch \(next to webgate\), executable, websearch v9\.9\.9$`)
	line(t, out, `^  OK\s+state_dir\s+.*writable$`)
	line(t, out, `WebSearch\s+"golang context cancellation" → would call tavily and deny with their results`)
	line(t, out, `^All checks passed\.$`)
	if strings.Contains(out, "FAIL") || strings.Contains(out, "WARN") {
		t.Errorf("unexpected problems:\n%s", out)
	}
}

func TestDoctor_NoProviderKeyIsANextStep(t *testing.T) {
	h := newTestHost(t).register()
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  NEXT\s+providers\s+no provider has a key yet`)
	line(t, out, `→ give a provider a key: export one of TAVILY_API_KEY`)
	line(t, out, `WebSearch\s+.*→ pass: no search provider has an API key`)
}

func TestDoctor_ReportsInvalidSettingsBySourceWithoutTheirValues(t *testing.T) {
	h := newTestHost(t).withKey().register()
	h.env["CLAUDE_WEB_HOOKS_SEARCH_MODE"] = "tvly-NOT-A-MODE-777"
	h.env["WEBGATE_PROVIDERS_EXA_KEYS"] = "/nonexistent/exa-keys.txt"
	code, out, _ := h.run("", "doctor")
	if code != exitFail {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  FAIL\s+invalid\s+search\.mode \(env CLAUDE_WEB_HOOKS_SEARCH_MODE\): not one of parallel, fallback, single$`)
	line(t, out, `^  FAIL\s+invalid\s+providers\.exa\.keys \(env WEBGATE_PROVIDERS_EXA_KEYS\): .*exa-keys\.txt`)
	line(t, out, `sources\s+defaults, .*env CLAUDE_WEB_HOOKS_SEARCH_MODE`)
	if strings.Contains(out, "NOT-A-MODE") {
		t.Fatalf("a value was printed:\n%s", out)
	}
}

func TestDoctor_FlagsNonDefaultBaseURLsWithoutQueryOrUserInfo(t *testing.T) {
	h := newTestHost(t).withKey().register()
	h.env["TAVILY_BASE_URL"] = "https://user:pw@proxy.example.net/tavily?token=abc"
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("a non-default base URL is a warning, not a failure; code %d\n%s", code, out)
	}
	l := line(t, out, `^  WARN\s+tavily base URL\s+`)
	if !strings.Contains(l, "https://proxy.example.net/tavily, not the default https://api.tavily.com (env TAVILY_BASE_URL)") || strings.Contains(out, "token=abc") || strings.Contains(out, "pw@") {
		t.Fatalf("line %q", l)
	}
}

func TestDoctor_ReportsEachHookRegistrationState(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings func(h *testHost) string
		code     int
		want     []string
	}{
		{"missing", func(h *testHost) string { return "" }, exitOK, []string{
			`^  INFO\s+claude-code \(user\)\s+not registered \(no .*settings\.json\)$`,
			`^  NEXT\s+any target\s+the hooks are not registered for any agent yet$`,
		}},
		{"registered", func(h *testHost) string { h.register(); return "" }, exitOK, []string{
			`^  OK\s+claude-code \(user\)\s+registered in `,
		}},
		{"duplicated", func(h *testHost) string {
			return `{"hooks":{"PreToolUse":[
			 {"matcher":"WebSearch","hooks":[{"type":"command","command":"` + h.websearch + `","args":[]}]},
			 {"matcher":"WebSearch","hooks":[{"type":"command","command":"` + h.websearch + `","args":[]}]},
			 {"matcher":"WebFetch","hooks":[{"type":"command","command":"` + h.webfetch + `","args":[]}]}]}}`
		}, exitOK, []string{
			`^  WARN\s+claude-code \(user\)\s+duplicated: PreToolUse websearch \(2 entries\)`,
			`→ webgate install --target claude-code --scope user \(collapses them\)`,
		}},
		{"legacy node hooks", func(h *testHost) string {
			return `{"hooks":{"PreToolUse":[
			 {"matcher":"WebSearch","hooks":[{"type":"command","command":"` + h.websearch + `","args":[]}]},
			 {"matcher":"WebFetch","hooks":[{"type":"command","command":"` + h.webfetch + `","args":[]}]},
			 {"matcher":"WebSearch","hooks":[{"type":"command","command":"node ~/.claude/hooks/websearch-custom.cjs"}]}]}}`
		}, exitOK, []string{
			`^  WARN\s+claude-code \(user\)\s+PreToolUse: older Node hook websearch-custom\.cjs for "WebSearch" in .*; it runs alongside webgate$`,
		}},
		{"missing binary", func(h *testHost) string {
			return `{"hooks":{"PreToolUse":[
			 {"matcher":"WebSearch","hooks":[{"type":"command","command":"/gone/websearch","args":[]}]},
			 {"matcher":"WebFetch","hooks":[{"type":"command","command":"` + h.webfetch + `","args":[]}]}]}}`
		}, exitFail, []string{
			`^  FAIL\s+claude-code \(user\)\s+PreToolUse websearch entry points at /gone/websearch, which does not exist$`,
		}},
		{"partly registered", func(h *testHost) string {
			return `{"hooks":{"PreToolUse":[{"matcher":"WebFetch","hooks":[{"type":"command","command":"` + h.webfetch + `","args":[]}]}]}}`
		}, exitOK, []string{
			`^  WARN\s+claude-code \(user\)\s+partly registered in .*: missing PreToolUse websearch$`,
			`^  NEXT\s+any target`,
		}},
		{"stale paths", func(h *testHost) string {
			other := filepath.Join(h.dir, "old")
			os.MkdirAll(other, 0o755)
			for _, n := range []string{"websearch", "webfetch"} {
				os.WriteFile(filepath.Join(other, n), []byte(versionScript), 0o755)
			}
			return `{"hooks":{"PreToolUse":[
			 {"matcher":"WebSearch","hooks":[{"type":"command","command":"` + filepath.Join(other, "websearch") + `","args":[],"timeout":30}]},
			 {"matcher":"WebFetch","hooks":[{"type":"command","command":"` + filepath.Join(other, "webfetch") + `","args":[],"timeout":45}]}]}}`
		}, exitOK, []string{
			`^  WARN\s+claude-code \(user\)\s+registered in .*, but not as 'webgate install' would write it now`,
		}},
		{"a user's own hook named websearch", func(h *testHost) string {
			return `{"hooks":{"PreToolUse":[
			 {"matcher":"WebSearch","hooks":[{"type":"command","command":"/home/me/other/websearch --site docs"}]}]}}`
		}, exitOK, []string{
			`^  INFO\s+claude-code \(user\)\s+PreToolUse: a hook named websearch that webgate did not write is left alone: "/home/me/other/websearch --site docs" \(in .*settings\.json\)$`,
			`^  INFO\s+claude-code \(user\)\s+not registered \(.*settings\.json has no webgate hooks\)$`,
		}},
		{"invalid JSON", func(h *testHost) string { return `{"hooks": {` }, exitFail, []string{
			`^  FAIL\s+claude-code \(user\)\s+.*settings\.json: settings file is not valid JSON`,
			`→ fix the file by hand`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHost(t).withKey()
			if s := tc.settings(h); s != "" {
				h.write(h.userSettings(), s)
			}
			before, _ := os.ReadFile(h.userSettings())
			code, out, _ := h.run("", "doctor")
			if code != tc.code {
				t.Errorf("code %d, want %d\n%s", code, tc.code, out)
			}
			for _, w := range tc.want {
				line(t, out, w)
			}
			after, _ := os.ReadFile(h.userSettings())
			if string(before) != string(after) {
				t.Error("doctor changed the settings file")
			}
		})
	}
}

func TestDoctor_ProjectAndCopilotRegistrationsCount(t *testing.T) {
	h := newTestHost(t).withKey()
	if code, out, errOut := h.run("", "install", "--target", "copilot-cli", "--scope", "project", "--project-dir", h.proj, "--bin-dir", h.bin); code != exitOK {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  OK\s+copilot-cli \(project\)\s+registered in .*proj/\.github/hooks/webgate\.json$`)
	line(t, out, `^  INFO\s+copilot-vscode\s+VS Code agent hooks read the Claude Code settings`)
}

func TestDoctor_MissingHookBinaryFails(t *testing.T) {
	h := newTestHost(t).withKey().register()
	os.Remove(h.webfetch)
	code, out, _ := h.run("", "doctor")
	if code != exitFail {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  FAIL\s+webfetch\s+not found next to webgate or on PATH$`)
	line(t, out, `^  FAIL\s+claude-code \(user\)\s+PreToolUse webfetch entry points at .*webfetch, which does not exist$`)
}

func TestDoctor_HookWithoutVersionFlagIsStillOK(t *testing.T) {
	h := newTestHost(t).withKey().register()
	os.WriteFile(h.websearch, []byte("#!/bin/sh\ncat >/dev/null\n"), 0o755)
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  OK\s+websearch\s+.*executable; no version reported`)
}

func TestDoctor_StateDirThatCannotBeWrittenFails(t *testing.T) {
	h := newTestHost(t).withKey().register()
	h.env["WEBGATE_STATE_DIR"] = h.write("not-a-dir", "x")
	code, out, _ := h.run("", "doctor")
	if code != exitFail {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  FAIL\s+state_dir\s+.*not-a-dir is not a directory$`)
}

func TestDoctor_MissingStateDirIsCreatableAndLeftUncreated(t *testing.T) {
	h := newTestHost(t).withKey().register()
	dir := filepath.Join(h.dir, "state", "webgate")
	h.env["WEBGATE_STATE_DIR"] = dir
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  OK\s+state_dir\s+.*does not exist yet; it will be created on first use under .*, writable$`)
	if _, err := os.Stat(dir); err == nil {
		t.Error("doctor created the state directory")
	}
	entries, _ := os.ReadDir(h.dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".webgate-doctor") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestDoctor_ShowsRoutesTheirTestsAndABashDryRun(t *testing.T) {
	h := newTestHost(t).withKey().register().withRoutes()
	code, out, _ := h.run("", "doctor")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  OK\s+docs\s+1 database loaded from .*config\.toml \(1 inline\)$`)
	line(t, out, `^  OK\s+tool routes\s+2 routes loaded \(1 WebFetch, 1 Bash\)`)
	line(t, out, `^  OK\s+route tests\s+3 passed$`)
	line(t, out, `^  INFO\s+Bash\s+"curl https://api.github.com/repos/a/b" → deny: tool route gh-api: Use gh api instead of curl$`)
}

func TestDoctor_FailingRouteTestsFail(t *testing.T) {
	h := newTestHost(t).withKey().register()
	h.env["WEBGATE_TOOL_ROUTES"] = h.write("routes.json", `{"routes":{"gh":{"pattern":"github\\.com","message":"use gh","tests":[{"input":"https://gitlab.com/","expect":"block"}]},"bad":{"pattern":"(","message":"x"}}}`)
	code, out, _ := h.run("", "doctor")
	if code != exitFail {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  WARN\s+invalid\s+tool route bad skipped: pattern does not compile`)
	line(t, out, `^  FAIL\s+route tests\s+route gh: input "https://gitlab.com/" expected block: no route matched$`)
	line(t, out, `^  FAIL\s+route tests\s+0 passed, 1 failed$`)
}

func TestDoctor_JSONReportMatchesTheExitCode(t *testing.T) {
	h := newTestHost(t).withKey().register()
	os.Remove(h.webfetch)
	code, out, _ := h.run("", "doctor", "--json")
	var rep struct {
		OK     bool    `json:"ok"`
		Checks []check `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if code != exitFail || rep.OK {
		t.Fatalf("code %d, ok %v", code, rep.OK)
	}
	found := false
	for _, c := range rep.Checks {
		if c.Section == "Hook binaries" && c.Name == "webfetch" && c.Status == statusFail && c.Fix != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("no failing check of the webfetch binary in %+v", rep.Checks)
	}
}

func TestDoctor_LiveRunsTheHooksInProcess(t *testing.T) {
	srv := fakeTavily(t)
	h := newTestHost(t).withKey().register()
	h.env["TAVILY_BASE_URL"] = srv.URL
	h.env["WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE"] = "true"
	// The live run's lines are checked, not the store's speed: a store
	// slower than its 50ms bound on a loaded machine would take the
	// verdict's place.
	h.env["WEBGATE_STORE_TIMEOUT"] = "5s"
	page := fakePage(t, readableHTML)
	code, out, _ := h.run("", "doctor", "--live", "--url", page)
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^Live run`)
	line(t, out, `^  OK\s+WebSearch\s+"golang context cancellation" → deny: Web search results for query "golang context cancellation", from provider-backed search via webgate \(.*tavily.*\)`)
	line(t, out, `^  OK\s+WebFetch\s+".*" → pass: .*fetch-readable`)
}

func TestDoctor_HelpHasExamples(t *testing.T) {
	code, out, _ := runCLI(t, "", "doctor", "--help")
	if code != exitOK || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--live") || !strings.Contains(out, "Exit status") {
		t.Fatalf("code %d\n%s", code, out)
	}
}

func TestDoctor_RejectsArguments(t *testing.T) {
	newTestHost(t)
	if code, _, errOut := runCLI(t, "", "doctor", "extra"); code != exitUsage || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestDoctor_FailsWhenTheWorkerIsMissing(t *testing.T) {
	h := newTestHost(t).withKey().register()
	if err := os.Remove(filepath.Join(h.bin, "webgate-hook")); err != nil {
		t.Fatal(err)
	}
	code, out, _ := h.run("", "doctor")
	if code != exitFail {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^  FAIL\s+webgate-hook\s+the worker the hooks run was not found`)
}

func TestInstall_ReRunKeepsWhatAnEarlierInstallRegisteredAndDoctorAgrees(t *testing.T) {
	h := newTestHost(t).withKey()
	if code, out, errOut := h.run("", "install", "--bin-dir", h.bin, "--tool-routes", "--session-start", "--mcp-tool", "mcp__ccs-websearch__WebSearch"); code != exitOK {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	first, _ := os.ReadFile(h.userSettings())
	code, out, errOut := h.run("", "install", "--bin-dir", h.bin)
	if code != exitOK || !strings.Contains(out, "already up to date") {
		t.Fatalf("re-run: %d %s %s", code, out, errOut)
	}
	for _, want := range []string{"--mcp-tool mcp__ccs-websearch__WebSearch", "--tool-routes", "--session-start"} {
		if !strings.Contains(out, want) {
			t.Errorf("re-run does not say it kept %s:\n%s", want, out)
		}
	}
	if again, _ := os.ReadFile(h.userSettings()); string(again) != string(first) {
		t.Fatalf("re-run changed the registration:\n%s\nwas:\n%s", again, first)
	}
	code, out, _ = h.run("", "doctor", "--bin-dir", h.bin)
	if code != exitOK {
		t.Fatalf("doctor: code %d\n%s", code, out)
	}
	line(t, out, `^  OK\s+claude-code \(user\)\s+registered in `)
}

// Whatever a check quotes (a configuration key, a file's text, a server's
// answer) reaches the terminal without escape sequences and with
// secret-like values redacted.
func TestDoctor_ChecksAreCleanedOnTheWayIn(t *testing.T) {
	d := &doctor{}
	d.add("config", "unknown key \x1b]0;pwned\x07", statusWarn, "base_url http://user:PassW0rdSecret@127.0.0.1:1 \x1b[2J\u202e", "fix \x9b31m it")
	var out bytes.Buffer
	d.print(&out)
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\x9b", "PassW0rdSecret"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("doctor printed %q:\n%q", bad, out.String())
		}
	}
}
