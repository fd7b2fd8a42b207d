//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/redistest"
)

// TestGateway_ClaudeCodeCallsTheMCPToolsOverHTTPAcrossTwoReplicas
// configures the real Claude Code CLI with the team gateway as an HTTP MCP
// server ("type": "http", a bearer token in its headers, as `claude mcp
// add --transport http … --header` writes it). The gateway is two `webgate
// serve` replicas over one redis-server, behind a round-robin proxy with
// no sticky sessions: the CLI's MCP requests alternate between them, the
// model calls web_search and web_fetch, and their answers reach it.
func TestGateway_ClaudeCodeCallsTheMCPToolsOverHTTPAcrossTwoReplicas(t *testing.T) {
	ClaudeBinary(t)
	webgate := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webgate")
	providers := newFakeProviders(t)
	page := fixturePages(t) + "/readable/docs-page.html"
	lb, secret := startReplicas(t, webgate, providers)

	search, fetch := MCPToolName("webgate", "web_search"), MCPToolName("webgate", "web_fetch")
	api := NewFakeAPI(t,
		CallTool(search, map[string]any{"query": "gateway mcp query", "max_results": 2}),
		CallTool(fetch, map[string]any{"url": page, "prompt": "which timeouts exist"}),
		Say("done"),
	)
	res := RunClaude(t, api, Options{
		MCPServers: map[string]MCPServer{"webgate": {
			URL:     lb.URL + "/mcp",
			Headers: map[string]string{"Authorization": "Bearer " + secret},
		}},
		AllowedTools: []string{search, fetch},
		Timeout:      120 * time.Second,
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	if strings.Contains(res.Stdout, secret) || strings.Contains(res.Stderr, secret) {
		t.Error("the gateway token reached the CLI's output")
	}
	for _, r := range api.Requests() {
		if bytes.Contains(r.Body, []byte(secret)) {
			t.Error("the gateway token reached the model API")
			break
		}
	}
	got := api.ToolResult(t, 0)
	if got.IsError {
		t.Fatalf("web_search tool_result is an error: %q", got.Body())
	}
	for _, want := range []string{
		`Web search results for "gateway mcp query"`,
		"1. HOOK-RESULT-ONE for gateway mcp query\n   https://docs.example/one\n   First provider-backed snippet.",
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
	for _, want := range []string{"Request: which timeouts exist", "## Timeouts", "| `read_timeout` | 30s |"} {
		if !strings.Contains(fetched.Body(), want) {
			t.Errorf("web_fetch tool_result lacks %q:\n%s", want, fetched.Body())
		}
	}
	if p := providers.Paths(); len(p) != 1 || p[0] != "/tavily/search" {
		t.Errorf("provider requests = %q, want one Tavily search and no extraction", p)
	}

	// No sticky sessions: each replica answered MCP requests, and the
	// session the CLI began on one went on on the other.
	calls := lb.Calls()
	t.Logf("MCP requests through the round-robin proxy: %q", calls)
	served := map[string]map[string]bool{}
	for _, c := range calls {
		if served[c.backend] == nil {
			served[c.backend] = map[string]bool{}
		}
		served[c.backend][c.method] = true
	}
	if len(served) != 2 {
		t.Errorf("replicas that answered MCP requests: %d, want both", len(served))
	}
	// A tools request answered by a replica other than the one the session
	// began on shows that nothing ties the session to one.
	if crossed, n := crossedReplicas(calls); n != 2 || !crossed {
		t.Errorf("tools/call requests = %d, tools on a replica other than the session's first = %v; want 2 and true", n, crossed)
	}
	for _, c := range calls {
		if c.status >= 400 && c.method != "" {
			t.Errorf("%s on %s answered %d", c.method, c.backend, c.status)
		}
	}
}

// TestGateway_CodexCallsTheMCPToolsOverHTTPAcrossTwoReplicas registers
// the gateway in Codex's config.toml as a streamable HTTP MCP server whose
// bearer token Codex reads from WEBGATE_GATEWAY_TOKEN (as `codex mcp add
// NAME --url URL --bearer-token-env-var VAR` writes it), behind the same
// round-robin proxy over two replicas: `codex exec` lists the tools and
// the model's web_search and web_fetch calls are answered.
func TestGateway_CodexCallsTheMCPToolsOverHTTPAcrossTwoReplicas(t *testing.T) {
	codex := CodexCLI.Binary(t)
	webgate := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webgate")
	providers := newFakeProviders(t)
	page := fixturePages(t) + "/readable/docs-page.html"
	lb, secret := startReplicas(t, webgate, providers)
	api := NewFakeResponses(t,
		CallTool("mcp__webgate__web_search", map[string]any{"query": "codex gateway query", "max_results": 2}),
		CallTool("mcp__webgate__web_fetch", map[string]any{"url": page, "prompt": "which timeouts exist"}),
		Say("CODEX-DONE"),
	)
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	codexHome := filepath.Join(home, ".codex")
	for _, d := range []string{home, project, codexHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(codexHome, "config.toml"), []byte(codexConfig(api)+fmt.Sprintf(`
[mcp_servers.webgate]
url = %q
bearer_token_env_var = "WEBGATE_GATEWAY_TOKEN"
`, lb.URL+"/mcp")))

	res := RunCLI(t, CLIRun{
		Bin: codex,
		Args: []string{"exec", "--strict-config", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
			"--json", "Search the web for codex gateway query, then read " + page + "."},
		Home: home, Dir: project,
		Env: map[string]string{"CODEX_HOME": codexHome, "FAKE_OPENAI_API_KEY": "sk-e2e-dummy", "RUST_LOG": "warn",
			"WEBGATE_GATEWAY_TOKEN": secret},
	})

	if res.ExitCode != 0 {
		t.Fatalf("codex exit code = %d, want 0", res.ExitCode)
	}
	assertNoLeaks(t, res, hookTavilyKey, hookWSAPIKey, secret)
	for _, a := range res.ProxyAttempts {
		t.Errorf("codex tried to leave the machine: %q", a)
	}
	tools := api.ToolNames(t)
	if !containsString(tools, "mcp__webgate/web_search") || !containsString(tools, "mcp__webgate/web_fetch") {
		t.Errorf("tools offered to the model = %q, want the gateway's web_search and web_fetch", tools)
	}
	searched := api.ToolOutput(t, 0).OutputText()
	for _, want := range []string{`Web search results for "codex gateway query"`, "HOOK-RESULT-ONE for codex gateway query", "HOOK-RESULT-TWO"} {
		if !strings.Contains(searched, want) {
			t.Errorf("web_search output lacks %q:\n%s", want, searched)
		}
	}
	fetched := api.ToolOutput(t, 1).OutputText()
	for _, want := range []string{"Request: which timeouts exist", "## Timeouts"} {
		if !strings.Contains(fetched, want) {
			t.Errorf("web_fetch output lacks %q:\n%s", want, fetched)
		}
	}
	if !strings.Contains(res.Stdout, "CODEX-DONE") {
		t.Errorf("codex output lacks the model's final answer:\n%s", tail(res.Stdout, 2000))
	}
	calls := lb.Calls()
	t.Logf("MCP requests through the round-robin proxy: %q", calls)
	if crossed, n := crossedReplicas(calls); n != 2 || !crossed {
		t.Errorf("tools/call requests = %d, tools on a replica other than the session's first = %v; want 2 and true", n, crossed)
	}
	for _, c := range calls {
		if c.status >= 400 && c.method != "" {
			t.Errorf("%s on %s answered %d", c.method, c.backend, c.status)
		}
	}
}

// startReplicas starts two `webgate serve` replicas over the fake
// providers and one redis-server, behind a round-robin proxy, and creates
// a token with `webgate token create`; loopback pages may be read.
func startReplicas(t *testing.T, webgate string, providers *fakeProviders) (*roundRobin, string) {
	t.Helper()
	redis := redistest.Start(t)
	home := t.TempDir()
	env := providers.env(map[string]string{
		"WEBGATE_STORE":                 redis.URL,
		"WEBGATE_STATE_DIR":             filepath.Join(home, "state"),
		"WEBGATE_GATEWAY_ALLOW_PRIVATE": "127.0.0.1",
	})
	secret := strings.TrimSpace(RunWebgate(t, webgate, home, env, "token", "create", "--owner", "e2e", "--label", "mcp-http"))
	if !strings.HasPrefix(secret, "wg_") {
		t.Fatalf("token create printed %q", secret)
	}
	a, b := startServe(t, webgate, home, env), startServe(t, webgate, home, env)
	return newRoundRobin(t, a, b), secret
}

// crossedReplicas reports whether a tools/list or tools/call went to a
// replica other than the one that answered the session's first request
// (initialize, or server/discover in the stateless protocol), and how many
// tools/call requests there were.
func crossedReplicas(calls []proxiedCall) (crossed bool, toolCalls int) {
	if len(calls) == 0 {
		return false, 0
	}
	for _, c := range calls {
		if c.method == "tools/call" {
			toolCalls++
		}
		if c.method == "tools/call" || c.method == "tools/list" {
			crossed = crossed || c.backend != calls[0].backend
		}
	}
	return crossed, toolCalls
}

// startServe runs `webgate serve` on a port of 127.0.0.1 that the server
// picks (`--listen 127.0.0.1:0`; its "listening" log line names it), with
// env, waits for /healthz and stops it with SIGTERM (then SIGKILL) by its
// PID when the test ends. It returns the base URL.
func startServe(t *testing.T, webgate, home string, env map[string]string) string {
	t.Helper()
	return startServeProcess(t, webgate, home, env).url
}

// serveProcess is a `webgate serve` started by startServeProcess.
type serveProcess struct {
	url  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// stop stops the process as SIGTERM does and waits until it has exited
// (SIGKILL past 40 s).
func (p *serveProcess) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(40 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// kill kills the process (SIGKILL) and waits until it has exited.
func (p *serveProcess) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// startServeProcess is startServe, returning the process.
func startServeProcess(t *testing.T, webgate, home string, env map[string]string) *serveProcess {
	t.Helper()
	cmd := exec.Command(webgate, "serve", "--listen", "127.0.0.1:0")
	vars := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
	for k, v := range env {
		vars[k] = v
	}
	cmd.Env = envList(vars)
	cmd.Dir = home
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	proc := &serveProcess{cmd: cmd, done: done}
	t.Cleanup(func() {
		proc.stop()
		if t.Failed() {
			t.Logf("webgate serve:\n%s", tail(logs.String(), 4000))
		}
	})
	base := ""
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-done:
			t.Fatalf("webgate serve exited:\n%s", logs.String())
		default:
		}
		if base == "" {
			if addr := listeningAddr(logs.String()); addr != "" {
				base = "http://" + addr
			}
			continue
		}
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				proc.url = base
				return proc
			}
		}
	}
	t.Fatalf("webgate serve did not answer /healthz (listening on %q):\n%s", base, logs.String())
	return nil
}

// listeningAddr returns the address in webgate serve's "listening" log
// line (JSON, one object a line), or "" before that line is written.
func listeningAddr(logs string) string {
	for _, line := range strings.Split(logs, "\n") {
		var l struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "listening" {
			return l.Addr
		}
	}
	return ""
}

// syncBuffer is a bytes.Buffer safe for a process's two output streams.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// roundRobin is a reverse proxy on 127.0.0.1 that sends each request to
// the next backend in turn, with no affinity of any kind, and records the
// JSON-RPC method of each.
type roundRobin struct {
	URL string

	mu    sync.Mutex
	next  int
	calls []proxiedCall
}

type proxiedCall struct {
	backend, httpMethod, method string
	status                      int
}

func (c proxiedCall) String() string {
	return fmt.Sprintf("%s %s %s→%d", c.backend, c.httpMethod, c.method, c.status)
}

func newRoundRobin(t *testing.T, backends ...string) *roundRobin {
	t.Helper()
	rr := &roundRobin{}
	var targets []*url.URL
	for _, b := range backends {
		u, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, u)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			rr.mu.Lock()
			target := targets[rr.next%len(targets)]
			rr.next++
			rr.mu.Unlock()
			r.SetURL(target)
		},
		ModifyResponse: func(resp *http.Response) error {
			rr.record(resp.Request, resp.StatusCode)
			return nil
		},
		FlushInterval: -1,
	}
	s := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &msg)
			r.Header.Set("X-E2E-JSONRPC-Method", msg.Method)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	rr.URL = s.URL
	return rr
}

func (rr *roundRobin) record(r *http.Request, status int) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.calls = append(rr.calls, proxiedCall{backend: r.URL.Host, httpMethod: r.Method, method: r.Header.Get("X-E2E-JSONRPC-Method"), status: status})
}

// Calls returns the requests proxied so far.
func (rr *roundRobin) Calls() []proxiedCall {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return append([]proxiedCall(nil), rr.calls...)
}
