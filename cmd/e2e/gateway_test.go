package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/cmd/internal/gateway"
	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/cmd/internal/setup"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// HTTPHooksSince is the first Claude Code version with HTTP hooks
// ("type": "http").
const HTTPHooksSince = "2.1.63"

// TestGateway_HTTPHooksWrittenByInstallAnswerWebSearchAndWebFetch writes
// the project settings as `webgate install --scope project --gateway URL`
// does and runs the CLI there with only the gateway token in its
// environment: the HTTP hooks post to a team gateway on 127.0.0.1, which
// holds the provider keys and answers WebSearch with the providers'
// results and WebFetch with a tool route, as the local hooks would; each
// call is recorded in the gateway's audit log.
func TestGateway_HTTPHooksWrittenByInstallAnswerWebSearchAndWebFetch(t *testing.T) {
	version := ClaudeVersion(t)
	if !VersionAtLeast(version, HTTPHooksSince) {
		t.Skipf("Claude Code %s has no HTTP hooks (since %s)", version, HTTPHooksSince)
	}
	providers := newFakeProviders(t)
	routes, _ := routingEnv(t)
	var hookEnv []string
	for k, v := range providers.env(routes) {
		hookEnv = append(hookEnv, k+"="+v)
	}
	home := t.TempDir()
	hookEnv = append(hookEnv, "HOME="+home, "WEBGATE_STORE=sqlite://"+filepath.Join(home, "hooks.db"))

	st, err := storeurl.Open(context.Background(), "memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tokens := &gateway.Tokens{Store: st}
	tok, secret, err := tokens.Create(context.Background(), gateway.NewToken{Owner: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	audit := &gateway.Audit{Store: st}
	warm := hookenv.NewWarm()
	t.Cleanup(warm.Close)
	gw := newLoopbackServer(t, gateway.New(gateway.Options{Tools: &webtools.Tools{}, Tokens: tokens, Audit: audit,
		Limiter: &gateway.Limiter{Store: st}, Hooks: warm, HookEnv: hookEnv, HookCwd: home}))
	t.Cleanup(gw.Close)

	project := t.TempDir()
	plan, err := setup.PlanInstall(setup.Options{Target: setup.ClaudeCode, Scope: setup.Project, ProjectDir: project, Gateway: gw.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Apply(nil); err != nil {
		t.Fatal(err)
	}
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "gateway hooks query"}),
		CallTool("WebFetch", map[string]any{"url": "https://github.com/webgate-dev/webgate/issues/7", "prompt": "What is it about?"}),
		Say("done"),
	)

	res := RunClaude(t, api, Options{Dir: project, Env: map[string]string{setup.DefaultGatewayTokenEnv: secret}})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	searched := api.ToolResult(t, 0)
	if !searched.IsError || !strings.HasPrefix(searched.Body(), DenyContent(version, "WebSearch", "")) || !strings.Contains(searched.Body(), "HOOK-RESULT-ONE for gateway hooks query") {
		t.Errorf("WebSearch tool_result = is_error %v, body %q; want the provider-backed results from the gateway", searched.IsError, searched.Body())
	}
	routed := api.ToolResult(t, 1)
	if want := DenyContent(version, "WebFetch", "ROUTE-MARKER: use gh issue view instead of fetching GitHub issues."); !routed.IsError || routed.Body() != want {
		t.Errorf("WebFetch tool_result = is_error %v, body %q; want %q", routed.IsError, routed.Body(), want)
	}
	if n := len(api.RequestsOf(KindWebSearch)); n != 0 {
		t.Errorf("native web search calls = %d, want 0", n)
	}
	if strings.Contains(res.Stdout, secret) || strings.Contains(res.Stderr, secret) {
		t.Error("the gateway token reached the CLI's output")
	}
	entries, err := audit.Entries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, e := range entries {
		if e.TokenID != tok.ID {
			t.Errorf("audit entry of another token: %+v", e)
		}
		tools = append(tools, e.Tool+" "+e.Decision)
	}
	if strings.Join(tools, ",") != "hook:websearch answered,hook:webfetch answered" {
		t.Errorf("audit entries %q, want the two hook calls answered", tools)
	}
}
