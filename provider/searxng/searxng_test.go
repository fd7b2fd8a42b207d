package searxng_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
	"github.com/webgate-dev/webgate/provider/searxng"
)

// start runs a fake instance answering every request with a, and a client
// for it built from cfg (BaseURL and HTTP are filled in).
func start(t *testing.T, cfg searxng.Config, a providertest.Answer) (*providertest.Server, *searxng.Client) {
	t.Helper()
	srv := providertest.NewServer(t, nil, func(int, providertest.Request) providertest.Answer { return a })
	cfg.BaseURL = srv.URL
	cfg.HTTP = providertest.HTTPConfig()
	c, err := searxng.New(nil, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func query(t *testing.T, req providertest.Request) url.Values {
	t.Helper()
	v, err := url.ParseQuery(req.RawQuery)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNew_RejectsInvalidConfigurations(t *testing.T) {
	three := 3
	for name, cfg := range map[string]*searxng.Config{
		"nil config":            nil,
		"no base URL":           {},
		"blank base URL":        {BaseURL: "  "},
		"relative base URL":     {BaseURL: "searx.example.org"},
		"ftp base URL":          {BaseURL: "ftp://searx.example.org"},
		"base URL with query":   {BaseURL: "https://searx.example.org/?format=json"},
		"base URL with user":    {BaseURL: "https://user:pw@searx.example.org"},
		"negative max results":  {BaseURL: "https://searx.example.org", MaxResults: -1},
		"safe search 3":         {BaseURL: "https://searx.example.org", SafeSearch: &three},
		"negative timeout":      {BaseURL: "https://searx.example.org", TimeoutLimit: -time.Second},
		"timeout over a minute": {BaseURL: "https://searx.example.org", TimeoutLimit: 2 * time.Minute},
		"comma in categories":   {BaseURL: "https://searx.example.org", Categories: []string{"general,news"}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := searxng.New(nil, cfg); err == nil {
				t.Fatal("New accepted the configuration")
			} else if !strings.HasPrefix(err.Error(), "searxng: ") {
				t.Errorf("error %q does not name the backend", err)
			}
		})
	}
}

func TestNew_DoesNotModifyTheCallersConfig(t *testing.T) {
	one := 1
	cfg := searxng.Config{BaseURL: "https://searx.example.org/search/", Categories: []string{" general ", ""}, SafeSearch: &one}
	if _, err := searxng.New(nil, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != "https://searx.example.org/search/" || cfg.MaxResults != 0 || len(cfg.Categories) != 2 || cfg.Categories[0] != " general " || *cfg.SafeSearch != 1 {
		t.Errorf("New modified its Config: %+v", cfg)
	}
}

func TestSearch_SendsTheQueryFieldsAsSearXNGParameters(t *testing.T) {
	two := 2
	srv, c := start(t, searxng.Config{
		Categories:   []string{"general", " it "},
		Engines:      []string{"duckduckgo", "brave"},
		SafeSearch:   &two,
		TimeoutLimit: 2500 * time.Millisecond,
	}, fixture(t, "search_ok.json"))
	_, err := c.Search(context.Background(), provider.Query{
		Text:           "  go generics  ",
		IncludeDomains: []string{"https://Go.dev/doc", "pkg.go.dev"},
		ExcludeDomains: []string{"example.com"},
		TimeRange:      provider.PastWeek,
		Country:        "us",
		Language:       "en",
	})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Last()
	if req.Method != http.MethodGet || req.Path != "/search" {
		t.Errorf("request = %s %s, want GET /search", req.Method, req.Path)
	}
	if err := validateSearchRequest(req); err != nil {
		t.Error(err)
	}
	want := url.Values{
		"q":             {"go generics site:go.dev OR site:pkg.go.dev -site:example.com"},
		"format":        {"json"},
		"pageno":        {"1"},
		"time_range":    {"week"},
		"language":      {"en-US"},
		"categories":    {"general,it"},
		"engines":       {"duckduckgo,brave"},
		"safesearch":    {"2"},
		"timeout_limit": {"2.5"},
	}
	if got := query(t, req); got.Encode() != want.Encode() {
		t.Errorf("parameters\n got %s\nwant %s", got.Encode(), want.Encode())
	}
	if a := req.Header.Get("Accept"); a != "application/json" {
		t.Errorf("Accept = %q, want application/json", a)
	}
	if h := req.Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization = %q, want none", h)
	}
}

func TestSearch_SendsOnlyWhatTheQuerySets(t *testing.T) {
	srv, c := start(t, searxng.Config{}, fixture(t, "search_ok.json"))
	if _, err := c.Search(context.Background(), provider.Query{Text: "go"}); err != nil {
		t.Fatal(err)
	}
	want := url.Values{"q": {"go"}, "format": {"json"}, "pageno": {"1"}}
	if got := query(t, srv.Last()); got.Encode() != want.Encode() {
		t.Errorf("parameters = %s, want %s", got.Encode(), want.Encode())
	}
}

func TestSearch_MapsLanguageAndCountryOntoSearXNGsLanguage(t *testing.T) {
	for _, tc := range []struct {
		language, country, want string
	}{
		{"en", "", "en"},
		{"EN", "", "en"},
		{"en-gb", "", "en-GB"},
		{"en_US", "de", "en-DE"},
		{"fr", "CA", "fr-CA"},
		{"auto", "", "auto"},
		{"", "us", ""}, // a country alone cannot be expressed
		{"fil", "ph", "fil-PH"},
	} {
		srv, c := start(t, searxng.Config{}, fixture(t, "search_ok.json"))
		if _, err := c.Search(context.Background(), provider.Query{Text: "go", Language: tc.language, Country: tc.country}); err != nil {
			t.Fatalf("language %q, country %q: %v", tc.language, tc.country, err)
		}
		if got := query(t, srv.Last()).Get("language"); got != tc.want {
			t.Errorf("language %q, country %q: sent %q, want %q", tc.language, tc.country, got, tc.want)
		}
	}
}

func TestSearch_RefusesInvalidFiltersBeforeAnyRequest(t *testing.T) {
	for name, q := range map[string]provider.Query{
		"empty text":     {Text: "   "},
		"time range":     {Text: "go", TimeRange: "fortnight"},
		"country":        {Text: "go", Country: "usa"},
		"language":       {Text: "go", Language: "english"},
		"language digit": {Text: "go", Language: "e1"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, c := start(t, searxng.Config{}, fixture(t, "search_ok.json"))
			_, err := c.Search(context.Background(), q)
			if k := provider.KindOf(err); k != provider.KindBadRequest {
				t.Fatalf("KindOf = %q, want bad-request; err: %v", k, err)
			}
			if n := srv.Count(); n != 0 {
				t.Errorf("server received %d requests, want 0", n)
			}
		})
	}
}

func TestSearch_MapsResultsAndTheAnswer(t *testing.T) {
	_, c := start(t, searxng.Config{}, fixture(t, "search_ok.json"))
	res, err := c.Search(context.Background(), provider.Query{Text: "go language"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Provider != "searxng" || res.Query != "go language" {
		t.Errorf("Provider %q, Query %q", res.Provider, res.Query)
	}
	if res.Answer != "Go is a programming language designed at Google." {
		t.Errorf("Answer = %q", res.Answer)
	}
	if len(res.Results) != 2 {
		t.Fatalf("got %d results, want 2", len(res.Results))
	}
	r0, r1 := res.Results[0], res.Results[1]
	if r0.URL != "https://go.dev/" || r0.Title != "The Go Programming Language" || !strings.HasPrefix(r0.Snippet, "Go is an open source") ||
		r0.Score != 4 || !r0.Published.IsZero() || r0.Provider != "searxng" || r0.Content != "" {
		t.Errorf("result 0 = %+v", r0)
	}
	if want := time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC); !r1.Published.Equal(want) || r1.Score != 0.5 {
		t.Errorf("result 1: Published %v, Score %v; want %v, 0.5", r1.Published, r1.Score, want)
	}
}

func TestSearch_KeepsOnlyResultsThatPassTheDomainFilters(t *testing.T) {
	body := `{"query":"q","results":[
		{"url":"https://go.dev/doc","title":"a"},
		{"url":"https://pkg.go.dev/fmt","title":"b"},
		{"url":"https://notgo.dev/","title":"c"},
		{"url":"https://blog.example.com/","title":"d"},
		{"url":"not a url at all","title":"e"}],
		"unresponsive_engines":[]}`
	for _, tc := range []struct {
		name             string
		include, exclude []string
		want             []string
	}{
		{"none", nil, nil, []string{"a", "b", "c", "d", "e"}},
		{"include with subdomains", []string{"go.dev"}, nil, []string{"a", "b"}},
		{"exclude with subdomains", nil, []string{"example.com", "pkg.go.dev"}, []string{"a", "c"}},
		{"both", []string{"go.dev", "example.com"}, []string{"blog.example.com"}, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := start(t, searxng.Config{}, jsonAnswer(200, body))
			res, err := c.Search(context.Background(), provider.Query{Text: "q", IncludeDomains: tc.include, ExcludeDomains: tc.exclude})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res.Results {
				got = append(got, r.Title)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSearch_CutsResultsToMaxResults(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"results":[`)
	for i := range 15 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"url":"https://example.org/` + string(rune('a'+i)) + `","title":"t"}`)
	}
	b.WriteString(`],"unresponsive_engines":[]}`)
	for _, tc := range []struct {
		cfg, query, want int
	}{{0, 0, 10}, {0, 3, 3}, {4, 0, 4}, {0, 50, 15}} {
		_, c := start(t, searxng.Config{MaxResults: tc.cfg}, jsonAnswer(200, b.String()))
		res, err := c.Search(context.Background(), provider.Query{Text: "q", MaxResults: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != tc.want {
			t.Errorf("Config.MaxResults %d, Query.MaxResults %d: got %d results, want %d", tc.cfg, tc.query, len(res.Results), tc.want)
		}
	}
}

func TestSearch_ReportsADisabledJSONFormatAsAConfigurationError(t *testing.T) {
	srv, c := start(t, searxng.Config{}, providertest.Answer{Status: 403,
		Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: readFile(t, "forbidden.html")})
	_, err := c.Search(context.Background(), provider.Query{Text: "go"})
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *provider.Error", err)
	}
	if pe.Kind != provider.KindBadRequest || pe.Kind.Retryable() || pe.Kind.Rotatable() {
		t.Errorf("Kind = %q, want bad-request (neither retried nor rotated)", pe.Kind)
	}
	want := "the SearXNG instance does not serve JSON: enable the json format under search.formats in its settings.yml"
	if pe.Message != want {
		t.Errorf("Message = %q, want %q", pe.Message, want)
	}
	if pe.Status != 403 || pe.Attempts != 1 || srv.Count() != 1 {
		t.Errorf("Status %d, Attempts %d, requests %d; want 403, 1, 1", pe.Status, pe.Attempts, srv.Count())
	}
	if got := err.Error(); got != "searxng search: bad-request (HTTP 403): "+want {
		t.Errorf("Error() = %q", got)
	}
}

func TestSearch_ReportsEveryEngineFailingAsTransientNamingTheEngines(t *testing.T) {
	srv, c := start(t, searxng.Config{}, fixture(t, "search_unresponsive.json"))
	_, err := c.Search(context.Background(), provider.Query{Text: "go"})
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *provider.Error", err)
	}
	if pe.Kind != provider.KindTransient {
		t.Errorf("Kind = %q, want transient", pe.Kind)
	}
	want := "no results, and these engines failed: brave (Suspended: too many requests), duckduckgo (CAPTCHA), google (timeout)"
	if pe.Message != want {
		t.Errorf("Message = %q, want %q", pe.Message, want)
	}
	if n := srv.Count(); n != providertest.MaxAttempts {
		t.Errorf("server received %d requests, want %d (transient failures are retried)", n, providertest.MaxAttempts)
	}
}

func TestSearch_SucceedsWhenSomeEnginesFailAndOthersAnswer(t *testing.T) {
	_, c := start(t, searxng.Config{}, fixture(t, "search_ok.json")) // lists wikidata as unresponsive
	res, err := c.Search(context.Background(), provider.Query{Text: "go"})
	if err != nil || len(res.Results) != 2 {
		t.Fatalf("Search = %v, %v; want 2 results", res, err)
	}
}

func TestSearch_ReportsTheLimitersPlainTextAsRateLimited(t *testing.T) {
	srv, c := start(t, searxng.Config{}, textAnswer(429, "Too Many Requests\n"))
	_, err := c.Search(context.Background(), provider.Query{Text: "go"})
	if k := provider.KindOf(err); k != provider.KindRateLimited {
		t.Fatalf("KindOf = %q, want rate-limited; err: %v", k, err)
	}
	if !strings.Contains(err.Error(), "Too Many Requests") {
		t.Errorf("error %q does not quote the limiter", err)
	}
	if n := srv.Count(); n != providertest.MaxAttempts {
		t.Errorf("server received %d requests, want %d", n, providertest.MaxAttempts)
	}
}

func TestSearch_ReportsAnHTMLPageAsMalformed(t *testing.T) {
	_, c := start(t, searxng.Config{}, providertest.Answer{Status: 200,
		Header: http.Header{"Content-Type": {"text/html"}}, Body: "<!DOCTYPE html><html><body>SearXNG</body></html>"})
	_, err := c.Search(context.Background(), provider.Query{Text: "go"})
	if k := provider.KindOf(err); k != provider.KindUnknown {
		t.Fatalf("KindOf = %q, want unknown; err: %v", k, err)
	}
	if !strings.Contains(err.Error(), "HTML") {
		t.Errorf("error %q does not say the answer was HTML", err)
	}
}

func TestSearch_QuotesSearXNGsErrorMessage(t *testing.T) {
	_, c := start(t, searxng.Config{}, jsonAnswer(400, `{"error": "Invalid value 0 for parameter pageno"}`))
	_, err := c.Search(context.Background(), provider.Query{Text: "go"})
	if k := provider.KindOf(err); k != provider.KindBadRequest {
		t.Fatalf("KindOf = %q, want bad-request", k)
	}
	if !strings.Contains(err.Error(), "Invalid value 0 for parameter pageno") {
		t.Errorf("error %q does not quote SearXNG", err)
	}
}

func TestSearch_UsesThePathOfTheBaseURL(t *testing.T) {
	srv := providertest.NewServer(t, nil, func(int, providertest.Request) providertest.Answer { return fixture(t, "search_ok.json") })
	for _, base := range []string{srv.URL + "/searx", srv.URL + "/searx/", srv.URL + "/searx/search"} {
		c, err := searxng.New(nil, &searxng.Config{BaseURL: base, HTTP: providertest.HTTPConfig()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Search(context.Background(), provider.Query{Text: "go"}); err != nil {
			t.Fatal(err)
		}
		if p := srv.Last().Path; p != "/searx/search" {
			t.Errorf("base %q: path %q, want /searx/search", base, p)
		}
	}
}

func TestSearch_IgnoresKeys(t *testing.T) {
	srv := providertest.NewServer(t, nil, func(int, providertest.Request) providertest.Answer { return fixture(t, "search_ok.json") })
	c, err := searxng.New(provider.NewPool(providertest.Secrets, nil), &searxng.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Search(context.Background(), provider.Query{Text: "go"}); err != nil {
		t.Fatal(err)
	}
	for name, vs := range srv.Last().Header {
		for _, v := range vs {
			for _, k := range providertest.Secrets {
				if strings.Contains(v, k) {
					t.Errorf("header %s carries a key", name)
				}
			}
		}
	}
}

func TestName(t *testing.T) {
	c, err := searxng.New(nil, &searxng.Config{BaseURL: "http://127.0.0.1:8888"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "searxng" || provider.NameOf(c) != "searxng" {
		t.Errorf("Name() = %q", c.Name())
	}
}
