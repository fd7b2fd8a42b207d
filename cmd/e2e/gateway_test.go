package e2e

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	g := startGateway(t)
	gw, secret, audit, tok := g.srv, g.secret, g.audit, g.tok

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
	if got := auditTools(t, audit, tok); got != "hook:websearch answered,hook:webfetch answered" {
		t.Errorf("audit entries %q, want the two hook calls answered", got)
	}
}

// testGateway is a team gateway on 127.0.0.1 over the fake providers, with
// the routes of routingEnv, and a token.
type testGateway struct {
	srv    *httptest.Server
	secret string
	tok    *gateway.Token
	audit  *gateway.Audit
}

func startGateway(t *testing.T) *testGateway {
	t.Helper()
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
	g := &testGateway{audit: &gateway.Audit{Store: st}}
	g.tok, g.secret, err = tokens.Create(context.Background(), gateway.NewToken{Owner: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	warm := hookenv.NewWarm()
	t.Cleanup(warm.Close)
	g.srv = newLoopbackServer(t, gateway.New(gateway.Options{Tools: &webtools.Tools{}, Tokens: tokens, Audit: g.audit,
		Limiter: &gateway.Limiter{Store: st}, Hooks: warm, HookEnv: hookEnv, HookCwd: home}))
	t.Cleanup(g.srv.Close)
	return g
}

// auditTools lists the audit log's entries as "tool decision", checking
// that each is tok's.
func auditTools(t *testing.T, audit *gateway.Audit, tok *gateway.Token) string {
	t.Helper()
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
	return strings.Join(tools, ",")
}

// CopilotHTTPHooksSince is the first Copilot CLI version with HTTP hooks.
const CopilotHTTPHooksSince = "1.0.35"

// TestGateway_CopilotHTTPHookWrittenByInstallAnswersWebFetch runs
// `webgate install --target copilot-cli --gateway URL` and then Copilot
// CLI with only the gateway token in its environment: its HTTP preToolUse
// hook posts web_fetch to the gateway, whose tool route answers.
func TestGateway_CopilotHTTPHookWrittenByInstallAnswersWebFetch(t *testing.T) {
	copilot := CopilotCLI.Binary(t)
	if v := versionNumber(CopilotCLI.Version(t)); !VersionAtLeast(v, CopilotHTTPHooksSince) {
		t.Skipf("Copilot CLI %s has no HTTP hooks (since %s)", v, CopilotHTTPHooksSince)
	}
	g := startGateway(t)
	webgate := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webgate")
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := RunWebgate(t, webgate, home, nil, "install", "--target", "copilot-cli", "--gateway", g.srv.URL)
	if !strings.Contains(out, "$WEBGATE_GATEWAY_TOKEN") {
		t.Fatalf("install output:\n%s", out)
	}
	url := "https://github.com/webgate-dev/webgate/issues/7"
	api := NewFakeAPI(t, CallTool("web_fetch", map[string]any{"url": url}), Say("COPILOT-DONE"))
	env := map[string]string{
		setup.DefaultGatewayTokenEnv: g.secret,
		"COPILOT_PROVIDER_BASE_URL":  api.URL,
		"COPILOT_PROVIDER_TYPE":      "anthropic",
		"COPILOT_PROVIDER_API_KEY":   "sk-ant-e2e-dummy-key",
		"COPILOT_MODEL":              DefaultModel,
		"COPILOT_ALLOW_ALL":          "true",
		"XDG_CACHE_HOME":             copilotCache(t),
		// Copilot CLI skips a preToolUse HTTP hook, or one with
		// allowedEnvVars, whose URL is not https://, unless it is on
		// localhost and this is set (its log says so).
		"COPILOT_HOOK_ALLOW_LOCALHOST": "1",
	}
	res := RunCLI(t, CLIRun{
		Bin: copilot,
		Args: []string{"-p", "Read " + url + " and say what it is about.", "--allow-all-tools",
			"--disable-client-telemetry", "--log-level", "warning", "--log-dir", filepath.Join(root, "logs")},
		Home: home, Dir: project, Env: env,
		Timeout: 150 * time.Second,
	})
	if res.ExitCode != 0 {
		t.Fatalf("copilot exit code = %d, want 0", res.ExitCode)
	}
	if os.Getenv("WEBGATE_E2E_DEBUG_LOGS") != "" {
		logs, _ := filepath.Glob(filepath.Join(root, "logs", "*"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", l, b)
		}
		b, _ := os.ReadFile(filepath.Join(home, ".copilot", "hooks", "webgate.json"))
		t.Logf("hooks file:\n%s", b)
	}
	assertNoLeaks(t, res, hookTavilyKey, hookWSAPIKey, g.secret)
	fetched := api.ToolResult(t, 0)
	t.Logf("model received for web_fetch: is_error %v, %q", fetched.IsError, fetched.Body())
	if !strings.Contains(fetched.Body(), "ROUTE-MARKER: use gh issue view instead of fetching GitHub issues.") {
		t.Errorf("web_fetch tool_result = is_error %v, body %q; want the gateway's route answer", fetched.IsError, fetched.Body())
	}
	if got := auditTools(t, g.audit, g.tok); got != "hook:webfetch answered" {
		t.Errorf("audit entries %q, want the web_fetch hook call answered", got)
	}
}

// versionNumber returns the dotted version in a --version line ("GitHub
// Copilot CLI 1.0.102." gives "1.0.102").
func versionNumber(line string) string {
	for _, f := range strings.Fields(line) {
		f = strings.Trim(strings.TrimPrefix(f, "v"), ".")
		if f != "" && f[0] >= '0' && f[0] <= '9' && strings.Contains(f, ".") {
			return f
		}
	}
	return ""
}
