package config

import (
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/webpage"
)

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
	// ~/.local/state/webgate. A leading "~/" is expanded; a relative path
	// is ignored (the default is kept, [Config.Ignored] says so), as the
	// XDG Base Directory rule ignores a relative $XDG_STATE_HOME.
	StateDir string `koanf:"state_dir"`

	// Search configures web search.
	Search SearchConfig `koanf:"search"`
	// Extract configures page extraction (the WebFetch replacement).
	Extract ExtractConfig `koanf:"extract"`
	// Providers holds each provider's keys and options.
	Providers ProvidersConfig `koanf:"providers"`
	// Hooks configures the hook binaries.
	Hooks HooksConfig `koanf:"hooks"`
	// Fetch configures how pages are read: the reading order, the local
	// browser and PDF reader.
	Fetch FetchConfig `koanf:"fetch"`
	// Docs configures routing of documentation questions to local indexes.
	Docs DocsConfig `koanf:"docs"`
	// Routes configures tool routes (WebFetch URLs or Bash commands sent
	// elsewhere).
	Routes RoutesConfig `koanf:"routes"`
	// Store says where webgate keeps its memory across calls (key health,
	// the result cache, usage, the decision log).
	Store StoreConfig `koanf:"store"`
	// Cache configures the result cache.
	Cache memory.CacheConfig `koanf:"cache"`
	// Health configures how failing keys and providers are parked.
	Health memory.HealthConfig `koanf:"health"`
	// Log configures the decision log.
	Log memory.LogConfig `koanf:"log"`
	// Gateway configures the team gateway (`webgate serve`).
	Gateway GatewayConfig `koanf:"gateway"`

	// Sources lists where the configuration came from, in the order
	// applied: "defaults", "file PATH", and "env NAME" for every environment
	// variable used. Names only, never values.
	Sources []string `koanf:"-"`

	// origins maps a setting's key to where its value came from.
	origins map[string]string
	// reg is the provider registry the Config was made with.
	reg *Registry
	// customEndpoint is true when the environment says Claude Code talks
	// to a custom endpoint (see [Config.AnswerStyle]).
	customEndpoint bool
	// claudeConfigDir and claudeProjectDir are Claude Code's settings
	// directory and project root as the environment names them (see
	// [Config.ClaudeDirs]).
	claudeConfigDir, claudeProjectDir string
	// lookedAt are the configuration files the loader read or looked for;
	// keyFiles the key files [Config.ResolveKeys] read (see [Config.Files]).
	lookedAt, keyFiles []string
	// ignored says which path settings were ignored (see [Config.Ignored]).
	ignored []string
}

// Files returns the files the configuration depends on: the
// configuration file the loader read or looked for (with no file named,
// every default file name of the configuration directory, since one that
// appears there changes the configuration), the docs and tool routes
// files it names, and the providers' key files. Sorted, each once. A
// caller that keeps a loaded configuration loads it again when one of
// them changes.
func (c *Config) Files() []string {
	files := slices.Concat(c.lookedAt, c.keyFiles)
	for _, p := range []string{c.Docs.Config, c.Routes.Config} {
		if p = strings.TrimSpace(p); p != "" {
			files = append(files, p)
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// ClaudeDirs returns the Claude Code settings directory (CLAUDE_CONFIG_DIR)
// and project root (CLAUDE_PROJECT_DIR, which Claude Code gives its hooks)
// of the environment the configuration was loaded from, each "" when
// unset: where the permission rules that decide a replace answer live.
func (c *Config) ClaudeDirs() (configDir, projectDir string) {
	return c.claudeConfigDir, c.claudeProjectDir
}

// AnswerStyle returns hooks.answer with "auto" resolved: "deny" when the
// environment the configuration was loaded from says Claude Code talks to
// a custom endpoint (ANTHROPIC_BASE_URL naming another host than
// api.anthropic.com, or CLAUDE_CODE_USE_BEDROCK, CLAUDE_CODE_USE_VERTEX or
// CLAUDE_CODE_USE_FOUNDRY set), where its native web tools fail, and
// "replace" otherwise.
func (c *Config) AnswerStyle() string {
	if c.Hooks.Answer != "auto" {
		return c.Hooks.Answer
	}
	if c.customEndpoint {
		return "deny"
	}
	return "replace"
}

// SearchConfig configures web search.
type SearchConfig struct {
	// Mode is how the providers are combined: "parallel" (ask all, merge),
	// "fallback" (one after another) or "single" (only the first).
	Mode string `koanf:"mode" legacy:"CLAUDE_WEB_HOOKS_SEARCH_MODE" enum:"parallel,fallback,single"`
	// Providers is the order of the search providers. Providers that
	// cannot be used (no keys; SearXNG without a base URL) are skipped.
	Providers []string `koanf:"providers" legacy:"CLAUDE_WEB_HOOKS_SEARCH_PROVIDERS" enum:"@search"`
	// Primary, when set, moves that provider to the front of the order,
	// adding it when the order lacks it.
	Primary string `koanf:"primary" legacy:"CLAUDE_WEB_HOOKS_SEARCH_PRIMARY" enum:",@search"`
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
	Providers []string `koanf:"providers" legacy:"CLAUDE_WEB_HOOKS_WEBFETCH_EXTRACT_PROVIDERS" enum:"@extract"`
	// Primary, when set, is tried first. When it is empty, each
	// extraction starts with a provider picked at random, to spread credit
	// use, and goes on in order.
	Primary string `koanf:"primary" legacy:"CLAUDE_WEB_HOOKS_WEBFETCH_EXTRACT_PRIMARY" enum:",@extract"`
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

// Access is the part of every provider's section that configuration
// itself owns: the keys and how the pool orders them. The rest of a
// section is the backend's own Config, embedded as it is.
type Access struct {
	// Keys is the key specification: one key, "k1|k2" for a pool, or the
	// path of a key file (see [provider.ParseKeys]; "~/" is expanded).
	Keys KeySpec `koanf:"keys"`
	// KeyOrder is how the key pool orders keys per request: "shuffle" or
	// "round-robin".
	KeyOrder string `koanf:"key_order" enum:"shuffle,round-robin"`

	// Budget is the provider's monthly budget.
	Budget BudgetConfig `koanf:"budget"`

	keys *keyState
}

// BudgetConfig is a provider's monthly budget.
type BudgetConfig struct {
	// Monthly is the number of requests a calendar month (UTC) may send
	// the provider; 0 means no budget. At 80 % webgate warns once; at 100 %
	// it skips the provider until the next month.
	Monthly int64 `koanf:"monthly" min:"0"`
}

// StoreConfig says where webgate keeps its memory (package store).
type StoreConfig struct {
	// URL names the store: "" for SQLite under the state directory,
	// "off", "sqlite:///path", "redis://host:port/db" or "rediss://…".
	URL string `koanf:"url" env:"WEBGATE_STORE"`
	// Timeout bounds each call to the store from a hook; past it the hook
	// goes on without the store.
	Timeout time.Duration `koanf:"timeout" min:"1"`
	// OpenTimeout bounds opening the store (a SQLite file and its schema
	// check, a Redis dial, TLS handshake and first round trip), and the
	// writes a hook makes after it has answered; past it the hook goes on
	// without the store.
	OpenTimeout time.Duration `koanf:"open_timeout" min:"1"`
	// SaltFile holds the random value that keys the fingerprints naming
	// API keys in the store; created when missing. Machines that share a
	// Redis store share key health when they use the same salt file.
	// Default: fingerprint-salt in the state directory. A leading "~/" is
	// expanded; a relative path is ignored, as state_dir's is.
	SaltFile string `koanf:"salt_file"`
}

// GatewayConfig configures the team gateway, `webgate serve`: where it
// listens, the limits of its tokens and teams, the private hosts it may
// read and what its audit log keeps.
type GatewayConfig struct {
	// Listen is the address the gateway listens on.
	Listen string `koanf:"listen"`
	// AllowPrivate lists the hosts whose loopback or private addresses
	// the gateway may read: a host name, "*.domain", or an address or
	// prefix; everything else private is refused.
	AllowPrivate []string `koanf:"allow_private"`
	// AuditClear keeps queries and URLs in the audit log in clear, their
	// secrets redacted, instead of their keyed hash (HMAC-SHA-256).
	AuditClear bool `koanf:"audit_clear"`
	// LimitsFailOpen admits calls when the store that holds the limits
	// fails, unchecked, from the tokens read in the 5 minutes before;
	// false refuses them with 503.
	LimitsFailOpen bool `koanf:"limits_fail_open"`
	// Limits are each token's limits.
	Limits GatewayLimits `koanf:"limits"`
	// TeamLimits are each team's limits, over its tokens together.
	TeamLimits GatewayLimits `koanf:"team_limits"`
	// OIDC lets the gateway accept JSON Web Tokens from an OpenID Connect
	// issuer besides its own tokens; off while its issuer is empty.
	OIDC GatewayOIDC `koanf:"oidc"`
}

// GatewayOIDC configures the JSON Web Tokens the gateway accepts.
type GatewayOIDC struct {
	// Issuer is the issuer's URL as its tokens' "iss" claim spells it
	// (https; http only on a loopback host).
	Issuer string `koanf:"issuer"`
	// Audience is the gateway's public URL: tokens must name it in "aud",
	// and the gateway's protected-resource metadata gives it as
	// "resource". Required with an issuer.
	Audience string `koanf:"audience"`
	// TeamClaim names the claim that gives a caller's team (a string, or
	// the first string of a list); empty: no team.
	TeamClaim string `koanf:"team_claim"`
}

// GatewayLimits are the limits of a token or a team; 0 means none.
// Credits are provider calls (an answer from the cache costs none).
type GatewayLimits struct {
	// RatePerMinute caps requests per minute (tokens only).
	RatePerMinute int64 `koanf:"rate_per_minute" min:"0"`
	// RequestsPerDay caps requests per UTC day.
	RequestsPerDay int64 `koanf:"requests_per_day" min:"0"`
	// RequestsPerMonth caps requests per UTC month.
	RequestsPerMonth int64 `koanf:"requests_per_month" min:"0"`
	// CreditsPerDay caps provider calls per UTC day.
	CreditsPerDay int64 `koanf:"credits_per_day" min:"0"`
	// CreditsPerMonth caps provider calls per UTC month.
	CreditsPerMonth int64 `koanf:"credits_per_month" min:"0"`
}

// DefaultGatewayListen is where `webgate serve` listens by default: this
// machine only; a team gateway names its address.
const DefaultGatewayListen = "127.0.0.1:8787"

// access returns a itself, so that every provider section reaches its
// Access through one method.
func (a *Access) access() *Access { return a }

// FetchConfig configures the page reader (package webpage).
type FetchConfig struct {
	// Order is the reading order of pages that need more than a plain
	// fetch: "local-first" (the page's structure, the data it embeds, a
	// local browser, then providers), "providers-first", "local-only" or
	// "providers-only".
	Order string `koanf:"order" enum:"local-first,providers-first,local-only,providers-only"`
	// Browser is the browser of the render tier: "auto" (look for
	// chromium-headless-shell, chromium or Chrome on PATH), "off", or the
	// program's path.
	Browser string `koanf:"browser" env:"WEBGATE_BROWSER"`
	// RenderTimeout bounds one browser rendering, start and cleanup
	// included; a hook's budget may shorten it.
	RenderTimeout time.Duration `koanf:"render_timeout" min:"1"`
	// RenderTemplateHeavy renders template-heavy pages (portals,
	// listings) in the local browser before reading their structure, for
	// pages whose entries their scripts fill in. Off by default: most
	// such pages are served whole, and a render costs about a second.
	RenderTemplateHeavy bool `koanf:"render_template_heavy"`
	// Pdftotext is poppler's pdftotext for PDF documents: "" looks on
	// PATH, "off" uses the built-in reader only, anything else is the
	// program's path.
	Pdftotext string `koanf:"pdftotext"`
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
	// Answer is how the hooks answer Claude Code's native WebSearch and
	// WebFetch: "deny" (the answer is the denied call's reason; works
	// where the native tools fail), "replace" (the native tool runs, then
	// its output is replaced by webgate's answer, which the model reads
	// as a normal result; needs the store) or "auto" (deny when Claude
	// Code talks to a custom endpoint, Bedrock, Vertex or Foundry, where
	// the native tools fail, replace otherwise).
	Answer string `koanf:"answer" enum:"deny,replace,auto"`
	// Worker is "warm" (the default): the first hook call that needs the
	// worker starts one in the background that stays up between calls
	// and answers them over a Unix socket in the state directory, so that
	// a call no longer pays for the worker's start-up; "off" runs the
	// worker anew for every call. A warm worker serves one working
	// directory and one worker binary, loads the configuration from each
	// call's environment, and exits after WorkerIdle without calls.
	Worker string `koanf:"worker" enum:"warm,off"`
	// WorkerIdle is how long a warm worker waits for a call before it
	// exits.
	WorkerIdle time.Duration `koanf:"worker_idle" min:"1"`
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
	// means none. A leading "~/" is expanded; a relative path is ignored,
	// as state_dir's is.
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
	// leading "~/" is expanded; a relative path is ignored, as state_dir's
	// is.
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

// Default returns the default configuration. StateDir is left empty:
// [Load] derives it from the environment. Every default is read from the
// package that uses the setting; the provider sections start from each
// backend's defaults.
func Default() *Config {
	c := &Config{
		Search: SearchConfig{
			Mode:      string(policy.DefaultSearchMode),
			Providers: []string{Tavily, WebSearchAPI, Exa, Brave, SearXNG},
			Timeout:   policy.DefaultBudget,
		},
		Extract: ExtractConfig{
			Providers: []string{WebSearchAPI, Tavily, Exa, Firecrawl, Jina},
			Timeout:   policy.DefaultExtractBudget,
		},
		Hooks: HooksConfig{
			MaxReasonChars: gate.DefaultMaxReasonChars,
			SystemMessage:  true,
			Answer:         gate.DefaultAnswer,
			Worker:         gate.DefaultWorker,
			WorkerIdle:     gate.DefaultWorkerIdle,
			WebSearch: WebSearchHookConfig{
				Budget:       gate.DefaultSearchBudget,
				ToolNames:    slices.Clone(gate.DefaultSearchTools),
				MCPToolNames: slices.Clone(gate.DefaultMCPTools),
			},
			WebFetch: WebFetchHookConfig{
				Budget:       gate.DefaultFetchBudget,
				ToolNames:    slices.Clone(gate.DefaultFetchTools),
				MaxBytes:     webpage.DefaultProbeMaxBytes,
				ProbeTimeout: webpage.DefaultProbeTimeout,
			},
		},
	}
	c.Fetch = FetchConfig{Order: string(webpage.LocalFirst), Browser: "auto", RenderTimeout: webpage.DefaultRenderTimeout}
	c.Store = StoreConfig{Timeout: memory.DefaultOpTimeout, OpenTimeout: store.DefaultOpenTimeout}
	c.Cache = memory.CacheConfig{SearchTTL: memory.DefaultSearchTTL, FetchTTL: memory.DefaultFetchTTL, MaxEntries: memory.DefaultCacheEntries}
	c.Health = memory.HealthConfig{AuthPark: memory.DefaultAuthPark, QuotaPark: memory.DefaultQuotaPark,
		RateLimitCooldown: memory.DefaultRateLimitCooldown, BreakerFailures: memory.DefaultBreakerFailures, BreakerCooldown: memory.DefaultBreakerCooldown}
	c.Gateway = GatewayConfig{Listen: DefaultGatewayListen}
	c.Log = memory.LogConfig{Queries: memory.KeepFull, MaxRecords: memory.DefaultLogRecords, MaxAge: memory.DefaultLogAge}
	c.reg = Providers()
	for _, b := range c.reg.All() {
		b.defaults(&c.Providers)
		b.section(&c.Providers).access().KeyOrder = string(provider.Shuffle)
	}
	return c
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

// Ignored returns one line for each path setting (state_dir,
// store.salt_file, docs.config, routes.config) whose value was ignored
// because it is not an absolute path once a leading "~/" is expanded, as
// the XDG Base Directory rule ignores a relative $XDG_CONFIG_HOME: the
// setting, where its value came from, and what is used instead. The
// value itself is not repeated. A program carries on with the default;
// doctor shows the lines.
func (c *Config) Ignored() []string { return slices.Clone(c.ignored) }

// Origin returns where the setting with the given key got its value:
// "default", "file PATH key KEY" or "env NAME". Keys are the file keys
// ("search.mode").
func (c *Config) Origin(key string) string {
	if o, ok := c.origins[key]; ok {
		return o
	}
	return "default"
}
