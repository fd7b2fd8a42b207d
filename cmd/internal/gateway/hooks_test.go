package gateway

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/internal/fakeweb"
)

var (
	hookBinOnce sync.Once
	hookBin     string
	hookBinErr  error
)

// hookWorker builds the hook worker cmd/webgate-hook once, the process a
// local hook runs.
func hookWorker(t *testing.T) string {
	t.Helper()
	hookBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "webgate-gateway-hook-")
		if err != nil {
			hookBinErr = err
			return
		}
		hookBin = filepath.Join(dir, "webgate-hook")
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", hookBin, "github.com/webgate-dev/webgate/cmd/webgate-hook")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			hookBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if hookBinErr != nil {
		t.Fatal(hookBinErr)
	}
	return hookBin
}

// tavilyFake answers Tavily's search and extract on 127.0.0.1, counting
// the calls.
func tavilyFake(t testing.TB) (string, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/search":
			fmt.Fprint(w, `{"query":"q","results":[{"title":"Tavily: context package","url":"https://pkg.go.dev/context","content":"Package context defines the Context type.","score":0.9}],"response_time":0.1}`)
		case "/extract":
			fmt.Fprint(w, `{"results":[{"url":"https://docs.example/doc/","raw_content":"# Documentation\n\nDeadlines are set with WithTimeout.\n\nTAVILY-EXTRACT-MARKER"}],"failed_results":[]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	s.Listener.Close()
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return s.URL, &calls
}

// hookEnvFor is the environment of a hook with its own empty HOME and
// state, Tavily at the fake.
func hookEnvFor(t testing.TB, tavily string) []string {
	home := t.TempDir()
	return []string{"HOME=" + home, "PATH=/usr/bin:/bin", "WEBGATE_STATE_DIR=" + filepath.Join(home, "state"),
		"TAVILY_API_KEY=tvly-GATEWAYHOOKTEST-0123456789", "TAVILY_BASE_URL=" + tavily, "WEBGATE_BROWSER=off", "WEBGATE_STORE_TIMEOUT=2s"}
}

// runLocalHook runs the hook worker as a local hook runs it: the payload
// on stdin, the decision on stdout.
func runLocalHook(t *testing.T, hook string, payload []byte, env []string) (string, string) {
	t.Helper()
	// Built first: on a fresh machine the build alone can take most of a
	// minute, and only the hook's run is bounded here.
	bin := hookWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, hook)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("local hook: %v\n%s", err, errb.String())
	}
	return out.String(), errb.String()
}

// The same payload, through the local hook process and through the
// gateway's hook endpoint, gets the same decision JSON, for each runtime's
// payload the hooks read; the gateway's call is admitted, charged and
// recorded like /v1/search, and needs a token.
func TestServer_HookEndpointsAnswerAsTheLocalHook(t *testing.T) {
	tavily, calls := tavilyFake(t)
	payloads := []struct{ name, hook, payload string }{
		{"claude websearch", "websearch", `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"golang context deadlines"},"tool_use_id":"t1"}`},
		{"claude webfetch", "webfetch", `{"session_id":"s2","hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://docs.example/doc/","prompt":"deadlines"},"tool_use_id":"t2"}`},
		{"copilot webfetch", "webfetch", `{"sessionId":"s3","timestamp":1,"cwd":"/tmp","toolName":"web_fetch","toolArgs":"{\"url\":\"https://docs.example/doc/\"}"}`},
		{"claude other tool", "webfetch", `{"session_id":"s4","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/hosts"}}`},
	}
	st := openStore(t, "memory:")
	audit := &Audit{Store: st}
	warm := hookenv.NewWarm()
	t.Cleanup(warm.Close)
	f := newFixture(t, st, Options{Hooks: warm, HookEnv: hookEnvFor(t, tavily), Limiter: &Limiter{Store: st}, Audit: audit})
	answered := 0
	for _, p := range payloads {
		local, stderr := runLocalHook(t, p.hook, []byte(p.payload), hookEnvFor(t, tavily))
		resp, remote := post(t, f.url+"/v1/hooks/"+p.hook, f.secret, p.payload)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d %s", p.name, resp.StatusCode, remote)
		}
		if remote != local {
			t.Errorf("%s: the gateway answered\n%s\nthe local hook\n%s\n(stderr %s)", p.name, remote, local, stderr)
		}
		if p.name != "claude other tool" {
			if !strings.Contains(local, "Tavily") && !strings.Contains(local, "TAVILY-EXTRACT-MARKER") {
				t.Errorf("%s: the local hook did not answer from the provider: %s %s", p.name, local, stderr)
			}
			answered++
		} else if local != "" {
			t.Errorf("%s: answered %s", p.name, local)
		}
		if strings.Contains(remote, "GATEWAYHOOKTEST") {
			t.Errorf("%s: the key is in the answer", p.name)
		}
	}
	if calls.Load() == 0 {
		t.Fatal("the provider was never called")
	}
	f.flush(t)
	entries, err := audit.Entries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != answered {
		t.Fatalf("%d audit entries, want %d: %+v", len(entries), answered, entries)
	}
	if e := entries[0]; e.Tool != "hook:websearch" || e.Decision != "answered" || e.TokenID != f.tok.ID || e.Credits != DefaultReserveCredits {
		t.Errorf("first audit entry %+v", e)
	}
	if resp, _ := post(t, f.url+"/v1/hooks/websearch", "", payloads[0].payload); resp.StatusCode != 401 {
		t.Errorf("without a token: %d", resp.StatusCode)
	}
	if resp, _ := post(t, f.url+"/v1/hooks/other", f.secret, payloads[0].payload); resp.StatusCode != 404 {
		t.Errorf("an unknown hook: %d", resp.StatusCode)
	}
}

// A hook call past a limit is refused with 429 before the hook runs; an
// event the hook ignores costs nothing.
func TestServer_HookEndpointLimits(t *testing.T) {
	tavily, calls := tavilyFake(t)
	st := openStore(t, "memory:")
	warm := hookenv.NewWarm()
	t.Cleanup(warm.Close)
	f := newFixture(t, st, Options{Hooks: warm, HookEnv: hookEnvFor(t, tavily), Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 1}}})
	ignored := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{}}`
	for range 3 {
		if resp, body := post(t, f.url+"/v1/hooks/websearch", f.secret, ignored); resp.StatusCode != 200 || body != "" {
			t.Fatalf("an ignored event: %d %q", resp.StatusCode, body)
		}
	}
	search := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"one"}}`
	if resp, body := post(t, f.url+"/v1/hooks/websearch", f.secret, search); resp.StatusCode != 200 || body == "" {
		t.Fatalf("first search: %d %q", resp.StatusCode, body)
	}
	n := calls.Load()
	search2 := strings.Replace(search, "one", "two", 1)
	resp, body := post(t, f.url+"/v1/hooks/websearch", f.secret, search2)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("second search of a budget of 1: %d %q", resp.StatusCode, body)
	}
	if calls.Load() != n {
		t.Fatal("a refused hook call reached the provider")
	}
}

// The hook endpoints read no private address, whatever the gateway's
// configuration allows the hooks: a loopback URL is the gateway's own
// loopback, not the caller's.
func TestServer_HookEndpointIsStrict(t *testing.T) {
	var hits atomic.Int64
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>Internal</title></head><body><article><h1>Internal</h1><p>The runbook.</p></article></body></html>")
	}))
	t.Cleanup(page.Close)
	st := openStore(t, "memory:")
	warm := hookenv.NewWarm()
	t.Cleanup(warm.Close)
	env := append(hookEnvFor(t, "http://127.0.0.1:1"), "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=true")
	audit := &Audit{Store: st}
	f := newFixture(t, st, Options{Hooks: warm, HookEnv: env, Audit: audit})
	payload := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"` + page.URL + `/","prompt":"x"}}`
	if _, stderr := runLocalHook(t, "webfetch", []byte(payload), env); hits.Load() == 0 {
		t.Fatalf("the local hook, allowed private addresses, did not probe the page: %s", stderr)
	}
	hits.Store(0)
	resp, body := post(t, f.url+"/v1/hooks/webfetch", f.secret, payload)
	if resp.StatusCode != 200 || hits.Load() != 0 || !strings.Contains(body, "not probing") && !strings.Contains(body, "ALLOW_PRIVATE") {
		t.Fatalf("the gateway's hook probed a loopback page (%d hits): %d %s", hits.Load(), resp.StatusCode, body)
	}
	// Stepping aside with a message for the user is no answer: no credit.
	f.flush(t)
	if entries, _ := audit.Entries(context.Background()); len(entries) != 1 || entries[0].Decision != "passed" || entries[0].Credits != 0 {
		t.Fatalf("audit %+v", entries)
	}
}

// The hook endpoints read no Claude Code settings file at the paths a
// caller's payload names: those are the caller's paths, and the answer
// would tell the caller about the gateway's files.
func TestServer_HookEndpointReadsNoFileTheCallerNames(t *testing.T) {
	tavily, _ := tavilyFake(t)
	project := t.TempDir()
	settings := filepath.Join(project, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"permissions":{"deny":["WebSearch"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(hookEnvFor(t, tavily), "WEBGATE_HOOKS_ANSWER=replace")
	payload := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"golang context"},"tool_use_id":"t","cwd":"` + project + `"}`
	// Run where the file is, the hook reads the deny rule and denies
	// instead of letting the native tool run and replacing its output.
	if local, stderr := runLocalHook(t, "websearch", []byte(payload), env); !strings.Contains(stderr, settings) || !strings.Contains(local, `"permissionDecision":"deny"`) {
		t.Fatalf("the local hook did not read the project's settings: %s %s", local, stderr)
	}
	st := openStore(t, "memory:")
	warm := hookenv.NewWarm()
	t.Cleanup(warm.Close)
	f := newFixture(t, st, Options{Hooks: warm, HookEnv: env})
	if resp, body := post(t, f.url+"/v1/hooks/websearch", f.secret, payload); resp.StatusCode != 200 || body == "" || strings.Contains(body, settings) || strings.Contains(body, `"permissionDecision":"deny"`) {
		t.Fatalf("the gateway's hook: %d %s", resp.StatusCode, body)
	}
}

// A hook payload as large as a local hook reads (a PostToolUse carrying a
// long page) is taken, past the JSON API's body cap.
func TestServer_HookEndpointTakesPayloadsAsLargeAsTheLocalHook(t *testing.T) {
	st := openStore(t, "memory:")
	warm := hookenv.NewWarm()
	t.Cleanup(warm.Close)
	f := newFixture(t, st, Options{Hooks: warm, HookEnv: hookEnvFor(t, "http://127.0.0.1:1")})
	big := strings.Repeat("x", 2<<20)
	payload := `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"WebFetch","tool_input":{"url":"https://docs.example/"},"tool_response":{"result":"` + big + `"}}`
	if resp, body := post(t, f.url+"/v1/hooks/webfetch", f.secret, payload); resp.StatusCode != 200 {
		t.Fatalf("a 2 MiB payload: %d %.200s", resp.StatusCode, body)
	}
	if resp, _ := post(t, f.url+"/v1/search", f.secret, `{"query":"`+big+`"}`); resp.StatusCode != 413 {
		t.Fatalf("a 2 MiB search: %d", resp.StatusCode)
	}
}

// A local hook with WEBGATE_GATEWAY_URL forwards the payload to the
// gateway and prints its answer: for Gemini CLI, which has no HTTP hooks,
// the same answer as the local hook with the keys, without a key here.
// A gateway that is down or refuses the token lets the agent's own tool
// run, and the hook says why, without the token.
func TestServer_LocalHookForwardsToTheGateway(t *testing.T) {
	tavily, calls := tavilyFake(t)
	st := openStore(t, "memory:")
	warm := hookenv.NewWarm()
	t.Cleanup(warm.Close)
	f := newFixture(t, st, Options{Hooks: warm, HookEnv: hookEnvFor(t, tavily)})
	raw, err := os.ReadFile(filepath.Join("..", "..", "e2e", "testdata", "gemini", "beforetool-google_web_search.json"))
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	payload := []byte(strings.NewReplacer("<HOME>", project, "<PROJECT>", project).Replace(string(raw)))
	local, _ := runLocalHook(t, "websearch", payload, hookEnvFor(t, tavily))
	if !strings.Contains(local, "Tavily: context package") {
		t.Fatalf("the local hook: %s", local)
	}
	home := t.TempDir()
	remoteEnv := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "WEBGATE_STATE_DIR=" + filepath.Join(home, "state"),
		"WEBGATE_GATEWAY_URL=" + f.url, "WEBGATE_GATEWAY_TOKEN=" + f.secret}
	n := calls.Load()
	forwarded, stderr := runLocalHook(t, "websearch", payload, remoteEnv)
	if forwarded != local || calls.Load() == n {
		t.Errorf("forwarded through the gateway:\n%s\n(stderr %s)\nlocally:\n%s", forwarded, stderr, local)
	}
	down := "http://" + fakeweb.RefusedAddr(t)
	for name, env := range map[string][]string{
		"down":        {"HOME=" + home, "WEBGATE_GATEWAY_URL=" + down, "WEBGATE_GATEWAY_TOKEN=" + f.secret},
		"wrong token": {"HOME=" + home, "WEBGATE_GATEWAY_URL=" + f.url, "WEBGATE_GATEWAY_TOKEN=wg_WRONGTOKEN123"},
	} {
		start := time.Now()
		out, stderr := runLocalHook(t, "websearch", payload, env)
		if out != "" || !strings.Contains(stderr, "passing through") || strings.Contains(stderr, "wg_") || time.Since(start) > 20*time.Second {
			t.Errorf("%s: stdout %q stderr %q after %v", name, out, stderr, time.Since(start))
		}
	}
}
