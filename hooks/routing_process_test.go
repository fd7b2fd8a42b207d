package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The routing scenarios run the built hooks as the agents do, with the
// older hooks' files (testdata/routing) named in the environment.

// routingEnv returns a hook environment with the docs and tool routes of
// testdata/routing, the state in its own directory, and keys for the
// providers listed. It returns the state directory too.
func routingEnv(t *testing.T, f *providerFake, keysFor ...string) ([]string, string) {
	t.Helper()
	docs, _ := filepath.Abs(filepath.Join("testdata", "routing", "docsearch-config.json"))
	routes, _ := filepath.Abs(filepath.Join("testdata", "routing", "tool-routes.json"))
	state := filepath.Join(t.TempDir(), "state")
	return append(f.env(t, keysFor...),
		"WEBGATE_DOCS_CONFIG="+docs,
		"WEBGATE_TOOL_ROUTES="+routes,
		"WEBGATE_STATE_DIR="+state,
	), state
}

// fileState turns the store off, so that the docs routes keep their state
// in files, for the tests that look at those files.
const fileState = "WEBGATE_STORE=off"

// routingPayload returns a payload file with {{SESSION}} and {{QUERY}}
// replaced; the query is JSON-escaped.
func routingPayload(t *testing.T, name, session, query string) io.Reader {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(query)
	b = bytes.ReplaceAll(b, []byte("{{SESSION}}"), []byte(session))
	b = bytes.ReplaceAll(b, []byte("{{QUERY}}"), q[1:len(q)-1])
	return bytes.NewReader(b)
}

// wantDocsDeny checks a docs-route deny naming the databases at paths.
func wantDocsDeny(t *testing.T, r result, paths ...string) output {
	t.Helper()
	o := wantDeny(t, r, "PreToolUse", "Search the", "If their results are not enough, repeat this exact WebSearch and it will run.")
	ctx := o.HookSpecificOutput.AdditionalContext
	for _, p := range paths {
		if !strings.Contains(ctx, `with path "`+p+`"`) {
			t.Errorf("additionalContext lacks %s:\n%s", p, ctx)
		}
	}
	if !strings.Contains(ctx, "repeat the exact same WebSearch call") {
		t.Errorf("additionalContext = %q", ctx)
	}
	return o
}

func TestProcess_DocsRouteDeniesWithoutKeysAndItsRetryReachesTheNativeTool(t *testing.T) {
	f := newProviderFake(t, nil)
	env, state := routingEnv(t, f)
	env = append(env, fileState) // the state's file is checked
	r := runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-a", "kubectl rollout status"), env)
	o := wantDocsDeny(t, r, "/srv/docs/kubernetes")
	if !strings.Contains(o.HookSpecificOutput.PermissionDecisionReason, `call the MCP tool mcp__docsearch__search for "/srv/docs/kubernetes"`) {
		t.Errorf("reason = %q", o.HookSpecificOutput.PermissionDecisionReason)
	}
	if o.SystemMessage != "webgate: WebSearch sent to 1 local documentation index(es)" {
		t.Errorf("systemMessage = %q", o.SystemMessage)
	}
	// The database without keywords is dropped with a warning.
	if !strings.Contains(r.stderr, "webgate: routing: warning: docs database #4 (/srv/docs/empty) dropped") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(state, "docs-route-sess-a.json")); err != nil {
		t.Errorf("state not recorded: %v", err)
	}
	// The same call with the domains re-ordered, re-cased and repeated is
	// identical: without keys it steps aside to the native tool.
	r = runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs-reordered.json", "sess-a", "kubectl rollout status"), env)
	wantStepAside(t, r, "no search provider has an API key")
	// The memory is cleared: the next identical call is routed again.
	r = runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-a", "kubectl rollout status"), env)
	wantDocsDeny(t, r, "/srv/docs/kubernetes")
}

func TestProcess_DocsRouteRetryIsAnsweredByTheProviders(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	env, _ := routingEnv(t, f, "tavily")
	r := runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-b", "Kubernetes HELM values"), env)
	wantDocsDeny(t, r, "/srv/docs/kubernetes", "/srv/docs/helm")
	if o := decode(t, r); !strings.Contains(o.HookSpecificOutput.AdditionalContext, "Call these tools in parallel") {
		t.Errorf("multi-match context = %q", o.HookSpecificOutput.AdditionalContext)
	}
	if f.Hits("tavily") != 0 {
		t.Fatalf("a provider was asked before the docs route")
	}
	// Other domains: a different call, routed again.
	r = runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs-other-domains.json", "sess-b", "Kubernetes HELM values"), env)
	wantDocsDeny(t, r)
	r = runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-b", "Kubernetes HELM values"), env)
	o := wantDeny(t, r, "PreToolUse", `Web search results for query "Kubernetes HELM values", from provider-backed search via webgate`)
	if o.HookSpecificOutput.AdditionalContext != "" || f.Hits("tavily") != 1 {
		t.Errorf("retry: context %q, tavily hits %d", o.HookSpecificOutput.AdditionalContext, f.Hits("tavily"))
	}
}

func TestProcess_DocsRoutesMatchSpecialKeywordsOnly(t *testing.T) {
	f := newProviderFake(t, nil)
	env, _ := routingEnv(t, f)
	env = append(env, "WEBGATE_HOOKS_SYSTEM_MESSAGE=false")
	for i, tc := range []struct {
		query  string
		routed bool
	}{
		{"c++ coroutines", true}, {"ASP .NET minimal API", true}, {"c# pattern matching", true}, {"GitLab-CI cache keys", true},
		{"kubectl", true}, {"kubectlx plugin", false}, {"c+++ compiler", false}, {"gitlab runners", false}, {"abc# and asp.network", false},
	} {
		r := runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", fmt.Sprintf("kw-%d", i), tc.query), env)
		if tc.routed {
			wantDocsDeny(t, r)
		} else {
			wantNothing(t, r)
		}
	}
}

func TestProcess_DocsRoutesKeepSessionsApart(t *testing.T) {
	f := newProviderFake(t, nil)
	env, _ := routingEnv(t, f)
	env = append(env, "WEBGATE_HOOKS_SYSTEM_MESSAGE=false")
	run := func(payload, session string) bool {
		r := runBinary(t, "websearch", routingPayload(t, payload, session, "helm install"), env)
		return r.stdout != ""
	}
	steps := []struct {
		payload, session string
		routed           bool
	}{
		{"routing-websearch-docs.json", "one", true},
		{"routing-vscode-websearch-docs.json", "two", true},
		{"routing-websearch-docs.json", "two", true}, // other domains than two's first call
		{"routing-websearch-docs.json", "one", false},
		{"routing-vscode-websearch-docs.json", "two", false},
		{"routing-websearch-docs.json", "two", false},
		{"routing-websearch-docs.json", "one", true},
	}
	for i, s := range steps {
		if got := run(s.payload, s.session); got != s.routed {
			t.Errorf("step %d (%s %s): routed = %v, want %v", i, s.payload, s.session, got, s.routed)
		}
	}
}

func TestProcess_DocsRouteStateStaysSafe(t *testing.T) {
	f := newProviderFake(t, nil)
	t.Run("path traversal session id", func(t *testing.T) {
		env, state := routingEnv(t, f)
		before, _ := os.ReadDir(filepath.Dir(state))
		wantDocsDeny(t, runBinary(t, "websearch", payload(t, "routing-websearch-traversal.json", ""), env))
		wantStepAside(t, runBinary(t, "websearch", payload(t, "routing-websearch-traversal.json", ""), env))
		entries, _ := os.ReadDir(state)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "webgate.db") || e.Name() == "fingerprint-salt" {
				continue // the store
			}
			if !strings.HasPrefix(e.Name(), "docs-route-") || strings.Contains(e.Name(), "..") {
				t.Errorf("state entry %q", e.Name())
			}
		}
		if after, _ := os.ReadDir(filepath.Dir(state)); len(after) != len(before)+1 {
			t.Errorf("entries next to the state directory: %d before, %d after", len(before), len(after))
		}
		if _, err := os.Stat("/tmp/webgate-escape"); err == nil {
			t.Errorf("a path outside the state directory was created")
		}
	})
	t.Run("missing session id", func(t *testing.T) {
		env, state := routingEnv(t, f)
		env = append(env, fileState)
		wantDocsDeny(t, runBinary(t, "websearch", payload(t, "routing-websearch-nosession.json", ""), env))
		if _, err := os.Stat(filepath.Join(state, "docs-route-no-session.json")); err != nil {
			t.Errorf("fallback session not used: %v", err)
		}
		wantStepAside(t, runBinary(t, "websearch", payload(t, "routing-websearch-nosession.json", ""), env))
	})
	t.Run("corrupt state file", func(t *testing.T) {
		env, state := routingEnv(t, f)
		env = append(env, fileState)
		if err := os.MkdirAll(state, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(state, "docs-route-sess-c.json"), []byte(`{"denied":[{"query":`), 0o600); err != nil {
			t.Fatal(err)
		}
		wantDocsDeny(t, runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-c", "kubectl"), env))
		wantStepAside(t, runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-c", "kubectl"), env))
	})
	t.Run("unwritable state directory", func(t *testing.T) {
		env, _ := routingEnv(t, f)
		blocker := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(blocker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		env = append(env, "WEBGATE_STATE_DIR="+filepath.Join(blocker, "state"))
		r := runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-d", "kubectl"), env)
		wantStepAside(t, r, "routing: warning: docs route matched /srv/docs/kubernetes but its denial could not be recorded", "no search provider has an API key")
	})
	t.Run("default state directory", func(t *testing.T) {
		env, _ := routingEnv(t, f)
		env = slices.DeleteFunc(env, func(v string) bool { return strings.HasPrefix(v, "WEBGATE_STATE_DIR=") })
		env = append(env, fileState)
		home := strings.TrimPrefix(env[0], "HOME=")
		wantDocsDeny(t, runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-e", "kubectl"), env))
		if _, err := os.Stat(filepath.Join(home, ".local", "state", "webgate", "docs-route-sess-e.json")); err != nil {
			t.Errorf("state not in the XDG default: %v", err)
		}
	})
}

func TestProcess_ToolRoutesDenyWebFetchAndBashWithoutKeys(t *testing.T) {
	f := newProviderFake(t, nil)
	env, _ := routingEnv(t, f)
	gh := "Use `gh issue view <number> --repo <owner>/<repo>` (or `gh pr view`) instead of fetching GitHub pages."
	curl := "Search the local documentation with the docs MCP tool instead of curling documentation sites."
	r := runBinary(t, "webfetch", payload(t, "routing-webfetch-github.json", ""), env)
	if o := wantDeny(t, r, "PreToolUse"); o.HookSpecificOutput.PermissionDecisionReason != gh || o.SystemMessage != "webgate: WebFetch sent elsewhere by tool route github-issues" {
		t.Errorf("WebFetch: %s", r.stdout)
	}
	if !strings.Contains(r.stderr, "webgate: routing: warning: tool route lookbehind skipped: pattern does not compile") {
		t.Errorf("stderr lacks the invalid pattern's warning: %q", r.stderr)
	}
	r = runBinary(t, "webfetch", payload(t, "routing-bash-curl-docs.json", ""), env)
	if o := wantDeny(t, r, "PreToolUse"); o.HookSpecificOutput.PermissionDecisionReason != curl {
		t.Errorf("Bash: %s", r.stdout)
	}
	r = runBinary(t, "webfetch", payload(t, "routing-copilot-bash-curl-docs.json", ""), env)
	if o := decode(t, r); o.PermissionDecision != "deny" || o.PermissionDecisionReason != curl || o.HookSpecificOutput != nil {
		t.Errorf("Copilot bash: %s", r.stdout)
	}
	for _, p := range []string{"claude-bash-pre.json", "copilot-bash-pre.json"} {
		r = runBinary(t, "webfetch", payload(t, p, ""), env)
		wantNothing(t, r)
	}
	// The web search hook never acts on Bash or WebFetch.
	r = runBinary(t, "websearch", payload(t, "routing-bash-curl-docs.json", ""), env)
	wantNothing(t, r)
}

func TestProcess_ToolRoutesShowTheMatchInDebugModeOnly(t *testing.T) {
	f := newProviderFake(t, nil)
	env, _ := routingEnv(t, f)
	r := runBinary(t, "webfetch", payload(t, "routing-bash-curl-docs.json", ""), append(env, "WEBGATE_DEBUG=1"))
	want := "Search the local documentation with the docs MCP tool instead of curling documentation sites.\n\n[webgate debug] route=curl-docs tool=Bash matched=\"curl -sL https://docs.python.org/3/library/asyncio.html\" pattern=\\bcurl\\b.*\\bdocs\\."
	if o := wantDeny(t, r, "PreToolUse"); o.HookSpecificOutput.PermissionDecisionReason != want {
		t.Errorf("debug reason =\n%s\nwant\n%s", o.HookSpecificOutput.PermissionDecisionReason, want)
	}
	if !strings.Contains(r.stderr, "tool route curl-docs matched Bash") || !strings.Contains(r.stderr, "configuration: defaults") {
		t.Errorf("debug stderr = %q", r.stderr)
	}
	r = runBinary(t, "webfetch", payload(t, "routing-bash-curl-docs.json", ""), env)
	if strings.Contains(r.stdout, "[webgate debug]") || strings.Contains(r.stderr, "tool route curl-docs matched") {
		t.Errorf("normal mode shows debug output: %s / %s", r.stdout, r.stderr)
	}
}

func TestProcess_ToolRoutesFromTheConfigurationFileReachBash(t *testing.T) {
	f := newProviderFake(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	err := os.WriteFile(file, []byte(`
[[routes.tool_routes]]
name = "no-wget"
tool = "Bash"
pattern = "^wget "
message = "Use WebFetch instead of wget."

[[routes.tool_routes]]
name = "broken"
tool = "Bash"
pattern = "([a-"
message = "never"
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	env := append(f.env(t), "WEBGATE_CONFIG="+file)
	in := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"wget https://example.com/x.tar.gz"}}`
	r := runBinary(t, "webfetch", strings.NewReader(in), env)
	if o := wantDeny(t, r, "PreToolUse"); o.HookSpecificOutput.PermissionDecisionReason != "Use WebFetch instead of wget." {
		t.Errorf("stdout %s", r.stdout)
	}
	if !strings.Contains(r.stderr, "tool route broken skipped") {
		t.Errorf("stderr = %q", r.stderr)
	}
}

func TestProcess_SessionStartGivesTheRoutesIndexWhenSwitchedOn(t *testing.T) {
	f := newProviderFake(t, nil)
	env, _ := routingEnv(t, f)
	r := runBinary(t, "websearch", payload(t, "claude-sessionstart.json", ""), env)
	wantNothing(t, r)
	r = runBinary(t, "websearch", payload(t, "claude-sessionstart.json", ""), append(env, "WEBGATE_HOOKS_SESSION_START=1"))
	var o map[string]map[string]string
	if err := json.Unmarshal([]byte(r.stdout), &o); err != nil || len(o) != 1 || len(o["hookSpecificOutput"]) != 2 || o["hookSpecificOutput"]["hookEventName"] != "SessionStart" {
		t.Fatalf("stdout = %s", r.stdout)
	}
	want := strings.Join([]string{
		"Local documentation indexes (search them before the web):",
		"- Kubernetes documentation: MCP tool mcp__docsearch__search, path /srv/docs/kubernetes; keywords: kubernetes, kubectl",
		"- Helm documentation: MCP tool mcp__docsearch__search, path /srv/docs/helm; keywords: helm, kubernetes",
		"- Language references: MCP tool mcp__langdocs__search, path /srv/docs/languages; keywords: c++, .net, c#, gitlab-ci",
		"Tool routes (use the named tool instead):",
		"- Bash curl-docs: Search the local documentation with the docs MCP tool instead of curling documentation sites.",
		"- WebFetch github-issues: Use `gh issue view <number> --repo <owner>/<repo>` (or `gh pr view`) instead of fetching GitHub pages.",
	}, "\n")
	if got := o["hookSpecificOutput"]["additionalContext"]; got != want {
		t.Errorf("additionalContext =\n%s\nwant\n%s", got, want)
	}
}

// rawRun runs a hook binary without touching t, for use from many
// goroutines at once.
func rawRun(bin string, stdin io.Reader, env []string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env, cmd.Stdin = coldEnv(env), stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// concurrently runs n hook processes at once, the i-th with stdin(i), and
// returns their outputs and the wall time.
func concurrently(t *testing.T, n int, bin string, env []string, stdin func(i int) io.Reader) ([]string, time.Duration) {
	t.Helper()
	outs := make([]string, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		in := stdin(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var serr string
			outs[i], serr, errs[i] = rawRun(bin, in, env)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%w; stderr %s", errs[i], serr)
			}
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	elapsed := time.Since(t0)
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
	return outs, elapsed
}

func TestProcess_FiftyConcurrentSessionsKeepTheirDocsRouteMemories(t *testing.T) {
	if testing.Short() {
		t.Skip("starts about 250 processes")
	}
	const n = 50
	f := newProviderFake(t, nil)
	env, state := routingEnv(t, f)
	// The session files are counted (TestProcessRouteState_FiftyConcurrentSessionsInTheStore
	// is this test with the store).
	env = append(env, "WEBGATE_HOOKS_SYSTEM_MESSAGE=false", fileState)
	bin := binary(t, "websearch")
	call := func(i int) io.Reader {
		return routingPayload(t, "routing-websearch-docs.json", fmt.Sprintf("concurrent-%02d", i), "kubectl port-forward")
	}

	first, t1 := concurrently(t, n, bin, env, call)
	for i, out := range first {
		var o output
		if err := json.Unmarshal([]byte(out), &o); err != nil || o.HookSpecificOutput == nil || o.HookSpecificOutput.PermissionDecision != "deny" ||
			!strings.Contains(o.HookSpecificOutput.AdditionalContext, "/srv/docs/kubernetes") {
			t.Errorf("first call of session %d: %q", i, out)
		}
	}
	entries, _ := os.ReadDir(state)
	files := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			files++
			data, _ := os.ReadFile(filepath.Join(state, e.Name()))
			var st struct {
				Denied []json.RawMessage `json:"denied"`
			}
			if err := json.Unmarshal(data, &st); err != nil || len(st.Denied) != 1 {
				t.Errorf("%s: %s (%v)", e.Name(), data, err)
			}
		} else if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	if files != n {
		t.Errorf("%d session files, want %d", files, n)
	}

	retry, t2 := concurrently(t, n, bin, env, call)
	for i, out := range retry {
		if out != "" {
			t.Errorf("identical retry of session %d was not released: %q", i, out)
		}
	}
	t.Logf("%d concurrent first calls in %v, %d concurrent retries in %v", n, t1.Round(time.Millisecond), n, t2.Round(time.Millisecond))

	// One session, many different queries at once: no denial is lost.
	queries := func(i int) string { return fmt.Sprintf("kubectl subcommand %02d", i) }
	const m = 12
	_, t3 := concurrently(t, m, bin, env, func(i int) io.Reader {
		return routingPayload(t, "routing-websearch-docs.json", "shared", queries(i))
	})
	retry, _ = concurrently(t, m, bin, env, func(i int) io.Reader {
		return routingPayload(t, "routing-websearch-docs.json", "shared", queries(i))
	})
	for i, out := range retry {
		if out != "" {
			t.Errorf("shared session: retry of query %d not released (its denial was lost): %q", i, out)
		}
	}
	t.Logf("%d concurrent calls of one session in %v", m, t3.Round(time.Millisecond))
}
