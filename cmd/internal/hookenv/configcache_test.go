package hookenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/hooks/worker"
)

// noRacyWindow lets a test keep a configuration read from a file it
// has just written.
func noRacyWindow(t *testing.T) {
	old := configRacyWindow
	configRacyWindow = 0
	t.Cleanup(func() { configRacyWindow = old })
}

// rewrite writes content to path and moves its modification time, so
// that a rewrite of the same size within a clock tick is still seen.
func rewrite(t *testing.T, path, content string, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestConfigCache_LoadsOnceUntilTheFileTheKeysOrTheEnvironmentChange(t *testing.T) {
	noRacyWindow(t)
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "webgate")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "config.toml")
	keys := filepath.Join(home, "tavily.keys")
	past := time.Now().Add(-time.Hour)
	rewrite(t, file, "[search]\nmax_results = 3\n", past)
	rewrite(t, keys, "tvly-one\n", past)
	env := []string{"HOME=" + home, "WEBGATE_STATE_DIR=" + home, "TAVILY_API_KEY=" + keys}
	c := NewConfigCache(nil)
	load := func(env []string) int {
		t.Helper()
		cfg, err := c.Load(env)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Search.MaxResults
	}
	if got := load(env); got != 3 || c.Loads() != 1 {
		t.Fatalf("first load: max_results %d, %d loads", got, c.Loads())
	}
	// Nothing changed, nor does the front's start time count.
	for range 3 {
		load(append(env, worker.FrontEnv+"=123"))
	}
	if c.Loads() != 1 {
		t.Errorf("%d loads with nothing changed, want 1", c.Loads())
	}
	// The file changes: the next call has the new configuration.
	rewrite(t, file, "[search]\nmax_results = 7\n", past.Add(time.Minute))
	if got := load(env); got != 7 || c.Loads() != 2 {
		t.Errorf("after the file changed: max_results %d, %d loads", got, c.Loads())
	}
	// A key file changes.
	rewrite(t, keys, "tvly-one\ntvly-two\n", past.Add(2*time.Minute))
	cfg, _ := c.Load(env)
	if cfg.KeyCount("tavily") != 2 || c.Loads() != 3 {
		t.Errorf("after the key file changed: %d keys, %d loads", cfg.KeyCount("tavily"), c.Loads())
	}
	// The environment changes.
	if got := load(append(env, "WEBGATE_MAX_RESULTS=9")); c.Loads() != 4 {
		t.Errorf("after the environment changed: max_results %d, %d loads", got, c.Loads())
	}
	env = append(env, "WEBGATE_MAX_RESULTS=9")
	// Another file of the configuration directory, which takes the
	// place of the one read once that is removed, counts too.
	rewrite(t, filepath.Join(dir, "config.json"), `{"search": {"max_results": 5}}`, past)
	load(env)
	if c.Loads() != 5 {
		t.Errorf("a new file in the configuration directory: %d loads, want 5", c.Loads())
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	env = env[:len(env)-1]
	if got := load(env); got != 5 || c.Loads() != 6 {
		t.Errorf("after the file was removed: max_results %d, %d loads; want the other file's 5", got, c.Loads())
	}
}

func TestConfigCache_DoesNotKeepAConfigurationReadFromAFileJustChanged(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "webgate.toml")
	if err := os.WriteFile(file, []byte("[search]\nmax_results = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "WEBGATE_CONFIG=" + file}
	c := NewConfigCache(nil)
	for range 2 {
		if _, err := c.Load(env); err != nil {
			t.Fatal(err)
		}
	}
	if c.Loads() != 2 {
		t.Errorf("%d loads, want 2: a file changed this instant may change again unseen", c.Loads())
	}
}

func TestWarm_AnswersWithTheNewConfigurationOnceTheFileChanges(t *testing.T) {
	noRacyWindow(t)
	home := t.TempDir()
	file := filepath.Join(home, "webgate.toml")
	past := time.Now().Add(-time.Hour)
	rewrite(t, file, "[hooks]\nworker = \"off\"\n", past)
	env := []string{"HOME=" + home, "WEBGATE_CONFIG=" + file, "WEBGATE_STATE_DIR=" + home, "WEBGATE_STORE_URL=off"}
	w := NewWarm()
	defer w.Close()
	call := func() bool {
		t.Helper()
		c := &worker.Call{Hook: "websearch", Payload: []byte(`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{}}`), Env: env, Start: time.Now()}
		a := w.ServeCall(context.Background(), c)
		if a.Refused != "" {
			t.Fatalf("refused: %s", a.Refused)
		}
		if a.After != nil {
			a.After()
		}
		return a.Retire
	}
	if !call() {
		t.Error("hooks.worker = off did not retire the warm worker")
	}
	rewrite(t, file, "[hooks]\nworker = \"warm\"\n", past.Add(time.Minute))
	if call() {
		t.Error("the warm worker answered with the configuration the file had before")
	}
	call()
	if n := w.Configs().Loads(); n != 2 {
		t.Errorf("%d loads for three calls and one change, want 2", n)
	}
}

func TestWarm_KeepsTheRoutersUntilTheRoutesFileChanges(t *testing.T) {
	noRacyWindow(t)
	home := t.TempDir()
	routes := filepath.Join(home, "tool-routes.json")
	past := time.Now().Add(-time.Hour)
	route := func(message string) string {
		return `{"routes":{"github":{"pattern":"^https?://github\\.com/","message":"` + message + `"}}}`
	}
	rewrite(t, routes, route("Use gh."), past)
	env := []string{"HOME=" + home, "WEBGATE_STATE_DIR=" + home, "WEBGATE_STORE_URL=off", "WEBGATE_TOOL_ROUTES=" + routes}
	w := NewWarm()
	defer w.Close()
	reason := func() string {
		t.Helper()
		c := &worker.Call{Hook: "webfetch", Payload: []byte(`{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://github.com/a/b","prompt":"p"}}`), Env: env, Start: time.Now()}
		a := w.ServeCall(context.Background(), c)
		if a.After != nil {
			a.After()
		}
		return string(a.Stdout)
	}
	for range 3 {
		if got := reason(); !strings.Contains(got, "Use gh.") {
			t.Fatalf("answer %s", got)
		}
	}
	if n := w.Configs().RouteBuilds(); n != 1 {
		t.Errorf("the routers were built %d times for three calls, want 1", n)
	}
	rewrite(t, routes, route("Use the GitHub CLI."), past.Add(time.Minute))
	if got := reason(); !strings.Contains(got, "Use the GitHub CLI.") {
		t.Errorf("after the routes file changed: %s", got)
	}
	if n := w.Configs().RouteBuilds(); n != 2 {
		t.Errorf("the routers were built %d times, want 2", n)
	}
}
