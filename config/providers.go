package config

import (
	"reflect"
	"slices"
	"strings"

	"github.com/webgate-dev/webgate/provider/brave"
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/firecrawl"
	"github.com/webgate-dev/webgate/provider/jina"
	"github.com/webgate-dev/webgate/provider/searxng"
	"github.com/webgate-dev/webgate/provider/tavily"
	"github.com/webgate-dev/webgate/provider/websearchapi"
)

// Provider names, as used in provider lists and under providers.
const (
	Tavily       = "tavily"
	Exa          = "exa"
	WebSearchAPI = "websearchapi"
	Brave        = "brave"
	SearXNG      = "searxng"
	Jina         = "jina"
	Firecrawl    = "firecrawl"
)

// ProvidersConfig holds the per-provider sections. Each section is the
// provider's [Access] (keys) with the backend's own Config embedded, so
// every backend option is a setting.
type ProvidersConfig struct {
	// Tavily configures Tavily (search and extraction).
	Tavily TavilyConfig `koanf:"tavily"`
	// Exa configures Exa (search and extraction).
	Exa ExaConfig `koanf:"exa"`
	// WebSearchAPI configures WebSearchAPI.ai (search and extraction).
	WebSearchAPI WebSearchAPIConfig `koanf:"websearchapi"`
	// Brave configures Brave Search (search).
	Brave BraveConfig `koanf:"brave"`
	// SearXNG configures a SearXNG instance (search, no key).
	SearXNG SearXNGConfig `koanf:"searxng"`
	// Jina configures Jina Reader (extraction, optionally without a key)
	// and Jina Search (search).
	Jina JinaConfig `koanf:"jina"`
	// Firecrawl configures Firecrawl (search and extraction).
	Firecrawl FirecrawlConfig `koanf:"firecrawl"`
}

// TavilyConfig configures the Tavily provider: keys, and [tavily.Config].
type TavilyConfig struct {
	Access
	tavily.Config
}

// ExaConfig configures the Exa provider: keys, and [exa.Config].
type ExaConfig struct {
	Access
	exa.Config
}

// WebSearchAPIConfig configures the WebSearchAPI.ai provider: keys, and
// [websearchapi.Config].
type WebSearchAPIConfig struct {
	Access
	websearchapi.Config
}

// BraveConfig configures Brave Search: keys, and [brave.Config].
type BraveConfig struct {
	Access
	brave.Config
}

// SearXNGConfig configures a SearXNG instance: [searxng.Config]. It takes
// no key: the provider is used when base_url names an instance.
type SearXNGConfig struct {
	searxng.Config

	none Access
}

func (c *SearXNGConfig) access() *Access { return &c.none }

// JinaConfig configures Jina: keys, and [jina.Config]. Jina Reader works
// without a key at a low rate, but sends the URL to a third party, so it
// is used without one only when Keyless is set.
type JinaConfig struct {
	Access
	// Keyless lets Jina Reader read pages without a key.
	Keyless bool `koanf:"keyless"`
	jina.Config
}

// FirecrawlConfig configures Firecrawl: keys, and [firecrawl.Config].
type FirecrawlConfig struct {
	Access
	firecrawl.Config
}

// Backend describes one provider webgate can use: its name, what it can
// do, how its settings are documented and checked, and how it is built.
// Frontends (doctor, explain, the CLI's flags, the README's tables) read
// them from [Providers] instead of naming providers themselves.
type Backend struct {
	// Name is the provider's name in provider lists and settings
	// ("tavily").
	Name string
	// Title is the provider's name for people ("Tavily").
	Title string
	// Search and Extract say what the backend can do.
	Search, Extract bool
	// KeyEnv is the provider's usual key variable ("TAVILY_API_KEY"),
	// accepted as a legacy name of providers.<name>.keys.
	KeyEnv string
	// Receives says what the provider is sent, for the privacy column of
	// the README and doctor: "search queries; URLs to read".
	Receives string
	// NoKey is true for a provider that takes no key (SearXNG).
	NoKey bool

	// usable reports whether the provider can be used without keys; nil
	// means it needs keys.
	usable func(c *ProvidersConfig) bool
	// searchNeedsKey is true for a provider that can extract without a
	// key but not search (Jina).
	searchNeedsKey bool

	// settings annotates the section's keys (relative to
	// providers.<name>): legacy variables, accepted values, bounds.
	settings map[string]annotation
	// section returns the provider's section of c.
	section func(c *ProvidersConfig) section
	// defaults fills the section with the backend's defaults.
	defaults func(c *ProvidersConfig)
}

// section is what config needs of every provider section: its Access.
type section interface{ access() *Access }

// annotation is what a setting's struct tags would say, for settings whose
// field belongs to another package.
type annotation struct {
	legacy []string
	enum   []string
	min    *int64
	max    *int64
	url    bool
	bytes  bool
}

// Registry is the set of providers the configuration knows. Build one with
// [Providers]; there is no global registry.
type Registry struct {
	list []Backend
}

// Register adds b. It panics when b's name is empty or already
// registered: a registry is built once, by code.
func (r *Registry) Register(b Backend) {
	if b.Name == "" || b.section == nil || b.defaults == nil {
		panic("config: incomplete provider registration " + b.Name)
	}
	if _, dup := r.Lookup(b.Name); dup {
		panic("config: provider " + b.Name + " registered twice")
	}
	r.list = append(r.list, b)
}

// Lookup returns the backend named name.
func (r *Registry) Lookup(name string) (Backend, bool) {
	for _, b := range r.list {
		if b.Name == name {
			return b, true
		}
	}
	return Backend{}, false
}

// All returns every backend, in registration order.
func (r *Registry) All() []Backend { return slices.Clone(r.list) }

// Names returns every backend's name, in registration order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.list))
	for i, b := range r.list {
		out[i] = b.Name
	}
	return out
}

// SearchNames returns the names of the backends that can search.
func (r *Registry) SearchNames() []string { return r.names(func(b Backend) bool { return b.Search }) }

// ExtractNames returns the names of the backends that can read a page
// (extract).
func (r *Registry) ExtractNames() []string { return r.names(func(b Backend) bool { return b.Extract }) }

func (r *Registry) names(keep func(Backend) bool) []string {
	var out []string
	for _, b := range r.list {
		if keep(b) {
			out = append(out, b.Name)
		}
	}
	return out
}

// Providers returns the registry of every provider webgate knows, built
// here and nowhere else.
func Providers() *Registry {
	r := &Registry{}
	r.Register(Backend{
		Name: Tavily, Title: "Tavily", Search: true, Extract: true, KeyEnv: "TAVILY_API_KEY",
		Receives: "search queries; URLs to read",
		settings: map[string]annotation{
			"base_url":          {legacy: []string{"TAVILY_BASE_URL"}, url: true},
			"search_depth":      {legacy: []string{"TAVILY_SEARCH_DEPTH"}, enum: tavily.SearchDepths},
			"topic":             {legacy: []string{"TAVILY_TOPIC"}, enum: tavily.Topics},
			"max_results":       {legacy: []string{"TAVILY_MAX_RESULTS"}, min: ptr(1), max: ptr(tavily.MaxResults)},
			"chunks_per_source": {min: ptr(0), max: ptr(tavily.MaxSearchChunks)},
			"extract_chunks":    {min: ptr(0), max: ptr(tavily.MaxExtractChunks)},
			"include_answer":    {enum: tavily.AnswerModes},
			"extract_depth":     {legacy: []string{"TAVILY_EXTRACT_DEPTH"}, enum: tavily.ExtractDepths},
			"extract_timeout":   {max: ptr(int64(tavily.MaxExtractTimeout))},
			"max_characters":    {min: ptr(0)},
		},
		section:  func(c *ProvidersConfig) section { return &c.Tavily },
		defaults: func(c *ProvidersConfig) { c.Tavily.Config = tavily.DefaultConfig() },
	})
	r.Register(Backend{
		Name: Exa, Title: "Exa", Search: true, Extract: true, KeyEnv: "EXA_API_KEY",
		Receives: "search queries; URLs to read",
		settings: map[string]annotation{
			"base_url":               {legacy: []string{"EXA_BASE_URL"}, url: true},
			"search_type":            {legacy: []string{"EXA_SEARCH_TYPE"}, enum: exa.Types},
			"max_results":            {legacy: []string{"EXA_MAX_RESULTS"}, min: ptr(1), max: ptr(exa.MaxNumResults)},
			"category":               {legacy: []string{"EXA_CATEGORY"}, enum: append([]string{""}, exa.Categories...)},
			"search_max_characters":  {min: ptr(1)},
			"extract_max_characters": {min: ptr(1), max: ptr(exa.MaxExtractMaxCharacters)},
			"max_age_hours":          {min: ptr(exa.MinMaxAgeHours), max: ptr(exa.MaxMaxAgeHours)},
			"livecrawl_timeout":      {max: ptr(int64(exa.MaxLivecrawlTimeout))},
		},
		section:  func(c *ProvidersConfig) section { return &c.Exa },
		defaults: func(c *ProvidersConfig) { c.Exa.Config = exa.DefaultConfig() },
	})
	r.Register(Backend{
		Name: WebSearchAPI, Title: "WebSearchAPI.ai", Search: true, Extract: true, KeyEnv: "WEBSEARCHAPI_API_KEY",
		Receives: "search queries; URLs to read",
		settings: map[string]annotation{
			"base_url":        {legacy: []string{"WEBSEARCHAPI_BASE_URL"}, url: true},
			"max_results":     {legacy: []string{"WEBSEARCHAPI_MAX_RESULTS"}, min: ptr(1), max: ptr(websearchapi.MaxMaxResults)},
			"include_content": {legacy: []string{"WEBSEARCHAPI_INCLUDE_CONTENT"}},
			"content_format":  {enum: append([]string{""}, websearchapi.ContentFormats...)},
			"content_length":  {enum: append([]string{""}, websearchapi.ContentLengths...)},
			"scrape_engine":   {legacy: []string{"WEBSEARCHAPI_SCRAPE_ENGINE"}, enum: websearchapi.ScrapeEngines},
			"return_format":   {enum: websearchapi.ContentFormats},
			"max_characters":  {min: ptr(0)},
		},
		section:  func(c *ProvidersConfig) section { return &c.WebSearchAPI },
		defaults: func(c *ProvidersConfig) { c.WebSearchAPI.Config = websearchapi.DefaultConfig() },
	})
	r.Register(Backend{
		Name: Brave, Title: "Brave Search", Search: true, KeyEnv: "BRAVE_API_KEY",
		Receives: "search queries",
		settings: map[string]annotation{
			"base_url":    {legacy: []string{"BRAVE_BASE_URL"}, url: true},
			"max_results": {min: ptr(1), max: ptr(brave.MaxResults)},
			"safe_search": {enum: brave.SafeSearchModes},
		},
		section:  func(c *ProvidersConfig) section { return &c.Brave },
		defaults: func(c *ProvidersConfig) { c.Brave.Config = brave.DefaultConfig() },
	})
	r.Register(Backend{
		Name: SearXNG, Title: "SearXNG", Search: true, NoKey: true,
		Receives: "search queries (to your own instance)",
		settings: map[string]annotation{
			"base_url":      {legacy: []string{"SEARXNG_URL"}, url: true},
			"max_results":   {min: ptr(1)},
			"safe_search":   {min: ptr(0), max: ptr(2)},
			"timeout_limit": {max: ptr(int64(searxng.MaxTimeoutLimit))},
		},
		usable:   func(c *ProvidersConfig) bool { return c.SearXNG.BaseURL != "" },
		section:  func(c *ProvidersConfig) section { return &c.SearXNG },
		defaults: func(c *ProvidersConfig) { c.SearXNG.Config = searxng.DefaultConfig() },
	})
	r.Register(Backend{
		Name: Jina, Title: "Jina Reader and Search", Search: true, Extract: true, KeyEnv: "JINA_API_KEY",
		Receives: "search queries; URLs to read",
		settings: map[string]annotation{
			"reader_url":     {legacy: []string{"JINA_READER_URL"}, url: true},
			"search_url":     {legacy: []string{"JINA_SEARCH_URL"}, url: true},
			"return_format":  {enum: jina.ReturnFormats},
			"engine":         {enum: append([]string{""}, jina.Engines...)},
			"reader_timeout": {max: ptr(int64(jina.MaxReaderTimeout))},
			"retain_images":  {enum: append([]string{""}, jina.ImageRetentionModes...)},
			"max_results":    {min: ptr(1), max: ptr(jina.MaxMaxResults)},
			"max_characters": {min: ptr(0)},
		},
		usable:         func(c *ProvidersConfig) bool { return c.Jina.Keyless },
		searchNeedsKey: true,
		section:        func(c *ProvidersConfig) section { return &c.Jina },
		defaults:       func(c *ProvidersConfig) { c.Jina.Config = jina.DefaultConfig() },
	})
	r.Register(Backend{
		Name: Firecrawl, Title: "Firecrawl", Search: true, Extract: true, KeyEnv: "FIRECRAWL_API_KEY",
		Receives: "search queries; URLs to read",
		settings: map[string]annotation{
			"base_url":       {legacy: []string{"FIRECRAWL_BASE_URL"}, url: true},
			"max_results":    {min: ptr(1), max: ptr(firecrawl.MaxResults)},
			"scrape_timeout": {max: ptr(int64(firecrawl.MaxScrapeTimeout))},
			"proxy":          {enum: firecrawl.Proxies},
			"max_characters": {min: ptr(0)},
		},
		section:  func(c *ProvidersConfig) section { return &c.Firecrawl },
		defaults: func(c *ProvidersConfig) { c.Firecrawl.Config = firecrawl.DefaultConfig() },
	})
	return r
}

// httpSettings annotates the HTTP settings every backend embeds
// (providers.<name>.http.*).
var httpSettings = map[string]annotation{
	"http.attempt_timeout": {min: ptr(0)},
	"http.max_attempts":    {min: ptr(0), max: ptr(10)},
	"http.min_backoff":     {min: ptr(0)},
	"http.max_backoff":     {min: ptr(0)},
	"http.max_retry_after": {min: ptr(0)},
	"http.max_body_bytes":  {min: ptr(0), bytes: true},
}

// annotationFor returns the annotation of a provider setting's key
// ("providers.tavily.search_depth"), and whether there is one.
func (r *Registry) annotationFor(key string) (annotation, bool) {
	rest, ok := strings.CutPrefix(key, "providers.")
	if !ok {
		return annotation{}, false
	}
	name, rel, ok := strings.Cut(rest, ".")
	if !ok {
		return annotation{}, false
	}
	b, found := r.Lookup(name)
	if !found {
		return annotation{}, false
	}
	if a, ok := b.settings[rel]; ok {
		return a, true
	}
	if a, ok := httpSettings[rel]; ok {
		return a, true
	}
	if rel == "keys" && b.KeyEnv != "" {
		return annotation{legacy: []string{b.KeyEnv}}, true
	}
	return annotation{}, false
}

func ptr[T int | int64](v T) *int64 { n := int64(v); return &n }

// sectionOf returns the named provider's section of c, or nil.
func (c *Config) sectionOf(name string) *Access {
	b, ok := c.registry().Lookup(name)
	if !ok {
		return nil
	}
	return b.section(&c.Providers).access()
}

// registry returns the registry c was made with ([Default] and [Load]
// set it), or a new one for a Config built by hand.
func (c *Config) registry() *Registry {
	if c.reg != nil {
		return c.reg
	}
	return Providers()
}

// Registry returns the providers the configuration knows.
func (c *Config) Registry() *Registry { return c.registry() }

// ProviderAccess returns the named provider's keys and budget section
// ([Access]), or nil for an unknown provider.
func (c *Config) ProviderAccess(name string) *Access { return c.sectionOf(name) }

// UsableWithoutKeys reports whether the named provider can be used without
// keys as configured (a SearXNG instance with a base URL; Jina Reader
// with keyless set).
func (c *Config) UsableWithoutKeys(name string) bool {
	b, ok := c.registry().Lookup(name)
	return ok && b.usable != nil && b.usable(&c.Providers)
}

// BaseURL returns the address the named provider is reached at: the
// string setting base_url (reader_url for Jina) of its section, or "".
func (c *Config) BaseURL(name string) string {
	b, ok := c.registry().Lookup(name)
	if !ok {
		return ""
	}
	return baseURL(reflect.ValueOf(b.section(&c.Providers)))
}

// baseURL returns the address a provider section reads pages at: its
// string field tagged koanf:"base_url" (or "reader_url", Jina's) in the
// struct v points to or its embedded structs, or "".
func baseURL(v reflect.Value) string {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		switch {
		case (f.Tag.Get("koanf") == "base_url" || f.Tag.Get("koanf") == "reader_url") && f.Type.Kind() == reflect.String:
			return v.Field(i).String()
		case f.Anonymous:
			if s := baseURL(v.Field(i)); s != "" {
				return s
			}
		}
	}
	return ""
}

// SearchProviders returns the search order ([SearchConfig.Order]) less the
// providers that cannot be used ([Config.Usable]).
func (c *Config) SearchProviders() []string { return c.usable(c.Search.Order(), true) }

// ExtractProviders returns the extraction order ([ExtractConfig.Order])
// less the providers that cannot be used ([Config.Usable]).
func (c *Config) ExtractProviders() []string { return c.usable(c.Extract.Order(), false) }

// usable returns the names of names that can be used for a search
// (search) or an extraction: those with keys, and those that need none
// ([Config.Usable]).
func (c *Config) usable(names []string, search bool) []string {
	var out []string
	for _, n := range names {
		if c.Usable(n, search) {
			out = append(out, n)
		}
	}
	return out
}

// Usable reports whether the named provider can be used for a search
// (search true) or an extraction: it has keys, or it needs none (a
// SearXNG instance with a base URL; Jina Reader with keyless set, for
// extraction only).
func (c *Config) Usable(name string, search bool) bool {
	if c.KeyCount(name) > 0 {
		return true
	}
	b, ok := c.registry().Lookup(name)
	if !ok || b.usable == nil || (search && b.searchNeedsKey) {
		return false
	}
	return b.usable(&c.Providers)
}
