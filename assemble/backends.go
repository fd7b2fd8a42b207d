package assemble

import (
	"fmt"
	"net/http"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/brave"
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/firecrawl"
	"github.com/webgate-dev/webgate/provider/jina"
	"github.com/webgate-dev/webgate/provider/searxng"
	"github.com/webgate-dev/webgate/provider/tavily"
	"github.com/webgate-dev/webgate/provider/websearchapi"
)

// buildFunc makes a backend from its section of c with keys (nil for a
// provider used without keys) and an optional HTTP client.
type buildFunc func(c *config.ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error)

// builders holds the build function of every provider the configuration's
// registry ([config.Providers]) knows, by name; a test keeps the two in
// step.
var builders = map[string]buildFunc{
	config.Tavily: func(c *config.ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error) {
		cfg := c.Tavily.Config
		cfg.HTTP.Client = hc
		return tavily.New(keys, &cfg)
	},
	config.Exa: func(c *config.ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error) {
		cfg := c.Exa.Config
		cfg.HTTP.Client = hc
		return exa.New(keys, &cfg)
	},
	config.WebSearchAPI: func(c *config.ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error) {
		cfg := c.WebSearchAPI.Config
		cfg.HTTP.Client = hc
		return websearchapi.New(keys, &cfg)
	},
	config.Brave: func(c *config.ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error) {
		cfg := c.Brave.Config
		cfg.HTTP.Client = hc
		return brave.New(keys, &cfg)
	},
	config.SearXNG: func(c *config.ProvidersConfig, _ provider.KeySource, hc *http.Client) (any, error) {
		cfg := c.SearXNG.Config
		cfg.HTTP.Client = hc
		return searxng.New(nil, &cfg)
	},
	config.Jina: func(c *config.ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error) {
		cfg := c.Jina.Config
		cfg.HTTP.Client = hc
		return jina.New(keys, &cfg)
	},
	config.Firecrawl: func(c *config.ProvidersConfig, keys provider.KeySource, hc *http.Client) (any, error) {
		cfg := c.Firecrawl.Config
		cfg.HTTP.Client = hc
		return firecrawl.New(keys, &cfg)
	},
}

// backend builds the named backend of c with its key pool, whose keys mem
// (nil for none) keeps track of.
func backend(c *config.Config, name string, hc *http.Client, mem *memory.Memory) (any, error) {
	build, ok := builders[name]
	if !ok {
		return nil, fmt.Errorf("assemble: unknown provider %s", name)
	}
	pool := c.Pool(name)
	if pool == nil {
		if !c.UsableWithoutKeys(name) {
			return nil, fmt.Errorf("assemble: %s has no keys", name)
		}
		return build(&c.Providers, nil, hc)
	}
	return build(&c.Providers, mem.Keys(name, pool), hc)
}
