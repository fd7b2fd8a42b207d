package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/webpage"
)

// testDatabases are the docs databases of the routing tests.
var testDatabases = []routing.Database{
	{Keywords: []string{"kubernetes", "kubectl"}, Path: "/docs/k8s", MCPToolName: "mcp__docsearch__search", Description: "Kubernetes documentation"},
	{Keywords: []string{"helm", "kubernetes"}, Path: "/docs/helm", MCPToolName: "mcp__docsearch__search", Description: "Helm charts"},
	{Keywords: []string{"c++"}, Path: "/docs/cpp", MCPToolName: "mcp__cppdocs__search", Description: "C++ reference"},
	{Keywords: []string{".net"}, Path: "/docs/dotnet", MCPToolName: "mcp__docsearch__search", Description: ".NET docs"},
	{Keywords: []string{"c#"}, Path: "/docs/csharp", MCPToolName: "mcp__docsearch__search", Description: "C# guide"},
	{Keywords: []string{"gitlab-ci"}, Path: "/docs/gitlab-ci", MCPToolName: "mcp__docsearch__search", Description: "GitLab CI reference"},
}

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// docsEnv returns a web search environment with the test databases, a
// state store in a fresh directory on a fake clock, and searcher.
func docsEnv(t *testing.T, searcher *fakeSearcher) (*WebSearchEnv, *clock) {
	t.Helper()
	docs, warns := routing.NewDocsRouter(testDatabases)
	if len(warns) > 0 {
		t.Fatal(warns)
	}
	c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	env := &WebSearchEnv{Routes: Routes{Docs: docs, State: &routing.StateStore{Dir: t.TempDir(), Now: c.now}}}
	if searcher != nil {
		env.Searcher = searcher
	}
	return env, c
}

// searchIn builds a Claude Code PreToolUse WebSearch payload.
func searchIn(t *testing.T, session, query string, allowed ...string) *Input {
	t.Helper()
	m := map[string]any{"hook_event_name": "PreToolUse", "tool_name": "WebSearch", "tool_input": map[string]any{"query": query, "allowed_domains": allowed}}
	if session != "" {
		m["session_id"] = session
	}
	b, _ := json.Marshal(m)
	in, err := ParseInput(b)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestDocsRoutes_DenyMatchingQueriesWithTheMCPInstructions(t *testing.T) {
	tests := []struct {
		name, query string
		paths       []string // databases that must be named; none means no route
	}{
		{"one keyword", "kubectl rollout restart", []string{"/docs/k8s"}},
		{"keyword of two databases", "kubernetes ingress annotations", []string{"/docs/k8s", "/docs/helm"}},
		{"two keywords of two databases", "helm chart for kubectl plugins", []string{"/docs/k8s", "/docs/helm"}},
		{"upper case", "KUBECTL Apply", []string{"/docs/k8s"}},
		{"mixed case", "Kubernetes pods", []string{"/docs/k8s", "/docs/helm"}},
		{"partial word before", "minikubectl setup", nil},
		{"partial word after", "kubernetesish things", nil},
		{"c++", "c++ move semantics", []string{"/docs/cpp"}},
		{"c++ at the end", "templates in C++", []string{"/docs/cpp"}},
		{"c+++ is another token", "c+++ language", nil},
		{"c alone", "c programming", nil},
		{".net", "async in .NET 8", []string{"/docs/dotnet"}},
		{".net inside a word", "asp.network config", nil},
		{"c#", "C# records", []string{"/docs/csharp"}},
		{"c# inside a word", "abc# thing", nil},
		{"gitlab-ci", "gitlab-ci rules: changes", []string{"/docs/gitlab-ci"}},
		{"gitlab alone", "gitlab runners", nil},
		{"gitlab-ci.yml", "gitlab-ci.yml include", []string{"/docs/gitlab-ci"}},
		{"unrelated", "go context cancellation", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := okSearcher(2)
			env, _ := docsEnv(t, s)
			d := HandleWebSearch(context.Background(), searchIn(t, "s1", tt.query), env)
			if len(tt.paths) == 0 {
				if d.Action != Deny || d.Context != "" || s.calls.Load() != 1 {
					t.Errorf("want provider results and no docs route; action %v, context %q, searches %d", d.Action, d.Context, s.calls.Load())
				}
				return
			}
			if d.Action != Deny || s.calls.Load() != 0 {
				t.Fatalf("want a docs deny before any search; action %v, searches %d, diagnostics %q", d.Action, s.calls.Load(), d.Diagnostics)
			}
			if !strings.Contains(d.Reason, "repeat this exact WebSearch") || strings.Contains(d.Reason, "Web search results") {
				t.Errorf("reason = %q", d.Reason)
			}
			for _, p := range tt.paths {
				if !strings.Contains(d.Context, `with path "`+p+`"`) {
					t.Errorf("context lacks %s:\n%s", p, d.Context)
				}
			}
			if n := strings.Count(d.Context, "- "); n != len(tt.paths) {
				t.Errorf("context names %d databases, want %d:\n%s", n, len(tt.paths), d.Context)
			}
			if len(tt.paths) > 1 && (!strings.Contains(d.Reason, "local documentation indexes") || !strings.Contains(d.Context, "in parallel")) {
				t.Errorf("multi-match answer: reason %q, context %q", d.Reason, d.Context)
			}
			if len(tt.paths) == 1 && !strings.Contains(d.Reason, `for "`+tt.paths[0]+`"`) {
				t.Errorf("single-match reason = %q", d.Reason)
			}
		})
	}
}

func TestDocsRoutes_IdenticalRetryGoesOnToTheProvidersAndIsThenRoutedAgain(t *testing.T) {
	tests := []struct {
		name          string
		first, second []string // allowed domains
		released      bool
	}{
		{"same domains", []string{"kubernetes.io", "helm.sh"}, []string{"kubernetes.io", "helm.sh"}, true},
		{"re-ordered domains", []string{"kubernetes.io", "helm.sh"}, []string{"helm.sh", "kubernetes.io"}, true},
		{"re-cased and duplicated domains", []string{"kubernetes.io"}, []string{"Kubernetes.IO", "kubernetes.io"}, true},
		{"different domains", []string{"kubernetes.io"}, []string{"helm.sh"}, false},
		{"domains dropped", []string{"kubernetes.io"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := okSearcher(2)
			env, _ := docsEnv(t, s)
			if d := HandleWebSearch(context.Background(), searchIn(t, "s1", "kubectl drain", tt.first...), env); d.Context == "" {
				t.Fatalf("first call not routed: %+v", d)
			}
			d := HandleWebSearch(context.Background(), searchIn(t, "s1", "kubectl drain", tt.second...), env)
			if released := d.Context == ""; released != tt.released {
				t.Fatalf("second call released = %v, want %v; %+v", released, tt.released, d)
			}
			if !tt.released {
				return
			}
			if d.Action != Deny || !strings.Contains(d.Reason, "Web search results") || s.calls.Load() != 1 {
				t.Errorf("released retry did not reach the provider: %+v, searches %d", d, s.calls.Load())
			}
			// The memory was cleared: the next identical call is routed.
			if d := HandleWebSearch(context.Background(), searchIn(t, "s1", "kubectl drain", tt.second...), env); d.Context == "" {
				t.Errorf("third call not routed again: %+v", d)
			}
		})
	}
}

func TestDocsRoutes_ReleasedRetryWithoutKeysLeavesTheNativeToolToRun(t *testing.T) {
	env, _ := docsEnv(t, nil)
	env.Settings.SystemMessage = true
	d := HandleWebSearch(context.Background(), searchIn(t, "s1", "kubectl drain"), env)
	if d.Action != Deny || d.Context == "" || !strings.Contains(d.SystemMessage, "local documentation") {
		t.Fatalf("no keys: want a docs deny, got %+v", d)
	}
	d = HandleWebSearch(context.Background(), searchIn(t, "s1", "kubectl drain"), env)
	if d.Action != Pass || !strings.Contains(strings.Join(d.Diagnostics, "\n"), "no search provider has an API key") {
		t.Errorf("retry without keys: want a pass-through, got %+v", d)
	}
}

func TestDocsRoutes_ADenialIsForgottenAfterTheEscapeWindow(t *testing.T) {
	s := okSearcher(1)
	env, c := docsEnv(t, s)
	HandleWebSearch(context.Background(), searchIn(t, "s1", "helm upgrade"), env)
	c.t = c.t.Add(routing.DefaultEscapeWindow - time.Second)
	if d := HandleWebSearch(context.Background(), searchIn(t, "s1", "helm upgrade"), env); d.Context != "" {
		t.Fatalf("retry within the window was routed again")
	}
	HandleWebSearch(context.Background(), searchIn(t, "s1", "helm upgrade"), env)
	c.t = c.t.Add(routing.DefaultEscapeWindow + time.Second)
	if d := HandleWebSearch(context.Background(), searchIn(t, "s1", "helm upgrade"), env); d.Context == "" {
		t.Errorf("retry after the window was released: %+v", d)
	}
	if s.calls.Load() != 1 {
		t.Errorf("searches = %d, want 1", s.calls.Load())
	}
}

func TestDocsRoutes_SessionsKeepSeparateMemories(t *testing.T) {
	s := okSearcher(1)
	env, _ := docsEnv(t, s)
	routed := func(session string) bool {
		return HandleWebSearch(context.Background(), searchIn(t, session, "kubectl logs"), env).Context != ""
	}
	steps := []struct {
		session string
		routed  bool
	}{
		{"a", true}, {"b", true}, {"a", false}, {"c", true}, {"b", false}, {"a", true}, {"c", false}, {"a", false},
	}
	for i, st := range steps {
		if got := routed(st.session); got != st.routed {
			t.Errorf("step %d, session %s: routed = %v, want %v", i, st.session, got, st.routed)
		}
	}
}

func TestDocsRoutes_SessionIDsStayInsideTheStateDirectory(t *testing.T) {
	for _, id := range []string{"../../../../tmp/evil", "/etc/passwd", `..\..\x`, "a/../../b", ".", "..", "\x00nul", strings.Repeat("x", 500)} {
		env, _ := docsEnv(t, okSearcher(1))
		dir := env.Routes.State.Describe()
		if d := HandleWebSearch(context.Background(), searchIn(t, id, "kubectl get pods"), env); d.Context == "" {
			t.Fatalf("%q: not routed: %+v", id, d)
		}
		if d := HandleWebSearch(context.Background(), searchIn(t, id, "kubectl get pods"), env); d.Context != "" {
			t.Errorf("%q: identical retry not released", id)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() || strings.ContainsAny(e.Name(), `/\`) || !strings.HasPrefix(e.Name(), "docs-route-") {
				t.Errorf("%q: unexpected entry %q in the state directory", id, e.Name())
			}
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "tmp")); err == nil {
			t.Errorf("%q: a file was written outside the state directory", id)
		}
	}
}

func TestDocsRoutes_MissingSessionIDSharesTheFallbackSession(t *testing.T) {
	env, _ := docsEnv(t, okSearcher(1))
	HandleWebSearch(context.Background(), searchIn(t, "", "kubectl top"), env)
	if _, err := os.Stat(filepath.Join(env.Routes.State.Describe(), routing.SessionFile(NoSessionID))); err != nil {
		t.Fatalf("no state under the fallback session: %v", err)
	}
	if d := HandleWebSearch(context.Background(), searchIn(t, "", "kubectl top"), env); d.Context != "" {
		t.Errorf("retry without a session id was routed again")
	}
}

func TestDocsRoutes_ACorruptStateFileCountsAsEmpty(t *testing.T) {
	env, _ := docsEnv(t, okSearcher(1))
	file := filepath.Join(env.Routes.State.Describe(), routing.SessionFile("s1"))
	for _, junk := range []string{"{not json", "", `{"denied":"x"}`, "\x00\xff"} {
		if err := os.WriteFile(file, []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		if d := HandleWebSearch(context.Background(), searchIn(t, "s1", "helm rollback"), env); d.Context == "" {
			t.Fatalf("%q: not routed over a corrupt state file: %+v", junk, d)
		}
		if d := HandleWebSearch(context.Background(), searchIn(t, "s1", "helm rollback"), env); d.Context != "" {
			t.Errorf("%q: retry not released after the state was rewritten", junk)
		}
	}
}

func TestDocsRoutes_DoNotDenyWhenTheStateCannotBeWritten(t *testing.T) {
	// A directory below a regular file cannot be created, even by root
	// (which ignores permission bits).
	base := t.TempDir()
	blocker := filepath.Join(base, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{"below a file": filepath.Join(blocker, "state"), "empty": ""} {
		t.Run(name, func(t *testing.T) {
			s := okSearcher(1)
			env, _ := docsEnv(t, s)
			env.Routes.State.(*routing.StateStore).Dir = dir
			d := HandleWebSearch(context.Background(), searchIn(t, "s1", "kubectl exec"), env)
			if d.Context != "" || !strings.Contains(d.Reason, "Web search results") || s.calls.Load() != 1 {
				t.Errorf("want provider results and no docs deny, got %+v", d)
			}
			if diag := strings.Join(d.Diagnostics, "\n"); !strings.Contains(diag, "routing: warning: docs route matched /docs/k8s but its denial could not be recorded") {
				t.Errorf("diagnostics = %q", diag)
			}
			env.Routes.State = nil
			if d := HandleWebSearch(context.Background(), searchIn(t, "s1", "kubectl exec"), env); d.Context != "" {
				t.Errorf("denied without a state store")
			}
		})
	}
}

func TestDocsRoutes_DebugModeTracesTheRouteOnStderrOnly(t *testing.T) {
	env, _ := docsEnv(t, okSearcher(1))
	env.Settings.Debug = true
	env.Settings.Trace = []string{"configuration: defaults"}
	d := HandleWebSearch(context.Background(), searchIn(t, "s1", "kubectl cp"), env)
	diag := strings.Join(d.Diagnostics, "\n")
	for _, want := range []string{"configuration: defaults", "PreToolUse WebSearch from claude-code", `docs route: query "kubectl cp" matched /docs/k8s; denying`} {
		if !strings.Contains(diag, want) {
			t.Errorf("debug diagnostics lack %q:\n%s", want, diag)
		}
	}
	normal, _ := docsEnv(t, okSearcher(1))
	n := HandleWebSearch(context.Background(), searchIn(t, "s1", "kubectl cp"), normal)
	if n.Reason != d.Reason || n.Context != d.Context || len(n.Diagnostics) != 0 {
		t.Errorf("normal mode differs beyond stderr: %+v vs %+v", n, d)
	}
	d = HandleWebSearch(context.Background(), searchIn(t, "s1", "kubectl cp"), env)
	if !strings.Contains(strings.Join(d.Diagnostics, "\n"), `identical retry in session "s1" released`) {
		t.Errorf("debug retry diagnostics = %q", d.Diagnostics)
	}
}

func TestDocsRoutes_LeaveMCPAndPostToolUseEventsAlone(t *testing.T) {
	s := okSearcher(1)
	env, _ := docsEnv(t, s)
	for _, p := range []string{
		`{"hook_event_name":"PostToolUse","tool_name":"mcp__ccs-websearch__WebSearch","session_id":"s","tool_input":{"query":"kubectl"},"tool_response":[{"type":"text","text":"x"}]}`,
		`{"hook_event_name":"PreToolUse","tool_name":"mcp__ccs-websearch__WebSearch","session_id":"s","tool_input":{"query":"kubectl"}}`,
	} {
		in, _ := ParseInput([]byte(p))
		if d := HandleWebSearch(context.Background(), in, env); strings.Contains(d.Context, "local documentation") || strings.Contains(d.Reason, "local documentation") {
			t.Errorf("%s: routed: %+v", in.Event, d)
		}
	}
}

// toolRoutes returns a router over routes, failing on warnings.
func toolRoutes(t *testing.T, routes ...routing.ToolRoute) *routing.ToolRouter {
	t.Helper()
	r, warns := routing.NewToolRouter(routes)
	if len(warns) > 0 {
		t.Fatal(warns)
	}
	return r
}

var (
	ghRoute   = routing.ToolRoute{Name: "github", Pattern: `^https?://github\.com/[^/]+/[^/]+/(issues|pull)/`, Message: "Use `gh issue view` or `gh pr view` for GitHub issues and pull requests."}
	anyGH     = routing.ToolRoute{Name: "github-any", Pattern: `github\.com`, Message: "Use gh for anything on GitHub."}
	curlRoute = routing.ToolRoute{Name: "no-curl-docs", Tool: "Bash", Pattern: `\bcurl\b.*docs\.`, Message: "Use the docs MCP tool instead of curl."}
)

func fetchIn(t *testing.T, payload string) *Input {
	t.Helper()
	in, err := ParseInput([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestToolRoutes_DenyMatchingFetchesAndCommandsBeforeAnyProvider(t *testing.T) {
	tests := []struct {
		name, payload, reason string
	}{
		{"WebFetch issue", `{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://github.com/a/b/issues/1","prompt":"p"}}`, ghRoute.Message},
		{"first match wins", `{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://GITHUB.com/a/b/pull/2","prompt":"p"}}`, ghRoute.Message},
		{"later route", `{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://github.com/a/b","prompt":"p"}}`, anyGH.Message},
		{"Copilot web_fetch", `{"sessionId":"c","toolName":"web_fetch","toolArgs":"{\"url\":\"https://github.com/x/y/issues/9\"}"}`, ghRoute.Message},
		{"Claude Bash", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"curl -s https://docs.example.com/x"}}`, curlRoute.Message},
		{"Copilot bash", `{"sessionId":"c","toolName":"bash","toolArgs":"{\"command\":\"curl https://docs.rs/x\"}"}`, curlRoute.Message},
		{"VS Code BASH", `{"hookEventName":"PreToolUse","sessionId":"v","tool_name":"BASH","tool_input":{"command":"CURL docs.python.org"}}`, curlRoute.Message},
		{"Bash route does not apply to WebFetch", `{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://x.example/curl/docs.html","prompt":"p"}}`, ""},
		{"WebFetch route does not apply to Bash", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git clone https://github.com/a/b"}}`, ""},
		{"Bash without a match", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"}}`, ""},
		{"Bash PostToolUse", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"curl docs.x"},"tool_response":"ok"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := pageExtractor("T", "content")
			env := &WebFetchEnv{Reader: &webpage.Reader{Extractor: x}, Routes: Routes{Tools: toolRoutes(t, ghRoute, anyGH, curlRoute)}}
			in := fetchIn(t, tt.payload)
			d := HandleWebFetch(context.Background(), in, env)
			if tt.reason == "" {
				if d.Action == Deny && d.Reason != "" && !strings.Contains(d.Reason, "Content of") {
					t.Errorf("unexpected route deny: %q", d.Reason)
				}
				if IsShellTool(in.ToolName) && (d.Action != Pass || x.calls.Load() != 0) {
					t.Errorf("shell call got %v with %d extractions; want a silent pass", d.Action, x.calls.Load())
				}
				return
			}
			if d.Action != Deny || d.Reason != tt.reason || d.Context != "" {
				t.Errorf("decision = %+v, want a deny with the message alone", d)
			}
			if x.calls.Load() != 0 {
				t.Errorf("the extractor was called")
			}
		})
	}
}

func TestToolRoutes_DebugModeAddsRouteValueAndPattern(t *testing.T) {
	long := "https://github.com/a/b/issues/1?" + strings.Repeat("q", 400)
	in := fetchIn(t, `{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"`+long+`","prompt":"p"}}`)
	env := &WebFetchEnv{Routes: Routes{Tools: toolRoutes(t, ghRoute)}, Settings: Settings{Debug: true, SystemMessage: true}}
	d := HandleWebFetch(context.Background(), in, env)
	want := ghRoute.Message + "\n\n[webgate debug] route=github tool=WebFetch matched=" + `"` + long[:200] + `…" pattern=` + ghRoute.Pattern
	if d.Reason != want {
		t.Errorf("debug reason =\n%s\nwant\n%s", d.Reason, want)
	}
	if !strings.Contains(strings.Join(d.Diagnostics, "\n"), "tool route github matched WebFetch") {
		t.Errorf("diagnostics = %q", d.Diagnostics)
	}
	if d.SystemMessage != "webgate: WebFetch sent elsewhere by tool route github" {
		t.Errorf("systemMessage = %q", d.SystemMessage)
	}
	env.Settings = Settings{}
	if d := HandleWebFetch(context.Background(), in, env); d.Reason != ghRoute.Message || len(d.Diagnostics) != 0 || d.SystemMessage != "" {
		t.Errorf("normal mode = %+v", d)
	}
}

func TestRoutes_WarningsGoToStderrWhenTheRoutesAreConsulted(t *testing.T) {
	env := &WebFetchEnv{Routes: Routes{Tools: toolRoutes(t, curlRoute), Warnings: []string{"tool route bad skipped: pattern does not compile"}}}
	d := HandleWebFetch(context.Background(), fetchIn(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`), env)
	if d.Action != Pass || strings.Join(d.Diagnostics, "|") != "routing: warning: tool route bad skipped: pattern does not compile" {
		t.Errorf("decision = %+v", d)
	}
	d = HandleWebFetch(context.Background(), fetchIn(t, `{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{}}`), env)
	if len(d.Diagnostics) != 0 {
		t.Errorf("an ignored tool printed warnings: %q", d.Diagnostics)
	}
}

func TestSessionStart_GivesTheAgentTheRoutesIndex(t *testing.T) {
	docs, _ := routing.NewDocsRouter(testDatabases[:2])
	routes := Routes{Docs: docs, Tools: toolRoutes(t, ghRoute, curlRoute)}
	in := fetchIn(t, `{"session_id":"s","hook_event_name":"SessionStart","source":"startup"}`)

	if d := HandleWebSearch(context.Background(), in, &WebSearchEnv{Routes: routes}); d.Action != Pass || d.Output(in) != nil {
		t.Errorf("session start off: %+v", d)
	}
	d := HandleWebSearch(context.Background(), in, &WebSearchEnv{Routes: routes, SessionStart: true})
	var buf bytes.Buffer
	if err := d.Write(&buf, in); err != nil {
		t.Fatal(err)
	}
	var out struct {
		HSO map[string]string `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil || len(out.HSO) != 2 || out.HSO["hookEventName"] != "SessionStart" {
		t.Fatalf("output = %s (%v)", buf.String(), err)
	}
	ctx := out.HSO["additionalContext"]
	lines := strings.Split(ctx, "\n")
	if len(lines) != 6 {
		t.Errorf("index has %d lines, want 2 headers + 2 databases + 2 routes:\n%s", len(lines), ctx)
	}
	for _, want := range []string{"- Kubernetes documentation: MCP tool mcp__docsearch__search, path /docs/k8s; keywords: kubernetes, kubectl", "- WebFetch github: Use `gh issue view`", "- Bash no-curl-docs: Use the docs MCP tool"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("index lacks %q:\n%s", want, ctx)
		}
	}
	if d := HandleWebSearch(context.Background(), in, &WebSearchEnv{SessionStart: true}); d.Output(in) != nil {
		t.Errorf("no routes: output %v", d.Output(in))
	}
}

func TestDeny_CarriesAdditionalContextForEveryRuntime(t *testing.T) {
	d := Decision{Action: Deny, Reason: "R", Context: "C"}
	for _, tt := range []struct{ payload, want string }{
		{`{"hook_event_name":"PreToolUse","tool_name":"WebSearch"}`, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R","additionalContext":"C"}}`},
		{`{"hookEventName":"PreToolUse","tool_name":"WebSearch"}`, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R","additionalContext":"C"}}`},
		{`{"toolName":"web_search","toolArgs":"{}"}`, `{"permissionDecision":"deny","permissionDecisionReason":"R\n\nC"}`},
	} {
		var buf bytes.Buffer
		if err := d.Write(&buf, fetchIn(t, tt.payload)); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(buf.String()); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.payload, got, tt.want)
		}
	}
}
