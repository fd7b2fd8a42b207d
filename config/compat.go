package config

import (
	"fmt"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/tavily"
	"github.com/webgate-dev/webgate/provider/websearchapi"
)

// Searchers returns a backend for each of [Config.SearchProviders], in
// order. Prefer [Config.Build].
func (c *Config) Searchers() ([]provider.Searcher, error) {
	names := c.SearchProviders()
	if len(names) == 0 {
		return nil, fmt.Errorf("config: search: %w (order: %v)", ErrNoProviders, c.Search.Order())
	}
	var out []provider.Searcher
	for _, n := range names {
		b, err := c.backend(n, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, b.(provider.Searcher))
	}
	return out, nil
}

// Extractors returns a backend for each of [Config.ExtractProviders], in
// order. Prefer [Config.Build].
func (c *Config) Extractors() ([]provider.Extractor, error) {
	names := c.ExtractProviders()
	if len(names) == 0 {
		return nil, fmt.Errorf("config: extract: %w (order: %v)", ErrNoProviders, c.Extract.Order())
	}
	var out []provider.Extractor
	for _, n := range names {
		b, err := c.backend(n, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, b.(provider.Extractor))
	}
	return out, nil
}

// ExtractPolicyConfig returns the configuration of the extraction policy.
// Prefer [Config.Build].
func (c *Config) ExtractPolicyConfig() *policy.ExtractConfig {
	return c.extractPolicyConfig(c.ExtractProviders())
}

// ProviderNames lists every provider the configuration knows. Prefer
// [Providers].
var ProviderNames = Providers().Names()

// Default base URLs. Prefer the backends' own DefaultBaseURL.
const (
	DefaultTavilyBaseURL       = tavily.DefaultBaseURL
	DefaultExaBaseURL          = exa.DefaultBaseURL
	DefaultWebSearchAPIBaseURL = websearchapi.DefaultBaseURL
)
