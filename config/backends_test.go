package config

import (
	"slices"
	"testing"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/tavily"
	"github.com/webgate-dev/webgate/provider/websearchapi"
)

func enumOf(t *testing.T, key string) []string {
	t.Helper()
	for _, s := range Settings() {
		if s.Key == key {
			return s.Enum
		}
	}
	t.Fatalf("no setting %s", key)
	return nil
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestSettings_AcceptExactlyTheValuesTheBackendsAccept(t *testing.T) {
	modes := make([]string, len(policy.Modes))
	for i, m := range policy.Modes {
		modes[i] = string(m)
	}
	tests := []struct {
		key  string
		want []string
	}{
		{"search.mode", modes},
		{"providers.tavily.search_depth", tavily.SearchDepths},
		{"providers.tavily.topic", tavily.Topics},
		{"providers.tavily.extract_depth", tavily.ExtractDepths},
		{"providers.exa.search_type", exa.Types},
		{"providers.exa.category", append([]string{""}, exa.Categories...)},
		{"providers.tavily.key_order", []string{string(provider.Shuffle), string(provider.RoundRobin)}},
	}
	for _, tt := range tests {
		if got := enumOf(t, tt.key); !sameSet(got, tt.want) {
			t.Errorf("%s accepts %v, the backend %v", tt.key, got, tt.want)
		}
	}
}

func TestDefault_MatchesTheBackendDefaults(t *testing.T) {
	d := Default()
	p := d.Providers
	if p.Tavily.BaseURL != tavily.DefaultBaseURL || p.Tavily.SearchDepth != tavily.DefaultSearchDepth ||
		p.Tavily.Topic != tavily.DefaultTopic || p.Tavily.MaxResults != tavily.DefaultMaxResults ||
		p.Tavily.ExtractDepth != tavily.DefaultExtractDepth {
		t.Errorf("tavily defaults %+v differ from the backend's", p.Tavily)
	}
	if p.Exa.BaseURL != exa.DefaultBaseURL || p.Exa.Type != exa.DefaultType || p.Exa.NumResults != exa.DefaultNumResults {
		t.Errorf("exa defaults %+v differ from the backend's", p.Exa)
	}
	if p.WebSearchAPI.BaseURL != websearchapi.DefaultBaseURL || p.WebSearchAPI.MaxResults != websearchapi.DefaultMaxResults ||
		p.WebSearchAPI.ScrapeEngine != websearchapi.DefaultScrapeEngine {
		t.Errorf("websearchapi defaults %+v differ from the backend's", p.WebSearchAPI)
	}
	if d.Search.Mode != string(policy.DefaultSearchMode) || d.Search.Timeout != policy.DefaultBudget {
		t.Errorf("search defaults %+v differ from the policy's", d.Search)
	}
}
