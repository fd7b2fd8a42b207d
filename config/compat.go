package config

import (
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/tavily"
	"github.com/webgate-dev/webgate/provider/websearchapi"
)

// ProviderNames lists every provider the configuration knows. Prefer
// [Providers].
var ProviderNames = Providers().Names()

// Default base URLs. Prefer the backends' own DefaultBaseURL.
const (
	DefaultTavilyBaseURL       = tavily.DefaultBaseURL
	DefaultExaBaseURL          = exa.DefaultBaseURL
	DefaultWebSearchAPIBaseURL = websearchapi.DefaultBaseURL
)
