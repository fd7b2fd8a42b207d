package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The binaries are built once, on first use, into binDir.
var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
	bins      = map[string]string{}
)

func TestMain(m *testing.M) {
	if code, ok := warmHelper(); ok {
		// This test binary, run again as a warm worker's caller or as a
		// listener on its socket.
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "webgate-hooks-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// binary returns the path of the built hook binary name ("websearch",
// "webfetch" or the worker "webgate-hook"), building all three into one
// directory on first use, as an install lays them out.
func binary(t testing.TB, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		for _, n := range []string{"websearch", "webfetch", "webgate-hook"} {
			out := filepath.Join(binDir, n)
			cmd := exec.Command(gobin, "build", "-o", out, "github.com/webgate-dev/webgate/cmd/"+n)
			// As 'make install' builds them: static binaries start faster.
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if msg, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", n, err, msg)
				return
			}
			bins[n] = out
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bins[name]
}

// Distinctive keys, so a leak is easy to spot.
const (
	tavilyKey = "tvly-PROCESSTEST-7f3a9c1d2e4b5a6978"
	exaKey    = "exa-PROCESSTEST-0c1d2e3f4a5b6c7d8e"
	wsapiKey  = "wsapi-PROCESSTEST-a1b2c3d4e5f60718"
)

var allKeys = []string{tavilyKey, exaKey, wsapiKey}

// providerFake is a loopback server speaking the Tavily, Exa and
// WebSearchAPI.ai wire formats under /tavily, /exa and /wsapi. Each
// provider answers according to its mode: "ok", "empty", "auth", "quota",
// "ratelimit", "500", "malformed" or "hang". Error bodies echo the
// request's key, as some providers do.
type providerFake struct {
	URL  string
	mu   sync.Mutex
	mode map[string]string
	hits map[string]int
	auth map[string]string
}

func newProviderFake(t *testing.T, modes map[string]string) *providerFake {
	t.Helper()
	f := &providerFake{mode: modes, hits: map[string]int{}, auth: map[string]string{}}
	s := loopbackServer(t, http.HandlerFunc(f.serve))
	f.URL = s.URL
	return f
}

func loopbackServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(h)
	_ = s.Listener.Close()
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (f *providerFake) Hits(p string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[p]
}

func (f *providerFake) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)
	if len(parts) != 2 {
		http.NotFound(w, r)
		return
	}
	p, op := parts[0], parts[1]
	key := r.Header.Get("x-api-key")
	if key == "" {
		key = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.hits[p]++
	f.auth[p] = key
	mode := f.mode[p]
	f.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	switch mode {
	case "auth":
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":"invalid api key %s"}`, key)
		return
	case "quota":
		status := map[string]int{"tavily": 432, "exa": 402, "wsapi": 402}[p]
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":"out of credits for %s","tag":"NO_MORE_CREDITS"}`, key)
		return
	case "ratelimit":
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprintf(w, `{"error":"slow down %s"}`, key)
		return
	case "500":
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error":"boom %s"}`, key)
		return
	case "malformed":
		_, _ = w.Write([]byte(`{"results": [`))
		return
	case "hang":
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
		return
	}
	target := requestURL(body)
	empty := mode == "empty"
	switch p + "/" + op {
	case "tavily/search":
		res := `[{"title":"Tavily: context package","url":"https://pkg.go.dev/context","content":"Package context defines the Context type.","score":0.9},{"title":"Tavily: Go blog","url":"https://go.dev/blog/context","content":"Each request is handled in its own goroutine.","score":0.8}]`
		if empty {
			res = "[]"
		}
		fmt.Fprintf(w, `{"query":"q","results":%s,"response_time":0.1,"request_id":"req-t"}`, res)
	case "tavily/extract":
		fmt.Fprintf(w, `{"results":[{"url":%q,"raw_content":"# Extracted by Tavily\n\nDeadlines are set with WithTimeout and WithDeadline.\n\nTAVILY-EXTRACT-MARKER"}],"failed_results":[],"response_time":0.02}`, target)
	case "exa/search":
		res := `[{"id":"https://exa.example/a","url":"https://exa.example/a","title":"Exa: contexts","text":"Exa says contexts carry deadlines.","score":0.5}]`
		if empty {
			res = "[]"
		}
		fmt.Fprintf(w, `{"requestId":"req-e","results":%s}`, res)
	case "exa/contents":
		fmt.Fprintf(w, `{"requestId":"req-e2","results":[{"id":%q,"url":%q,"title":"Exa page","text":"EXA-EXTRACT-MARKER deadlines"}],"statuses":[{"id":%q,"status":"success"}]}`, target, target, target)
	case "wsapi/ai-search":
		res := `[{"title":"WSAPI: Go","url":"https://go.dev/","description":"Go is an open source programming language.","position":1}]`
		if empty {
			res = "[]"
		}
		fmt.Fprintf(w, `{"searchParameters":{"query":"q"},"organic":%s}`, res)
	case "wsapi/scrape":
		fmt.Fprintf(w, `{"code":200,"status":20000,"data":{"title":"Scraped app","url":%q,"content":"# Scraped app\n\nThe app renders deadlines here.\n\nWSAPI-EXTRACT-MARKER"}}`, target)
	default:
		http.NotFound(w, r)
	}
}

// requestURL returns the page URL a provider request asks for.
func requestURL(body []byte) string {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	for _, k := range []string{"url", "urls", "ids"} {
		switch v := m[k].(type) {
		case string:
			return v
		case []any:
			if len(v) > 0 {
				s, _ := v[0].(string)
				return s
			}
		}
	}
	return ""
}

// env returns the environment of a hook process: an empty HOME (no
// configuration file), the fake's base URLs, and keys for the providers
// listed.
func (f *providerFake) env(t *testing.T, keysFor ...string) []string {
	home := t.TempDir()
	env := []string{
		"HOME=" + home,
		"PATH=/usr/bin:/bin",
		"TAVILY_BASE_URL=" + f.URL + "/tavily",
		"EXA_BASE_URL=" + f.URL + "/exa",
		"WEBSEARCHAPI_BASE_URL=" + f.URL + "/wsapi",
		// The local browser has tests of its own (webpage/browser).
		"WEBGATE_BROWSER=off",
		roomyStore,
	}
	for _, p := range keysFor {
		switch p {
		case "tavily":
			env = append(env, "TAVILY_API_KEY="+tavilyKey)
		case "exa":
			env = append(env, "EXA_API_KEY="+exaKey)
		case "wsapi":
			env = append(env, "WEBSEARCHAPI_API_KEY="+wsapiKey)
		}
	}
	return env
}

// pages serves the shared fixtures and a few special pages on loopback.
func pages(t *testing.T) string {
	t.Helper()
	s := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/forbidden":
			http.Error(w, "no bots", http.StatusForbidden)
			return
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"a":1}`))
			return
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
			return
		}
		b, err := os.ReadFile(filepath.Join("..", "fixtures", filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(b)
	}))
	return s.URL
}

// result is one hook process run.
type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

// runBinary runs a hook binary with stdin and env and checks the
// invariants every run must hold: exit code 0, stdout empty or exactly one
// JSON object (with hookSpecificOutput.hookEventName when there is a
// hookSpecificOutput), and no key in stdout or stderr.
func runBinary(t *testing.T, name string, stdin io.Reader, env []string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t, name))
	cmd.Env = coldEnv(env)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else {
			t.Fatalf("run %s: %v", name, err)
		}
	}
	if r.code != 0 {
		t.Errorf("exit code = %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	for _, k := range allKeys {
		if strings.Contains(r.stdout, k) || strings.Contains(r.stderr, k) {
			t.Errorf("a key appears in the output:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
		}
	}
	if r.stdout != "" {
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("stdout is not a JSON object: %v\n%s", err, r.stdout)
		}
		if dec.More() || strings.TrimSpace(r.stdout[dec.InputOffset():]) != "" {
			t.Errorf("stdout holds more than one JSON object:\n%s", r.stdout)
		}
		if h, ok := v["hookSpecificOutput"].(map[string]any); ok {
			if ev, _ := h["hookEventName"].(string); ev == "" {
				t.Errorf("hookSpecificOutput without hookEventName:\n%s", r.stdout)
			}
		}
	}
	return r
}

// payload returns the payload file name with {{URL}} replaced by url.
func payload(t *testing.T, name, url string) io.Reader {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(bytes.ReplaceAll(b, []byte("{{URL}}"), []byte(url)))
}

// output decodes a run's stdout.
type output struct {
	HookSpecificOutput *struct {
		HookEventName            string            `json:"hookEventName"`
		PermissionDecision       string            `json:"permissionDecision"`
		PermissionDecisionReason string            `json:"permissionDecisionReason"`
		AdditionalContext        string            `json:"additionalContext"`
		UpdatedMCPToolOutput     []json.RawMessage `json:"updatedMCPToolOutput"`
	} `json:"hookSpecificOutput"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
	SystemMessage            string `json:"systemMessage"`
}

func decode(t *testing.T, r result) output {
	t.Helper()
	var o output
	if err := json.Unmarshal([]byte(r.stdout), &o); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	return o
}

func wantDeny(t *testing.T, r result, event string, contains ...string) output {
	t.Helper()
	o := decode(t, r)
	if o.HookSpecificOutput == nil || o.HookSpecificOutput.HookEventName != event || o.HookSpecificOutput.PermissionDecision != "deny" {
		t.Fatalf("want a %s deny, got:\n%s\nstderr:\n%s", event, r.stdout, r.stderr)
	}
	for _, c := range contains {
		if !strings.Contains(o.HookSpecificOutput.PermissionDecisionReason, c) {
			t.Errorf("reason lacks %q:\n%s", c, o.HookSpecificOutput.PermissionDecisionReason)
		}
	}
	return o
}

func wantNothing(t *testing.T, r result) {
	t.Helper()
	if r.stdout != "" {
		t.Errorf("stdout = %s, want nothing", r.stdout)
	}
}

// wantStepAside checks a pass-through with a systemMessage (on by default)
// and the reason on stderr.
func wantStepAside(t *testing.T, r result, stderrHas ...string) {
	t.Helper()
	o := decode(t, r)
	if o.HookSpecificOutput != nil || o.PermissionDecision != "" || !strings.HasPrefix(o.SystemMessage, "webgate: ") {
		t.Errorf("want a systemMessage only, got %s", r.stdout)
	}
	for _, s := range stderrHas {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

func TestProcess_WebSearchDeniesWithProviderResults(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	r := runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), f.env(t, "tavily"))
	wantDeny(t, r, "PreToolUse", `query "go context cancellation"`, "Tavily: context package", "https://pkg.go.dev/context", "REMINDER")
	f.mu.Lock()
	seen := f.auth["tavily"]
	f.mu.Unlock()
	if seen != tavilyKey {
		t.Error("tavily did not receive the configured key")
	}
	if o := decode(t, r); o.SystemMessage != "webgate: WebSearch answered with 2 result(s) via parallel(tavily)" {
		t.Errorf("systemMessage = %q", o.SystemMessage)
	}
}

func TestProcess_WebSearchMergesProvidersAndNamesTheOneThatFailed(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok", "exa": "auth", "wsapi": "ok"})
	r := runBinary(t, "websearch", payload(t, "claude-websearch-pre-blocked-domains.json", ""), f.env(t, "tavily", "exa", "wsapi"))
	wantDeny(t, r, "PreToolUse", "Tavily: context package", "WSAPI: Go", "Providers that failed: exa (auth-failed).")
}

func TestProcess_WebSearchAnswersEachRuntimeShape(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	for _, p := range []string{"copilot-pascal-websearch-pre.json", "vscode-websearch-pre.json"} {
		t.Run(p, func(t *testing.T) {
			r := runBinary(t, "websearch", payload(t, p, ""), f.env(t, "tavily"))
			wantDeny(t, r, "PreToolUse", "Tavily: context package")
		})
	}
}

func TestProcess_WebSearchPassesThroughEveryProviderFault(t *testing.T) {
	tests := []struct {
		mode, class string
		env         []string
	}{
		{"auth", "tavily (auth-failed)", nil},
		{"quota", "tavily (credit-or-quota-failed)", nil},
		{"ratelimit", "tavily (rate-limited)", nil},
		{"500", "tavily (transient-provider-failed)", nil},
		{"malformed", "tavily (unknown)", nil},
		// A budget roomy enough that the policy's own timeout, not the
		// hook's last-resort bound, ends the hanging call on a busy machine.
		{"hang", "", []string{"WEBGATE_HOOKS_WEBSEARCH_BUDGET=3s"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			f := newProviderFake(t, map[string]string{"tavily": tt.mode})
			r := runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), append(f.env(t, "tavily"), tt.env...))
			want := []string{"passing through"}
			if tt.class != "" {
				want = append(want, "every search provider failed: "+tt.class)
			} else {
				want = append(want, "tavily (transient-provider-failed, timed out)")
			}
			wantStepAside(t, r, want...)
			if f.Hits("tavily") == 0 {
				t.Errorf("the provider was not asked")
			}
			if tt.mode == "hang" && r.elapsed > 7*time.Second {
				t.Errorf("the hook took %v with a 3s budget", r.elapsed)
			}
		})
	}
}

func TestProcess_WebSearchWithoutKeysStepsAside(t *testing.T) {
	f := newProviderFake(t, nil)
	r := runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), f.env(t))
	wantStepAside(t, r, "no search provider has an API key")
	r = runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), append(f.env(t), "WEBGATE_HOOKS_SYSTEM_MESSAGE=false"))
	wantNothing(t, r)
}

func TestProcess_WebSearchStepsAsideOnConfigurationProblems(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	for name, extra := range map[string][]string{
		"bad mode":         {"WEBGATE_SEARCH_MODE=sideways"},
		"missing file":     {"WEBGATE_CONFIG=/nonexistent/webgate.toml"},
		"missing key file": {"TAVILY_API_KEY=/nonexistent/keys.txt"},
	} {
		t.Run(name, func(t *testing.T) {
			r := runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), append(f.env(t, "tavily"), extra...))
			wantStepAside(t, r, "invalid configuration")
		})
	}
	if n := f.Hits("tavily"); n != 0 {
		t.Errorf("provider asked %d times despite invalid configuration", n)
	}
}

func TestProcess_WebSearchDebugModeTracesOnStderr(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok", "exa": "quota"})
	for _, flag := range []string{"WEBGATE_DEBUG=1", "CLAUDE_WEB_HOOKS_DEBUG=1"} {
		r := runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), append(f.env(t, "tavily", "exa"), flag))
		wantDeny(t, r, "PreToolUse", "[webgate debug: parallel(tavily,exa)", "failed: exa (credit-or-quota-failed)")
		for _, want := range []string{"configuration: defaults", "env TAVILY_API_KEY", "search providers with keys: tavily (1 key), exa (1 key)", "policy: parallel(tavily,exa) search in", "exa: quota"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", flag, want, r.stderr)
			}
		}
	}
}

func TestProcess_WebSearchNormalModeStaysQuiet(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	r := runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), f.env(t, "tavily"))
	if r.stderr != "" || strings.Contains(r.stdout, "debug") {
		t.Errorf("stderr %q, stdout %s", r.stderr, r.stdout)
	}
}

func TestProcess_WebSearchAddsCompanionResultsToTheMCPTool(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	for _, p := range []string{"claude-mcp-post.json", "claude-mcp-plugin-post.json"} {
		r := runBinary(t, "websearch", payload(t, p, ""), f.env(t, "tavily"))
		o := decode(t, r)
		h := o.HookSpecificOutput
		if h == nil || h.HookEventName != "PostToolUse" || len(h.UpdatedMCPToolOutput) != 2 {
			t.Fatalf("%s: stdout %s", p, r.stdout)
		}
		if !strings.Contains(string(h.UpdatedMCPToolOutput[0]), "MCP-ORIGINAL-OUTPUT-MARKER") || !strings.Contains(string(h.UpdatedMCPToolOutput[1]), "[webgate companion results]") {
			t.Errorf("%s: content %s", p, h.UpdatedMCPToolOutput)
		}
	}
	r := runBinary(t, "websearch", payload(t, "claude-mcp-postfailure.json", ""), f.env(t, "tavily"))
	o := decode(t, r)
	if h := o.HookSpecificOutput; h == nil || h.HookEventName != "PostToolUseFailure" || !strings.Contains(h.AdditionalContext, "Tavily: context package") ||
		!strings.Contains(h.AdditionalContext, "Original error from mcp__ccs-websearch__WebSearch: MCP error -32000: MCP-TOOL-ERROR-MARKER") {
		t.Errorf("failure: stdout %s", r.stdout)
	}
	r = runBinary(t, "websearch", payload(t, "claude-mcp-pre.json", ""), f.env(t, "tavily"))
	wantNothing(t, r)
}

func TestProcess_HooksIgnoreToolsAndEventsTheyDoNotHandle(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok", "wsapi": "ok"})
	base := pages(t)
	for _, bin := range []string{"websearch", "webfetch"} {
		for _, p := range []string{"claude-bash-pre.json", "claude-sessionstart.json", "claude-websearch-post.json", "copilot-bash-pre.json", "copilot-webfetch-post.json", "vscode-editfiles-pre.json", "vscode-posttooluse.json"} {
			r := runBinary(t, bin, payload(t, p, base+"/readable/blog-article.html"), f.env(t, "tavily", "wsapi"))
			wantNothing(t, r)
			if r.stderr != "" {
				t.Errorf("%s %s: stderr %q", bin, p, r.stderr)
			}
		}
	}
	r := runBinary(t, "websearch", payload(t, "claude-webfetch-pre.json", base+"/x"), f.env(t, "tavily"))
	wantNothing(t, r)
	r = runBinary(t, "webfetch", payload(t, "claude-websearch-pre.json", ""), f.env(t, "tavily"))
	wantNothing(t, r)
	if f.Hits("tavily")+f.Hits("wsapi") != 0 {
		t.Errorf("providers were asked")
	}
}

func TestProcess_BadStdinPassesThrough(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	for _, bin := range []string{"websearch", "webfetch"} {
		for _, p := range []string{"empty.json", "malformed.json", "not-an-object.json", "plain-text.txt", "null.json", "empty-object.json"} {
			r := runBinary(t, bin, payload(t, p, ""), f.env(t, "tavily"))
			wantNothing(t, r)
			if !strings.Contains(r.stderr, "webgate: ") || !strings.Contains(r.stderr, "passing through") {
				t.Errorf("%s %s: stderr %q", bin, p, r.stderr)
			}
		}
	}
}

func TestProcess_EnormousStdinIsRejected(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	big := `{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"` + strings.Repeat("x", 6<<20) + `"}}`
	r := runBinary(t, "websearch", strings.NewReader(big), f.env(t, "tavily"))
	wantNothing(t, r)
	if !strings.Contains(r.stderr, "hook input too large") {
		t.Errorf("stderr %q", r.stderr)
	}
	if f.Hits("tavily") != 0 {
		t.Errorf("provider asked")
	}
}

func fetchEnv(f *providerFake, t *testing.T, keysFor ...string) []string {
	return append(f.env(t, keysFor...), "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1")
}

func TestProcess_WebFetchLetsReadablePagesThrough(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "ok"})
	base := pages(t)
	for _, page := range []string{"readable/blog-article.html", "readable/docs-page.html", "readable/nextjs-ssr-article.html", "data.json"} {
		r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", base+"/"+page), fetchEnv(f, t, "wsapi"))
		wantNothing(t, r)
	}
	if f.Hits("wsapi") != 0 {
		t.Errorf("extraction asked for a readable page")
	}
}

func TestProcess_WebFetchExtractsAppShellsAndTemplatePages(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "ok", "tavily": "ok"})
	base := pages(t)
	for _, page := range []string{"browser-render-required/react-cra-empty-root.html", "browser-render-required/angular-app-root.html"} {
		r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", base+"/"+page), fetchEnv(f, t, "wsapi"))
		wantDeny(t, r, "PreToolUse", "Content of "+base+"/"+page, "via websearchapi", "Title: Scraped app", "WSAPI-EXTRACT-MARKER", "Request: What does the page say about deadlines?")
	}
	// A template-heavy page is read for its structure first (free), or by
	// the provider when it comes first.
	page := "template-heavy/shop-category.html"
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", base+"/"+page), fetchEnv(f, t, "wsapi"))
	wantDeny(t, r, "PreToolUse", "Content of "+base+"/"+page, "read by webgate (its structure, converted from the page's HTML)")
	r = runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", base+"/"+page), append(fetchEnv(f, t, "wsapi"), "WEBGATE_FETCH_ORDER=providers-first"))
	wantDeny(t, r, "PreToolUse", "via websearchapi", "WSAPI-EXTRACT-MARKER")
	// Tavily as the primary extractor.
	r = runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", base+"/browser-render-required/nuxt-empty-nuxt.html"), append(fetchEnv(f, t, "wsapi", "tavily"), "WEBGATE_EXTRACT_PRIMARY=tavily"))
	wantDeny(t, r, "PreToolUse", "TAVILY-EXTRACT-MARKER")
}

func TestProcess_WebFetchExtractsWhenTheProbeFails(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "ok"})
	base := pages(t)
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", base+"/forbidden"), fetchEnv(f, t, "wsapi"))
	wantDeny(t, r, "PreToolUse", "refused a direct read (HTTP 403)", "WSAPI-EXTRACT-MARKER")
	r = runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", base+"/slow"), append(fetchEnv(f, t, "wsapi"), "WEBGATE_HOOKS_WEBFETCH_PROBE_TIMEOUT=300ms"))
	wantDeny(t, r, "PreToolUse", "could not be read directly (timed out)")
	tlsPage := httptest.NewUnstartedServer(http.NotFoundHandler())
	tlsPage.Config.ErrorLog = log.New(io.Discard, "", 0)
	tlsPage.StartTLS()
	defer tlsPage.Close()
	r = runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", tlsPage.URL+"/page"), fetchEnv(f, t, "wsapi"))
	wantDeny(t, r, "PreToolUse", "could not be read directly (TLS error)")
}

func TestProcess_WebFetchRefusesPrivateAddressesByDefault(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "ok"})
	base := pages(t)
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", base+"/browser-render-required/react-cra-empty-root.html"), f.env(t, "wsapi"))
	// The user hears of the refusal and of the setting that lifts it, not
	// only stderr.
	wantStepAside(t, r, "loopback address", "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1")
	if o := decode(t, r); !strings.Contains(o.SystemMessage, "loopback address; set hooks.webfetch.allow_private = true (WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1) to read it; the native WebFetch tool runs instead") {
		t.Errorf("systemMessage %q does not say how to allow the address", o.SystemMessage)
	}
	if !strings.Contains(r.stderr, "loopback address") || f.Hits("wsapi") != 0 {
		t.Errorf("stderr %q, extraction hits %d", r.stderr, f.Hits("wsapi"))
	}
	// No setting lifts these: nothing to tell.
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "file:///etc/passwd", "http://[fd00:ec2::254]/", "http://metadata.google.internal/"} {
		r = runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", u), fetchEnv(f, t, "wsapi"))
		wantNothing(t, r)
	}
	if f.Hits("wsapi") != 0 {
		t.Errorf("extraction asked for a refused address")
	}
}

func TestProcess_WebFetchStepsAsideWithoutKeysOrWhenExtractionFails(t *testing.T) {
	base := pages(t)
	page := base + "/browser-render-required/vite-react-empty-root.html"
	f := newProviderFake(t, map[string]string{"wsapi": "auth", "tavily": "quota"})
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", page), fetchEnv(f, t))
	wantNothing(t, r)
	if !strings.Contains(r.stderr, "no extraction provider has an API key") {
		t.Errorf("stderr %q", r.stderr)
	}
	r = runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", page), fetchEnv(f, t, "wsapi", "tavily"))
	wantStepAside(t, r, "extraction failed:", "websearchapi (auth-failed)", "tavily (credit-or-quota-failed)")
	hang := newProviderFake(t, map[string]string{"wsapi": "hang"})
	r = runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", page), append(fetchEnv(hang, t, "wsapi"), "WEBGATE_HOOKS_WEBFETCH_BUDGET=800ms"))
	wantStepAside(t, r, "passing through")
	if r.elapsed > 5*time.Second {
		t.Errorf("the hook took %v with an 800ms budget", r.elapsed)
	}
}

func TestProcess_WebFetchAnswersCopilotAndVSCode(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "ok"})
	base := pages(t)
	page := base + "/browser-render-required/loader-enable-javascript.html"
	r := runBinary(t, "webfetch", payload(t, "copilot-webfetch-pre.json", page), fetchEnv(f, t, "wsapi"))
	o := decode(t, r)
	if o.PermissionDecision != "deny" || !strings.Contains(o.PermissionDecisionReason, "WSAPI-EXTRACT-MARKER") || o.HookSpecificOutput != nil || o.SystemMessage != "" {
		t.Errorf("copilot: stdout %s", r.stdout)
	}
	r = runBinary(t, "webfetch", payload(t, "vscode-webfetch-pre.json", page), fetchEnv(f, t, "wsapi"))
	wantDeny(t, r, "PreToolUse", "WSAPI-EXTRACT-MARKER")
}

// coldEnv is env with the warm worker off (WEBGATE_HOOKS_WORKER=off)
// unless env says otherwise: each run is then one process that leaves
// nothing running, and the tests of the warm worker start it on purpose.
func coldEnv(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "WEBGATE_HOOKS_WORKER=") {
			return env
		}
	}
	return append(slices.Clip(env), "WEBGATE_HOOKS_WORKER=off")
}

// A relative WEBGATE_STATE_DIR is ignored (the hook keeps the default
// state directory), as a relative XDG_CONFIG_HOME is: the hook, run from
// an agent's project, creates nothing there.
func TestProcess_RelativeStateDirCreatesNothingInTheWorkingDirectory(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	wd := t.TempDir()
	env := coldEnv(append(f.env(t, "tavily"), "WEBGATE_STATE_DIR=relative/dir"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t, "websearch"))
	cmd.Env, cmd.Dir, cmd.Stdin = env, wd, payload(t, "claude-websearch-pre.json", "")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if entries, _ := os.ReadDir(wd); len(entries) != 0 {
		t.Errorf("the hook created %v in its working directory", entries)
	}
	if !strings.Contains(out.String(), "Tavily: context package") {
		t.Errorf("no answer: %s\n%s", out.String(), errb.String())
	}
	home := strings.TrimPrefix(env[0], "HOME=")
	if _, err := os.Stat(filepath.Join(home, ".local", "state", "webgate")); err != nil {
		t.Errorf("the default state directory was not used: %v", err)
	}
}

// A hook that forwards to a team gateway (WEBGATE_GATEWAY_URL) prints
// only a hook decision: a gateway answering 200 with a captive portal's
// page gets nothing printed and the reason on stderr; a decision's text
// gets the rule a local one's gets. It waits for the gateway within the
// configured budget (hooks.websearch.budget).
func TestProcess_ForwardingHookPrintsOnlyASanitisedDecisionWithinItsBudget(t *testing.T) {
	var mode atomic.Value
	gw := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		switch mode.Load() {
		case "portal":
			_, _ = io.WriteString(w, "<html><body>captive portal</body></html>")
		case "hostile":
			_, _ = io.WriteString(w, `{"systemMessage":"\u001b]0;pwned\u0007\u001b[2J\u202eX","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r \u009b31m"}}`)
		case "slow":
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
		}
	}))
	env := []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "WEBGATE_GATEWAY_URL=" + gw.URL, "WEBGATE_GATEWAY_TOKEN=wg_proc0123456789", "WEBGATE_HOOKS_WEBSEARCH_BUDGET=2s"}
	mode.Store("portal")
	r := runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), env)
	if r.stdout != "" || !strings.Contains(r.stderr, "not a hook decision") || !strings.Contains(r.stderr, "passing through") {
		t.Errorf("portal: stdout %q stderr %q", r.stdout, r.stderr)
	}
	mode.Store("hostile")
	r = runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), env)
	for _, bad := range []string{`\u001b`, `\u0007`, "\u202e", "\u009b", `\u202e`, `\u009b`} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("hostile: stdout holds %q: %s", bad, r.stdout)
		}
	}
	if o := wantDeny(t, r, "PreToolUse"); o.SystemMessage == "" {
		t.Errorf("hostile: the decision was lost: %s", r.stdout)
	}
	mode.Store("slow")
	r = runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), env)
	if r.stdout != "" || !strings.Contains(r.stderr, "budget (2s)") {
		t.Errorf("slow: stdout %q stderr %q, want the configured 2s budget", r.stdout, r.stderr)
	}
}
