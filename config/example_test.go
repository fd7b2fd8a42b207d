package config_test

import (
	"fmt"

	"github.com/webgate-dev/webgate/config"
)

// A hook loads the configuration, reports what is wrong and carries on with
// the rest: an invalid setting keeps its default.
func ExampleLoad() {
	cfg, err := config.Load(&config.LoadOptions{
		// LoadFromOS passes os.Environ() and the home directory instead.
		Env: []string{
			"TAVILY_API_KEY=tvly-one|tvly-two",
			"CLAUDE_WEB_HOOKS_SEARCH_MODE=fallback",
			"CLAUDE_WEB_HOOKS_SEARCH_TIMEOUT=10",
			"WEBGATE_HOOKS_WEBSEARCH_BUDGET=soon",
		},
	})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println("mode:", cfg.Search.Mode)
	fmt.Println("per provider:", cfg.Search.ProviderTimeout)
	fmt.Println("hook budget:", cfg.Hooks.WebSearch.Budget)
	fmt.Println("tavily keys:", cfg.KeyCount(config.Tavily))
	fmt.Println("search with:", cfg.SearchProviders())
	fmt.Println("sources:", cfg.Sources)
	// Output:
	// config: hooks.websearch.budget (env WEBGATE_HOOKS_WEBSEARCH_BUDGET): not a duration; want a Go duration such as 25s or 1m30s, or a number of seconds
	// mode: fallback
	// per provider: 10s
	// hook budget: 25s
	// tavily keys: 2
	// search with: [tavily]
	// sources: [defaults env CLAUDE_WEB_HOOKS_SEARCH_MODE env CLAUDE_WEB_HOOKS_SEARCH_TIMEOUT env TAVILY_API_KEY env WEBGATE_HOOKS_WEBSEARCH_BUDGET]
}

// A frontend names the environment variable of a setting.
func ExampleSettingByKey() {
	s, ok := config.SettingByKey("store.timeout")
	fmt.Println(ok, s.Env)
	// Output: true WEBGATE_STORE_TIMEOUT
}

// Most settings are read from the variable the rule gives their key; a
// few from another, which the setting names.
func ExampleEnvName() {
	fmt.Println(config.EnvName("search.mode"))
	s, _ := config.SettingByKey("store.url")
	fmt.Println(config.EnvName(s.Key), "is read as", s.Env)
	// Output:
	// WEBGATE_SEARCH_MODE
	// WEBGATE_STORE_URL is read as WEBGATE_STORE
}
