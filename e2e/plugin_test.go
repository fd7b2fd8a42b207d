package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// repoRoot is the repository, which is itself a Claude Code plugin.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository")
	}
	return filepath.Dir(filepath.Dir(file))
}

// TestPlugin_WebSearchAnsweredThroughThePluginHooks loads the repository
// with --plugin-dir: Claude Code reads hooks/hooks.json, substitutes
// ${CLAUDE_PLUGIN_ROOT}, runs scripts/run-hook, and the websearch hook
// answers with provider results. The binaries come from WEBGATE_HOOKS_BIN_DIR
// so the test does not build them a second time.
func TestPlugin_WebSearchAnsweredThroughThePluginHooks(t *testing.T) {
	version := ClaudeVersion(t)
	hook := bins.Build(t, "github.com/webgate-dev/webgate/hooks/websearch")
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

// TestPlugin_StepsAsideWhenTheHooksCannotBeBuilt runs the plugin with no
// installed binaries and a Go toolchain that cannot fetch modules: the
// launcher's build fails, the hook steps aside with a hint, and the call
// goes on to the native tool's permission check.
func TestPlugin_StepsAsideWhenTheHooksCannotBeBuilt(t *testing.T) {
	ClaudeVersion(t)
	providers := newFakeProviders(t)
	api := NewFakeAPI(t,
		CallTool("WebSearch", map[string]any{"query": "webgate plugin unbuilt"}),
		Say("done"),
	)
	res := RunClaude(t, api, Options{
		PluginDirs: []string{repoRoot(t)},
		Env:        providers.env(map[string]string{"GOPROXY": "off", "GOFLAGS": "-mod=mod", "GOCACHE": t.TempDir()}),
	})

	assertExitZero(t, res)
	assertNoOutbound(t, res)
	got := api.ToolResult(t, 0)
	if strings.Contains(got.Body(), "HOOK-RESULT-ONE") {
		t.Fatalf("the hook answered although it could not be built:\n%s", got.Body())
	}
	if !strings.Contains(res.DebugLog(), "webgate: building the hooks failed") {
		t.Errorf("no hint from the launcher in the debug log")
	}
	if len(providers.Paths()) != 0 {
		t.Errorf("providers called: %v", providers.Paths())
	}
}
