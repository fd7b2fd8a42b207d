//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/proctest"
)

// TestHooks_WarmWorkerAnswersTheSessionsLaterWebSearches runs the web search
// hook as installed, with the warm worker on: the session's first WebSearch
// is answered by the worker the front runs, which starts the warm worker;
// the second is answered by the warm worker. The model gets the same
// answer either way.
func TestHooks_WarmWorkerAnswersTheSessionsLaterWebSearches(t *testing.T) {
	version := ClaudeVersion(t)
	hook := bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch")
	providers := newFakeProviders(t)
	// A short state directory: a socket's path holds about 100 bytes.
	state, err := os.MkdirTemp("", "wg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(state) })
	t.Cleanup(func() { stopWarm(t, state) })
	// The warm worker starts once the first call is answered; the model's
	// next turn waits until it listens, so that the second call finds it
	// however busy the machine is.
	second := CallTool("WebSearch", map[string]any{"query": "second warm query"})
	second.Before = func() { waitWarm(state, 10*time.Second) }
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "first warm query"}),
		second,
		Say("done"),
	)
	settings := new(Settings).AddHook("PreToolUse", "WebSearch", ExecHook(hook))
	res := RunClaude(t, api, Options{Settings: settings, Env: providers.env(map[string]string{
		"WEBGATE_HOOKS_WORKER": "warm",
		"WEBGATE_STATE_DIR":    state,
	})})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	for i, q := range []string{"first warm query", "second warm query"} {
		got := api.ToolResult(t, i)
		if !got.IsError || !strings.HasPrefix(got.Body(), DenyContent(version, "WebSearch", "")) ||
			!strings.Contains(got.Body(), "1. HOOK-RESULT-ONE for "+q) {
			t.Errorf("tool_result %d = is_error %v, body %q; want the hook's deny with the results", i, got.IsError, got.Body())
		}
	}
	pid := warmWorker(state)
	if pid == 0 {
		t.Fatal("no warm worker is running after the session")
	}
	if !proctest.Holds(pid, filepath.Join(state, "webgate.db")) {
		t.Error("the warm worker answered no call: it does not hold the store open")
	}
}

// warmWorker returns the pid of a running warm worker of state, or 0.
func warmWorker(state string) int { return proctest.WarmWorker(worker.StateLayout(state).Serving(), 0) }

// waitWarm waits, for at most d, until a warm worker of state runs and its
// socket is in place.
func waitWarm(state string, d time.Duration) {
	for deadline := time.Now().Add(d); warmWorker(state) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
}

// stopWarm kills the warm workers of state and waits for them to end.
func stopWarm(t *testing.T, state string) {
	for pid := warmWorker(state); pid != 0; pid = warmWorker(state) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if !proctest.WaitGone(pid, 10*time.Second) {
			t.Errorf("warm worker %d is still running", pid)
			return
		}
	}
}
