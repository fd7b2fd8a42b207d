package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/webgate-dev/webgate/cmd/internal/setup"
)

// The real-CLI scenarios of webgate's hook binaries (cmd/websearch and
// cmd/webfetch): what the model receives when the hooks answer, and that
// they step aside where the native tool should run.

// ccsArgs make the stub MCP server stand in for a ccs-websearch server: one
// "WebSearch" tool answering CCS-OUTPUT-<query> or CCS-ERROR-<query>.
var ccsArgs = []string{"-tool", "WebSearch", "-prefix", "CCS"}

const (
	hookTavilyKey = "tvly-E2E-HOOKS-5d6e7f8091a2b3c4"
	hookWSAPIKey  = "wsapi-E2E-HOOKS-0a1b2c3d4e5f6071"
)

// fakeProviders is a loopback server speaking the Tavily (/tavily/search,
// /tavily/extract) and WebSearchAPI.ai (/wsapi/scrape) wire formats, and
// recording the requests it received.
type fakeProviders struct {
	URL string

	mu    sync.Mutex
	paths []string
}

func newFakeProviders(t *testing.T) *fakeProviders {
	t.Helper()
	f := &fakeProviders{}
	s := newLoopbackServer(t, http.HandlerFunc(f.serve))
	t.Cleanup(s.Close)
	f.URL = s.URL
	return f
}

func (f *fakeProviders) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.paths = append(f.paths, r.URL.Path)
	f.mu.Unlock()
	var req struct {
		Query string `json:"query"`
		URL   string `json:"url"`
	}
	_ = json.Unmarshal(body, &req)
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/tavily/search":
		fmt.Fprintf(w, `{"query":%q,"results":[`+
			`{"title":"HOOK-RESULT-ONE for %s","url":"https://docs.example/one","content":"First provider-backed snippet.","score":0.9},`+
			`{"title":"HOOK-RESULT-TWO","url":"https://docs.example/two","content":"Second snippet.","score":0.8}],"response_time":0.05}`, req.Query, req.Query)
	case "/wsapi/scrape":
		fmt.Fprintf(w, `{"code":200,"status":20000,"data":{"title":"Rendered app","url":%q,"content":"# Rendered app\n\nEXTRACTED-APP-CONTENT: the app's deadline is Friday."}}`, req.URL)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeProviders) Paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}

// env configures the hooks for the fake providers; the CLI passes it on to
// hook processes.
func (f *fakeProviders) env(extra map[string]string) map[string]string {
	env := map[string]string{
		"TAVILY_API_KEY":        hookTavilyKey,
		"TAVILY_BASE_URL":       f.URL + "/tavily",
		"WEBSEARCHAPI_API_KEY":  hookWSAPIKey,
		"WEBSEARCHAPI_BASE_URL": f.URL + "/wsapi",
		// Search with Tavily alone and extract with WebSearchAPI.ai alone,
		// so each scenario knows which fake answers.
		"WEBGATE_SEARCH_PROVIDERS":  "tavily",
		"WEBGATE_EXTRACT_PROVIDERS": "websearchapi",
		// The local browser has tests of its own (webpage/browser).
		"WEBGATE_BROWSER": "off",
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

func assertNoHookKeys(t *testing.T, res *Result, api *FakeAPI) {
	t.Helper()
	var sent strings.Builder
	for _, r := range api.Requests() {
		sent.Write(r.Body)
	}
	for _, k := range []string{hookTavilyKey, hookWSAPIKey} {
		if strings.Contains(res.Stdout, k) || strings.Contains(res.Stderr, k) || strings.Contains(sent.String(), k) {
			t.Errorf("a provider key reached the CLI's output or the model")
		}
	}
}

func TestHooks_WebSearchAnswersWithProviderResults(t *testing.T) {
	version := ClaudeVersion(t)
	hook := bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch")
	providers := newFakeProviders(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "webgate hooks query"}),
		Say("done"),
	)
	settings := new(Settings).AddHook("PreToolUse", "WebSearch", ExecHook(hook))

	res := RunClaude(t, api, Options{Settings: settings, Env: providers.env(nil)})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	got := api.ToolResult(t, 0)
	if !got.IsError || !strings.HasPrefix(got.Body(), DenyContent(version, "WebSearch", "")) {
		t.Fatalf("tool_result = is_error %v, body %q; want the hook's deny", got.IsError, got.Body())
	}
	for _, want := range []string{
		`Web search results for query "webgate hooks query", from provider-backed search via webgate`,
		"1. HOOK-RESULT-ONE for webgate hooks query\n   https://docs.example/one\n   First provider-backed snippet.",
		"2. HOOK-RESULT-TWO",
		"REMINDER: cite the sources",
	} {
		if !strings.Contains(got.Body(), want) {
			t.Errorf("tool_result lacks %q:\n%s", want, got.Body())
		}
	}
	if n := len(api.RequestsOf(KindWebSearch)); n != 0 {
		t.Errorf("native web search calls = %d, want 0", n)
	}
	if p := providers.Paths(); len(p) != 1 || p[0] != "/tavily/search" {
		t.Errorf("provider requests = %q, want one Tavily search", p)
	}
}

func TestHooks_WebSearchWithoutKeysLetsTheNativeToolRun(t *testing.T) {
	ClaudeBinary(t)
	hook := bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch")
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "native fallback query"}),
		Say("done"),
	)
	settings := new(Settings).AddHook("PreToolUse", "WebSearch", ExecHook(hook))

	res := RunClaude(t, api, Options{Settings: settings, AllowedTools: []string{"WebSearch"}})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	if n := len(api.RequestsOf(KindWebSearch)); n != 1 {
		t.Fatalf("native web search calls = %d, want 1", n)
	}
	got := api.ToolResult(t, 0)
	if got.IsError || !strings.Contains(got.Body(), `Web search results for query: "native fallback query"`) {
		t.Errorf("tool_result = is_error %v, body %q; want the native result", got.IsError, got.Body())
	}
	if strings.Contains(got.Text(), "webgate") {
		t.Errorf("the user-facing systemMessage reached the model:\n%s", got.Text())
	}
}

// appShell is a client-rendered page: an empty root and a module script.
const appShell = `<!doctype html><html><head><meta charset="utf-8"><title>App</title>
<script type="module" crossorigin src="/assets/index-4f2a.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>`

func TestHooks_WebFetchOnAnAppShellAnswersWithExtractedContent(t *testing.T) {
	version := ClaudeVersion(t)
	hook := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webfetch")
	providers := newFakeProviders(t)
	pageHits := 0
	var mu sync.Mutex
	page := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		pageHits++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, appShell)
	}))
	t.Cleanup(page.Close)
	url := page.URL + "/app"
	api := NewFakeAPI(t,
		CallTool("WebFetch", map[string]any{"url": url, "prompt": "When is the deadline?"}),
		Say("done"),
	)
	settings := new(Settings).AddHook("PreToolUse", "WebFetch", ExecHook(hook))

	res := RunClaude(t, api, Options{
		Settings: settings,
		Env:      providers.env(map[string]string{"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE": "1"}),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	got := api.ToolResult(t, 0)
	if !got.IsError || !strings.HasPrefix(got.Body(), DenyContent(version, "WebFetch", "")) {
		t.Fatalf("tool_result = is_error %v, body %q; want the hook's deny", got.IsError, got.Body())
	}
	for _, want := range []string{
		"Content of " + url + ", extracted by webgate via websearchapi because the page shows its content only after JavaScript runs",
		"Title: Rendered app", "Request: When is the deadline?", "EXTRACTED-APP-CONTENT: the app's deadline is Friday.",
	} {
		if !strings.Contains(got.Body(), want) {
			t.Errorf("tool_result lacks %q:\n%s", want, got.Body())
		}
	}
	if n := len(api.RequestsOf(KindWebFetchApply)); n != 0 {
		t.Errorf("native WebFetch apply calls = %d, want 0", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if pageHits != 1 {
		t.Errorf("page requests = %d, want 1 (the hook's probe)", pageHits)
	}
}

func TestHooks_WebFetchOnAReadablePageLeavesTheNativeToolToRun(t *testing.T) {
	ClaudeBinary(t)
	hook := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webfetch")
	providers := newFakeProviders(t)
	article, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "readable", "blog-article.html"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var agents []string
	page := NewPageServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.UserAgent())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(article)
	}))
	api := NewFakeAPI(t,
		CallTool("WebFetch", map[string]any{"url": page.URL + "/blog", "prompt": "Summarise the article."}),
		Say("done"),
	)
	settings := new(Settings).AddHook("PreToolUse", "WebFetch", ExecHook(hook))
	env := providers.env(map[string]string{
		"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE": "1",
		// The hook's probe trusts the page server's certificate this way.
		"SSL_CERT_FILE": page.CAFile,
	})
	for k, v := range page.Env() {
		env[k] = v
	}

	res := RunClaude(t, api, Options{
		Settings:     settings,
		FlagSettings: &Settings{SkipWebFetchPreflight: true},
		AllowedTools: []string{"WebFetch"},
		Env:          env,
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	if n := len(api.RequestsOf(KindWebFetchApply)); n != 1 {
		t.Fatalf("native WebFetch apply calls = %d, want 1", n)
	}
	got := api.ToolResult(t, 0)
	if got.IsError || !strings.HasPrefix(got.Body(), "FAKE-FETCH-ANSWER: ") {
		t.Errorf("tool_result = is_error %v, body %q; want the native answer", got.IsError, got.Body())
	}
	if p := providers.Paths(); len(p) != 0 {
		t.Errorf("provider requests = %q, want none for a readable page", p)
	}
	mu.Lock()
	defer mu.Unlock()
	probed := false
	for _, a := range agents {
		probed = probed || strings.HasPrefix(a, "webgate/")
	}
	if !probed {
		t.Errorf("page user agents = %q, want the hook's probe among them", agents)
	}
}

func TestHooks_MCPSearchToolGetsCompanionAndFallbackResults(t *testing.T) {
	ClaudeBinary(t)
	hook := bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch")
	providers := newFakeProviders(t)
	tool := MCPToolName("ccs-websearch", "WebSearch")
	api := NewFakeAPI(t,
		CallTool(tool, map[string]any{"query": "mcp good query"}),
		CallTool(tool, map[string]any{"query": "FAIL mcp query"}),
		Say("done"),
	)
	settings := new(Settings).
		AddHook("PreToolUse", tool, ExecHook(hook)).
		AddHook("PostToolUse", tool, ExecHook(hook)).
		AddHook("PostToolUseFailure", tool, ExecHook(hook))

	res := RunClaude(t, api, Options{
		Settings:     settings,
		MCPServers:   map[string]MCPServer{"ccs-websearch": {Command: bins.Build(t, "./testdata/stubmcp"), Args: ccsArgs}},
		AllowedTools: []string{tool},
		Env:          providers.env(nil),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	ok := api.ToolResult(t, 0)
	body := ok.Body()
	orig, comp := strings.Index(body, "CCS-OUTPUT-mcp good query"), strings.Index(body, "[webgate companion results]")
	if ok.IsError || orig < 0 || comp < orig || !strings.Contains(body, "HOOK-RESULT-ONE for mcp good query") {
		t.Errorf("first tool_result = is_error %v, body %q; want the server's output, then webgate's companion block", ok.IsError, body)
	}
	failed := api.ToolResult(t, 1)
	if !failed.IsError || !strings.Contains(failed.Body(), "CCS-ERROR-FAIL mcp query") {
		t.Errorf("second tool_result = is_error %v, body %q; want the server's error", failed.IsError, failed.Body())
	}
	want := "PostToolUseFailure:" + tool + " hook additional context: webgate fallback: the " + tool + " tool failed"
	if !failed.HasReminder(want) || !failed.HasReminder("HOOK-RESULT-ONE for FAIL mcp query") || !failed.HasReminder("Original error from "+tool+": CCS-ERROR-FAIL mcp query") {
		t.Errorf("second tool_result reminders = %q, want webgate's fallback results then the original error", failed.Reminders())
	}
	if p := providers.Paths(); len(p) != 2 {
		t.Errorf("provider requests = %q, want two searches (none on PreToolUse)", p)
	}
}

// TestHooks_FailedWebFetchGetsThePageConvertedByTheHook registers the
// web fetch hook as `webgate install --scope project` writes it and lets
// the native WebFetch run without skipWebFetchPreflight. Offline, its
// domain-safety preflight (CONNECT api.anthropic.com:443, refused by the
// harness proxy) fails with "Unable to verify if domain … is safe to
// fetch", which fires PostToolUseFailure: the hook reads the loopback page
// itself and, with no provider key at all, adds it converted from its HTML.
// The model receives the original error as the tool_result and the page in
// a system-reminder after it.
func TestHooks_FailedWebFetchGetsThePageConvertedByTheHook(t *testing.T) {
	ClaudeBinary(t)
	search := bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch")
	fetch := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webfetch")
	project := t.TempDir()
	plan, err := setup.PlanInstall(setup.Options{
		Target: setup.ClaudeCode, Scope: setup.Project, ProjectDir: project,
		WebSearchBin: search, WebFetchBin: fetch,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Apply(nil); err != nil {
		t.Fatal(err)
	}
	article, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "readable", "blog-article.html"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var agents []string
	page := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.UserAgent())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(article)
	}))
	t.Cleanup(page.Close)
	url := page.URL + "/blog"
	api := NewFakeAPI(t,
		CallTool("WebFetch", map[string]any{"url": url, "prompt": "What did the town decide?"}),
		Say("done"),
	)

	res := RunClaude(t, api, Options{
		Dir:          project,
		AllowedTools: []string{"WebFetch"},
		// No key and no browser: PreToolUse steps aside before probing.
		Env: map[string]string{"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE": "1", "WEBGATE_BROWSER": "off"},
	})

	assertExitZero(t, res)
	// The only attempt to leave the machine is the preflight, refused.
	if len(res.ProxyAttempts) == 0 {
		t.Error("no preflight attempt reached the proxy; the scenario did not run as intended")
	}
	for _, a := range res.ProxyAttempts {
		if !strings.HasPrefix(a, "CONNECT api.anthropic.com:443 ") {
			t.Errorf("the CLI tried to leave the machine: %q", a)
		}
	}
	got := api.ToolResult(t, 0)
	if !got.IsError || !strings.HasPrefix(got.Body(), "Unable to verify if domain 127.0.0.1 is safe to fetch.") {
		t.Fatalf("tool_result = is_error %v, body %q; want the preflight error", got.IsError, got.Body())
	}
	for _, want := range []string{
		"PostToolUseFailure:WebFetch hook additional context: webgate fallback: the native WebFetch tool failed, so webgate read the page itself (converted from the page's HTML).",
		// What the page says about itself is one header line the model reads.
		"Title: Measuring the ice on the mill river | Field Notes\nURL: " + url + "\nAbout: By Ruth Okafor · 18 February 2024 · 6 min read · language en\nRequest: What did the town decide?",
		"## What the town decided\n\nNot everyone welcomed the attention.",
		"Original error from WebFetch: Unable to verify if domain 127.0.0.1 is safe to fetch.",
	} {
		if !got.HasReminder(want) {
			t.Errorf("tool_result reminders lack %q:\n%q", want, got.Reminders())
		}
	}
	if n := len(api.RequestsOf(KindWebFetchApply)); n != 0 {
		t.Errorf("native WebFetch apply calls = %d, want 0 (the native fetch never ran)", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(agents) != 1 || !strings.HasPrefix(agents[0], "webgate/") {
		t.Errorf("page user agents = %q, want the hook's probe alone", agents)
	}
}
