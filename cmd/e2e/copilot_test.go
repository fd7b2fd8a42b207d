package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The real-CLI scenario of GitHub Copilot CLI: `webgate install --target
// copilot-cli` writes ~/.copilot/hooks/webgate.json, and `copilot -p`
// with a custom model provider (the fake Anthropic API) calls web_fetch on
// an app shell served on 127.0.0.1.

// hookBinDir returns a directory holding websearch, webfetch, their
// webgate-hook worker and webgate under their installed names, as
// `webgate install --bin-dir` expects them (links to the built binaries).
func hookBinDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, target := range map[string]string{
		"websearch":    bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch"),
		"webfetch":     bins.Build(t, "github.com/webgate-dev/webgate/cmd/webfetch"),
		"webgate":      bins.Build(t, "github.com/webgate-dev/webgate/cmd/webgate"),
		"webgate-hook": filepath.Join(bins.Dir, workerName()),
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCopilot_InstalledWebFetchHookAnswersAnAppShellWithExtractedContent(t *testing.T) {
	copilot := CopilotCLI.Binary(t)
	binDir := hookBinDir(t)
	providers := newFakeProviders(t)
	var mu sync.Mutex
	pageHits := 0
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
		CallTool("web_fetch", map[string]any{"url": url}),
		CallTool("bash", map[string]any{"command": "echo COPILOT-SHELL-MARKER", "description": "Print a marker"}),
		Say("COPILOT-DONE"),
	)
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	out := RunWebgate(t, filepath.Join(binDir, "webgate"), home, nil, "install", "--target", "copilot-cli", "--bin-dir", binDir)
	if !strings.Contains(out, "hooks registered") {
		t.Fatalf("install output:\n%s", out)
	}

	env := providers.env(map[string]string{"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE": "1"})
	env["COPILOT_PROVIDER_BASE_URL"] = api.URL
	env["COPILOT_PROVIDER_TYPE"] = "anthropic"
	env["COPILOT_PROVIDER_API_KEY"] = "sk-ant-e2e-dummy-key"
	env["COPILOT_MODEL"] = DefaultModel
	env["COPILOT_ALLOW_ALL"] = "true"
	env["XDG_CACHE_HOME"] = copilotCache(t)
	logDir := filepath.Join(root, "logs")
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range api.Requests() {
				t.Logf("fake API request: %s %s (%s)", r.Method, r.Path, r.Kind)
			}
		}
	})
	res := RunCLI(t, CLIRun{
		Bin: copilot,
		Args: []string{"-p", "Read " + url + " and say when the deadline is.", "--allow-all-tools",
			"--disable-client-telemetry", "--log-level", "warning", "--log-dir", logDir},
		Home: home, Dir: project, Env: env,
		// Copilot starts slowly on a busy machine; a run takes 15-60 s.
		Timeout: 150 * time.Second,
	})

	if res.ExitCode != 0 {
		t.Fatalf("copilot exit code = %d, want 0", res.ExitCode)
	}
	assertNoLeaks(t, res, hookTavilyKey, hookWSAPIKey)
	fetched := api.ToolResult(t, 0)
	first, _, _ := strings.Cut(fetched.Body(), "\n")
	t.Logf("model received for web_fetch (tool_result, is_error %v, first line): %q", fetched.IsError, first)
	if fetched.IsError || !strings.HasPrefix(fetched.Body(), "Denied by preToolUse hook: Content of "+url+", extracted by webgate via websearchapi") {
		t.Errorf("web_fetch tool_result = is_error %v, body %q; want the hook's deny carrying the extracted page", fetched.IsError, fetched.Body())
	}
	for _, want := range []string{"Title: Rendered app", "EXTRACTED-APP-CONTENT: the app's deadline is Friday."} {
		if !strings.Contains(fetched.Body(), want) {
			t.Errorf("web_fetch tool_result lacks %q:\n%s", want, fetched.Body())
		}
	}
	shell := api.ToolResult(t, 1)
	first, _, _ = strings.Cut(shell.Body(), "\n")
	t.Logf("model received for bash (tool_result, is_error %v, first line): %q", shell.IsError, first)
	if shell.IsError || !strings.Contains(shell.Body(), "COPILOT-SHELL-MARKER") || strings.Contains(shell.Body(), "Denied") {
		t.Errorf("bash tool_result = is_error %v, body %q; want the command's own output", shell.IsError, shell.Body())
	}
	if p := providers.Paths(); len(p) != 1 || p[0] != "/wsapi/scrape" {
		t.Errorf("provider requests = %q, want one WebSearchAPI.ai extraction", p)
	}
	mu.Lock()
	if pageHits != 1 {
		t.Errorf("page requests = %d, want 1 (the hook's probe)", pageHits)
	}
	mu.Unlock()
	// Copilot asks api.github.com for its own settings; refused, it goes on.
	for _, a := range res.ProxyAttempts {
		if !strings.HasPrefix(a, "CONNECT api.github.com:443 ") {
			t.Errorf("copilot tried to leave the machine: %q", a)
		}
	}
}

// copilotCache returns a cache directory shared by the Copilot runs: the
// binary unpacks its package there on its first run (seconds), and every
// later run reuses it.
func copilotCache(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		return t.TempDir()
	}
	dir := filepath.Join(base, "webgate-e2e", "copilot-xdg-cache")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return t.TempDir()
	}
	return dir
}
