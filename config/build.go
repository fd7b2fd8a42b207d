package config

import (
	"errors"
	"fmt"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/tavily"
	"github.com/webgate-dev/webgate/provider/websearchapi"
)

// ErrNoProviders is returned (wrapped) by [Config.Searcher] and
// [Config.Extractor] when no provider of the configured order has keys.
// Hooks then step aside and let the agent's own tool run.
var ErrNoProviders = errors.New("no provider in the configured order has keys")

// TavilyConfig returns the configuration of the Tavily backend.
func (c *Config) TavilyConfig() *tavily.Config {
	p := c.Providers.Tavily
	return &tavily.Config{
		BaseURL:      p.BaseURL,
		SearchDepth:  p.SearchDepth,
		Topic:        p.Topic,
		MaxResults:   p.MaxResults,
		ExtractDepth: p.ExtractDepth,
	}
}

// ExaConfig returns the configuration of the Exa backend.
func (c *Config) ExaConfig() *exa.Config {
	p := c.Providers.Exa
	return &exa.Config{
		BaseURL:    p.BaseURL,
		Type:       p.SearchType,
		NumResults: p.MaxResults,
		Category:   p.Category,
	}
}

// WebSearchAPIConfig returns the configuration of the WebSearchAPI.ai
// backend.
func (c *Config) WebSearchAPIConfig() *websearchapi.Config {
	p := c.Providers.WebSearchAPI
	return &websearchapi.Config{
		BaseURL:        p.BaseURL,
		MaxResults:     p.MaxResults,
		IncludeContent: p.IncludeContent,
		ScrapeEngine:   p.ScrapeEngine,
	}
}

// SearchPolicyConfig returns the configuration of the search policy. Add an
// Observer to it before building the policy to trace searches.
func (c *Config) SearchPolicyConfig() *policy.SearchConfig {
	return &policy.SearchConfig{
		Budget:      c.Search.Timeout,
		PerProvider: c.Search.ProviderTimeout,
		MaxResults:  c.Search.MaxResults,
		Hedge:       c.Search.HedgeDelay,
	}
}

// ExtractPolicyConfig returns the configuration of the extraction policy.
// Primary is the configured primary when it has keys; when it has none,
// the first provider of [Config.ExtractProviders], so that the order stays
// the configured one. Empty means a random first provider per extraction.
func (c *Config) ExtractPolicyConfig() *policy.ExtractConfig {
	primary := ""
	if c.Extract.Primary != "" {
		if ps := c.ExtractProviders(); len(ps) > 0 {
			primary = ps[0]
		}
	}
	return &policy.ExtractConfig{
		Primary:    primary,
		Budget:     c.Extract.Timeout,
		PerAttempt: c.Extract.ProviderTimeout,
		Hedge:      c.Extract.HedgeDelay,
	}
}

// SearchProviders returns the search order ([SearchConfig.Order]) less the
// providers without keys.
func (c *Config) SearchProviders() []string { return c.withKeys(c.Search.Order()) }

// ExtractProviders returns the extraction order ([ExtractConfig.Order])
// less the providers without keys.
func (c *Config) ExtractProviders() []string { return c.withKeys(c.Extract.Order()) }

func (c *Config) withKeys(names []string) []string {
	var out []string
	for _, n := range names {
		if c.KeyCount(n) > 0 {
			out = append(out, n)
		}
	}
	return out
}

// client builds one backend with its key pool.
func (c *Config) client(name string) (any, error) {
	pool := c.Pool(name)
	if pool == nil {
		return nil, fmt.Errorf("config: %s has no keys", name)
	}
	switch name {
	case Tavily:
		return tavily.New(pool, c.TavilyConfig())
	case Exa:
		return exa.New(pool, c.ExaConfig())
	case WebSearchAPI:
		return websearchapi.New(pool, c.WebSearchAPIConfig())
	}
	return nil, fmt.Errorf("config: unknown provider %s", name)
}

// Searchers returns a backend for each of [Config.SearchProviders], in
// order, each with its own key pool. It fails (wrapping [ErrNoProviders])
// when none has keys.
func (c *Config) Searchers() ([]provider.Searcher, error) {
	names := c.SearchProviders()
	if len(names) == 0 {
		return nil, fmt.Errorf("config: search: %w (order: %v)", ErrNoProviders, c.Search.Order())
	}
	var out []provider.Searcher
	for _, n := range names {
		b, err := c.client(n)
		if err != nil {
			return nil, err
		}
		s, ok := b.(provider.Searcher)
		if !ok {
			return nil, fmt.Errorf("config: %s cannot search", n)
		}
		out = append(out, s)
	}
	return out, nil
}

// Extractors returns a backend for each of [Config.ExtractProviders], in
// order, each with its own key pool. It fails (wrapping [ErrNoProviders])
// when none has keys.
func (c *Config) Extractors() ([]provider.Extractor, error) {
	names := c.ExtractProviders()
	if len(names) == 0 {
		return nil, fmt.Errorf("config: extract: %w (order: %v)", ErrNoProviders, c.Extract.Order())
	}
	var out []provider.Extractor
	for _, n := range names {
		b, err := c.client(n)
		if err != nil {
			return nil, err
		}
		e, ok := b.(provider.Extractor)
		if !ok {
			return nil, fmt.Errorf("config: %s cannot extract", n)
		}
		out = append(out, e)
	}
	return out, nil
}

// Searcher returns the configured search policy (search.mode) over
// [Config.Searchers]. It fails (wrapping [ErrNoProviders]) when no provider
// of the order has keys; [Config.SearchProviders] says which will be used.
func (c *Config) Searcher() (provider.Searcher, error) {
	ss, err := c.Searchers()
	if err != nil {
		return nil, err
	}
	mode, err := policy.ParseMode(c.Search.Mode)
	if err != nil {
		return nil, err
	}
	return policy.NewSearch(mode, ss, c.SearchPolicyConfig())
}

// Extractor returns the extraction policy over [Config.Extractors]. It
// fails (wrapping [ErrNoProviders]) when no provider of the order has keys;
// [Config.ExtractProviders] says which will be used.
func (c *Config) Extractor() (provider.Extractor, error) {
	es, err := c.Extractors()
	if err != nil {
		return nil, err
	}
	return policy.NewExtraction(es, c.ExtractPolicyConfig())
}
