package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/cmd/internal/setup"
)

// TestInstall_ProjectSettingsWrittenByInstallFireInClaudeCode writes the
// project settings exactly as `webgate install --scope project --mcp-tool
// 'mcp__plugin_*_ccs-websearch__WebSearch' --session-start --tool-routes`
// does, and runs the CLI in that project: the SessionStart hook (matcher
// "*") gives the routes index, PreToolUse answers WebSearch and routes
// WebFetch, and the glob MCP tool name, written as an anchored regular
// expression, fires PostToolUse for a plugin-bundled ccs-websearch server.
func TestInstall_ProjectSettingsWrittenByInstallFireInClaudeCode(t *testing.T) {
	version := ClaudeVersion(t)
	search := bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch")
	fetch := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webfetch")
	project := t.TempDir()
	plan, err := setup.PlanInstall(setup.Options{
		Target: setup.ClaudeCode, Scope: setup.Project, ProjectDir: project,
		WebSearchBin: search, WebFetchBin: fetch,
		MCPTools:     []string{"mcp__plugin_*_ccs-websearch__WebSearch"},
		SessionStart: true, BashRoutes: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Apply(nil); err != nil {
		t.Fatal(err)
	}
	// A plugin bundling the ccs-websearch MCP server: its tool is
	// mcp__plugin_bundle_ccs-websearch__WebSearch.
	plugin := WritePlugin(t, "bundle", map[string][]HookMatcher{})
	mcp, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"ccs-websearch": map[string]any{"command": bins.Build(t, "./testdata/stubmcp"), "args": ccsArgs},
	}})
	writeFile(t, filepath.Join(plugin, ".mcp.json"), mcp)
	tool := "mcp__plugin_bundle_ccs-websearch__WebSearch"

	providers := newFakeProviders(t)
	routes, _ := routingEnv(t)
	routes["WEBGATE_HOOKS_SESSION_START"] = "1"
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "webgate install query"}),
		CallTool(tool, map[string]any{"query": "bundled query"}),
		CallTool("WebFetch", map[string]any{"url": "https://github.com/webgate-dev/webgate/issues/7", "prompt": "What is it about?"}),
		Say("done"),
	)

	res := RunClaude(t, api, Options{
		Dir:          project,
		PluginDirs:   []string{plugin},
		AllowedTools: []string{tool},
		Env:          providers.env(routes),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	var index bool
	for _, r := range api.Requests()[0].SystemReminders() {
		index = index || strings.Contains(r, "SessionStart hook additional context: Local documentation indexes")
	}
	if !index {
		t.Errorf("the first request lacks the SessionStart routes index: %q", api.Requests()[0].SystemReminders())
	}
	searched := api.ToolResult(t, 0)
	if !searched.IsError || !strings.HasPrefix(searched.Body(), DenyContent(version, "WebSearch", "")) || !strings.Contains(searched.Body(), "HOOK-RESULT-ONE for webgate install query") {
		t.Errorf("WebSearch tool_result = is_error %v, body %q; want the provider-backed results", searched.IsError, searched.Body())
	}
	bundled := api.ToolResult(t, 1)
	body := bundled.Body()
	orig, comp := strings.Index(body, "CCS-OUTPUT-bundled query"), strings.Index(body, "[webgate companion results]")
	if bundled.IsError || orig < 0 || comp < orig || !strings.Contains(body, "HOOK-RESULT-ONE for bundled query") {
		t.Errorf("%s tool_result = is_error %v, body %q; want the server's output, then webgate's companion block", tool, bundled.IsError, body)
	}
	routed := api.ToolResult(t, 2)
	if want := DenyContent(version, "WebFetch", "ROUTE-MARKER: use gh issue view instead of fetching GitHub issues."); !routed.IsError || routed.Body() != want {
		t.Errorf("WebFetch tool_result = is_error %v, body %q; want %q", routed.IsError, routed.Body(), want)
	}
}
