package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// repoRoot is the repository, which is itself a Claude Code plugin.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository")
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// TestPlugin_WebSearchAnsweredThroughThePluginHooks loads the repository
// with --plugin-dir: Claude Code reads hooks/hooks.json, substitutes
// ${CLAUDE_PLUGIN_ROOT}, runs scripts/run-hook, and the websearch hook
// answers with provider results. The binaries come from WEBGATE_HOOKS_BIN_DIR
// so the test does not build them a second time.
func TestPlugin_WebSearchAnsweredThroughThePluginHooks(t *testing.T) {
	version := ClaudeVersion(t)
	hook := bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch")
	// The built binary has a numbered name; give the plugin's launcher the
	// installed name it looks for. The front resolves the link and finds
	// the worker next to the real file.
	binDir := t.TempDir()
	if err := os.Symlink(hook, filepath.Join(binDir, "websearch")); err != nil {
		t.Fatal(err)
	}
	providers := newFakeProviders(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "webgate plugin query"}),
		Say("done"),
	)
	res := RunClaude(t, api, Options{
		PluginDirs: []string{repoRoot(t)},
		Env:        providers.env(map[string]string{"WEBGATE_HOOKS_BIN_DIR": binDir}),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	assertNoHookKeys(t, res, api)
	got := api.ToolResult(t, 0)
	if !got.IsError || !strings.HasPrefix(got.Body(), DenyContent(version, "WebSearch", "")) {
		t.Fatalf("tool result %+v does not carry the hook's answer:\n%s", got.IsError, got.Text())
	}
	if !strings.Contains(got.Body(), "HOOK-RESULT-ONE for webgate plugin query") || !strings.Contains(got.Body(), "https://docs.example/one") {
		t.Errorf("the model did not receive the provider results:\n%s", got.Body())
	}
}

// pluginData returns the data directory Claude Code gives the plugin
// loaded with --plugin-dir under configDir (webgate@inline).
func pluginData(configDir string) string {
	return filepath.Join(configDir, "plugins", "data", "webgate-inline")
}

// waitBuild waits up to limit for the launcher's background build in data
// to end (the lock gone, the state ready or failed) and returns the state.
func waitBuild(t *testing.T, data string, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		b, _ := os.ReadFile(filepath.Join(data, "build.state"))
		state := strings.TrimSpace(string(b))
		_, err := os.Stat(filepath.Join(data, "bin", ".build.lock"))
		if (state == "ready" || state == "failed") && os.IsNotExist(err) {
			return state
		}
		if time.Now().After(deadline) {
			return state
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// hookStdout returns the stdout of every hook response of an event, joined.
func hookStdout(res *Result, event string) string {
	var b strings.Builder
	for _, h := range res.HookResponses() {
		if h.HookEvent == event || strings.HasPrefix(h.HookName, event) {
			b.WriteString(h.Stdout)
			b.WriteString(h.Output)
		}
	}
	return b.String()
}

// TestPlugin_StepsAsideWhenTheHooksCannotBeBuilt runs the plugin with no
// installed binaries and a Go toolchain that cannot fetch modules: the
// session starts at once with a message that the hooks are being built,
// the web search goes on to the native tool's permission check, the
// background build fails, and the next hook run says what failed.
func TestPlugin_StepsAsideWhenTheHooksCannotBeBuilt(t *testing.T) {
	ClaudeVersion(t)
	providers := newFakeProviders(t)
	config := t.TempDir()
	env := providers.env(map[string]string{"GOPROXY": "off", "GOFLAGS": "-mod=mod", "GOCACHE": t.TempDir(), "GOMODCACHE": t.TempDir(), "CLAUDE_CONFIG_DIR": config})
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "webgate plugin unbuilt"}),
		Say("done"),
	)
	res := RunClaude(t, api, Options{PluginDirs: []string{repoRoot(t)}, Env: env})
	data := pluginData(config)
	if state := waitBuild(t, data, time.Minute); state != "failed" {
		t.Fatalf("build state %q, want failed", state)
	}

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	got := api.ToolResult(t, 0)
	if strings.Contains(got.Body(), "HOOK-RESULT-ONE") {
		t.Fatalf("the hook answered although it could not be built:\n%s", got.Body())
	}
	if out := hookStdout(res, "SessionStart"); !strings.Contains(out, "building its hooks in the background") {
		t.Errorf("SessionStart hook output lacks the building message: %q", out)
	}
	if !strings.Contains(res.DebugLog(), "webgate: the hooks are being built in the background") && !strings.Contains(res.DebugLog(), "webgate: building the hooks failed") {
		t.Errorf("no hint from the launcher in the debug log")
	}
	if len(providers.Paths()) != 0 {
		t.Errorf("providers called: %v", providers.Paths())
	}

	// The next session is told what failed, and tries again.
	api = NewFakeAPI(t, Say("done"))
	res = RunClaude(t, api, Options{PluginDirs: []string{repoRoot(t)}, Env: env})
	assertExitZero(t, res)
	if out := hookStdout(res, "SessionStart"); !strings.Contains(out, "building its hooks failed") || !strings.Contains(out, "building its hooks again") {
		t.Errorf("the second session was not told what failed: %q", out)
	}
	waitBuild(t, data, time.Minute)
}

// TestPlugin_ColdStartBuildsInTheBackground runs the plugin as a new user
// meets it: no binaries and an empty Go build cache (the module cache is
// the machine's, with the network off). The first session starts without
// waiting for the build and says it is building; its web search goes to
// the native tool. Once the background build is done, the next session is
// told webgate is ready and its web search is answered by the hook.
//
// A cold build of the three hooks takes about 100 s of CPU on 2 cores, so
// the test runs only when WEBGATE_E2E_COLD_START=1.
func TestPlugin_ColdStartBuildsInTheBackground(t *testing.T) {
	if os.Getenv("WEBGATE_E2E_COLD_START") != "1" {
		t.Skip("set WEBGATE_E2E_COLD_START=1 to build the plugin's hooks with an empty Go build cache (minutes)")
	}
	version := ClaudeVersion(t)
	modCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	providers := newFakeProviders(t)
	config := t.TempDir()
	env := providers.env(map[string]string{
		"GOCACHE": t.TempDir(), "GOMODCACHE": strings.TrimSpace(string(modCache)),
		"GOPROXY": "off", "GOFLAGS": "-mod=mod", "CLAUDE_CONFIG_DIR": config,
	})
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "webgate cold start"}),
		Say("done"),
	)
	start := time.Now()
	res := RunClaude(t, api, Options{PluginDirs: []string{repoRoot(t)}, Env: env, Timeout: 45 * time.Second})
	first := time.Since(start)
	assertExitZero(t, res)
	assertNoOutbound(t, res)
	if out := hookStdout(res, "SessionStart"); !strings.Contains(out, "building its hooks in the background") {
		t.Errorf("SessionStart hook output lacks the building message: %q", out)
	}
	if strings.Contains(api.ToolResult(t, 0).Body(), "HOOK-RESULT-ONE") {
		t.Errorf("the hook answered before it was built")
	}

	data := pluginData(config)
	state := waitBuild(t, data, 6*time.Minute)
	t.Logf("first session %v; build done %v after it started (state %s)", first.Round(time.Second), time.Since(start).Round(time.Second), state)
	if state != "ready" {
		log, _ := os.ReadFile(filepath.Join(data, "build.log"))
		t.Fatalf("build state %q, want ready; build log:\n%s", state, log)
	}

	api = NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "webgate plugin query"}),
		Say("done"),
	)
	res = RunClaude(t, api, Options{PluginDirs: []string{repoRoot(t)}, Env: env})
	assertExitZero(t, res)
	assertNoOutbound(t, res)
	if out := hookStdout(res, "SessionStart"); !strings.Contains(out, "built and ready") {
		t.Errorf("the second session was not told webgate is ready: %q", out)
	}
	got := api.ToolResult(t, 0)
	if !got.IsError || !strings.HasPrefix(got.Body(), DenyContent(version, "WebSearch", "")) || !strings.Contains(got.Body(), "HOOK-RESULT-ONE for webgate plugin query") {
		t.Fatalf("the built hook did not answer:\n%s", got.Text())
	}
}
