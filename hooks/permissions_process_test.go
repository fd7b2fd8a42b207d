package hooks_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A hook that forwards to a team gateway does not send it a page one of
// the user's deny rules forbids (the gateway cannot read the user's
// settings); other pages are forwarded.
func TestProcess_ForwardingHookDoesNotSendAPageTheUsersDenyRuleForbids(t *testing.T) {
	var calls atomic.Int64
	gw := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		calls.Add(1)
	}))
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(`{"permissions":{"deny":["WebFetch(domain:*.denied.example)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "WEBGATE_GATEWAY_URL=" + gw.URL, "WEBGATE_GATEWAY_TOKEN=wg_proc0123456789", "CLAUDE_PROJECT_DIR=" + project}
	run := func(bin, url string) result {
		data, err := io.ReadAll(payload(t, "claude-webfetch-pre.json", url))
		if err != nil {
			t.Fatal(err)
		}
		if bin == "webgate-hook" {
			// Registered directly.
			return runOpenStdin(t, bin, data, env, time.Minute, "webfetch")
		}
		return runBinary(t, bin, bytes.NewReader(data), env)
	}
	for _, bin := range []string{"webfetch", "webgate-hook"} {
		binary(t, bin)
		calls.Store(0)
		r := run(bin, "https://www.denied.example./page")
		if r.stdout != "" || calls.Load() != 0 || !strings.Contains(r.stderr, "forbids fetching this page: it is not sent to the gateway") {
			t.Errorf("%s, a denied page: stdout %q, %d gateway calls, stderr %q", bin, r.stdout, calls.Load(), r.stderr)
		}
		r = run(bin, "https://allowed.example/page")
		if calls.Load() != 1 {
			t.Errorf("%s, another page: %d gateway calls, want 1; stderr %q", bin, calls.Load(), r.stderr)
		}
	}
}
