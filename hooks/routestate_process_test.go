package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// The docs routes' escape hatch kept by the built hooks: in the store when
// it is on, in files when it is off.

// routeCall is the call routing-websearch-docs.json makes for query.
func routeCall(query string) routing.Call {
	return routing.Call{Query: query, AllowedDomains: []string{"kubernetes.io", "helm.sh"}}
}

// storedRouteState reports whether the SQLite store in state remembers
// the docs-route denial of call in session, reading it as the hooks do
// (with the installation's salt) and changing nothing.
func storedRouteState(t *testing.T, state, session string, call routing.Call) bool {
	t.Helper()
	salt, err := os.ReadFile(filepath.Join(state, "fingerprint-salt"))
	if err != nil {
		t.Fatalf("no fingerprint salt: %v", err)
	}
	st, err := storeurl.Open(context.Background(), filepath.Join(state, config.StoreFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ok, err := memory.New(&memory.Options{Store: st, Salt: salt}).RouteState(0).Remembered(session, call)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// routeFiles lists the docs routes' files (state, lock and temporary
// files) in state.
func routeFiles(state string) []string {
	entries, _ := os.ReadDir(state)
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), "docs-route-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestProcessRouteState_DenialAndRetryAreKeptInTheStore(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	env, state := routingEnv(t, f, "tavily")
	const session, query = "store-sess", "kubectl rollout undo"

	r := runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", session, query), env)
	wantDocsDeny(t, r, "/srv/docs/kubernetes")
	if !storedRouteState(t, state, session, routeCall(query)) {
		t.Fatal("the denial is not in the store")
	}
	if storedRouteState(t, state, "other-session", routeCall(query)) {
		t.Error("another session sees the denial")
	}
	if files := routeFiles(state); len(files) != 0 {
		t.Errorf("with the store on, the docs routes wrote files: %v", files)
	}

	// The identical retry, domains reordered, goes on to the providers.
	r = runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs-reordered.json", session, query), env)
	o := wantDeny(t, r, "PreToolUse", `Web search results for query "`+query+`"`)
	if o.HookSpecificOutput.AdditionalContext != "" || f.Hits("tavily") != 1 {
		t.Errorf("retry: context %q, tavily hits %d; want the providers' answer", o.HookSpecificOutput.AdditionalContext, f.Hits("tavily"))
	}
	if storedRouteState(t, state, session, routeCall(query)) {
		t.Error("the released denial is still in the store")
	}
	// And the next identical call is routed again.
	wantDocsDeny(t, runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", session, query), env))
	if files := routeFiles(state); len(files) != 0 {
		t.Errorf("with the store on, the docs routes wrote files: %v", files)
	}
	for _, l := range stderrLines(r) {
		if strings.Contains(l, "store") || strings.Contains(l, "could not be recorded") {
			t.Errorf("stderr: %q", l)
		}
	}
}

func TestProcessRouteState_WithTheStoreOffTheStateIsKeptInFiles(t *testing.T) {
	f := newProviderFake(t, nil)
	env, state := routingEnv(t, f)
	env = append(env, fileState)
	const session, query = "files-sess", "kubectl rollout undo"

	wantDocsDeny(t, runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", session, query), env))
	if _, err := os.Stat(filepath.Join(state, routing.SessionFile(session))); err != nil {
		t.Errorf("the denial is not in the session's file: %v", err)
	}
	r := runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs-reordered.json", session, query), env)
	wantStepAside(t, r, "no search provider has an API key")
	if _, err := os.Stat(filepath.Join(state, config.StoreFile)); err == nil {
		t.Error("with the store off, a store was created")
	}
	wantDocsDeny(t, runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", session, query), env))
}

func TestProcessRouteState_AStoreThatDoesNotOpenFallsBackToFiles(t *testing.T) {
	f := newProviderFake(t, nil)
	env, state := routingEnv(t, f)
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, config.StoreFile), []byte("not a database, not at all, just some text to fill a page"), 0o600); err != nil {
		t.Fatal(err)
	}
	const session, query = "corrupt-sess", "helm rollback"
	r := runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", session, query), env)
	wantDocsDeny(t, r)
	if !strings.Contains(r.stderr, "store") {
		t.Errorf("stderr = %q, want the line about the store", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(state, routing.SessionFile(session))); err != nil {
		t.Errorf("the denial is not in the session's file: %v", err)
	}
	wantStepAside(t, runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", session, query), env), "no search provider has an API key")
}

func TestProcessRouteState_WithTheStoreOnAFIFOWhereTheFileWouldBeIsLeftAlone(t *testing.T) {
	f := newProviderFake(t, nil)
	env, state := routingEnv(t, f)
	env = append(env, "WEBGATE_HOOKS_WEBSEARCH_BUDGET=3s")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(state, routing.SessionFile("sess-fifo"))
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	wantDocsDeny(t, runWithin(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-fifo", "kubectl drain"), env, adversarialLimit))
	r := runWithin(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "sess-fifo", "kubectl drain"), env, adversarialLimit)
	wantStepAside(t, r, "no search provider has an API key")
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}

func TestProcessRouteState_FiftyConcurrentSessionsInTheStore(t *testing.T) {
	n := 50
	if testing.Short() {
		n = 10
	}
	f := newProviderFake(t, nil)
	env, state := routingEnv(t, f)
	env = append(env, "WEBGATE_HOOKS_SYSTEM_MESSAGE=false", patientStore)
	bin := binary(t, "websearch")
	// The store exists before the rush, as it does after the first call.
	wantDocsDeny(t, runBinary(t, "websearch", routingPayload(t, "routing-websearch-docs.json", "warm-up", "kubectl version"), env))
	const query = "kubectl port-forward"
	call := func(i int) io.Reader {
		return routingPayload(t, "routing-websearch-docs.json", fmt.Sprintf("concurrent-%02d", i), query)
	}
	denied := func(out string) bool {
		var o output
		return json.Unmarshal([]byte(out), &o) == nil && o.HookSpecificOutput != nil && o.HookSpecificOutput.PermissionDecision == "deny"
	}

	first, t1 := concurrently(t, n, bin, env, call)
	for i, out := range first {
		if !denied(out) {
			t.Errorf("first call of session %d: %q", i, out)
		}
	}
	for i := range n {
		if !storedRouteState(t, state, fmt.Sprintf("concurrent-%02d", i), routeCall(query)) {
			t.Errorf("session %d: the denial is not in the store", i)
		}
	}
	retry, t2 := concurrently(t, n, bin, env, call)
	for i, out := range retry {
		if out != "" {
			t.Errorf("identical retry of session %d was not released: %q", i, out)
		}
	}
	t.Logf("%d concurrent first calls in %v, %d concurrent retries in %v", n, t1.Round(1e6), n, t2.Round(1e6))

	// One session, many different queries at once: no denial is lost.
	const m = 12
	queries := func(i int) io.Reader {
		return routingPayload(t, "routing-websearch-docs.json", "shared", fmt.Sprintf("kubectl subcommand %02d", i))
	}
	concurrently(t, m, bin, env, queries)
	retry, _ = concurrently(t, m, bin, env, queries)
	for i, out := range retry {
		if out != "" {
			t.Errorf("shared session: retry of query %d not released (its denial was lost): %q", i, out)
		}
	}
	if files := routeFiles(state); len(files) != 0 {
		t.Errorf("with the store on, the docs routes wrote files: %v", files)
	}
}
