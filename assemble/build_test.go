package assemble

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/provider"
)

// mustLoad loads the configuration from env alone, with home as the home
// directory (a new empty one when "").
func mustLoad(t *testing.T, home string, env ...string) *config.Config {
	t.Helper()
	if home == "" {
		home = t.TempDir()
	}
	c, err := config.Load(&config.LoadOptions{Env: env, HomeDir: home})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

// TestBuilders_BuildEveryRegisteredProvider keeps the build functions in
// step with the configuration's registry: every provider it knows can be
// built, and nothing else.
func TestBuilders_BuildEveryRegisteredProvider(t *testing.T) {
	names := config.Providers().Names()
	for _, n := range names {
		if builders[n] == nil {
			t.Errorf("provider %s is registered in config.Providers but has no build function", n)
		}
	}
	for n := range builders {
		if !slices.Contains(names, n) {
			t.Errorf("build function for %s, which config.Providers does not register", n)
		}
	}
}

func TestBuild_UsesJinaReaderWithoutAKeyWhenEnabled(t *testing.T) {
	c := mustLoad(t, "", "WEBGATE_PROVIDERS_JINA_KEYLESS=1")
	st, err := Build(c, nil)
	if err != nil || st.Extractor == nil || st.Reader.Extractor == nil {
		t.Fatalf("Build = %+v, %v; want a keyless Jina extractor", st, err)
	}
}

func TestSearcher_FailsWithErrNoProvidersWhenNoProviderHasKeys(t *testing.T) {
	c := mustLoad(t, "", "EXA_API_KEY=e1", "WEBGATE_SEARCH_PROVIDERS=tavily,websearchapi")
	if _, err := Searcher(c); !errors.Is(err, ErrNoProviders) {
		t.Errorf("Searcher error = %v, want ErrNoProviders", err)
	}
	c = mustLoad(t, "")
	if _, err := Extractor(c); !errors.Is(err, ErrNoProviders) {
		t.Errorf("Extractor error = %v, want ErrNoProviders", err)
	}
}

func TestSearcher_CombinesOnlyTheProvidersWithKeysInOrder(t *testing.T) {
	c := mustLoad(t, "", "TAVILY_API_KEY=t1", "EXA_API_KEY=e1", "CLAUDE_WEB_HOOKS_SEARCH_MODE=fallback",
		"CLAUDE_WEB_HOOKS_SEARCH_PRIMARY=exa")
	if got := c.SearchProviders(); !slices.Equal(got, []string{config.Exa, config.Tavily}) {
		t.Errorf("SearchProviders = %v, want exa, tavily", got)
	}
	s, err := Searcher(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := provider.NameOf(s); got != "fallback(exa,tavily)" {
		t.Errorf("searcher = %s, want fallback(exa,tavily)", got)
	}
}

func TestExtractor_KeepsTheConfiguredOrderWhenThePrimaryHasNoKeys(t *testing.T) {
	c := mustLoad(t, "", "TAVILY_API_KEY=t1", "WEBSEARCHAPI_API_KEY=w1",
		"CLAUDE_WEB_HOOKS_WEBFETCH_EXTRACT_PRIMARY=exa")
	if got := c.ExtractProviders(); !slices.Equal(got, []string{config.WebSearchAPI, config.Tavily}) {
		t.Errorf("ExtractProviders = %v", got)
	}
	if got := extractPolicyConfig(c, c.ExtractProviders()).Primary; got != config.WebSearchAPI {
		t.Errorf("policy primary = %q, want the first provider with keys", got)
	}
	e, err := Extractor(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := provider.NameOf(e); got != "extraction(websearchapi,tavily)" {
		t.Errorf("extractor = %s", got)
	}
	c = mustLoad(t, "", "TAVILY_API_KEY=t1", "WEBSEARCHAPI_API_KEY=w1")
	if got := extractPolicyConfig(c, c.ExtractProviders()).Primary; got != "" {
		t.Errorf("policy primary = %q, want empty (random start) without a configured primary", got)
	}
}

// TestSearcher_SearchesThroughTheConfiguredBaseURLWithEveryKey runs a real
// search against a loopback server speaking Tavily's wire format, with a
// two-key pool read from the environment.
func TestSearcher_SearchesThroughTheConfiguredBaseURLWithEveryKey(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		seen[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]++
		mu.Unlock()
		if r.URL.Path != "/search" || req["topic"] != "news" {
			http.Error(w, `{"detail":{"error":"unexpected request"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"query":"go","results":[{"title":"Go","url":"https://go.dev/","content":"The Go language","score":0.9}],"response_time":0.1}`)
	}))
	defer srv.Close()

	c := mustLoad(t, "", "TAVILY_API_KEY=key-a|key-b", "TAVILY_BASE_URL="+srv.URL, "TAVILY_TOPIC=news",
		"WEBGATE_PROVIDERS_TAVILY_KEY_ORDER=round-robin", "WEBGATE_SEARCH_PROVIDERS=tavily")
	s, err := Searcher(c)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := s.Search(context.Background(), provider.Query{Text: "go"})
		if err != nil {
			t.Fatalf("Search: %v", err)
		}
		if len(res.Results) != 1 || res.Results[0].URL != "https://go.dev/" {
			t.Fatalf("results = %+v", res.Results)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if seen["key-a"] != 1 || seen["key-b"] != 1 {
		t.Errorf("keys used %v, want each of the round-robin pair once", seen)
	}
}

func TestBuild_SendsPrivatePagesOnlyToASelfHostedExtractor(t *testing.T) {
	tests := []struct {
		env  []string
		want bool
	}{
		{[]string{"TAVILY_API_KEY=k"}, false},
		{[]string{"TAVILY_API_KEY=k", "TAVILY_BASE_URL=http://127.0.0.1:8080"}, true},
		{[]string{"TAVILY_API_KEY=k", "TAVILY_BASE_URL=http://localhost:8080"}, true},
		{[]string{"TAVILY_API_KEY=k", "TAVILY_BASE_URL=http://10.1.2.3"}, true},
		{[]string{"TAVILY_API_KEY=k", "TAVILY_BASE_URL=https://tavily.example.com"}, false},
		{[]string{"TAVILY_API_KEY=k", "TAVILY_BASE_URL=http://169.254.169.254"}, false},
		{[]string{"WEBGATE_PROVIDERS_JINA_KEYLESS=1", "WEBGATE_PROVIDERS_JINA_READER_URL=http://127.0.0.1:9000"}, true},
		// One provider at its public address is enough to keep them.
		{[]string{"TAVILY_API_KEY=k", "TAVILY_BASE_URL=http://127.0.0.1:8080", "WEBGATE_PROVIDERS_JINA_KEYLESS=1"}, false},
	}
	for _, tt := range tests {
		c := mustLoad(t, "", tt.env...)
		st, err := Build(c, nil)
		if err != nil || st.Reader == nil {
			t.Fatalf("%v: Build = %+v, %v", tt.env, st, err)
		}
		if st.Reader.PrivateExtractor != tt.want {
			t.Errorf("%v (extractors %v): PrivateExtractor = %v, want %v", tt.env, c.ExtractProviders(), st.Reader.PrivateExtractor, tt.want)
		}
	}
}
