package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The real-CLI scenario of webgate's MCP server (webgate mcp): Claude Code
// starts it from --mcp-config, the model calls its tools, and their answers
// reach the model as tool results.

// fixturePages serves the repository's fixtures/ directory over plain HTTP
// on 127.0.0.1.
func fixturePages(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "fixtures")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("fixtures: %v", err)
	}
	s := newLoopbackServer(t, http.FileServer(http.Dir(dir)))
	t.Cleanup(s.Close)
	return s.URL
}

func TestMCP_WebgateToolsAnswerTheModelThroughClaudeCode(t *testing.T) {
	ClaudeBinary(t)
	webgate := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webgate")
	providers := newFakeProviders(t)
	page := fixturePages(t) + "/readable/docs-page.html"
	search, fetch := MCPToolName("webgate", "web_search"), MCPToolName("webgate", "web_fetch")
	api := NewFakeAPI(t,
		CallTool(search, map[string]any{"query": "webgate mcp query", "max_results": 2}),
		CallTool(fetch, map[string]any{"url": page, "prompt": "which timeouts exist"}),
		Say("done"),
	)

	res := RunClaude(t, api, Options{
		MCPServers: map[string]MCPServer{"webgate": {
			Command: webgate,
			Args:    []string{"mcp"},
			// The probe may read the loopback page server in this test only.
			Env: providers.env(map[string]string{"WEBGATE_WEBFETCH_ALLOW_PRIVATE": "1"}),
		}},
		AllowedTools: []string{search, fetch},
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	got := api.ToolResult(t, 0)
	if got.IsError {
		t.Fatalf("web_search tool_result is an error: %q", got.Body())
	}
	for _, want := range []string{
		`Web search results for "webgate mcp query" (via parallel(tavily))`,
		"1. HOOK-RESULT-ONE for webgate mcp query\n   https://docs.example/one\n   First provider-backed snippet.",
		"2. HOOK-RESULT-TWO",
	} {
		if !strings.Contains(got.Body(), want) {
			t.Errorf("web_search tool_result lacks %q:\n%s", want, got.Body())
		}
	}
	fetched := api.ToolResult(t, 1)
	if fetched.IsError {
		t.Fatalf("web_fetch tool_result is an error: %q", fetched.Body())
	}
	for _, want := range []string{"Read: fetch-readable", "converted from the page's own HTML", "Request: which timeouts exist", "## Timeouts", "| `read_timeout` | 30s |"} {
		if !strings.Contains(fetched.Body(), want) {
			t.Errorf("web_fetch tool_result lacks %q:\n%s", want, fetched.Body())
		}
	}
	if p := providers.Paths(); len(p) != 1 || p[0] != "/tavily/search" {
		t.Errorf("provider requests = %q, want one Tavily search and no extraction", p)
	}
	if n := len(api.RequestsOf(KindWebSearch)) + len(api.RequestsOf(KindWebFetchApply)); n != 0 {
		t.Errorf("native tool model calls = %d, want 0", n)
	}
}
