package main

import (
	"strings"
	"testing"
)

func TestRoutesTest_PassingRoutes(t *testing.T) {
	h := newTestHost(t).withRoutes()
	code, out, errOut := h.run("", "routes", "test")
	if code != exitOK || out != "3 passed, 0 failed\n" || errOut != "" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestRoutesTest_FailuresAreListedAndExitOne(t *testing.T) {
	h := newTestHost(t)
	h.env["WEBGATE_TOOL_ROUTES"] = h.write("routes.json", `{"routes":{
	 "gh":{"pattern":"github\\.com","message":"use gh","tests":[
	   {"input":"https://github.com/x","expect":"block","contains":"gh"},
	   {"input":"https://gitlab.com/x","expect":"block"},
	   {"input":"https://github.com/y","expect":"allow"}]},
	 "bad":{"pattern":"(","message":"x"}}}`)
	code, out, errOut := h.run("", "routes", "test")
	if code != exitFail {
		t.Fatalf("code %d\n%s", code, out)
	}
	for _, want := range []string{
		`FAIL  route gh: input "https://gitlab.com/x" expected block: no route matched`,
		`FAIL  route gh: input "https://github.com/y" expected allow: route gh matched`,
		"1 passed, 2 failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "warning: tool route bad skipped: pattern does not compile") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestRoutesTest_StrictFailsOnInvalidEntries(t *testing.T) {
	h := newTestHost(t)
	h.env["WEBGATE_TOOL_ROUTES"] = h.write("routes.json", `{"routes":{"bad":{"pattern":"(","message":"x"}}}`)
	if code, _, _ := h.run("", "routes", "test"); code != exitOK {
		t.Errorf("without --strict an invalid route is a warning: code %d", code)
	}
	if code, _, _ := h.run("", "routes", "test", "--strict"); code != exitFail {
		t.Errorf("--strict: code %d", code)
	}
}

func TestRoutesList_PrintsOneLinePerDatabaseAndRoute(t *testing.T) {
	h := newTestHost(t).withRoutes()
	code, out, _ := h.run("", "routes", "list")
	if code != exitOK {
		t.Fatalf("code %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got:\n%s", out)
	}
	line(t, out, `^docs\s+Kubernetes documentation\s+mcp__docsearch__search /srv/docs/kubernetes\s+keywords: kubernetes, kubectl$`)
	line(t, out, `^route\s+gh-api\s+Bash /curl`)
	line(t, out, `^route\s+github\s+WebFetch /.*Use the gh CLI instead: gh issue view / gh api \(2 tests\)$`)
}

func TestRoutesList_SaysWhenNothingIsConfigured(t *testing.T) {
	newTestHost(t)
	code, out, _ := runCLI(t, "", "routes", "list")
	if code != exitOK || !strings.Contains(out, "no docs databases and no tool routes configured") {
		t.Fatalf("code %d, %q", code, out)
	}
}

func TestRoutes_NeedsASubcommandAndHasHelp(t *testing.T) {
	newTestHost(t)
	if code, _, errOut := runCLI(t, "", "routes"); code != exitUsage || !strings.Contains(errOut, "want one of: test, list") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	code, out, _ := runCLI(t, "", "routes", "--help")
	if code != exitOK || !strings.Contains(out, "Examples:") || !strings.Contains(out, "webgate routes test") {
		t.Fatalf("code %d\n%s", code, out)
	}
}
