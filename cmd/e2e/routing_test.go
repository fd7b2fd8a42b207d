package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/routing"
)

// The real-CLI scenarios of webgate's routing: a docs route denies a
// WebSearch with instructions for a local documentation index, and its
// identical retry goes through; a tool route sends a WebFetch elsewhere.

const (
	routingDocsConfig = `{"databases":[{"keywords":["kubernetes","kubectl"],"path":"/srv/docs/kubernetes","mcp_tool_name":"mcp__docsearch__search","description":"Kubernetes documentation"}]}`
	routingToolRoutes = `{"routes":{"github-issues":{"pattern":"^https?://github\\.com/[^/]+/[^/]+/issues/","message":"ROUTE-MARKER: use gh issue view instead of fetching GitHub issues."}}}`
	routingQuery      = "kubectl rollout status"
)

// routingEnv writes the legacy routing files and returns the variables
// that point the hooks at them, with a fresh state directory.
func routingEnv(t *testing.T) (env map[string]string, stateDir string) {
	t.Helper()
	dir := t.TempDir()
	docs, routes := filepath.Join(dir, "docsearch-config.json"), filepath.Join(dir, "tool-routes.json")
	writeFile(t, docs, []byte(routingDocsConfig))
	writeFile(t, routes, []byte(routingToolRoutes))
	stateDir = filepath.Join(dir, "state")
	return map[string]string{
		"WEBGATE_DOCS_CONFIG": docs,
		"WEBGATE_TOOL_ROUTES": routes,
		"WEBGATE_STATE_DIR":   stateDir,
	}, stateDir
}

// docsDenial is what the hook answers for routingQuery.
func docsDenial(t *testing.T) routing.DocsDenial {
	t.Helper()
	dbs, err := routing.ParseDocsConfig([]byte(routingDocsConfig))
	if err != nil {
		t.Fatal(err)
	}
	return routing.DenyDocs(routingQuery, dbs)
}

// assertDocsDeny checks that the model received the docs route's deny
// reason as the tool result and its MCP instructions as a reminder.
func assertDocsDeny(t *testing.T, version string, got ToolResult) {
	t.Helper()
	den := docsDenial(t)
	if want := DenyContent(version, "WebSearch", den.Reason); !got.IsError || got.Body() != want {
		t.Errorf("first tool_result = is_error %v, body %q; want is_error true, body %q", got.IsError, got.Body(), want)
	}
	if want := "PreToolUse:WebSearch hook additional context: " + den.Context; !got.HasReminder(want) {
		t.Errorf("first tool_result reminders = %q; want %q", got.Reminders(), want)
	}
}

func TestRouting_DocsRouteDeniesWithMCPInstructionsAndItsRetryIsAnsweredByTheProviders(t *testing.T) {
	version := ClaudeVersion(t)
	search := bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch")
	fetch := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webfetch")
	providers := newFakeProviders(t)
	routes, stateDir := routingEnv(t)
	routes["WEBGATE_HOOKS_SESSION_START"] = "1"
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": routingQuery}),
		CallTool("WebSearch", map[string]any{"query": routingQuery}),
		CallTool("WebFetch", map[string]any{"url": "https://github.com/webgate-dev/webgate/issues/7", "prompt": "What is it about?"}),
		Say("done"),
	)
	settings := new(Settings).
		AddHook("SessionStart", "", ExecHook(search)).
		AddHook("PreToolUse", "WebSearch", ExecHook(search)).
		AddHook("PreToolUse", "WebFetch", ExecHook(fetch))

	res := RunClaude(t, api, Options{Settings: settings, Env: providers.env(routes)})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	assertDocsDeny(t, version, api.ToolResult(t, 0))

	retry := api.ToolResult(t, 1)
	if !retry.IsError || !strings.HasPrefix(retry.Body(), DenyContent(version, "WebSearch", `Web search results for query "`+routingQuery+`", from provider-backed search via webgate`)) ||
		!strings.Contains(retry.Body(), "HOOK-RESULT-ONE for "+routingQuery) {
		t.Errorf("retry tool_result = is_error %v, body %q; want the provider-backed results", retry.IsError, retry.Body())
	}
	if retry.HasReminder("local documentation") {
		t.Errorf("retry still carries the docs instructions: %q", retry.Reminders())
	}
	if p := providers.Paths(); len(p) != 1 || p[0] != "/tavily/search" {
		t.Errorf("provider requests = %q, want one Tavily search (the retry's)", p)
	}

	routed := api.ToolResult(t, 2)
	if want := DenyContent(version, "WebFetch", "ROUTE-MARKER: use gh issue view instead of fetching GitHub issues."); !routed.IsError || routed.Body() != want {
		t.Errorf("WebFetch tool_result = is_error %v, body %q; want %q", routed.IsError, routed.Body(), want)
	}
	if n := len(api.RequestsOf(KindWebSearch)) + len(api.RequestsOf(KindWebFetchApply)); n != 0 {
		t.Errorf("native tool model calls = %d, want 0", n)
	}

	var index bool
	for _, r := range api.Requests()[0].SystemReminders() {
		index = index || strings.Contains(r, "SessionStart hook additional context: Local documentation indexes (search them before the web):\n- Kubernetes documentation: MCP tool mcp__docsearch__search, path /srv/docs/kubernetes; keywords: kubernetes, kubectl\nTool routes (use the named tool instead):\n- WebFetch github-issues: ROUTE-MARKER")
	}
	if !index {
		t.Errorf("the first request lacks the SessionStart routes index: %q", api.Requests()[0].SystemReminders())
	}
	entries, _ := os.ReadDir(stateDir)
	if len(entries) == 0 {
		t.Errorf("no routing state in %s", stateDir)
	}
}

func TestRouting_DocsRouteWorksWithoutKeysAndItsRetryRunsTheNativeTool(t *testing.T) {
	version := ClaudeVersion(t)
	search := bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch")
	routes, _ := routingEnv(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": routingQuery}),
		CallTool("WebSearch", map[string]any{"query": routingQuery}),
		Say("done"),
	)
	settings := new(Settings).AddHook("PreToolUse", "WebSearch", ExecHook(search))

	res := RunClaude(t, api, Options{Settings: settings, AllowedTools: []string{"WebSearch"}, Env: routes})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertDocsDeny(t, version, api.ToolResult(t, 0))
	if n := len(api.RequestsOf(KindWebSearch)); n != 1 {
		t.Fatalf("native web search calls = %d, want 1 (the retry)", n)
	}
	retry := api.ToolResult(t, 1)
	if retry.IsError || !strings.Contains(retry.Body(), `Web search results for query: "`+routingQuery+`"`) {
		t.Errorf("retry tool_result = is_error %v, body %q; want the native result", retry.IsError, retry.Body())
	}
}
