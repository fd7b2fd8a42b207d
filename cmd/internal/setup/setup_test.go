package setup

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

type env struct {
	home, proj, ws, wf string
}

func newEnv(t *testing.T) env {
	d := t.TempDir()
	e := env{home: filepath.Join(d, "home"), proj: filepath.Join(d, "proj"), ws: filepath.Join(d, "bin", "websearch"), wf: filepath.Join(d, "bin", "webfetch")}
	os.MkdirAll(filepath.Dir(e.ws), 0o755)
	os.WriteFile(e.ws, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(e.wf, []byte("#!/bin/sh\n"), 0o755)
	return e
}

func (e env) opts(target Target) Options {
	return Options{Target: target, Scope: User, Home: e.home, ProjectDir: e.proj, WebSearchBin: e.ws, WebFetchBin: e.wf,
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
}

func install(t *testing.T, o Options) *Plan {
	t.Helper()
	p, err := PlanInstall(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(o.Now); err != nil {
		t.Fatal(err)
	}
	return p
}

const userSettings = `{
  "model": "sonnet",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/guard"}]}
    ]
  },
  "zz_last": true
}
`

func TestInstall_MergesIntoClaudeSettingsKeepingEverythingElse(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(userSettings), 0o600)

	p := install(t, e.opts(ClaudeCode))
	if p.Path != path {
		t.Fatalf("path %s", p.Path)
	}
	data, _ := os.ReadFile(path)
	text := string(data)
	for _, want := range []string{`"model": "sonnet"`, `"Bash(ls:*)"`, `/usr/local/bin/guard`, `"zz_last": true`, e.ws, e.wf, `"matcher": "WebSearch"`, `"matcher": "WebFetch"`, `"args": []`} {
		if !strings.Contains(text, want) {
			t.Errorf("settings lack %s:\n%s", want, text)
		}
	}
	if strings.Index(text, `"model"`) > strings.Index(text, `"zz_last"`) {
		t.Error("key order not kept")
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("result is not JSON: %v", err)
	}
	bak, err := os.ReadFile(path + ".20260102T030405Z.bak")
	if err != nil || string(bak) != userSettings {
		t.Fatalf("backup missing or wrong: %v", err)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", info.Mode().Perm())
	}
}

func TestInstall_TwiceChangesNothing(t *testing.T) {
	e := newEnv(t)
	install(t, e.opts(ClaudeCode))
	path := filepath.Join(e.home, ".claude", "settings.json")
	first, _ := os.ReadFile(path)
	p, err := PlanInstall(e.opts(ClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	if p.Changed() || p.Diff() != "" {
		t.Fatalf("second install would change the file:\n%s", p.Diff())
	}
	if b, _ := p.Apply(nil); b != "" {
		t.Error("a no-op apply wrote a backup")
	}
	second, _ := os.ReadFile(path)
	if string(first) != string(second) {
		t.Fatal("file changed")
	}
}

func TestInstall_CollapsesDuplicatesAndReportsLegacyHooks(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"hooks":{"PreToolUse":[
	 {"matcher":"WebSearch","hooks":[{"type":"command","command":"/old/place/websearch","args":[]}]},
	 {"matcher":"WebSearch","hooks":[{"type":"command","command":"`+e.ws+`","args":[]}]},
	 {"matcher":"WebSearch|WebFetch","hooks":[{"type":"command","command":"node ~/.claude/hooks/websearch-custom.cjs"}]}
	]}}`), 0o600)
	p := install(t, e.opts(ClaudeCode))
	found := strings.Join(p.Found, "\n")
	for _, want := range []string{"duplicate webgate websearch", "websearch-custom.cjs", "does not exist"} {
		if !strings.Contains(found, want) {
			t.Errorf("report lacks %q:\n%s", want, found)
		}
	}
	data, _ := os.ReadFile(path)
	// PreToolUse, PostToolUse and PostToolUseFailure each have one.
	if n := strings.Count(string(data), "websearch\""); n != 3 {
		t.Errorf("%d websearch entries after install:\n%s", n, data)
	}
	if strings.Contains(string(data), "/old/place") {
		t.Error("stale path kept")
	}
	if !strings.Contains(string(data), "websearch-custom.cjs") {
		t.Error("the legacy hook was removed; it must only be reported")
	}
}

func TestInstall_LeavesInvalidJSONUntouched(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	broken := []byte(`{"hooks": {`)
	os.WriteFile(path, broken, 0o600)
	_, err := PlanInstall(e.opts(ClaudeCode))
	if !errors.Is(err, ErrInvalidSettings) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v", err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != string(broken) {
		t.Fatal("file touched")
	}
	if m, _ := filepath.Glob(path + ".*.bak"); len(m) > 0 {
		t.Fatalf("backup written for an invalid file: %v", m)
	}
}

func TestDryRunDiff_ShowsTheAddedEntries(t *testing.T) {
	e := newEnv(t)
	p, err := PlanInstall(e.opts(ClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	d := p.Diff()
	if !strings.Contains(d, "+++ ") || !strings.Contains(d, `+      "PreToolUse": [`) && !strings.Contains(d, `"PreToolUse"`) {
		t.Fatalf("diff:\n%s", d)
	}
	if _, err := os.Stat(p.Path); err == nil {
		t.Fatal("planning wrote the file")
	}
}

func TestUninstall_RemovesOnlyWebgateEntries(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(userSettings), 0o600)
	o := e.opts(ClaudeCode)
	o.MCPTools = []string{"mcp__ccs-websearch__WebSearch"}
	o.SessionStart = true
	install(t, o)
	p, err := PlanUninstall(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(o.Now); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var got, want any
	json.Unmarshal(data, &got)
	json.Unmarshal([]byte(userSettings), &want)
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Fatalf("uninstall left\n%s\nwant\n%s", data, userSettings)
	}
	// Install and uninstall within the same second: one scheme, numbered.
	for _, name := range []string{".20260102T030405Z.bak", ".20260102T030405Z.1.bak"} {
		if _, err := os.Stat(path + name); err != nil {
			t.Errorf("no backup %s: %v", name, err)
		}
	}
	if m, _ := filepath.Glob(path + "*.bak"); len(m) != 2 {
		t.Errorf("backups %v, want two of the one naming scheme", m)
	}
}

func TestInstall_RegistersMCPCompanionAndSessionStart(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	o.Scope = Project
	o.MCPTools = []string{"mcp__ccs-websearch__WebSearch", "mcp__plugin_ccs_websearch__WebSearch"}
	o.SessionStart = true
	p := install(t, o)
	if p.Path != filepath.Join(e.proj, ".claude", "settings.json") {
		t.Fatalf("path %s", p.Path)
	}
	data, _ := os.ReadFile(p.Path)
	for _, want := range []string{`"PostToolUse"`, `"PostToolUseFailure"`, `"SessionStart"`, `"WebSearch|mcp__ccs-websearch__WebSearch|mcp__plugin_ccs_websearch__WebSearch"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("lacks %s:\n%s", want, data)
		}
	}
}

func TestInstall_CopilotCLIWritesItsOwnHooksFile(t *testing.T) {
	e := newEnv(t)
	o := e.opts(CopilotCLI)
	o.Scope = Project
	p := install(t, o)
	if p.Path != filepath.Join(e.proj, ".github", "hooks", "webgate.json") {
		t.Fatalf("path %s", p.Path)
	}
	var f struct {
		Version int `json:"version"`
		Hooks   map[string][]struct {
			Type, Bash, Powershell string
			TimeoutSec             int
		} `json:"hooks"`
	}
	data, _ := os.ReadFile(p.Path)
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != 1 || len(f.Hooks["preToolUse"]) != 1 || f.Hooks["preToolUse"][0].Bash != e.wf || f.Hooks["preToolUse"][0].TimeoutSec == 0 {
		t.Fatalf("file:\n%s", data)
	}
	if len(p.Notes) == 0 {
		t.Error("no note about the missing web search tool")
	}
	again, _ := PlanInstall(o)
	if again.Changed() {
		t.Fatal("second install changes the file")
	}
	un, _ := PlanUninstall(o)
	un.Apply(nil)
	data, _ = os.ReadFile(p.Path)
	if strings.Contains(string(data), "webfetch") {
		t.Fatalf("uninstall left our entry:\n%s", data)
	}
}

func TestInstall_VSCodeUsesClaudeSettingsAndSaysSo(t *testing.T) {
	e := newEnv(t)
	p, err := PlanInstall(e.opts(CopilotVSCode))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p.Path, filepath.Join(".claude", "settings.json")) || len(p.Notes) == 0 || !strings.Contains(p.Notes[0], "Claude Code settings") {
		t.Fatalf("plan %+v", p)
	}
}

func TestHookBinary_RecognisesOurCommandsOnly(t *testing.T) {
	for cmd, want := range map[string]string{
		"/usr/local/bin/websearch":           "websearch",
		`"/path with space/webfetch" --x`:    "webfetch",
		"C:/tools/websearch.exe":             "websearch",
		"/opt/webgate-webfetch":              "webfetch",
		"node websearch-custom.cjs":          "",
		"/usr/bin/websearcher":               "",
		"":                                   "",
		"${CLAUDE_PLUGIN_ROOT}/bin/webfetch": "webfetch",
	} {
		if got := hookBinary(cmd); got != want {
			t.Errorf("hookBinary(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestInstall_ToolRoutesAddBashToTheWebFetchMatcher(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	install(t, o)
	o.BashRoutes = true
	p := install(t, o)
	data, _ := os.ReadFile(p.Path)
	// One PreToolUse entry (WebFetch|Bash), the PostToolUseFailure and
	// the PostToolUse ones.
	if !strings.Contains(string(data), `"matcher": "WebFetch|Bash"`) || strings.Count(string(data), e.wf) != 3 {
		t.Fatalf("settings:\n%s", data)
	}
	o.BashRoutes = false
	p = install(t, o)
	data, _ = os.ReadFile(p.Path)
	if strings.Contains(string(data), "|Bash") {
		t.Fatalf("Bash kept after reinstalling without tool routes:\n%s", data)
	}
}

func TestToolMatcher_KeepsPlainNamesAsAnExactListAndAnchorsGlobs(t *testing.T) {
	if got := toolMatcher([]string{"mcp__ccs-websearch__WebSearch", "mcp__other__search"}); got != "mcp__ccs-websearch__WebSearch|mcp__other__search" {
		t.Errorf("plain names: matcher %q", got)
	}
	m := toolMatcher([]string{"mcp__ccs-websearch__WebSearch", "mcp__plugin_*_ccs-websearch__WebSearch", "mcp__x.y__[ab]?"})
	if m != `^(?:mcp__ccs-websearch__WebSearch|mcp__plugin_.*_ccs-websearch__WebSearch|mcp__x\.y__[ab].)$` {
		t.Fatalf("matcher %q", m)
	}
	// RE2 reads these constructs as JavaScript's RegExp does.
	re := regexp.MustCompile(m)
	for name, want := range map[string]bool{
		"mcp__ccs-websearch__WebSearch":                 true,
		"mcp__plugin_webgate_ccs-websearch__WebSearch":  true,
		"mcp__plugin_ccs-websearch__WebSearch":          false,
		"mcp__ccs-websearch__WebSearchAll":              false,
		"mcp__plugin_a_mcp__ccs-websearch__WebSearch_x": false,
		"mcp__x.y__a1": true,
		"mcp__xzy__a1": false,
	} {
		if got := re.MatchString(name); got != want {
			t.Errorf("matcher %q on %s = %v, want %v", m, name, got, want)
		}
	}
}

func TestInstall_WritesAWorkingMatcherForGlobMCPToolNamesAndSessionStartForEverySource(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	o.MCPTools = []string{"mcp__plugin_*_ccs-websearch__WebSearch", "mcp__ccs-websearch__WebSearch"}
	o.SessionStart = true
	p := install(t, o)
	var f struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
		} `json:"hooks"`
	}
	data, _ := os.ReadFile(p.Path)
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	// PostToolUse: webfetch's for WebFetch (the replace answer style),
	// then websearch's for the native WebSearch and the MCP tools.
	const both = `^(?:WebSearch|mcp__plugin_.*_ccs-websearch__WebSearch|mcp__ccs-websearch__WebSearch)$`
	if g := f.Hooks["PostToolUse"]; len(g) != 2 || g[0].Matcher != "WebFetch" || g[1].Matcher != both {
		t.Errorf("PostToolUse groups %+v", g)
	}
	// PostToolUseFailure: the webfetch entry for WebFetch, then websearch's.
	if g := f.Hooks["PostToolUseFailure"]; len(g) != 2 || g[0].Matcher != "WebFetch" || g[1].Matcher != both {
		t.Errorf("PostToolUseFailure groups %+v", g)
	}
	if g := f.Hooks["SessionStart"]; len(g) != 1 || g[0].Matcher != "*" {
		t.Errorf("SessionStart groups %+v, want one matching every source (fork included)", g)
	}
	for _, n := range p.Notes {
		if strings.Contains(n, "mcp_tool_names") {
			t.Errorf("note about default MCP tools for default names: %s", n)
		}
	}
}

func TestInstall_SaysWhenAnMCPToolIsNotAmongTheHooksDefaults(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	o.MCPTools = []string{"mcp__brave__search"}
	p, err := PlanInstall(o)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range p.Notes {
		found = found || strings.Contains(n, "mcp__brave__search") && strings.Contains(n, "hooks.websearch.mcp_tool_names")
	}
	if !found {
		t.Errorf("notes %q lack the hint to configure the MCP tool for the hook", p.Notes)
	}
}

func TestInstall_CopilotCLIGetsNoPostToolHooksAndLosesThoseOfOlderInstalls(t *testing.T) {
	e := newEnv(t)
	o := e.opts(CopilotCLI)
	o.MCPTools = []string{"mcp__ccs-websearch__WebSearch"}
	path, _ := SettingsPath(o)
	os.MkdirAll(filepath.Dir(path), 0o755)
	old := `{"version":1,"hooks":{
  "preToolUse":[{"type":"command","bash":"` + e.wf + `","powershell":"` + e.wf + `","timeoutSec":45}],
  "postToolUse":[{"type":"command","bash":"` + e.ws + `","powershell":"` + e.ws + `","timeoutSec":30},{"type":"command","bash":"./audit.sh"}],
  "postToolUseFailure":[{"type":"command","bash":"` + e.ws + `","powershell":"` + e.ws + `","timeoutSec":30}]}}`
	os.WriteFile(path, []byte(old), 0o600)
	p := install(t, o)
	data, _ := os.ReadFile(path)
	var f struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Hooks["postToolUseFailure"]; ok || len(f.Hooks["postToolUse"]) != 1 || f.Hooks["postToolUse"][0]["bash"] != "./audit.sh" {
		t.Errorf("post-tool hooks left:\n%s", data)
	}
	if len(f.Hooks["preToolUse"]) != 1 || f.Hooks["preToolUse"][0]["bash"] != e.wf {
		t.Errorf("preToolUse:\n%s", data)
	}
	said := false
	for _, n := range p.Notes {
		said = said || strings.Contains(n, "postToolUse")
	}
	if !said {
		t.Errorf("notes %q do not say why MCP tools get nothing in Copilot CLI", p.Notes)
	}
}

func TestApply_BackupsWithinOneSecondNeverOverwriteEachOther(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode) // a fixed clock: every backup in the same second
	path := filepath.Join(e.home, ".claude", "settings.json")
	var contents []string
	for i, extra := range []func(*Options){
		func(o *Options) {},
		func(o *Options) { o.SessionStart = true },
		func(o *Options) { o.BashRoutes = true },
		func(o *Options) { o.MCPTools = []string{"mcp__x__WebSearch"} },
	} {
		oo := o
		extra(&oo)
		before, _ := os.ReadFile(path)
		p, err := PlanInstall(oo)
		if err != nil {
			t.Fatal(err)
		}
		backup, err := p.Apply(o.Now)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			continue // no file before the first install, so no backup
		}
		if slices.Contains(contents, backup) {
			t.Fatalf("backup %s reused", backup)
		}
		contents = append(contents, backup)
		got, _ := os.ReadFile(backup)
		if string(got) != string(before) {
			t.Errorf("backup %s does not hold the file as it was", backup)
		}
	}
	for _, b := range contents {
		if _, err := os.Stat(b); err != nil {
			t.Error(err)
		}
	}
}

func TestInstall_RegistersTheWebFetchHookForAFailedWebFetch(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	p := install(t, o)
	var f struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data, _ := os.ReadFile(p.Path)
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	g := f.Hooks["PostToolUseFailure"]
	if len(g) != 2 || g[0].Matcher != "WebFetch" || len(g[0].Hooks) != 1 || g[0].Hooks[0].Command != e.wf || g[1].Matcher != "WebSearch" {
		t.Fatalf("PostToolUseFailure groups %+v", g)
	}
	// Inspect does not take WebFetch for an MCP tool, and an install with
	// what it read changes nothing.
	r, err := Inspect(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.MCPTools) != 0 || !r.Registered() || len(r.Duplicates()) != 0 {
		t.Errorf("registration %+v", r)
	}
	if again, err := PlanInstall(r.InstallOptions(o)); err != nil || again.Changed() {
		t.Errorf("reinstall would change the file (%v):\n%s", err, again.Diff())
	}
	// Uninstalling removes it with the rest.
	u, err := PlanUninstall(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Apply(nil); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(p.Path)
	if strings.Contains(string(data), "PostToolUseFailure") {
		t.Errorf("uninstall kept the entry:\n%s", data)
	}
}

func TestInstall_AddsTheFailedWebFetchEntryToAnEarlierRegistration(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"hooks":{"PreToolUse":[
	 {"matcher":"WebSearch","hooks":[{"type":"command","command":"`+e.ws+`","args":[],"timeout":30}]},
	 {"matcher":"WebFetch","hooks":[{"type":"command","command":"`+e.wf+`","args":[],"timeout":45}]}
	]}}`), 0o600)
	o := e.opts(ClaudeCode)
	r, err := Inspect(o)
	if err != nil || !r.Registered() {
		t.Fatalf("registration %+v, %v", r, err)
	}
	p, err := PlanInstall(r.InstallOptions(o))
	if err != nil || !p.Changed() || !strings.Contains(p.Diff(), "PostToolUseFailure") {
		t.Fatalf("plan (%v):\n%s", err, p.Diff())
	}
}
