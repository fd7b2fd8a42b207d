package config

import (
	"slices"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/routing"
)

// Provider names, as used in provider lists and under providers.
const (
	Tavily       = "tavily"
	Exa          = "exa"
	WebSearchAPI = "websearchapi"
)

// ProviderNames lists every provider the configuration knows, in a stable
// order.
var ProviderNames = []string{Tavily, Exa, WebSearchAPI}

// Search modes (search.mode).
const (
	// ModeParallel asks every configured provider at once and merges what
	// comes back.
	ModeParallel = "parallel"
	// ModeFallback asks the providers one after another, stopping at the
	// first that answers.
	ModeFallback = "fallback"
	// ModeSingle asks only the first provider of the order (the primary,
	// when one is set).
	ModeSingle = "single"
)

// Config is webgate's whole configuration. [Load] fills it from defaults, a
// file and the environment; [Default] returns the defaults alone.
//
// Every field's koanf tag is its key in a configuration file; the env tag,
// when present, overrides the environment variable name derived from the key
// (see the package documentation), and the legacy tag lists older variable
// names still accepted. The reference in the README is checked
// against these tags by the package's tests.
//
// A loaded Config may be read from several goroutines at once; its methods
// do not modify it.
type Config struct {
	// Debug turns on diagnostic output on stderr. API keys never appear in
	// it.
	Debug bool `koanf:"debug" legacy:"CLAUDE_WEB_HOOKS_DEBUG"`
	// StateDir is where hooks keep small state files (for example routing
	// memory). Default $XDG_STATE_HOME/webgate, else
	// ~/.local/state/webgate. A leading "~/" is expanded.
	StateDir string `koanf:"state_dir"`

	// Search configures web search.
	Search SearchConfig `koanf:"search"`
	// Extract configures page extraction (the WebFetch replacement).
	Extract ExtractConfig `koanf:"extract"`
	// Providers holds each provider's keys and options.
	Providers ProvidersConfig `koanf:"providers"`
	// Hooks configures the hook binaries.
	Hooks HooksConfig `koanf:"hooks"`
	// Docs configures routing of documentation questions to local indexes.
	Docs DocsConfig `koanf:"docs"`
	// Routes configures tool routes (WebFetch URLs or Bash commands sent
	// elsewhere).
	Routes RoutesConfig `koanf:"routes"`

	// Sources lists where the configuration came from, in the order
	// applied: "defaults", "file PATH", and "env NAME" for every environment
	// variable used. Names only, never values.
	Sources []string `koanf:"-"`

	// origins maps a setting's key to where its value came from.
	origins map[string]string
}

// SearchConfig configures web search.
type SearchConfig struct {
	// Mode is how the providers are combined: "parallel" (ask all, merge),
	// "fallback" (one after another) or "single" (only the first).
	Mode string `koanf:"mode" legacy:"CLAUDE_WEB_HOOKS_SEARCH_MODE" enum:"parallel,fallback,single"`
	// Providers is the order of the search providers. Providers without
	// keys are skipped. When no source sets it and exa has keys, exa is
	// appended to the default order.
	Providers []string `koanf:"providers" legacy:"CLAUDE_WEB_HOOKS_SEARCH_PROVIDERS" enum:"tavily,exa,websearchapi"`
	// Primary, when set, moves that provider to the front of the order,
	// adding it when the order lacks it.
	Primary string `koanf:"primary" legacy:"CLAUDE_WEB_HOOKS_SEARCH_PRIMARY" enum:",tavily,exa,websearchapi"`
	// Timeout is the budget for one whole search, all providers and
	// retries included. A deadline of the caller (a hook's budget) may
	// shorten it; 0 means the policy's default, 20s.
	Timeout time.Duration `koanf:"timeout"`
	// ProviderTimeout bounds each provider's part of a search, never
	// beyond Timeout. 0 lets the policy choose: in parallel mode the
	// whole budget less a small margin, in fallback mode an even share of
	// the remaining budget among the providers not yet tried.
	ProviderTimeout time.Duration `koanf:"provider_timeout" legacy:"CLAUDE_WEB_HOOKS_SEARCH_TIMEOUT,CLAUDE_WEB_HOOKS_WEBSEARCH_TIMEOUT"`
	// HedgeDelay, in fallback mode, starts the next provider when the
	// running ones have not answered after this long, without canceling
	// them; the first success wins. 0 disables hedging.
	HedgeDelay time.Duration `koanf:"hedge_delay"`
	// MaxResults caps the number of results returned. 0 means 10 in
	// parallel mode and the provider's own count (its max_results) in
	// fallback and single modes.
	MaxResults int `koanf:"max_results" min:"0"`
}

// ExtractConfig configures page extraction. Extraction always tries the
// providers one after another, stopping at the first that returns content.
type ExtractConfig struct {
	// Providers is the order of the extraction providers. Providers
	// without keys are skipped.
	Providers []string `koanf:"providers" legacy:"CLAUDE_WEB_HOOKS_WEBFETCH_EXTRACT_PROVIDERS" enum:"tavily,exa,websearchapi"`
	// Primary, when set, is tried first. When it is empty, each
	// extraction starts with a provider picked at random, to spread credit
	// use, and goes on in order.
	Primary string `koanf:"primary" legacy:"CLAUDE_WEB_HOOKS_WEBFETCH_EXTRACT_PRIMARY" enum:",tavily,exa,websearchapi"`
	// Timeout is the budget for one whole extraction, all providers
	// included. A deadline of the caller may shorten it; 0 means the
	// policy's default, 20s.
	Timeout time.Duration `koanf:"timeout"`
	// ProviderTimeout bounds each provider's attempt, never beyond
	// Timeout. 0 means an even share of the remaining budget among the
	// providers not yet tried.
	ProviderTimeout time.Duration `koanf:"provider_timeout" legacy:"CLAUDE_WEB_HOOKS_WEBFETCH_EXTRACT_TIMEOUT"`
	// HedgeDelay starts the next provider when the running ones have not
	// answered after this long, without canceling them; the first success
	// wins. 0 disables hedging.
	HedgeDelay time.Duration `koanf:"hedge_delay"`
}

// ProvidersConfig holds the per-provider sections.
type ProvidersConfig struct {
	// Tavily configures Tavily (search and extraction).
	Tavily TavilyConfig `koanf:"tavily"`
	// Exa configures Exa (search and extraction).
	Exa ExaConfig `koanf:"exa"`
	// WebSearchAPI configures WebSearchAPI.ai (search and extraction).
	WebSearchAPI WebSearchAPIConfig `koanf:"websearchapi"`
}

// TavilyConfig configures the Tavily provider.
type TavilyConfig struct {
	// Keys is the key specification: one key, "k1|k2" for a pool, or the
	// path of a key file (see [provider.ParseKeys]; "~/" is expanded).
	Keys KeySpec `koanf:"keys" legacy:"TAVILY_API_KEY"`
	// BaseURL is the API's base URL.
	BaseURL string `koanf:"base_url" legacy:"TAVILY_BASE_URL" format:"url"`
	// KeyOrder is how the key pool orders keys per request: "shuffle" or
	// "round-robin".
	KeyOrder string `koanf:"key_order" enum:"shuffle,round-robin"`
	// SearchDepth is Tavily's search_depth: "basic", "advanced", "fast" or
	// "ultra-fast".
	SearchDepth string `koanf:"search_depth" legacy:"TAVILY_SEARCH_DEPTH" enum:"basic,advanced,fast,ultra-fast"`
	// Topic is Tavily's topic: "general", "news" or "finance".
	Topic string `koanf:"topic" legacy:"TAVILY_TOPIC" enum:"general,news,finance"`
	// MaxResults is the number of results asked for when a search leaves
	// it open (1 to 20).
	MaxResults int `koanf:"max_results" legacy:"TAVILY_MAX_RESULTS" min:"1" max:"20"`
	// ExtractDepth is Tavily's extract_depth: "basic" or "advanced".
	ExtractDepth string `koanf:"extract_depth" legacy:"TAVILY_EXTRACT_DEPTH" enum:"basic,advanced"`

	keys *keyState
}

// ExaConfig configures the Exa provider.
type ExaConfig struct {
	// Keys is the key specification (see [TavilyConfig.Keys]).
	Keys KeySpec `koanf:"keys" legacy:"EXA_API_KEY"`
	// BaseURL is the API's base URL.
	BaseURL string `koanf:"base_url" legacy:"EXA_BASE_URL" format:"url"`
	// KeyOrder is how the key pool orders keys per request.
	KeyOrder string `koanf:"key_order" enum:"shuffle,round-robin"`
	// SearchType is Exa's search type: "auto", "neural", "fast",
	// "instant", "deep-lite", "deep", "deep-reasoning", "keyword" or
	// "hybrid".
	SearchType string `koanf:"search_type" legacy:"EXA_SEARCH_TYPE" enum:"auto,neural,fast,instant,deep-lite,deep,deep-reasoning,keyword,hybrid"`
	// MaxResults is the number of results asked for when a search leaves
	// it open (1 to 100).
	MaxResults int `koanf:"max_results" legacy:"EXA_MAX_RESULTS" min:"1" max:"100"`
	// Category restricts results to one of Exa's categories: "company",
	// "research paper", "news", "pdf", "github", "personal site",
	// "people" or "financial report"; empty means none.
	Category string `koanf:"category" legacy:"EXA_CATEGORY" enum:",company,research paper,news,pdf,github,personal site,people,financial report"`

	keys *keyState
}

// WebSearchAPIConfig configures the WebSearchAPI.ai provider.
type WebSearchAPIConfig struct {
	// Keys is the key specification (see [TavilyConfig.Keys]).
	Keys KeySpec `koanf:"keys" legacy:"WEBSEARCHAPI_API_KEY"`
	// BaseURL is the API's base URL.
	BaseURL string `koanf:"base_url" legacy:"WEBSEARCHAPI_BASE_URL" format:"url"`
	// KeyOrder is how the key pool orders keys per request.
	KeyOrder string `koanf:"key_order" enum:"shuffle,round-robin"`
	// MaxResults is the number of results asked for when a search leaves
	// it open (1 to 20).
	MaxResults int `koanf:"max_results" legacy:"WEBSEARCHAPI_MAX_RESULTS" min:"1" max:"20"`
	// IncludeContent asks for a longer extract of every result page, which
	// makes searches slower.
	IncludeContent bool `koanf:"include_content" legacy:"WEBSEARCHAPI_INCLUDE_CONTENT"`
	// ScrapeEngine is how pages are fetched for extraction: "browser"
	// (renders JavaScript), "direct" or "cf-browser-rendering".
	ScrapeEngine string `koanf:"scrape_engine" legacy:"WEBSEARCHAPI_SCRAPE_ENGINE" enum:"browser,direct,cf-browser-rendering"`

	keys *keyState
}

// HooksConfig configures the hook binaries.
type HooksConfig struct {
	// MaxReasonChars caps the text a hook hands the agent (a denial reason
	// or additional context). Claude Code saves longer hook output to a
	// file past 10,000 characters, so the default stays below that.
	MaxReasonChars int `koanf:"max_reason_chars" min:"1"`
	// SystemMessage makes hooks add a one-line systemMessage telling the
	// user what they did.
	SystemMessage bool `koanf:"system_message"`
	// SessionStart makes the web search hook answer SessionStart with a
	// short index of the docs databases and tool routes (one line each) as
	// additional context for the agent. Off by default.
	SessionStart bool `koanf:"session_start"`
	// WebSearch configures the web search hook.
	WebSearch WebSearchHookConfig `koanf:"websearch"`
	// WebFetch configures the web fetch hook.
	WebFetch WebFetchHookConfig `koanf:"webfetch"`
}

// WebSearchHookConfig configures the web search hook.
type WebSearchHookConfig struct {
	// Budget is the hook's whole deadline; past it the hook steps aside.
	// Keep it below the agent's hook timeout (30s by default in Copilot
	// CLI and VS Code; set per hook in Claude Code).
	Budget time.Duration `koanf:"budget" min:"1"`
	// ToolNames are the tool names the hook answers for; other tools are
	// left alone. Add the names other agents use for web search.
	ToolNames []string `koanf:"tool_names"`
	// MCPToolNames are MCP search tools (glob patterns allowed) whose
	// results get a provider-backed companion on PostToolUse and a fallback
	// on PostToolUseFailure.
	MCPToolNames []string `koanf:"mcp_tool_names"`
}

// WebFetchHookConfig configures the web fetch hook.
type WebFetchHookConfig struct {
	// Budget is the hook's whole deadline, probe and extraction included;
	// past it the hook steps aside.
	Budget time.Duration `koanf:"budget" min:"1"`
	// ToolNames are the tool names the hook answers for ("WebFetch" in
	// Claude Code, "web_fetch" in Copilot CLI).
	ToolNames []string `koanf:"tool_names"`
	// MaxBytes caps how much of a page the probe reads. Accepts a number
	// of bytes or a size such as "4MiB" or "512KiB".
	MaxBytes int `koanf:"max_bytes" legacy:"WEBFETCH_PROBE_MAX_HTML_BYTES" min:"1" unit:"bytes"`
	// ProbeTimeout bounds the probe that fetches the page to classify it.
	ProbeTimeout time.Duration `koanf:"probe_timeout" legacy:"WEBFETCH_PROBE_TIMEOUT" min:"1"`
	// AllowPrivate lets the probe fetch loopback and private-network
	// addresses; off by default so that a fetched URL cannot reach
	// internal services.
	AllowPrivate bool `koanf:"allow_private" legacy:"WEBGATE_WEBFETCH_ALLOW_PRIVATE"`
}

// DocsConfig configures documentation routing. The routing itself lives
// in the routing package; configuration only carries its inputs.
type DocsConfig struct {
	// Config is the path of a DocSearch docsearch-config.json file; empty
	// means none. A leading "~/" is expanded.
	Config string `koanf:"config"`
	// Databases lists documentation indexes inline, in addition to those
	// of the Config file. File only.
	Databases []DocsDatabase `koanf:"databases" env:"-"`
}

// DocsDatabase is a local documentation index reachable through an MCP
// tool; see [routing.Database].
type DocsDatabase = routing.Database

// RoutesConfig configures tool routes.
type RoutesConfig struct {
	// Config is the path of a tool-routes.json file; empty means none. A
	// leading "~/" is expanded.
	Config string `koanf:"config" env:"WEBGATE_TOOL_ROUTES"`
	// ToolRoutes lists routes inline, in addition to those of the Config
	// file. File only.
	ToolRoutes []ToolRoute `koanf:"tool_routes" env:"-"`
}

// ToolRoute sends a WebFetch URL or a Bash command to a better tool; see
// [routing.ToolRoute].
type ToolRoute = routing.ToolRoute

// RouteTest is one inline test case of a [ToolRoute].
type RouteTest = routing.RouteTest

// Default values that are not plain literals elsewhere.
const (
	DefaultTavilyBaseURL       = "https://api.tavily.com"
	DefaultExaBaseURL          = "https://api.exa.ai"
	DefaultWebSearchAPIBaseURL = "https://api.websearchapi.ai"
	// DefaultMaxReasonChars stays below the 10,000 characters past which
	// Claude Code saves hook output to a file instead of passing it on.
	DefaultMaxReasonChars = 8000
)

// Default returns the default configuration. StateDir is left empty:
// [Load] derives it from the environment.
func Default() *Config {
	return &Config{
		Search: SearchConfig{
			Mode:      ModeParallel,
			Providers: []string{Tavily, WebSearchAPI},
			Timeout:   20 * time.Second,
		},
		Extract: ExtractConfig{
			Providers: []string{WebSearchAPI, Tavily, Exa},
			Timeout:   18 * time.Second,
		},
		Providers: ProvidersConfig{
			Tavily: TavilyConfig{
				BaseURL:      DefaultTavilyBaseURL,
				KeyOrder:     string(provider.Shuffle),
				SearchDepth:  "basic",
				Topic:        "general",
				MaxResults:   5,
				ExtractDepth: "basic",
			},
			Exa: ExaConfig{
				BaseURL:    DefaultExaBaseURL,
				KeyOrder:   string(provider.Shuffle),
				SearchType: "auto",
				MaxResults: 10,
			},
			WebSearchAPI: WebSearchAPIConfig{
				BaseURL:      DefaultWebSearchAPIBaseURL,
				KeyOrder:     string(provider.Shuffle),
				MaxResults:   5,
				ScrapeEngine: "browser",
			},
		},
		Hooks: HooksConfig{
			MaxReasonChars: DefaultMaxReasonChars,
			SystemMessage:  true,
			WebSearch: WebSearchHookConfig{
				Budget:       25 * time.Second,
				ToolNames:    []string{"WebSearch"},
				MCPToolNames: []string{"mcp__ccs-websearch__WebSearch", "mcp__plugin_*_ccs-websearch__WebSearch"},
			},
			WebFetch: WebFetchHookConfig{
				Budget:       25 * time.Second,
				ToolNames:    []string{"WebFetch", "web_fetch"},
				MaxBytes:     4 << 20,
				ProbeTimeout: 6 * time.Second,
			},
		},
	}
}

// Order returns the search providers in the order to try them: Primary
// first, when set, then Providers without duplicates.
func (s SearchConfig) Order() []string { return order(s.Primary, s.Providers) }

// Order returns the extraction providers in the order to try them:
// Primary first, when set, then Providers without duplicates.
func (e ExtractConfig) Order() []string { return order(e.Primary, e.Providers) }

func order(primary string, list []string) []string {
	var out []string
	if primary != "" {
		out = append(out, primary)
	}
	for _, p := range list {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Origin returns where the setting with the given key got its value:
// "default", "file PATH key KEY" or "env NAME". Keys are the file keys
// ("search.mode").
func (c *Config) Origin(key string) string {
	if o, ok := c.origins[key]; ok {
		return o
	}
	return "default"
}
