package config

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/tavily"
	"github.com/webgate-dev/webgate/provider/websearchapi"
)

// Provider names, as used in provider lists and under providers.
const (
	Tavily       = "tavily"
	Exa          = "exa"
	WebSearchAPI = "websearchapi"
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

	// settings annotates the section's keys (relative to
	// providers.<name>): legacy variables, accepted values, bounds.
	settings map[string]annotation
	// section returns the provider's section of c.
	section func(c *ProvidersConfig) section
	// defaults fills the section with the backend's defaults.
	defaults func(c *ProvidersConfig)
	// build makes the backend from c's section with keys and an optional
	// HTTP client.
	build func(c *ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error)
}

// section is what config needs of every provider section: its Access.
type section interface{ access() *Access }

// annotation is what a setting's struct tags would say, for settings whose
// field belongs to another package.
type annotation struct {
	legacy  []string
	enum    []string
	min     *int64
	max     *int64
	url     bool
	bytes   bool
	envName string
}

// Registry is the set of providers the configuration knows. Build one with
// [Providers]; there is no global registry.
type Registry struct {
	list []Backend
}

// Register adds b. It panics when b's name is empty or already
// registered: a registry is built once, by code.
func (r *Registry) Register(b Backend) {
	if b.Name == "" || b.section == nil || b.build == nil || b.defaults == nil {
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

// SearchNames and ExtractNames return the names of the backends that can
// search, and extract.
func (r *Registry) SearchNames() []string  { return r.names(func(b Backend) bool { return b.Search }) }
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
		build: func(c *ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error) {
			cfg := c.Tavily.Config
			cfg.HTTP.Client = hc
			return tavily.New(keys, &cfg)
		},
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
		build: func(c *ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error) {
			cfg := c.Exa.Config
			cfg.HTTP.Client = hc
			return exa.New(keys, &cfg)
		},
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
		build: func(c *ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error) {
			cfg := c.WebSearchAPI.Config
			cfg.HTTP.Client = hc
			return websearchapi.New(keys, &cfg)
		},
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

// backend builds the named backend with its key pool.
func (c *Config) backend(name string, hc *http.Client) (any, error) {
	b, ok := c.registry().Lookup(name)
	if !ok {
		return nil, fmt.Errorf("config: unknown provider %s", name)
	}
	pool := c.Pool(name)
	if pool == nil {
		return nil, fmt.Errorf("config: %s has no keys", name)
	}
	return b.build(&c.Providers, pool, hc)
}
