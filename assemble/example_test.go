package assemble_test

import (
	"errors"
	"fmt"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/provider"
)

// A library user loads the configuration (config.LoadFromOS in a main;
// here from a given environment) and builds the stack from it: the search
// policy over the providers that have keys, the extraction policy and the
// page reader. Options.Memory (from assemble.OpenMemory) adds the cache and
// key health.
func ExampleBuild() {
	cfg, err := config.Load(&config.LoadOptions{Env: []string{
		"TAVILY_API_KEY=tvly-one",
		"EXA_API_KEY=exa-one",
		"WEBGATE_SEARCH_MODE=fallback",
	}})
	if err != nil {
		fmt.Println(err)
	}
	stack, err := assemble.Build(cfg, &assemble.Options{NoReader: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("search:", provider.NameOf(stack.Searcher))
	fmt.Println("extract:", provider.NameOf(stack.Extractor))
	fmt.Println("reader built:", stack.Reader != nil)
	// Output:
	// search: fallback(tavily,exa)
	// extract: extraction(tavily,exa)
	// reader built: false
}

// Searcher builds the configured search policy over the providers that have
// keys; with none, the hook steps aside.
func ExampleSearcher() {
	cfg, _ := config.Load(&config.LoadOptions{Env: []string{
		"TAVILY_API_KEY=tvly-one",
		"WEBSEARCHAPI_API_KEY=wsa-one",
	}})
	s, err := assemble.Searcher(cfg)
	if errors.Is(err, assemble.ErrNoProviders) {
		fmt.Println("no provider configured: let the agent's own tool run")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(provider.NameOf(s))
	// Output: parallel(tavily,websearchapi)
}
