package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/hooks/gate"
)

// secret is a key value that must never appear in any output.
const secret = "tvly-SECRET-7f3a9c"

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// load runs Load with a fresh home directory and the given environment.
func load(t *testing.T, home string, env ...string) (*Config, error) {
	t.Helper()
	if home == "" {
		home = t.TempDir()
	}
	return Load(&LoadOptions{Env: env, HomeDir: home})
}

func mustLoad(t *testing.T, home string, env ...string) *Config {
	t.Helper()
	c, err := load(t, home, env...)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

// problems returns the problems of a Load error.
func problems(t *testing.T, err error) []*Problem {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *config.Error", err)
	}
	return ce.Problems
}

func TestLoad_ReturnsDefaultsWhenNothingIsSet(t *testing.T) {
	home := t.TempDir()
	c := mustLoad(t, home)
	want := Default()
	if c.Search.Mode != ModeParallel || !slices.Equal(c.Search.Providers, want.Search.Providers) {
		t.Errorf("search = %+v, want the defaults", c.Search)
	}
	if c.Search.Timeout != 20*time.Second || c.Hooks.WebSearch.Budget != 25*time.Second || c.Hooks.WebFetch.MaxBytes != 4<<20 {
		t.Errorf("defaults not applied: %+v %+v", c.Search, c.Hooks)
	}
	if got, want := c.StateDir, filepath.Join(home, ".local", "state", "webgate"); got != want {
		t.Errorf("StateDir = %q, want %q", got, want)
	}
	if !slices.Equal(c.Sources, []string{"defaults"}) {
		t.Errorf("Sources = %v, want [defaults]", c.Sources)
	}
	if len(c.Configured()) != 0 {
		t.Errorf("Configured = %v, want none", c.Configured())
	}
	if got := c.Origin("search.mode"); got != "default" {
		t.Errorf("Origin = %q, want default", got)
	}
}

func TestLoad_ReadsTOMLYAMLAndJSONFiles(t *testing.T) {
	files := map[string]string{
		"config.toml": `
debug = true
[search]
mode = "fallback"
providers = ["exa", "tavily"]
timeout = "12s"
provider_timeout = 4
[providers.tavily]
keys = "k1|k2"
topic = "news"
[hooks.webfetch]
max_bytes = "512KiB"
`,
		"config.yaml": `
debug: true
search:
  mode: fallback
  providers: [exa, tavily]
  timeout: 12s
  provider_timeout: 4
providers:
  tavily:
    keys: k1|k2
    topic: news
hooks:
  webfetch:
    max_bytes: 512KiB
`,
		"config.json": `{
  "debug": true,
  "search": {"mode": "fallback", "providers": "exa,tavily", "timeout": "12s", "provider_timeout": 4},
  "providers": {"tavily": {"keys": ["k1", "k2"], "topic": "news"}},
  "hooks": {"webfetch": {"max_bytes": 524288}}
}`,
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			path := writeFile(t, filepath.Join(home, ".config", "webgate", name), content)
			c := mustLoad(t, home)
			if !c.Debug || c.Search.Mode != ModeFallback || !slices.Equal(c.Search.Providers, []string{Exa, Tavily}) {
				t.Errorf("debug/search = %v %+v", c.Debug, c.Search)
			}
			if c.Search.Timeout != 12*time.Second || c.Search.ProviderTimeout != 4*time.Second {
				t.Errorf("timeouts = %v, %v; want 12s, 4s", c.Search.Timeout, c.Search.ProviderTimeout)
			}
			if c.Providers.Tavily.Topic != "news" || c.KeyCount(Tavily) != 2 {
				t.Errorf("tavily topic %q, %d keys; want news, 2", c.Providers.Tavily.Topic, c.KeyCount(Tavily))
			}
			if c.Hooks.WebFetch.MaxBytes != 512<<10 {
				t.Errorf("max_bytes = %d, want %d", c.Hooks.WebFetch.MaxBytes, 512<<10)
			}
			if !slices.Contains(c.Sources, "file "+path) {
				t.Errorf("Sources = %v, want the file", c.Sources)
			}
			if got := c.Origin("search.mode"); got != "file "+path+" key search.mode" {
				t.Errorf("Origin = %q", got)
			}
		})
	}
}

func TestLoad_EnvironmentOverridesFileWhichOverridesDefaults(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "webgate", "config.toml"), `
[search]
mode = "fallback"
timeout = "12s"
`)
	c := mustLoad(t, home, "WEBGATE_SEARCH_MODE=single")
	if c.Search.Mode != ModeSingle {
		t.Errorf("mode = %q, want the environment's single", c.Search.Mode)
	}
	if c.Search.Timeout != 12*time.Second {
		t.Errorf("timeout = %v, want the file's 12s", c.Search.Timeout)
	}
	if c.Extract.Timeout != Default().Extract.Timeout {
		t.Errorf("extract timeout = %v, want the default", c.Extract.Timeout)
	}
	if got := c.Origin("search.mode"); got != "env WEBGATE_SEARCH_MODE" {
		t.Errorf("Origin = %q", got)
	}
}

func TestLoad_WebgateVariableBeatsLegacyVariable(t *testing.T) {
	c := mustLoad(t, "",
		"CLAUDE_WEB_HOOKS_SEARCH_MODE=fallback", "WEBGATE_SEARCH_MODE=single",
		"TAVILY_API_KEY=legacy-key", "WEBGATE_PROVIDERS_TAVILY_KEYS=a|b|c",
	)
	if c.Search.Mode != ModeSingle {
		t.Errorf("mode = %q, want single from WEBGATE_SEARCH_MODE", c.Search.Mode)
	}
	if c.KeyCount(Tavily) != 3 {
		t.Errorf("tavily keys = %d, want 3 from WEBGATE_PROVIDERS_TAVILY_KEYS", c.KeyCount(Tavily))
	}
	if slices.Contains(c.Sources, "env CLAUDE_WEB_HOOKS_SEARCH_MODE") {
		t.Errorf("Sources = %v: lists a variable that was not used", c.Sources)
	}
}

func TestLoad_AcceptsEveryLegacyVariable(t *testing.T) {
	dir := t.TempDir()
	keyFile := writeFile(t, filepath.Join(dir, "wsa-keys.txt"), "# pool\nw1\nw2\n")
	tests := []struct {
		env   string
		check func(c *Config) bool
	}{
		{"TAVILY_API_KEY=t1|t2", func(c *Config) bool { return c.KeyCount(Tavily) == 2 }},
		{"EXA_API_KEY=e1", func(c *Config) bool { return c.KeyCount(Exa) == 1 }},
		{"WEBSEARCHAPI_API_KEY=" + keyFile, func(c *Config) bool { return c.KeyCount(WebSearchAPI) == 2 }},
		{"CLAUDE_WEB_HOOKS_SEARCH_MODE=fallback", func(c *Config) bool { return c.Search.Mode == ModeFallback }},
		{"CLAUDE_WEB_HOOKS_SEARCH_PROVIDERS=websearchapi, exa", func(c *Config) bool {
			return slices.Equal(c.Search.Providers, []string{WebSearchAPI, Exa})
		}},
		{"CLAUDE_WEB_HOOKS_SEARCH_PRIMARY=websearchapi", func(c *Config) bool {
			return c.Search.Primary == WebSearchAPI && c.Search.Order()[0] == WebSearchAPI
		}},
		{"CLAUDE_WEB_HOOKS_SEARCH_TIMEOUT=55", func(c *Config) bool { return c.Search.ProviderTimeout == 55*time.Second }},
		{"CLAUDE_WEB_HOOKS_WEBSEARCH_TIMEOUT=30", func(c *Config) bool { return c.Search.ProviderTimeout == 30*time.Second }},
		{"CLAUDE_WEB_HOOKS_WEBFETCH_EXTRACT_PROVIDERS=tavily", func(c *Config) bool {
			return slices.Equal(c.Extract.Providers, []string{Tavily})
		}},
		{"CLAUDE_WEB_HOOKS_WEBFETCH_EXTRACT_PRIMARY=exa", func(c *Config) bool { return c.Extract.Primary == Exa }},
		{"CLAUDE_WEB_HOOKS_WEBFETCH_EXTRACT_TIMEOUT=25", func(c *Config) bool { return c.Extract.ProviderTimeout == 25*time.Second }},
		{"CLAUDE_WEB_HOOKS_DEBUG=1", func(c *Config) bool { return c.Debug }},
		{"WEBGATE_DEBUG=true", func(c *Config) bool { return c.Debug }},
		{"TAVILY_SEARCH_DEPTH=advanced", func(c *Config) bool { return c.Providers.Tavily.SearchDepth == "advanced" }},
		{"TAVILY_MAX_RESULTS=10", func(c *Config) bool { return c.Providers.Tavily.MaxResults == 10 }},
		{"TAVILY_TOPIC=finance", func(c *Config) bool { return c.Providers.Tavily.Topic == "finance" }},
		{"TAVILY_EXTRACT_DEPTH=advanced", func(c *Config) bool { return c.Providers.Tavily.ExtractDepth == "advanced" }},
		{"EXA_SEARCH_TYPE=neural", func(c *Config) bool { return c.Providers.Exa.Type == "neural" }},
		{"EXA_MAX_RESULTS=25", func(c *Config) bool { return c.Providers.Exa.NumResults == 25 }},
		{"EXA_CATEGORY=news", func(c *Config) bool { return c.Providers.Exa.Category == "news" }},
		{"WEBSEARCHAPI_MAX_RESULTS=7", func(c *Config) bool { return c.Providers.WebSearchAPI.MaxResults == 7 }},
		{"WEBSEARCHAPI_INCLUDE_CONTENT=true", func(c *Config) bool { return c.Providers.WebSearchAPI.IncludeContent }},
		{"WEBSEARCHAPI_SCRAPE_ENGINE=direct", func(c *Config) bool { return c.Providers.WebSearchAPI.ScrapeEngine == "direct" }},
		{"TAVILY_BASE_URL=http://127.0.0.1:9/tavily/", func(c *Config) bool {
			return c.Providers.Tavily.BaseURL == "http://127.0.0.1:9/tavily"
		}},
		{"EXA_BASE_URL=http://127.0.0.1:9", func(c *Config) bool { return c.Providers.Exa.BaseURL == "http://127.0.0.1:9" }},
		{"WEBSEARCHAPI_BASE_URL=http://127.0.0.1:9", func(c *Config) bool {
			return c.Providers.WebSearchAPI.BaseURL == "http://127.0.0.1:9"
		}},
		{"WEBFETCH_PROBE_TIMEOUT=12", func(c *Config) bool { return c.Hooks.WebFetch.ProbeTimeout == 12*time.Second }},
		{"WEBGATE_WEBFETCH_ALLOW_PRIVATE=1", func(c *Config) bool { return c.Hooks.WebFetch.AllowPrivate }},
		{"WEBFETCH_PROBE_MAX_HTML_BYTES=262144", func(c *Config) bool { return c.Hooks.WebFetch.MaxBytes == 262144 }},
	}
	for _, tt := range tests {
		name, _, _ := strings.Cut(tt.env, "=")
		t.Run(name, func(t *testing.T) {
			c := mustLoad(t, "", tt.env)
			if !tt.check(c) {
				t.Errorf("%s was not applied: %+v", tt.env, c)
			}
			if !slices.Contains(c.Sources, "env "+name) {
				t.Errorf("Sources = %v, want env %s", c.Sources, name)
			}
		})
	}
}

func TestLoad_LegacyDebugZeroMeansOff(t *testing.T) {
	c := mustLoad(t, "", "CLAUDE_WEB_HOOKS_DEBUG=0")
	if c.Debug {
		t.Error("CLAUDE_WEB_HOOKS_DEBUG=0 turned debug on")
	}
}

func TestLoad_ReadsDurationsAsSecondsOrGoDurations(t *testing.T) {
	tests := map[string]time.Duration{
		"25":    25 * time.Second,
		"2.5":   2500 * time.Millisecond,
		"1m30s": 90 * time.Second,
		"500ms": 500 * time.Millisecond,
		" 5s ":  5 * time.Second,
		"0":     0,
	}
	for in, want := range tests {
		c := mustLoad(t, "", "WEBGATE_SEARCH_HEDGE_DELAY="+in)
		if c.Search.HedgeDelay != want {
			t.Errorf("%q gave %v, want %v", in, c.Search.HedgeDelay, want)
		}
	}
}

func TestLoad_TreatsBlankVariablesAsUnset(t *testing.T) {
	c := mustLoad(t, "", "WEBGATE_SEARCH_MODE=", "CLAUDE_WEB_HOOKS_SEARCH_MODE=fallback", "TAVILY_API_KEY=  ")
	if c.Search.Mode != ModeFallback {
		t.Errorf("mode = %q, want the legacy fallback behind a blank WEBGATE_ variable", c.Search.Mode)
	}
	if c.KeyCount(Tavily) != 0 {
		t.Errorf("a blank key variable gave %d keys", c.KeyCount(Tavily))
	}
}

func TestLoad_FindsTheFileInXDGConfigHome(t *testing.T) {
	home := t.TempDir()
	xdg := t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "webgate", "config.toml"), `search.mode = "single"`)
	path := writeFile(t, filepath.Join(xdg, "webgate", "config.yaml"), "search:\n  mode: fallback\n")
	c := mustLoad(t, home, "XDG_CONFIG_HOME="+xdg)
	if c.Search.Mode != ModeFallback || !slices.Contains(c.Sources, "file "+path) {
		t.Errorf("mode %q, sources %v: want the XDG_CONFIG_HOME file", c.Search.Mode, c.Sources)
	}
}

func TestLoad_PrefersTOMLOverYAMLOverJSONInTheSameDirectory(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "webgate")
	writeFile(t, filepath.Join(dir, "config.json"), `{"search": {"mode": "single"}}`)
	writeFile(t, filepath.Join(dir, "config.yaml"), "search:\n  mode: fallback\n")
	if c := mustLoad(t, home); c.Search.Mode != ModeFallback {
		t.Errorf("mode = %q, want the YAML file's fallback", c.Search.Mode)
	}
}

func TestLoad_ReadsTheFileWebgateConfigNamesWithTildeExpanded(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "webgate", "config.toml"), `search.mode = "single"`)
	path := writeFile(t, filepath.Join(home, "elsewhere", "wg.json"), `{"search": {"mode": "fallback"}}`)
	c := mustLoad(t, home, "WEBGATE_CONFIG=~/elsewhere/wg.json")
	if c.Search.Mode != ModeFallback {
		t.Errorf("mode = %q, want the named file's fallback", c.Search.Mode)
	}
	if want := []string{"defaults", "env WEBGATE_CONFIG", "file " + path}; !slices.Equal(c.Sources, want) {
		t.Errorf("Sources = %v, want %v", c.Sources, want)
	}
}

func TestLoad_ConfigFileOptionBeatsWebgateConfig(t *testing.T) {
	home := t.TempDir()
	a := writeFile(t, filepath.Join(home, "a.toml"), `search.mode = "single"`)
	b := writeFile(t, filepath.Join(home, "b.toml"), `search.mode = "fallback"`)
	c, err := Load(&LoadOptions{HomeDir: home, ConfigFile: a, Env: []string{"WEBGATE_CONFIG=" + b}})
	if err != nil || c.Search.Mode != ModeSingle {
		t.Errorf("mode %q, err %v: want the ConfigFile option's single", c.Search.Mode, err)
	}
}

func TestLoad_ReportsAMissingNamedFileAndKeepsGoing(t *testing.T) {
	home := t.TempDir()
	c, err := load(t, home, "WEBGATE_CONFIG=/nonexistent/webgate.toml", "WEBGATE_SEARCH_MODE=fallback")
	ps := problems(t, err)
	if len(ps) != 1 || ps[0].Key != "config file" || ps[0].Source != "env WEBGATE_CONFIG" ||
		!strings.Contains(ps[0].Message, "/nonexistent/webgate.toml") {
		t.Errorf("problems = %v", err)
	}
	if c == nil || c.Search.Mode != ModeFallback {
		t.Errorf("the environment was not applied after a file problem")
	}
}

func TestLoad_ReportsAFileThatDoesNotParse(t *testing.T) {
	home := t.TempDir()
	path := writeFile(t, filepath.Join(home, ".config", "webgate", "config.toml"), "[search\nmode = ")
	c, err := load(t, home)
	ps := problems(t, err)
	if len(ps) != 1 || !strings.Contains(ps[0].Error(), "cannot parse "+path) {
		t.Errorf("problems = %v", err)
	}
	if c.Search.Mode != ModeParallel {
		t.Errorf("mode = %q, want the default", c.Search.Mode)
	}
}

func TestLoad_ReportsEveryInvalidValueTogetherAndKeepsDefaults(t *testing.T) {
	home := t.TempDir()
	path := writeFile(t, filepath.Join(home, ".config", "webgate", "config.toml"), `
[search]
mode = "sideways"
providers = ["tavily", "bing"]
timeout = "-5s"
tiemout = "5s"
[hooks]
max_reason_chars = 0
[hooks.webfetch]
budget = "0s"
`)
	c, err := load(t, home,
		"WEBGATE_DEBUG=perhaps",
		"WEBGATE_EXTRACT_TIMEOUT=soon",
		"TAVILY_MAX_RESULTS=50",
		"EXA_SEARCH_TYPE=psychic",
		"WEBGATE_PROVIDERS_EXA_BASE_URL=ftp://example.invalid",
		"WEBGATE_HOOKS_WEBFETCH_MAX_BYTES=lots",
	)
	want := map[string]string{
		"search.mode (file " + path + " key search.mode)":                       "not one of parallel, fallback, single",
		"search.providers (file " + path + " key search.providers)":             "item 2 is not one of tavily, exa, websearchapi",
		"search.timeout (file " + path + " key search.timeout)":                 "must not be negative",
		"search.tiemout (file " + path + ")":                                    "unknown setting",
		"hooks.max_reason_chars (file " + path + " key hooks.max_reason_chars)": "must be more than 0",
		"hooks.webfetch.budget (file " + path + " key hooks.webfetch.budget)":   "must be more than 0s",
		"debug (env WEBGATE_DEBUG)":                                             "not a boolean",
		"extract.timeout (env WEBGATE_EXTRACT_TIMEOUT)":                         "not a duration",
		"providers.tavily.max_results (env TAVILY_MAX_RESULTS)":                 "must be between 1 and 20",
		"providers.exa.search_type (env EXA_SEARCH_TYPE)":                       "not one of auto, neural",
		"providers.exa.base_url (env WEBGATE_PROVIDERS_EXA_BASE_URL)":           "not an absolute http or https URL",
		"hooks.webfetch.max_bytes (env WEBGATE_HOOKS_WEBFETCH_MAX_BYTES)":       "not a size",
	}
	ps := problems(t, err)
	if len(ps) != len(want) {
		t.Errorf("got %d problems, want %d:\n%v", len(ps), len(want), err)
	}
	for _, p := range ps {
		prefix, _, _ := strings.Cut(p.Error(), ": ")
		msg, ok := want[prefix]
		if !ok {
			t.Errorf("unexpected problem %q", p.Error())
			continue
		}
		if !strings.Contains(p.Message, msg) {
			t.Errorf("%s: message %q does not say %q", prefix, p.Message, msg)
		}
	}
	for _, v := range []string{"sideways", "bing", "perhaps", "soon", "psychic", "ftp://", "lots"} {
		if strings.Contains(err.Error(), v) {
			t.Errorf("the error repeats the value %q:\n%v", v, err)
		}
	}
	d := Default()
	if c.Search.Mode != d.Search.Mode || !slices.Equal(c.Search.Providers, d.Search.Providers) ||
		c.Search.Timeout != d.Search.Timeout || c.Debug || c.Extract.Timeout != d.Extract.Timeout ||
		c.Providers.Tavily.MaxResults != 5 || c.Providers.Exa.Type != "auto" ||
		c.Hooks.MaxReasonChars != gate.DefaultMaxReasonChars || c.Hooks.WebFetch.Budget != d.Hooks.WebFetch.Budget {
		t.Errorf("invalid settings did not keep their defaults: %+v", c)
	}
}

func TestLoad_InvalidVariableKeepsTheFileValue(t *testing.T) {
	home := t.TempDir()
	path := writeFile(t, filepath.Join(home, ".config", "webgate", "config.toml"), `search.mode = "fallback"`)
	c, err := load(t, home, "WEBGATE_SEARCH_MODE=bogus")
	if err == nil || c.Search.Mode != ModeFallback {
		t.Errorf("mode = %q, err = %v: want the file's fallback and a problem", c.Search.Mode, err)
	}
	if got := c.Origin("search.mode"); got != "file "+path+" key search.mode" {
		t.Errorf("Origin = %q, want the file", got)
	}
}

func TestLoad_ReadsKeyFilesWithTildeExpanded(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "keys", "exa.json"), `["e1", "e2", "e3"]`)
	writeFile(t, filepath.Join(home, "keys", "tavily.txt"), "t1\n\n# old\nt2\n")
	c := mustLoad(t, home, "EXA_API_KEY=~/keys/exa.json", "TAVILY_API_KEY=~/keys/tavily.txt")
	if c.KeyCount(Exa) != 3 || c.KeyCount(Tavily) != 2 {
		t.Errorf("key counts exa %d tavily %d, want 3 and 2", c.KeyCount(Exa), c.KeyCount(Tavily))
	}
	if p := c.Pool(Exa); p == nil || p.Len() != 3 {
		t.Errorf("Pool(exa) = %v, want 3 keys", p)
	}
	if c.Pool(WebSearchAPI) != nil || c.Pool("bing") != nil {
		t.Error("Pool returned a pool for a provider without keys")
	}
	if got := c.Configured(); !slices.Equal(got, []string{Tavily, Exa}) {
		t.Errorf("Configured = %v", got)
	}
}

func TestLoad_ReportsAnUnreadableKeyFileByPathOnly(t *testing.T) {
	home := t.TempDir()
	c, err := load(t, home, "TAVILY_API_KEY=~/missing-keys.txt", "EXA_API_KEY="+secret)
	ps := problems(t, err)
	if len(ps) != 1 || ps[0].Key != "providers.tavily.keys" || ps[0].Source != "env TAVILY_API_KEY" ||
		!strings.Contains(ps[0].Message, filepath.Join(home, "missing-keys.txt")) {
		t.Errorf("problems = %v", err)
	}
	if c.KeyCount(Tavily) != 0 || c.KeyCount(Exa) != 1 {
		t.Errorf("key counts tavily %d exa %d, want 0 and 1", c.KeyCount(Tavily), c.KeyCount(Exa))
	}
}

func TestLoad_UsesEveryUsableSearchProviderOfTheDefaultOrder(t *testing.T) {
	c := mustLoad(t, "", "EXA_API_KEY=e1", "SEARXNG_URL=http://127.0.0.1:8888")
	if want := []string{Exa, SearXNG}; !slices.Equal(c.SearchProviders(), want) {
		t.Errorf("search providers = %v, want %v", c.SearchProviders(), want)
	}
	c = mustLoad(t, "", "EXA_API_KEY=e1", "CLAUDE_WEB_HOOKS_SEARCH_PROVIDERS=tavily")
	if want := []string{Tavily}; !slices.Equal(c.Search.Providers, want) {
		t.Errorf("providers = %v, want the explicit %v", c.Search.Providers, want)
	}
	if got := c.SearchProviders(); len(got) != 0 {
		t.Errorf("search providers = %v, want none (tavily has no keys)", got)
	}
}

func TestLoad_UsesJinaReaderWithoutAKeyOnlyWhenEnabled(t *testing.T) {
	c := mustLoad(t, "")
	if slices.Contains(c.ExtractProviders(), Jina) {
		t.Errorf("extract providers = %v: jina without a key and without keyless", c.ExtractProviders())
	}
	c = mustLoad(t, "", "WEBGATE_PROVIDERS_JINA_KEYLESS=1")
	if want := []string{Jina}; !slices.Equal(c.ExtractProviders(), want) {
		t.Errorf("extract providers = %v, want %v", c.ExtractProviders(), want)
	}
	if got := c.SearchProviders(); slices.Contains(got, Jina) {
		t.Errorf("search providers = %v: Jina Search needs a key", got)
	}
}

func TestLoad_DerivesTheStateDirFromXDGStateHome(t *testing.T) {
	home := t.TempDir()
	c := mustLoad(t, home, "XDG_STATE_HOME=/var/state")
	if c.StateDir != "/var/state/webgate" {
		t.Errorf("StateDir = %q", c.StateDir)
	}
	c = mustLoad(t, home, "XDG_STATE_HOME=/var/state", "WEBGATE_STATE_DIR=~/wg-state")
	if c.StateDir != filepath.Join(home, "wg-state") {
		t.Errorf("StateDir = %q, want the expanded WEBGATE_STATE_DIR", c.StateDir)
	}
}

// A relative path in a path setting (state_dir, store.salt_file,
// docs.config, routes.config), from the environment or the file, is
// ignored with a reason and the default kept, as a relative
// XDG_CONFIG_HOME is: it would name a place in the working directory of
// whatever runs webgate.
func TestLoad_IgnoresRelativePaths(t *testing.T) {
	home := t.TempDir()
	c := mustLoad(t, home, "WEBGATE_STATE_DIR=relative/dir", "WEBGATE_STORE_SALT_FILE=salt", "WEBGATE_DOCS_CONFIG=./docs.json", "WEBGATE_TOOL_ROUTES=routes.json")
	if c.StateDir != filepath.Join(home, ".local", "state", "webgate") || c.Store.SaltFile != "" || c.Docs.Config != "" || c.Routes.Config != "" {
		t.Errorf("state %q salt %q docs %q routes %q: want the defaults", c.StateDir, c.Store.SaltFile, c.Docs.Config, c.Routes.Config)
	}
	ign := strings.Join(c.Ignored(), "\n")
	for _, want := range []string{"state_dir (env WEBGATE_STATE_DIR): ignored, not an absolute path", "store.salt_file (env WEBGATE_STORE_SALT_FILE)", "docs.config (env WEBGATE_DOCS_CONFIG)", "routes.config (env WEBGATE_TOOL_ROUTES)"} {
		if !strings.Contains(ign, want) {
			t.Errorf("Ignored() lacks %q:\n%s", want, ign)
		}
	}
	if strings.Contains(ign, "relative/dir") {
		t.Errorf("Ignored() repeats the value:\n%s", ign)
	}
	writeFile(t, filepath.Join(home, ".config", "webgate", "config.toml"), "state_dir = \"rel/state\"\n")
	if c := mustLoad(t, home); c.StateDir != filepath.Join(home, ".local", "state", "webgate") || len(c.Ignored()) != 1 {
		t.Errorf("StateDir %q, ignored %v: want the default", c.StateDir, c.Ignored())
	}
	// "~" with no home directory known cannot be expanded: ignored too.
	c, _ = Load(&LoadOptions{Env: []string{"WEBGATE_STATE_DIR=~/state", "XDG_STATE_HOME=/x/state"}})
	if c.StateDir != "/x/state/webgate" || len(c.Ignored()) != 1 {
		t.Errorf("StateDir %q, ignored %v", c.StateDir, c.Ignored())
	}
	if c := mustLoad(t, home, "WEBGATE_STATE_DIR=~/state"); c.StateDir != filepath.Join(home, "state") || len(c.Ignored()) != 0 {
		t.Errorf("StateDir %q, ignored %v: ~/ is expanded", c.StateDir, c.Ignored())
	}
}

func TestLoad_ReadsDocsAndRoutesFromTheFile(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "webgate", "config.yaml"), `
docs:
  config: ~/docsearch-config.json
  databases:
    - keywords: [kubernetes, kubectl]
      path: /srv/docs/k8s
      mcp_tool_name: mcp__docsearch__search
      description: Kubernetes docs
routes:
  tool_routes:
    - name: github
      tool: WebFetch
      pattern: '^https://github\.com/'
      message: Use gh instead.
      tests:
        - {input: "https://github.com/a/b", expect: block, contains: gh}
        - {input: "https://example.com", expect: allow}
`)
	c := mustLoad(t, home, "WEBGATE_TOOL_ROUTES=/etc/webgate/tool-routes.json")
	if c.Docs.Config != filepath.Join(home, "docsearch-config.json") {
		t.Errorf("docs.config = %q", c.Docs.Config)
	}
	if len(c.Docs.Databases) != 1 || !slices.Equal(c.Docs.Databases[0].Keywords, []string{"kubernetes", "kubectl"}) ||
		c.Docs.Databases[0].MCPToolName != "mcp__docsearch__search" {
		t.Errorf("docs.databases = %+v", c.Docs.Databases)
	}
	if c.Routes.Config != "/etc/webgate/tool-routes.json" {
		t.Errorf("routes.config = %q", c.Routes.Config)
	}
	r := c.Routes.ToolRoutes
	if len(r) != 1 || r[0].Tool != "WebFetch" || len(r[0].Tests) != 2 || r[0].Tests[0].Contains != "gh" {
		t.Errorf("routes.tool_routes = %+v", r)
	}
}

func TestLoad_ReportsAMisspeltFieldInATable(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "webgate", "config.toml"), `
[[docs.databases]]
keyword = ["go"]
path = "/x"
`)
	c, err := load(t, home)
	ps := problems(t, err)
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "item 1 has an unknown field keyword") {
		t.Errorf("problems = %v", err)
	}
	if len(c.Docs.Databases) != 0 {
		t.Errorf("databases = %+v, want none", c.Docs.Databases)
	}
}

func TestLoad_NeverPrintsAKey(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "webgate", "config.toml"), `
[providers.exa]
keys = ["`+secret+`-exa"]
`)
	c, err := load(t, home,
		"TAVILY_API_KEY="+secret+"|"+secret+"-2",
		"WEBSEARCHAPI_API_KEY="+secret+"-wsa",
		// A key pasted into the wrong variable must not be echoed either.
		"TAVILY_TOPIC="+secret,
		"WEBGATE_SEARCH_TIMEOUT="+secret,
	)
	if err == nil {
		t.Fatal("want problems for the misplaced keys")
	}
	b, jerr := json.Marshal(c)
	if jerr != nil {
		t.Fatal(jerr)
	}
	outputs := []string{
		fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprint(*c),
		fmt.Sprintf("%v %s", c.Providers.Tavily.Keys, c.Providers.Exa.Keys),
		string(b), err.Error(), strings.Join(c.Sources, " "),
	}
	for _, s := range Settings() {
		outputs = append(outputs, c.Origin(s.Key))
	}
	for _, out := range outputs {
		if strings.Contains(out, secret) {
			t.Errorf("output contains a key:\n%s", out)
		}
	}
	if c.KeyCount(Tavily) != 2 || c.KeyCount(Exa) != 1 || c.KeyCount(WebSearchAPI) != 1 {
		t.Errorf("key counts %d %d %d", c.KeyCount(Tavily), c.KeyCount(Exa), c.KeyCount(WebSearchAPI))
	}
	if got := c.Providers.Tavily.Keys.String(); got != "[redacted]" {
		t.Errorf("KeySpec.String = %q", got)
	}
	if got := KeySpec("~/keys.txt").String(); got != "file ~/keys.txt" {
		t.Errorf("KeySpec.String of a path = %q", got)
	}
}

func TestLoad_DoesNotQuoteAKeyFromAMalformedFile(t *testing.T) {
	files := map[string]string{
		"config.toml": "[providers.tavily]\nkeys = " + secret + "\n",
		"config.yaml": "providers:\n  tavily:\n    keys: [" + secret + "\n",
		"config.json": `{"providers": {"tavily": {"keys": ` + secret + `}}}`,
	}
	for name, content := range files {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, ".config", "webgate", name), content)
		_, err := load(t, home)
		if err == nil || !strings.Contains(err.Error(), "cannot parse") {
			t.Errorf("%s: err = %v, want a parse problem", name, err)
			continue
		}
		// Not even a fragment: the key's distinctive middle must not show.
		if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "7f3a9c") {
			t.Errorf("%s: the error quotes the key: %v", name, err)
		}
	}
}

func TestOrder_PutsPrimaryFirstWithoutDuplicates(t *testing.T) {
	s := SearchConfig{Providers: []string{Tavily, WebSearchAPI}, Primary: WebSearchAPI}
	if got := s.Order(); !slices.Equal(got, []string{WebSearchAPI, Tavily}) {
		t.Errorf("Order = %v", got)
	}
	s.Primary = Exa
	if got := s.Order(); !slices.Equal(got, []string{Exa, Tavily, WebSearchAPI}) {
		t.Errorf("Order with a primary outside the list = %v", got)
	}
	e := ExtractConfig{Providers: []string{WebSearchAPI, Tavily, Exa}}
	if got := e.Order(); !slices.Equal(got, []string{WebSearchAPI, Tavily, Exa}) {
		t.Errorf("Order without primary = %v", got)
	}
}

func TestLoad_NormalisesCaseAndDropsRepeatedProviders(t *testing.T) {
	c := mustLoad(t, "", "WEBGATE_SEARCH_MODE=Fallback", "WEBGATE_SEARCH_PROVIDERS=Tavily,EXA,tavily")
	if c.Search.Mode != ModeFallback || !slices.Equal(c.Search.Providers, []string{Tavily, Exa}) {
		t.Errorf("search = %+v", c.Search)
	}
}

func TestLoad_RejectsAnEmptyProviderList(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "webgate", "config.json"), `{"extract": {"providers": []}}`)
	c, err := load(t, home)
	ps := problems(t, err)
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "must name at least one") {
		t.Errorf("problems = %v", err)
	}
	if !slices.Equal(c.Extract.Providers, Default().Extract.Providers) {
		t.Errorf("extract.providers = %v, want the default", c.Extract.Providers)
	}
}

func TestSettings_DeriveVariableNamesFromKeys(t *testing.T) {
	want := map[string]string{
		"search.mode":           "WEBGATE_SEARCH_MODE",
		"providers.tavily.keys": "WEBGATE_PROVIDERS_TAVILY_KEYS",
		"debug":                 "WEBGATE_DEBUG",
		"docs.config":           "WEBGATE_DOCS_CONFIG",
		"routes.config":         "WEBGATE_TOOL_ROUTES",
		"docs.databases":        "",
		"routes.tool_routes":    "",
	}
	seen := map[string]string{}
	for _, s := range Settings() {
		if w, ok := want[s.Key]; ok && s.Env != w {
			t.Errorf("%s: env %q, want %q", s.Key, s.Env, w)
		}
		for _, name := range append([]string{s.Env}, s.Legacy...) {
			if name == "" {
				continue
			}
			if other, dup := seen[name]; dup {
				t.Errorf("variable %s is used by %s and %s", name, other, s.Key)
			}
			seen[name] = s.Key
		}
	}
}

// Claude Code's settings directory and project root come from the
// environment the hooks get; a relative path is no directory, "~/" is the
// home directory.
func TestLoad_ClaudeDirsComeFromTheEnvironment(t *testing.T) {
	home := t.TempDir()
	c := mustLoad(t, home, "CLAUDE_CONFIG_DIR=~/claude-config", "CLAUDE_PROJECT_DIR=/work/proj/")
	if cd, pd := c.ClaudeDirs(); cd != filepath.Join(home, "claude-config") || pd != "/work/proj" {
		t.Errorf("ClaudeDirs = %q, %q", cd, pd)
	}
	c = mustLoad(t, home, "CLAUDE_PROJECT_DIR=relative/proj")
	if cd, pd := c.ClaudeDirs(); cd != "" || pd != "" {
		t.Errorf("ClaudeDirs without absolute directories = %q, %q", cd, pd)
	}
}

// TestConfig_FilesAreWhatTheLoaderLookedAtAndRead checks that Files lists
// every default file name of the configuration directory (one that appears
// changes the configuration), the routes files and the key files, and no
// key that is not a file.
func TestConfig_FilesAreWhatTheLoaderLookedAtAndRead(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "webgate")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(home, "tavily.keys")
	if err := os.WriteFile(keyFile, []byte("tvly-FILES-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("routes:\n  config: ~/routes.toml\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(&LoadOptions{HomeDir: home, Env: []string{"HOME=" + home, "TAVILY_API_KEY=~/tavily.keys", "EXA_API_KEY=exa-not-a-file-0123"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "config.json"), filepath.Join(dir, "config.toml"), filepath.Join(dir, "config.yaml"), filepath.Join(dir, "config.yml"), filepath.Join(home, "routes.toml"), keyFile}
	slices.Sort(want)
	if got := cfg.Files(); !slices.Equal(got, want) {
		t.Errorf("Files() =\n%q\nwant\n%q", got, want)
	}
	explicit := filepath.Join(home, "other.toml")
	cfg, _ = Load(&LoadOptions{HomeDir: home, Env: []string{"WEBGATE_CONFIG=" + explicit}})
	if got := cfg.Files(); !slices.Equal(got, []string{explicit}) {
		t.Errorf("with WEBGATE_CONFIG: Files() = %q, want only %q", got, explicit)
	}
}
