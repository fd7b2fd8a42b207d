package tavily_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
	"github.com/webgate-dev/webgate/provider/tavily"
)

// fake starts a Tavily fake that answers every request with a and checks
// every request body against the OpenAPI spec when the test ends.
func fake(t *testing.T, a providertest.Answer) *providertest.Server {
	t.Helper()
	spec := loadSpec(t)
	srv := providertest.NewServer(t, bearer, func(int, providertest.Request) providertest.Answer { return a })
	t.Cleanup(func() {
		for _, r := range srv.Requests() {
			if err := spec.ValidateRequest(r.Method, r.Path, r.Body); err != nil {
				t.Errorf("request to %s does not match the Tavily spec: %v\nbody: %s", r.Path, err, r.Body)
			}
		}
	})
	return srv
}

func newClient(t *testing.T, srv *providertest.Server, cfg tavily.Config) *tavily.Client {
	t.Helper()
	cfg.BaseURL = srv.URL
	cfg.HTTP = providertest.HTTPConfig()
	c, err := tavily.New(provider.NewPool([]string{"tvly-test-key"}, nil), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sent decodes the body of the last request srv received.
func sent(t *testing.T, srv *providertest.Server) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(srv.Last().Body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	return m
}

func TestSearch_MapsEveryQueryFieldOntoTheRequest(t *testing.T) {
	srv := fake(t, fixture(t, "search_ok.json"))
	c := newClient(t, srv, tavily.Config{})
	_, err := c.Search(context.Background(), provider.Query{
		Text:           "  context cancellation  ",
		MaxResults:     7,
		IncludeDomains: []string{"go.dev", " ", "pkg.go.dev"},
		ExcludeDomains: []string{"example.com"},
		TimeRange:      provider.PastWeek,
		Country:        "DE",
		Language:       "de",
	})
	if err != nil {
		t.Fatal(err)
	}
	got := sent(t, srv)
	want := map[string]any{
		"query":           "context cancellation",
		"max_results":     7.0,
		"include_domains": []any{"go.dev", "pkg.go.dev"},
		"exclude_domains": []any{"example.com"},
		"time_range":      "week",
		"country":         "germany",
		"search_depth":    "basic",
		"topic":           "general",
		"include_usage":   true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("request body\n got %v\nwant %v", got, want)
	}
	r := srv.Last()
	if r.Key != "tvly-test-key" || r.Header.Get("Authorization") != "Bearer tvly-test-key" {
		t.Errorf("Authorization = %q, want the Bearer key", r.Header.Get("Authorization"))
	}
	if r.Method != http.MethodPost || r.Path != "/search" {
		t.Errorf("request = %s %s, want POST /search", r.Method, r.Path)
	}
}

func TestSearch_UsesTheDefaultAndCapsMaxResults(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg, query int
		want       float64
	}{
		{"query unset uses the default of 5", 0, 0, 5},
		{"query unset uses the configured default", 8, 0, 8},
		{"negative query uses the default", 0, -3, 5},
		{"query within range is sent as is", 0, 12, 12},
		{"query above 20 is capped at 20", 0, 50, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t, fixture(t, "search_ok.json"))
			c := newClient(t, srv, tavily.Config{MaxResults: tc.cfg})
			if _, err := c.Search(context.Background(), provider.Query{Text: "q", MaxResults: tc.query}); err != nil {
				t.Fatal(err)
			}
			if got := sent(t, srv)["max_results"]; got != tc.want {
				t.Errorf("max_results = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSearch_SendsCountryOnlyForTheGeneralTopicAndKnownCodes(t *testing.T) {
	for _, tc := range []struct {
		name, topic, country string
		want                 any
	}{
		{"general topic maps the code", "general", "us", "united states"},
		{"upper-case codes map too", "", "GB", "united kingdom"},
		{"news topic drops the country", "news", "us", nil},
		{"finance topic drops the country", "finance", "fr", nil},
		{"unknown code is dropped", "general", "xx", nil},
		{"a Tavily name passes through", "general", "south korea", "south korea"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t, fixture(t, "search_ok.json"))
			c := newClient(t, srv, tavily.Config{Topic: tc.topic})
			if _, err := c.Search(context.Background(), provider.Query{Text: "q", Country: tc.country}); err != nil {
				t.Fatal(err)
			}
			if got := sent(t, srv)["country"]; got != tc.want {
				t.Errorf("country = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCountryName_MapsEveryCodeToANameTheSpecAccepts(t *testing.T) {
	spec := loadSpec(t)
	codes := []string{"af", "al", "dz", "ad", "ao", "ar", "am", "au", "at", "az", "bs", "bh", "bd", "bb", "by", "be", "bz", "bj", "bt", "bo",
		"ba", "bw", "br", "bn", "bg", "bf", "bi", "kh", "cm", "ca", "cv", "cf", "td", "cl", "cn", "co", "km", "cg", "cr", "hr", "cu", "cy",
		"cz", "dk", "dj", "do", "ec", "eg", "sv", "gq", "er", "ee", "et", "fj", "fi", "fr", "ga", "gm", "ge", "de", "gh", "gr", "gt", "gn",
		"ht", "hn", "hu", "is", "in", "id", "ir", "iq", "ie", "il", "it", "jm", "jp", "jo", "kz", "ke", "kw", "kg", "lv", "lb", "ls", "lr",
		"ly", "li", "lt", "lu", "mg", "mw", "my", "mv", "ml", "mt", "mr", "mu", "mx", "md", "mc", "mn", "me", "ma", "mz", "mm", "na", "np",
		"nl", "nz", "ni", "ne", "ng", "kp", "mk", "no", "om", "pk", "pa", "pg", "py", "pe", "ph", "pl", "pt", "qa", "ro", "ru", "rw", "sa",
		"sn", "rs", "sg", "sk", "si", "so", "za", "kr", "ss", "es", "lk", "sd", "se", "ch", "sy", "tw", "tj", "tz", "th", "tg", "tt", "tn",
		"tr", "tm", "ug", "ua", "ae", "gb", "uk", "us", "uy", "uz", "ve", "vn", "ye", "zm", "zw"}
	names := map[string]bool{}
	for _, code := range codes {
		name := tavily.CountryName(code)
		if name == "" {
			t.Errorf("CountryName(%q) is empty", code)
			continue
		}
		names[name] = true
		body, _ := json.Marshal(map[string]string{"query": "q", "country": name})
		if err := spec.ValidateRequest("POST", "/search", body); err != nil {
			t.Errorf("CountryName(%q) = %q, which the spec rejects: %v", code, name, err)
		}
	}
	// The spec's enum lists 166 countries; every one is reachable by code.
	if len(names) != 166 {
		t.Errorf("codes reach %d country names, want all 166 of the spec", len(names))
	}
	for _, code := range []string{"", "xx", "usa", "u"} {
		if got := tavily.CountryName(code); got != "" {
			t.Errorf("CountryName(%q) = %q, want empty", code, got)
		}
	}
}

func TestSearch_SendsTheConfiguredOptions(t *testing.T) {
	srv := fake(t, fixture(t, "search_ok.json"))
	c := newClient(t, srv, tavily.Config{
		SearchDepth: "advanced", Topic: "news", ChunksPerSource: 3, IncludeRawContent: true,
		IncludeAnswer: "basic", ProjectID: "proj-42",
	})
	if _, err := c.Search(context.Background(), provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	got := sent(t, srv)
	for field, want := range map[string]any{
		"search_depth": "advanced", "topic": "news", "chunks_per_source": 3.0,
		"include_raw_content": "markdown", "include_answer": "basic",
	} {
		if got[field] != want {
			t.Errorf("%s = %v, want %v", field, got[field], want)
		}
	}
	if h := srv.Last().Header.Get("X-Project-ID"); h != "proj-42" {
		t.Errorf("X-Project-ID = %q, want proj-42", h)
	}
}

func TestSearch_OmitsChunksForTheUltraFastDepth(t *testing.T) {
	srv := fake(t, fixture(t, "search_ok.json"))
	c := newClient(t, srv, tavily.Config{SearchDepth: "ultra-fast", ChunksPerSource: 2})
	if _, err := c.Search(context.Background(), provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	if v, ok := sent(t, srv)["chunks_per_source"]; ok {
		t.Errorf("chunks_per_source = %v sent with ultra-fast, want it omitted", v)
	}
}

func TestSearch_ReadsEveryResultField(t *testing.T) {
	body := `{"query":"q","answer":"short answer","images":[{"url":"https://i.example/a.png","description":"a"}],
	 "results":[{"title":"Go","url":"https://go.dev","content":"snippet","raw_content":"héllo wörld","score":"0.75",
	   "published_date":"2024-03-05T10:00:00Z","favicon":null,"extra":{"nested":true}},
	  {"title":null,"url":"https://untitled.example","content":null,"score":null},
	  {"title":"no url"},
	  42],
	 "response_time":"1.67","usage":{"credits":1},"request_id":"req-1"}`
	srv := fake(t, providertest.Answer{Body: body})
	c := newClient(t, srv, tavily.Config{MaxCharacters: 5})
	r, err := c.Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	want := &provider.Results{
		Query: "q", Answer: "short answer", Provider: "tavily", RequestID: "req-1",
		Usage: &provider.Usage{Credits: 1},
		Results: []provider.Result{
			{Title: "Go", URL: "https://go.dev", Snippet: "snippet", Content: "héllo", Score: 0.75,
				Published: time.Date(2024, 3, 5, 10, 0, 0, 0, time.UTC), Provider: "tavily"},
			{Title: "https://untitled.example", URL: "https://untitled.example", Provider: "tavily"},
		},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("results\n got %+v\nwant %+v", r, want)
	}
}

func TestSearchAndExtract_AskForAndReadTheCreditsUsed(t *testing.T) {
	for _, tc := range []struct {
		name, usage string
		want        *provider.Usage
	}{
		{"credits reported", `,"usage":{"credits":2}`, &provider.Usage{Credits: 2}},
		{"credits as a string", `,"usage":{"credits":"1.5"}`, &provider.Usage{Credits: 1.5}},
		{"zero credits: an extraction below Tavily's batch of five", `,"usage":{"credits":0}`, &provider.Usage{}},
		{"no usage", ``, nil},
		{"usage null", `,"usage":null`, nil},
		{"usage of another shape", `,"usage":[1]`, nil},
		{"credits null", `,"usage":{"credits":null}`, nil},
		{"negative credits", `,"usage":{"credits":-1}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t, providertest.Answer{Body: `{"results":[{"url":"https://go.dev","title":"Go","content":"c","raw_content":"# Go"}]` + tc.usage + `}`})
			c := newClient(t, srv, tavily.Config{})
			res, err := c.Search(context.Background(), provider.Query{Text: "q"})
			if err != nil {
				t.Fatal(err)
			}
			if got := sent(t, srv)["include_usage"]; got != true {
				t.Errorf("search: include_usage = %v, want true", got)
			}
			if !reflect.DeepEqual(res.Usage, tc.want) {
				t.Errorf("search: Usage = %+v, want %+v", res.Usage, tc.want)
			}
			p, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://go.dev"})
			if err != nil {
				t.Fatal(err)
			}
			if got := sent(t, srv)["include_usage"]; got != true {
				t.Errorf("extract: include_usage = %v, want true", got)
			}
			if !reflect.DeepEqual(p.Usage, tc.want) {
				t.Errorf("extract: Usage = %+v, want %+v", p.Usage, tc.want)
			}
		})
	}
}

func TestSearch_ParsesNewsDates(t *testing.T) {
	srv := fake(t, fixture(t, "search_ok.json"))
	c := newClient(t, srv, tavily.Config{})
	r, err := c.Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2014, 7, 29, 0, 0, 0, 0, time.UTC)
	if got := r.Results[1].Published; !got.Equal(want) {
		t.Errorf("Published = %v, want %v", got, want)
	}
	if !r.Results[0].Published.IsZero() {
		t.Errorf("Published = %v for a result without a date, want zero", r.Results[0].Published)
	}
}

func TestSearch_RejectsAnEmptyQueryAndAnUnknownTimeRangeWithoutARequest(t *testing.T) {
	srv := fake(t, fixture(t, "search_ok.json"))
	c := newClient(t, srv, tavily.Config{})
	for _, q := range []provider.Query{{Text: "  "}, {Text: "q", TimeRange: "fortnight"}} {
		_, err := c.Search(context.Background(), q)
		if k := provider.KindOf(err); k != provider.KindBadRequest {
			t.Errorf("Search(%+v): kind %q, want bad-request", q, k)
		}
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("server received %d requests, want 0", n)
	}
}

func TestExtract_SendsQueryAndChunksOnlyWhenConfiguredAndTheRequestHasAQuery(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    tavily.Config
		req    provider.ExtractRequest
		want   map[string]any
		absent []string
	}{
		{
			name: "without a query", req: provider.ExtractRequest{URL: "https://example.org/article"},
			want:   map[string]any{"urls": []any{"https://example.org/article"}, "format": "markdown", "extract_depth": "basic", "include_usage": true},
			absent: []string{"query", "chunks_per_source", "timeout"},
		},
		{
			name: "with a query but no extract chunks configured: the whole page", req: provider.ExtractRequest{URL: "https://example.org/article", Query: "deadlines"},
			want:   map[string]any{"format": "markdown"},
			absent: []string{"query", "chunks_per_source"},
		},
		{
			name: "with a query and configured chunks, depth, timeout and text format",
			cfg:  tavily.Config{ExtractChunks: 5, ExtractDepth: "advanced", ExtractTimeout: 20 * time.Second},
			req:  provider.ExtractRequest{URL: "https://example.org/article", Query: "deadlines", Format: provider.Text},
			want: map[string]any{"query": "deadlines", "chunks_per_source": 5.0, "extract_depth": "advanced", "timeout": 20.0, "format": "text"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t, fixture(t, "extract_ok.json"))
			c := newClient(t, srv, tc.cfg)
			if _, err := c.Extract(context.Background(), tc.req); err != nil {
				t.Fatal(err)
			}
			got := sent(t, srv)
			for k, v := range tc.want {
				if !reflect.DeepEqual(got[k], v) {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
			for _, k := range tc.absent {
				if v, ok := got[k]; ok {
					t.Errorf("%s = %v sent, want it omitted", k, v)
				}
			}
			if p := srv.Last().Path; p != "/extract" {
				t.Errorf("path = %q, want /extract", p)
			}
		})
	}
}

func TestExtract_TitlesThePageByItsFirstHeading(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{"# Context cancellation in Go\n\ntext", "Context cancellation in Go"},
		{"intro line\n\n## Second level ##\n# Later", "Second level"},
		{"#hashtag is not a heading\n### Real", "Real"},
		{"plain text without headings", ""},
	} {
		body, _ := json.Marshal(map[string]any{"results": []any{map[string]string{"url": "https://example.org/a", "raw_content": tc.content}}})
		srv := fake(t, providertest.Answer{Body: string(body)})
		c := newClient(t, srv, tavily.Config{})
		p, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.org/a"})
		if err != nil {
			t.Fatal(err)
		}
		if p.Title != tc.want {
			t.Errorf("title of %q = %q, want %q", tc.content, p.Title, tc.want)
		}
	}
}

func TestExtract_ReturnsThePage(t *testing.T) {
	srv := fake(t, fixture(t, "extract_ok.json"))
	c := newClient(t, srv, tavily.Config{MaxCharacters: 28})
	p, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.org/article"})
	if err != nil {
		t.Fatal(err)
	}
	want := &provider.Page{URL: "https://example.org/article", Title: "Context cancellation in Go",
		Content: "# Context cancellation in Go", Format: provider.Markdown, Provider: "tavily",
		RequestID: "123e4567-e89b-12d3-a456-426614174113", Usage: &provider.Usage{Credits: 1}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("page\n got %+v\nwant %+v", p, want)
	}
}

func TestExtract_MatchesAURLTavilyNormalised(t *testing.T) {
	body := `{"results":[{"url":"https://other.example/","raw_content":"other"},{"url":"HTTPS://Example.org/a/","raw_content":"mine"}]}`
	srv := fake(t, providertest.Answer{Body: body})
	c := newClient(t, srv, tavily.Config{})
	p, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.org/a"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Content != "mine" {
		t.Errorf("content = %q, want the result for the requested URL", p.Content)
	}
}

func TestExtract_ReportsUnsupportedForMissingOrEmptyContent(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"failed result", `{"results":[],"failed_results":[{"url":"https://example.org/a","error":"Failed to fetch url"}]}`},
		{"empty raw content", `{"results":[{"url":"https://example.org/a","raw_content":"  "}],"failed_results":[]}`},
		{"null raw content", `{"results":[{"url":"https://example.org/a","raw_content":null}]}`},
		{"no results at all", `{"results":null,"failed_results":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t, providertest.Answer{Body: tc.body})
			c := newClient(t, srv, tavily.Config{})
			_, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.org/a"})
			if k := provider.KindOf(err); k != provider.KindUnsupported {
				t.Fatalf("kind %q (%v), want unsupported", k, err)
			}
			if srv.Count() != 1 {
				t.Errorf("server received %d requests, want 1", srv.Count())
			}
		})
	}
}

func TestExtract_RejectsAnUnknownFormatWithoutARequest(t *testing.T) {
	srv := fake(t, fixture(t, "extract_ok.json"))
	c := newClient(t, srv, tavily.Config{})
	_, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.org/a", Format: "html"})
	if k := provider.KindOf(err); k != provider.KindBadRequest {
		t.Errorf("kind %q, want bad-request", k)
	}
	if srv.Count() != 0 {
		t.Errorf("server received %d requests, want 0", srv.Count())
	}
}

func TestErrors_CarryTheMessageRequestIDAndNoKey(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		kind       provider.Kind
		msg, reqID string
		tag        string
	}{
		{"detail object", `{"detail":{"error":"Invalid topic for tvly-test-key."},"request_id":"r-1"}`, 400, provider.KindBadRequest, "Invalid topic for [redacted].", "r-1", ""},
		{"detail string", `{"detail":"Not authenticated"}`, 401, provider.KindAuth, "Not authenticated", "", ""},
		{"keyless envelope", `{"error":{"code":"keyless_limit","message":"Limit reached","retry_after_seconds":3600}}`, 429, provider.KindRateLimited, "Limit reached", "", "keyless_limit"},
		{"not JSON", `<html>Bad Gateway</html>`, 432, provider.KindQuota, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t, providertest.Answer{Status: tc.status, Body: tc.body})
			c := newClient(t, srv, tavily.Config{})
			_, err := c.Search(context.Background(), provider.Query{Text: "q"})
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *provider.Error", err)
			}
			providertest.CheckNoSecrets(t, err, "tvly-test-key")
			if pe.Kind != tc.kind || pe.Status != tc.status || pe.RequestID != tc.reqID || pe.Tag != tc.tag || pe.Provider != "tavily" || pe.Op != "search" {
				t.Errorf("error = %+v", pe)
			}
			if tc.msg != "" && pe.Message != tc.msg {
				t.Errorf("Message = %q, want %q", pe.Message, tc.msg)
			}
			if strings.Contains(err.Error(), "<html>") {
				t.Errorf("error %q repeats the HTML body", err)
			}
		})
	}
}

func TestErrors_KeylessRetryAfterIsHonoured(t *testing.T) {
	srv := fake(t, providertest.Answer{Status: 429, Body: `{"error":{"code":"keyless_limit","message":"slow down","retry_after_seconds":3600}}`})
	c := newClient(t, srv, tavily.Config{})
	_, err := c.Search(context.Background(), provider.Query{Text: "q"})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.RetryAfter != time.Hour {
		t.Fatalf("error %+v, want RetryAfter 1h from retry_after_seconds", pe)
	}
	// One hour is past MaxRetryAfter, so the client gives up at once.
	if srv.Count() != 1 {
		t.Errorf("server received %d requests, want 1", srv.Count())
	}
}

func TestNew_RejectsBadValuesWithAClearMessage(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  tavily.Config
		want string
	}{
		{"search depth", tavily.Config{SearchDepth: "deep"}, `search_depth "deep"`},
		{"topic", tavily.Config{Topic: "sports"}, `topic "sports"`},
		{"extract depth", tavily.Config{ExtractDepth: "fast"}, `extract_depth "fast"`},
		{"answer mode", tavily.Config{IncludeAnswer: "yes"}, `include_answer "yes"`},
		{"max results", tavily.Config{MaxResults: 21}, "max_results 21"},
		{"chunks", tavily.Config{ChunksPerSource: 4}, "chunks_per_source 4"},
		{"extract chunks", tavily.Config{ExtractChunks: 6}, "extract_chunks 6"},
		{"extract timeout", tavily.Config{ExtractTimeout: 90 * time.Second}, "extract_timeout 1m30s"},
		{"max characters", tavily.Config{MaxCharacters: -1}, "max_characters -1"},
		{"base URL", tavily.Config{BaseURL: "ftp://x"}, `base_url "ftp://x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tavily.New(nil, &tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "tavily: ") {
				t.Errorf("New error = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

func TestNew_NeverModifiesTheCallersConfig(t *testing.T) {
	cfg := &tavily.Config{Topic: "news"}
	before := *cfg
	if _, err := tavily.New(nil, cfg); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*cfg, before) {
		t.Errorf("config changed from %+v to %+v", before, *cfg)
	}
	if _, err := tavily.New(nil, nil); err != nil {
		t.Errorf("New with a nil config: %v", err)
	}
}

func TestSearch_WithoutKeysFailsAsAuth(t *testing.T) {
	c, err := tavily.New(nil, &tavily.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Search(context.Background(), provider.Query{Text: "q"})
	if k := provider.KindOf(err); k != provider.KindAuth {
		t.Errorf("kind %q, want auth", k)
	}
}
