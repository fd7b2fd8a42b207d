package hookenv

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
)

const testKey = "tvly-HOOKENV-TEST-1234567890"

func load(t *testing.T, env ...string) (*config.Config, error) {
	t.Helper()
	return config.Load(&config.LoadOptions{Env: env})
}

func TestWebSearch_HasNoSearcherWithoutKeys(t *testing.T) {
	cfg, err := load(t)
	if err != nil {
		t.Fatal(err)
	}
	env := WebSearch(cfg, nil)
	if env.Searcher != nil || len(env.Problems) != 0 {
		t.Errorf("env = %+v", env)
	}
}

func TestWebSearch_MapsTheConfiguration(t *testing.T) {
	cfg, err := load(t, "TAVILY_API_KEY="+testKey, "WEBGATE_HOOKS_MAX_REASON_CHARS=5000", "WEBGATE_HOOKS_SYSTEM_MESSAGE=false",
		"WEBGATE_HOOKS_WEBSEARCH_BUDGET=7s", "WEBGATE_HOOKS_WEBSEARCH_TOOL_NAMES=WebSearch,web_search", "WEBGATE_SEARCH_MAX_RESULTS=4", "WEBGATE_DEBUG=1")
	if err != nil {
		t.Fatal(err)
	}
	env := WebSearch(cfg, nil)
	s := env.Settings
	if env.Searcher == nil || env.MaxResults != 4 || s.MaxReasonChars != 5000 || s.SystemMessage || s.Budget != 7*time.Second || !s.Debug {
		t.Errorf("env = %+v", env)
	}
	if strings.Join(s.Tools.WebSearch, ",") != "WebSearch,web_search" {
		t.Errorf("tools = %+v", s.Tools)
	}
	if len(s.Secrets) != 1 || s.Secrets[0] != testKey {
		t.Errorf("secrets not collected")
	}
	trace := strings.Join(s.Trace, "\n")
	if !strings.Contains(trace, "env TAVILY_API_KEY") || !strings.Contains(trace, "tavily (1 key)") || strings.Contains(trace, testKey) {
		t.Errorf("trace = %q", trace)
	}
	if env.DebugLines == nil {
		t.Error("debug mode has no policy trace")
	}
	if strings.Join(env.Providers, ",") != "tavily" || env.Mode != "parallel" {
		t.Errorf("providers %q, mode %q", env.Providers, env.Mode)
	}
}

func TestWebSearchAndWebFetch_BuildOnlyTheirOwnProviders(t *testing.T) {
	cfg, err := load(t, "TAVILY_API_KEY="+testKey, "WEBGATE_EXTRACT_PRIMARY=tavily")
	if err != nil {
		t.Fatal(err)
	}
	if env := WebSearch(cfg, nil); env.Searcher == nil || len(env.Problems) != 0 {
		t.Errorf("search env = %+v", env)
	}
	env := WebFetch(cfg, nil)
	if env.Reader == nil || env.Reader.Extractor == nil || env.Mode != "in order, tavily first" {
		t.Errorf("fetch env = %+v", env)
	}
	if env.DebugLines != nil {
		t.Error("normal mode observes the policies")
	}
}

func TestWebSearch_ReportsConfigurationProblems(t *testing.T) {
	cfg, err := load(t, "TAVILY_API_KEY="+testKey, "WEBGATE_SEARCH_MODE=sideways")
	if err == nil {
		t.Fatal("want a configuration error")
	}
	env := WebSearch(cfg, err)
	if env.Searcher != nil || len(env.Problems) != 1 || !strings.Contains(env.Problems[0], "search.mode") {
		t.Errorf("env = %+v", env)
	}
	if len(env.Settings.Secrets) != 1 {
		t.Errorf("secrets must be scrubbed even with problems")
	}
}

func TestWebFetch_MapsTheProbeSettings(t *testing.T) {
	cfg, err := load(t, "WEBSEARCHAPI_API_KEY="+testKey, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1",
		"WEBGATE_HOOKS_WEBFETCH_PROBE_TIMEOUT=2s", "WEBGATE_HOOKS_WEBFETCH_MAX_BYTES=1MiB", "WEBGATE_HOOKS_WEBFETCH_BUDGET=9s")
	if err != nil {
		t.Fatal(err)
	}
	env := WebFetch(cfg, nil)
	if env.Reader == nil || env.Reader.Extractor == nil || env.Reader.Classify == nil || env.Settings.Budget != 9*time.Second {
		t.Fatalf("env = %+v", env)
	}
	if p := env.Reader.Probe; !p.AllowPrivate || p.Timeout != 2*time.Second || p.MaxBytes != 1<<20 {
		t.Errorf("probe = %+v", p)
	}
	if strings.Join(env.Providers, ",") != "websearchapi" || env.Mode == "" {
		t.Errorf("providers %q, mode %q", env.Providers, env.Mode)
	}
	if strings.Join(env.Settings.Tools.WebFetch, ",") != "WebFetch,web_fetch" {
		t.Errorf("tools = %+v", env.Settings.Tools)
	}
}

func TestHandlers_IgnoreToolsTheyDoNotHandle(t *testing.T) {
	loads := 0
	loader := func() (*config.Config, error) {
		loads++
		return config.Load(&config.LoadOptions{Env: []string{"TAVILY_API_KEY=" + testKey}})
	}
	in, _ := hooks.ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`))
	for _, h := range []hooks.Handler{WebSearchHandler(loader), WebFetchHandler(loader)} {
		if d := h(context.Background(), in); d.Action != hooks.Pass || d.Output(in) != nil || len(d.Diagnostics) != 0 {
			t.Errorf("decision = %+v", d)
		}
	}
	if loads != 2 {
		t.Errorf("loads = %d", loads)
	}
}

func TestWebSearchHandler_StepsAsideWithoutKeys(t *testing.T) {
	h := WebSearchHandler(func() (*config.Config, error) { return config.Load(&config.LoadOptions{}) })
	in, _ := hooks.ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"abc"}}`))
	d := h(context.Background(), in)
	if d.Action != hooks.Pass || !strings.Contains(d.SystemMessage, "no search provider has an API key") {
		t.Errorf("decision = %+v", d)
	}
}

// The hooks read the permission rules a replace answer depends on from
// the Claude Code directories the hook's environment names.
func TestSettings_CarryClaudeCodesDirectories(t *testing.T) {
	cfg, _ := load(t, "CLAUDE_CONFIG_DIR=/home/u/.claude-work", "CLAUDE_PROJECT_DIR=/src/proj")
	s := Settings(cfg, time.Second, nil, nil)
	if s.ClaudeConfigDir != "/home/u/.claude-work" || s.ClaudeProjectDir != "/src/proj" {
		t.Errorf("settings: config dir %q, project dir %q", s.ClaudeConfigDir, s.ClaudeProjectDir)
	}
}
