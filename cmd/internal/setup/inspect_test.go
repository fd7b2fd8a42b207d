package setup

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeSettings(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestInspect_MissingFileIsEmptyAndNotRegistered(t *testing.T) {
	e := newEnv(t)
	r, err := Inspect(e.opts(ClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	if r.Exists || r.Registered() || len(r.Hooks) != 0 {
		t.Fatalf("got %+v", r)
	}
	if got := r.Absent(); !slices.Equal(got, []string{"PreToolUse websearch", "PreToolUse webfetch"}) {
		t.Fatalf("absent %v", got)
	}
}

func TestInspect_SeesWhatInstallWroteAndAgreesWithThePlan(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	o.MCPTools = []string{"mcp__x__WebSearch"}
	o.SessionStart = true
	install(t, o)
	path := filepath.Join(e.home, ".claude", "settings.json")
	before, _ := os.ReadFile(path)

	r, err := Inspect(e.opts(ClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Exists || !r.Registered() || len(r.Duplicates()) != 0 || len(r.MissingBinaries()) != 0 || len(r.Legacy) != 0 {
		t.Fatalf("got %+v", r)
	}
	if !r.SessionStart || !slices.Equal(r.MCPTools, []string{"mcp__x__WebSearch"}) {
		t.Fatalf("extras not seen: %+v", r)
	}
	p, err := PlanInstall(r.InstallOptions(e.opts(ClaudeCode)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Changed() {
		t.Fatalf("plan with the inspected options would change the file:\n%s", p.Diff())
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("Inspect changed the file")
	}
}

func TestInspect_ReportsDuplicatesMissingBinariesAndLegacyHooks(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".claude", "settings.json")
	writeSettings(t, path, `{"hooks":{"PreToolUse":[
	 {"matcher":"WebSearch","hooks":[{"type":"command","command":"`+e.ws+`","args":[]}]},
	 {"matcher":"WebSearch","hooks":[{"type":"command","command":"`+e.ws+`","args":[]}]},
	 {"matcher":"WebFetch","hooks":[{"type":"command","command":"/nowhere/webfetch","args":[]}]},
	 {"matcher":"WebSearch|WebFetch","hooks":[{"type":"command","command":"node ~/.claude/hooks/websearch-custom.cjs"}]}
	]}}`)
	r, err := Inspect(e.opts(ClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Registered() {
		t.Error("both hooks are present, so the file counts as registered")
	}
	if d := r.Duplicates(); !slices.Equal(d, []string{"PreToolUse websearch (2 entries)"}) {
		t.Errorf("duplicates %v", d)
	}
	if m := r.MissingBinaries(); len(m) != 1 || m[0].Path != "/nowhere/webfetch" || m[0].Matcher != "WebFetch" {
		t.Errorf("missing %+v", m)
	}
	if len(r.Legacy) != 1 || r.Legacy[0] != `PreToolUse: older Node hook websearch-custom.cjs for "WebSearch|WebFetch"` {
		t.Errorf("legacy %q", r.Legacy)
	}
}

func TestInspect_InvalidJSONIsAnError(t *testing.T) {
	e := newEnv(t)
	writeSettings(t, filepath.Join(e.home, ".claude", "settings.json"), `{"hooks": [`)
	if _, err := Inspect(e.opts(ClaudeCode)); !errors.Is(err, ErrInvalidSettings) {
		t.Fatalf("err %v", err)
	}
}

func TestInspect_ReadsCopilotHooksFiles(t *testing.T) {
	e := newEnv(t)
	o := e.opts(CopilotCLI)
	o.MCPTools = []string{"mcp__x__WebSearch"}
	install(t, o)
	r, err := Inspect(e.opts(CopilotCLI))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Registered() || len(r.Hooks) != 1 {
		t.Fatalf("got %+v", r)
	}
	p, err := PlanInstall(r.InstallOptions(e.opts(CopilotCLI)))
	if err != nil || p.Changed() {
		t.Fatalf("plan changed (%v):\n%s", err, p.Diff())
	}
}

func TestInspect_ReadsBackTheToolsOfAnAnchoredMCPMatcher(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	o.MCPTools = []string{"mcp__plugin_*_ccs-websearch__WebSearch", "mcp__x.y__[ab]?", "mcp__ccs-websearch__WebSearch"}
	install(t, o)
	r, err := Inspect(e.opts(ClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.MCPTools, " ") != strings.Join(o.MCPTools, " ") {
		t.Fatalf("MCP tools read back as %q, want %q", r.MCPTools, o.MCPTools)
	}
	p, err := PlanInstall(r.InstallOptions(e.opts(ClaudeCode)))
	if err != nil || p.Changed() {
		t.Fatalf("plan changed (%v):\n%s", err, p.Diff())
	}
}

func TestInspect_SeesTheBashMatcherSoThePlanForItDoesNotChange(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	o.BashRoutes = true
	install(t, o)
	r, err := Inspect(e.opts(ClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	if !r.BashRoutes {
		t.Fatalf("the WebFetch|Bash matcher was not seen: %+v", r)
	}
	p, err := PlanInstall(r.InstallOptions(e.opts(ClaudeCode)))
	if err != nil || p.Changed() {
		t.Fatalf("plan changed (%v):\n%s", err, p.Diff())
	}
}

func TestInstallOptions_AddsWhatTheFileHasToWhatIsAskedFor(t *testing.T) {
	r := &Registration{Target: ClaudeCode, MCPTools: []string{"mcp__a__search"}, SessionStart: true, BashRoutes: true}
	o := Options{MCPTools: []string{"mcp__b__search", "mcp__a__search"}}
	got := r.InstallOptions(o)
	if !slices.Equal(got.MCPTools, []string{"mcp__a__search", "mcp__b__search"}) || !got.SessionStart || !got.BashRoutes {
		t.Fatalf("got %+v", got)
	}
	if len(o.MCPTools) != 2 || o.MCPTools[0] != "mcp__b__search" {
		t.Errorf("the caller's options were modified: %+v", o)
	}
}
