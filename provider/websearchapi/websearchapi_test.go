package websearchapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/lenient"
)

const testKey = "wsa-secret-key-0123456789"

// captured is one request the fake provider received.
type captured struct {
	Method, Path string
	Header       http.Header
	Body         map[string]any
}

// fakeAPI is a loopback WebSearchAPI.ai that answers every request with a
// fixed status and body and records what it received.
type fakeAPI struct {
	*httptest.Server
	mu       sync.Mutex
	requests []captured
}

// newFakeAPI starts the fake; header holds extra response header
// name/value pairs.
func newFakeAPI(t *testing.T, status int, body string, header ...string) *fakeAPI {
	t.Helper()
	f := &fakeAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		f.mu.Lock()
		f.requests = append(f.requests, captured{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: m})
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) only(t *testing.T) captured {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) != 1 {
		t.Fatalf("provider received %d requests, want 1", len(f.requests))
	}
	return f.requests[0]
}

func (f *fakeAPI) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// newTestClient builds a client against baseURL that makes one attempt per
// request. cfg may be nil.
func newTestClient(t *testing.T, baseURL string, cfg *Config) *Client {
	t.Helper()
	var c Config
	if cfg != nil {
		c = *cfg
	}
	c.BaseURL = baseURL
	c.HTTP.MaxAttempts = 1
	cl, err := New(provider.NewPool([]string{testKey}, nil), &c)
	if err != nil {
		t.Fatal(err)
	}
	cl.now = func() time.Time { return time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC) }
	return cl
}

const okSearch = `{"searchParameters":{"query":"go"},"organic":[
 {"title":"The Go Programming Language","url":"https://go.dev/","description":"Go is an open source language.","content":"Long text","position":1,"score":0.93,"date":"2024-03-05"},
 {"title":"Go (programming language)","url":"https://en.wikipedia.org/wiki/Go_(programming_language)","description":"Go is a language designed at Google.","position":2}
],"answer":"Go is a programming language.","responseTime":1.2}`

func TestNew_RejectsInvalidConfigWithTheFieldName(t *testing.T) {
	keys := provider.NewPool([]string{testKey}, nil)
	for _, tc := range []struct {
		name  string
		cfg   Config
		field string
	}{
		{"relative base URL", Config{BaseURL: "api.websearchapi.ai"}, "base_url"},
		{"ftp base URL", Config{BaseURL: "ftp://example.com"}, "base_url"},
		{"too many results", Config{MaxResults: 21}, "max_results"},
		{"negative results", Config{MaxResults: -1}, "max_results"},
		{"negative max characters", Config{MaxCharacters: -5}, "max_characters"},
		{"negative scrape timeout", Config{ScrapeTimeout: -time.Second}, "scrape_timeout"},
		{"unknown content format", Config{ContentFormat: "pdf"}, "content_format"},
		{"unknown content length", Config{ContentLength: "huge"}, "content_length"},
		{"unknown engine", Config{ScrapeEngine: "curl"}, "scrape_engine"},
		{"unknown return format", Config{ReturnFormat: "json"}, "return_format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			_, err := New(keys, &cfg)
			if err == nil || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("New() error = %v, want one naming %s", err, tc.field)
			}
		})
	}
	if _, err := New(nil, nil); err == nil {
		t.Fatal("New(nil, nil) succeeded, want an error for the missing key source")
	}
}

func TestNew_LeavesTheCallersConfigUntouched(t *testing.T) {
	cfg := &Config{ContentFormat: "text"}
	want := *cfg
	if _, err := New(provider.NewPool([]string{testKey}, nil), cfg); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*cfg, want) {
		t.Fatalf("New modified its config: got %+v, want %+v", *cfg, want)
	}
}

func TestNew_UsesDocumentedDefaultsForNilConfig(t *testing.T) {
	c, err := New(provider.NewPool([]string{testKey}, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "websearchapi" {
		t.Errorf("Name() = %q", c.Name())
	}
	if c.searchURL != "https://api.websearchapi.ai/ai-search" || c.scrapeURL != "https://api.websearchapi.ai/scrape" {
		t.Errorf("endpoints = %s, %s", c.searchURL, c.scrapeURL)
	}
	if c.cfg.MaxResults != 5 || c.cfg.ScrapeEngine != "browser" || c.cfg.ReturnFormat != "markdown" || c.scrapeTimeout != 20 {
		t.Errorf("defaults = %+v, scrape timeout %d", c.cfg, c.scrapeTimeout)
	}
}

func TestSearch_SendsEveryQueryFieldInTheDocumentedShape(t *testing.T) {
	api := newFakeAPI(t, 200, okSearch)
	c := newTestClient(t, api.URL, &Config{IncludeContent: true, ContentFormat: "markdown", ContentLength: "long", IncludeAnswer: true, SafeSearch: true})
	_, err := c.Search(context.Background(), provider.Query{
		Text:           "  golang generics ",
		MaxResults:     7,
		IncludeDomains: []string{"go.dev", " https://pkg.go.dev/ ", ""},
		ExcludeDomains: []string{"example.com"},
		TimeRange:      provider.PastMonth,
		Country:        "US",
		Language:       "en-GB",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := api.only(t)
	if r.Method != http.MethodPost || r.Path != "/ai-search" {
		t.Errorf("request = %s %s, want POST /ai-search", r.Method, r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
	want := map[string]any{
		"query": "golang generics", "maxResults": 7.0, "includeContent": true,
		"contentFormat": "markdown", "contentLength": "long",
		"includeDomains": []any{"go.dev", "pkg.go.dev"}, "excludeDomains": []any{"example.com"},
		"timeframe": "month", "country": "us", "language": "en",
		"includeAnswer": true, "safeSearch": true,
	}
	if !reflect.DeepEqual(r.Body, want) {
		t.Errorf("body = %v\nwant   %v", r.Body, want)
	}
	if err := validateSearchBody(mustJSON(t, r.Body)); err != nil {
		t.Errorf("body fails validation: %v", err)
	}
}

func TestSearch_SendsOnlyTheFieldsThatAreSet(t *testing.T) {
	api := newFakeAPI(t, 200, okSearch)
	c := newTestClient(t, api.URL, &Config{ContentFormat: "text", ContentLength: "short"})
	if _, err := c.Search(context.Background(), provider.Query{Text: "go"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"query": "go", "maxResults": 5.0, "includeContent": false}
	if got := api.only(t).Body; !reflect.DeepEqual(got, want) {
		t.Errorf("body = %v, want %v (content options only with includeContent)", got, want)
	}
}

func TestSearch_ClampsMaxResultsToWhatTheAPIAccepts(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{0, 3}, {-4, 3}, {1, 1}, {20, 20}, {50, 20}} {
		api := newFakeAPI(t, 200, okSearch)
		c := newTestClient(t, api.URL, &Config{MaxResults: 3})
		if _, err := c.Search(context.Background(), provider.Query{Text: "go", MaxResults: tc.in}); err != nil {
			t.Fatal(err)
		}
		if got := api.only(t).Body["maxResults"]; got != float64(tc.want) {
			t.Errorf("MaxResults %d sent as %v, want %d", tc.in, got, tc.want)
		}
	}
}

func TestSearch_RejectsInvalidQueriesWithoutCallingTheAPI(t *testing.T) {
	api := newFakeAPI(t, 200, okSearch)
	c := newTestClient(t, api.URL, nil)
	for _, q := range []provider.Query{
		{Text: "  "},
		{Text: "go", TimeRange: "fortnight"},
		{Text: "go", Country: "usa"},
		{Text: "go", Language: "eng"},
	} {
		_, err := c.Search(context.Background(), q)
		if provider.KindOf(err) != provider.KindBadRequest {
			t.Errorf("Search(%+v) error = %v, want bad-request", q, err)
		}
	}
	if api.count() != 0 {
		t.Errorf("provider received %d requests, want 0", api.count())
	}
}

func TestSearch_MapsOrganicResults(t *testing.T) {
	api := newFakeAPI(t, 200, okSearch, "X-Request-Id", "req-42")
	c := newTestClient(t, api.URL, &Config{MaxCharacters: 4})
	res, err := c.Search(context.Background(), provider.Query{Text: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Provider != "websearchapi" || res.Query != "go" || res.Answer != "Go is a programming language." || res.RequestID != "req-42" {
		t.Errorf("results header = %+v", res)
	}
	if len(res.Results) != 2 {
		t.Fatalf("got %d results, want 2", len(res.Results))
	}
	first, second := res.Results[0], res.Results[1]
	if first.Title != "The Go Programming Language" || first.URL != "https://go.dev/" ||
		first.Snippet != "Go is an open source language." || first.Content != "Long" || first.Score != 0.93 ||
		!first.Published.Equal(time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)) || first.Provider != "websearchapi" {
		t.Errorf("first result = %+v", first)
	}
	if second.Score != 0.5 || !second.Published.IsZero() || second.Content != "" {
		t.Errorf("second result = %+v (score from position 2 should be 0.5)", second)
	}
}

func TestSearch_DropsHitsBeyondTheNumberAskedFor(t *testing.T) {
	api := newFakeAPI(t, 200, okSearch)
	c := newTestClient(t, api.URL, nil)
	res, err := c.Search(context.Background(), provider.Query{Text: "go", MaxResults: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].URL != "https://go.dev/" {
		t.Errorf("results = %+v, want only the first", res.Results)
	}
}

func TestSearch_ToleratesLooseResponseShapes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		urls       []string
	}{
		{"response time as string", `{"organic":[{"title":"a","url":"https://a.example"}],"responseTime":"1.67"}`, []string{"https://a.example"}},
		{"nulls everywhere", `{"searchParameters":null,"organic":[{"title":null,"url":"https://a.example","description":null,"content":null,"position":null,"score":null,"date":null}],"answer":null,"responseTime":null}`, []string{"https://a.example"}},
		{"unknown fields", `{"organic":[{"url":"https://a.example","favicon":{"x":1},"sitelinks":[1,2]}],"credits":{"used":1},"extra":[true]}`, []string{"https://a.example"}},
		{"organic missing", `{"searchParameters":{"query":"x"},"responseTime":0.4}`, nil},
		{"organic null", `{"organic":null}`, nil},
		{"organic empty", `{"organic":[]}`, nil},
		{"numbers as strings", `{"organic":[{"url":"https://a.example","position":"1","score":"0.5"}]}`, []string{"https://a.example"}},
		{"SERP-style link and snippet", `{"organic":[{"title":"a","link":"https://a.example","snippet":"s"}]}`, []string{"https://a.example"}},
		{"hits without URL or not objects are dropped", `{"organic":[{"title":"no url"},"junk",42,null,{"url":"https://b.example"}]}`, []string{"https://b.example"}},
		{"a message beside results is not an error", `{"organic":[{"url":"https://a.example"}],"message":"ok"}`, []string{"https://a.example"}},
		{"an empty error field is not an error", `{"organic":[],"error":null,"success":true,"code":200,"status":20000}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, 200, tc.body)
			res, err := newTestClient(t, api.URL, nil).Search(context.Background(), provider.Query{Text: "x"})
			if err != nil {
				t.Fatalf("Search() error = %v", err)
			}
			var urls []string
			for _, r := range res.Results {
				urls = append(urls, r.URL)
			}
			if !reflect.DeepEqual(urls, tc.urls) {
				t.Errorf("urls = %v, want %v", urls, tc.urls)
			}
			if res.Results == nil {
				t.Error("Results is nil, want an empty slice")
			}
		})
	}
}

func TestSearch_ScoresFallBackToRank(t *testing.T) {
	res, e := decodeSearch([]byte(`{"organic":[{"url":"https://a"},{"url":"https://b"},{"url":"https://c","position":4},{"url":"https://d","score":"NaN"}]}`), time.Now())
	if e != nil {
		t.Fatal(e)
	}
	want := []float64{1, 0.5, 0.25, 0.25}
	for i, r := range res.Results {
		if r.Score != want[i] {
			t.Errorf("result %d score = %v, want %v", i, r.Score, want[i])
		}
	}
}

func TestSearch_ReportsErrorsCarriedInA200(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		kind       provider.Kind
		msg        string
	}{
		{"error string", `{"error":"Something went wrong"}`, provider.KindUnknown, "Something went wrong"},
		{"error object", `{"error":{"message":"Backend unavailable","code":503}}`, provider.KindTransient, "Backend unavailable"},
		{"message without organic", `{"message":"Invalid API key"}`, provider.KindUnknown, "Invalid API key"},
		{"body code", `{"code":401,"message":"Unauthorized"}`, provider.KindAuth, "code 401: Unauthorized"},
		{"body status as string", `{"status":"402","error":"No credits left"}`, provider.KindQuota, "No credits left"},
		{"success false", `{"success":false,"organic":[]}`, provider.KindUnknown, "reports an error"},
		{"error beside results", `{"organic":[{"url":"https://a.example"}],"error":"partial failure"}`, provider.KindUnknown, "partial failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, 200, tc.body)
			_, err := newTestClient(t, api.URL, nil).Search(context.Background(), provider.Query{Text: "x"})
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Search() error = %v, want a *provider.Error", err)
			}
			if pe.Kind != tc.kind || pe.Status != 200 || !strings.Contains(pe.Message, tc.msg) || pe.Provider != "websearchapi" || pe.Op != "search" {
				t.Errorf("error = %+v, want kind %s and message containing %q", pe, tc.kind, tc.msg)
			}
		})
	}
}

func TestSearch_RejectsMalformedBodies(t *testing.T) {
	for _, body := range []string{``, `not json`, `[]`, `null`, `"organic"`, `{"organic":{"title":"x"}}`, `{"organic":"none"}`} {
		api := newFakeAPI(t, 200, body)
		_, err := newTestClient(t, api.URL, nil).Search(context.Background(), provider.Query{Text: "x"})
		if provider.KindOf(err) != provider.KindUnknown || !strings.Contains(err.Error(), "malformed response") {
			t.Errorf("body %q: error = %v, want unknown malformed response", body, err)
		}
	}
}

func TestSearch_ClassifiesErrorStatusesAndReadsEveryEnvelope(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		kind   provider.Kind
		msg    string
	}{
		{400, `{"error":"query is required"}`, provider.KindBadRequest, "query is required"},
		{401, `{"message":"Invalid API key"}`, provider.KindAuth, "Invalid API key"},
		{402, `{"error":{"message":"Insufficient credits"}}`, provider.KindQuota, "Insufficient credits"},
		{403, `{"error":"API key suspended"}`, provider.KindAuth, "API key suspended"},
		{404, `{"detail":"Not Found"}`, provider.KindBadRequest, "Not Found"},
		{422, `{"detail":{"message":"maxResults must be <= 20"}}`, provider.KindBadRequest, "maxResults must be <= 20"},
		{429, `{"error":"Monthly quota exceeded: free tier 2,000 queries/month"}`, provider.KindRateLimited, "Monthly quota"},
		{500, `<html>Internal Server Error</html>`, provider.KindTransient, "Internal Server Error"},
		{502, ``, provider.KindTransient, "Bad Gateway"},
		{503, `{"error":""}`, provider.KindTransient, "Service Unavailable"},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			api := newFakeAPI(t, tc.status, tc.body)
			_, err := newTestClient(t, api.URL, nil).Search(context.Background(), provider.Query{Text: "x"})
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error = %v, want a *provider.Error", err)
			}
			if pe.Kind != tc.kind || pe.Status != tc.status || !strings.Contains(pe.Message, tc.msg) {
				t.Errorf("error = %+v, want kind %s, status %d, message containing %q", pe, tc.kind, tc.status, tc.msg)
			}
		})
	}
}

func TestErrors_NeverContainTheKey(t *testing.T) {
	echo := `{"error":"Invalid API key ` + testKey + ` for Bearer ` + testKey + `"}`
	for _, status := range []int{200, 401, 429, 500} {
		api := newFakeAPI(t, status, echo)
		c := newTestClient(t, api.URL, nil)
		_, serr := c.Search(context.Background(), provider.Query{Text: "x"})
		_, xerr := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.com/"})
		for _, err := range []error{serr, xerr} {
			if err == nil {
				t.Fatalf("status %d: no error", status)
			}
			if s := err.Error(); strings.Contains(s, testKey) || !strings.Contains(s, "[redacted]") {
				t.Errorf("status %d: error %q leaks the key or was not scrubbed", status, s)
			}
		}
	}
}

func TestExtract_SendsOutputControlsInBodyAndHeaders(t *testing.T) {
	api := newFakeAPI(t, 200, `{"code":200,"data":{"title":"T","url":"https://example.com/a","content":"# Hello"}}`)
	c := newTestClient(t, api.URL, &Config{ScrapeEngine: "direct", ScrapeTimeout: 12 * time.Second, TargetSelector: "main", RemoveSelector: "nav, footer"})
	if _, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.com/a", Query: "ignored"}); err != nil {
		t.Fatal(err)
	}
	r := api.only(t)
	if r.Method != http.MethodPost || r.Path != "/scrape" || r.Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("request = %s %s auth %q", r.Method, r.Path, r.Header.Get("Authorization"))
	}
	wantBody := map[string]any{"url": "https://example.com/a", "returnFormat": "markdown", "engine": "direct", "timeout": 12.0, "targetSelector": "main", "removeSelector": "nav, footer"}
	if !reflect.DeepEqual(r.Body, wantBody) {
		t.Errorf("body = %v\nwant   %v", r.Body, wantBody)
	}
	for h, want := range map[string]string{"X-Return-Format": "markdown", "X-Engine": "direct", "X-Timeout": "12", "X-Target-Selector": "main", "X-Remove-Selector": "nav, footer"} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if err := validateScrapeBody(mustJSON(t, r.Body)); err != nil {
		t.Errorf("body fails validation: %v", err)
	}
}

func TestExtract_SendsDefaultsAndOmitsUnsetSelectors(t *testing.T) {
	api := newFakeAPI(t, 200, `{"code":200,"data":{"content":"x"}}`)
	if _, err := newTestClient(t, api.URL, nil).Extract(context.Background(), provider.ExtractRequest{URL: "https://example.com/"}); err != nil {
		t.Fatal(err)
	}
	r := api.only(t)
	want := map[string]any{"url": "https://example.com/", "returnFormat": "markdown", "engine": "browser", "timeout": 20.0}
	if !reflect.DeepEqual(r.Body, want) {
		t.Errorf("body = %v, want %v", r.Body, want)
	}
	if r.Header.Get("X-Engine") != "browser" || r.Header.Get("X-Timeout") != "20" || r.Header.Values("X-Target-Selector") != nil || r.Header.Values("X-Remove-Selector") != nil {
		t.Errorf("headers = %v", r.Header)
	}
}

func TestExtract_RequestFormatWinsOverConfiguredFormat(t *testing.T) {
	api := newFakeAPI(t, 200, `{"code":200,"data":{"content":"plain"}}`)
	c := newTestClient(t, api.URL, &Config{ReturnFormat: "html"})
	p, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.com/", Format: provider.Text})
	if err != nil {
		t.Fatal(err)
	}
	r := api.only(t)
	if r.Body["returnFormat"] != "text" || r.Header.Get("X-Return-Format") != "text" || p.Format != provider.Text {
		t.Errorf("format sent %v / %q, page format %q; want text", r.Body["returnFormat"], r.Header.Get("X-Return-Format"), p.Format)
	}
}

func TestExtract_CapsTheScrapeTimeoutBelowTheAttemptTimeout(t *testing.T) {
	for _, tc := range []struct {
		attempt time.Duration
		want    any
	}{{5 * time.Second, 4.0}, {1500 * time.Millisecond, nil}, {0, 20.0}} {
		api := newFakeAPI(t, 200, `{"data":{"content":"x"}}`)
		cfg := Config{BaseURL: api.URL, HTTP: provider.HTTPConfig{AttemptTimeout: tc.attempt, MaxAttempts: 1}}
		c, err := New(provider.NewPool([]string{testKey}, nil), &cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.com/"}); err != nil {
			t.Fatal(err)
		}
		if got := api.only(t).Body["timeout"]; got != tc.want {
			t.Errorf("attempt timeout %s: sent timeout %v, want %v", tc.attempt, got, tc.want)
		}
	}
}

func TestExtract_MapsThePage(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       provider.Page
	}{
		{"data fields", `{"code":200,"status":20000,"data":{"title":"Hello","url":"https://example.com/final","content":"# Hello\n\nWorld"}}`,
			provider.Page{URL: "https://example.com/final", Title: "Hello", Content: "# Hello\n\nWorld"}},
		{"text fallback and request URL", `{"code":"200","data":{"text":"Plain text","usage":{"tokens":3}}}`,
			provider.Page{URL: "https://example.com/a", Content: "Plain text"}},
		{"top-level fields", `{"title":"T","content":"Body","url":null}`,
			provider.Page{URL: "https://example.com/a", Title: "T", Content: "Body"}},
		{"data as a string", `{"code":200,"data":"Just content"}`,
			provider.Page{URL: "https://example.com/a", Content: "Just content"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, 200, tc.body)
			p, err := newTestClient(t, api.URL, nil).Extract(context.Background(), provider.ExtractRequest{URL: "https://example.com/a"})
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Format, tc.want.Provider = provider.Markdown, "websearchapi"
			if *p != tc.want {
				t.Errorf("page = %+v\nwant   %+v", *p, tc.want)
			}
		})
	}
}

func TestExtract_CutsContentToMaxCharacters(t *testing.T) {
	api := newFakeAPI(t, 200, `{"data":{"content":"héllo wörld"}}`)
	p, err := newTestClient(t, api.URL, &Config{MaxCharacters: 5}).Extract(context.Background(), provider.ExtractRequest{URL: "https://example.com/"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Content != "héllo" {
		t.Errorf("content = %q, want %q", p.Content, "héllo")
	}
}

func TestExtract_FailedScrapeIsUnsupportedOrClassifiedByItsCode(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		kind       provider.Kind
	}{
		{"empty content", `{"code":200,"data":{"title":"T","content":""}}`, provider.KindUnsupported},
		{"blank content", `{"code":200,"data":{"content":"  \n "}}`, provider.KindUnsupported},
		{"data null", `{"code":200,"data":null}`, provider.KindUnsupported},
		{"empty object", `{}`, provider.KindUnsupported},
		{"code 422", `{"code":422,"message":"Failed to fetch the page","data":null}`, provider.KindUnsupported},
		{"code 404", `{"code":404,"data":{"content":""}}`, provider.KindUnsupported},
		{"code 401", `{"code":401,"message":"Unauthorized"}`, provider.KindAuth},
		{"code 402", `{"code":402,"error":"Out of credits"}`, provider.KindQuota},
		{"code 500 with content", `{"code":500,"data":{"content":"stale"}}`, provider.KindTransient},
		{"error string", `{"error":"Navigation timeout"}`, provider.KindUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, 200, tc.body)
			_, err := newTestClient(t, api.URL, nil).Extract(context.Background(), provider.ExtractRequest{URL: "https://example.com/"})
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Kind != tc.kind || pe.Op != "extract" || pe.Message == "" {
				t.Errorf("error = %#v, want kind %s", err, tc.kind)
			}
		})
	}
}

func TestExtract_ClassifiesErrorStatuses(t *testing.T) {
	for _, tc := range []struct {
		status int
		kind   provider.Kind
	}{
		{400, provider.KindBadRequest}, {401, provider.KindAuth}, {402, provider.KindQuota}, {403, provider.KindAuth},
		{404, provider.KindUnsupported}, {422, provider.KindUnsupported}, {451, provider.KindUnsupported},
		{429, provider.KindRateLimited}, {500, provider.KindTransient}, {504, provider.KindTransient},
	} {
		api := newFakeAPI(t, tc.status, `{"error":"failed"}`)
		_, err := newTestClient(t, api.URL, nil).Extract(context.Background(), provider.ExtractRequest{URL: "https://example.com/"})
		if got := provider.KindOf(err); got != tc.kind {
			t.Errorf("status %d: kind %s, want %s (%v)", tc.status, got, tc.kind, err)
		}
	}
}

func TestExtract_RejectsInvalidRequestsWithoutCallingTheAPI(t *testing.T) {
	api := newFakeAPI(t, 200, `{"data":{"content":"x"}}`)
	c := newTestClient(t, api.URL, nil)
	for _, req := range []provider.ExtractRequest{
		{URL: ""}, {URL: "example.com/page"}, {URL: "ftp://example.com/f"}, {URL: "https://example.com/", Format: "pdf"},
	} {
		if _, err := c.Extract(context.Background(), req); provider.KindOf(err) != provider.KindBadRequest {
			t.Errorf("Extract(%+v) error = %v, want bad-request", req, err)
		}
	}
	if api.count() != 0 {
		t.Errorf("provider received %d requests, want 0", api.count())
	}
}

func TestParseDate_ReadsCommonFormatsAndIgnoresTheRest(t *testing.T) {
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		raw  string
		want time.Time
	}{
		{`"2024-03-05T10:20:30Z"`, time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)},
		{`"2024-03-05T10:20:30.123+02:00"`, time.Date(2024, 3, 5, 8, 20, 30, 123e6, time.UTC)},
		{`"2024-03-05 10:20:30"`, time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)},
		{`"2024-03-05"`, day(2024, 3, 5)},
		{`"2024/03/05"`, day(2024, 3, 5)},
		{`"Tue, 05 Mar 2024 10:20:30 GMT"`, time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)},
		{`"Mar 5, 2024"`, day(2024, 3, 5)},
		{`"March 15, 2024"`, day(2024, 3, 15)},
		{`"5 Mar 2024"`, day(2024, 3, 5)},
		{`"3 days ago"`, now.Add(-72 * time.Hour)},
		{`"an hour ago"`, now.Add(-time.Hour)},
		{`"2 weeks ago"`, now.Add(-14 * 24 * time.Hour)},
		{`"Yesterday"`, now.Add(-24 * time.Hour)},
		{`1709634030`, time.Unix(1709634030, 0).UTC()},
		{`1709634030000`, time.UnixMilli(1709634030000).UTC()},
		{`"1709634030"`, time.Unix(1709634030, 0).UTC()},
		{`"sometime last spring"`, time.Time{}},
		{`"1800-01-01"`, time.Time{}},
		{`"2099-01-01"`, time.Time{}},
		{`"99999 years ago"`, time.Time{}},
		{`null`, time.Time{}},
		{`true`, time.Time{}},
		{`""`, time.Time{}},
	} {
		if got := lenient.DateAt(json.RawMessage(tc.raw), now); !got.Equal(tc.want) {
			t.Errorf("lenient.DateAt(%s) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
