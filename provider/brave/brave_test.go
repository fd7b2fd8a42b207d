package brave_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/brave"
	"github.com/webgate-dev/webgate/provider/providertest"
)

const testKey = "BSA-test-key-0123456789abcdef"

// fake is a loopback Brave that answers with a sequence of canned answers
// (the last one repeats) and records every request.
type fake struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []*http.Request
	answers []providertest.Answer
}

func newFake(t *testing.T, answers ...providertest.Answer) *fake {
	t.Helper()
	f := &fake{answers: answers}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		i := len(f.reqs)
		f.reqs = append(f.reqs, r.Clone(context.Background()))
		a := f.answers[min(i, len(f.answers)-1)]
		f.mu.Unlock()
		for k, vs := range a.Header {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		status := a.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(a.Body))
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fake) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...)
}

// only returns the query string of the only request, failing t when there
// was not exactly one, or when it breaks Brave's documented interface.
func (f *fake) only(t *testing.T) url.Values {
	t.Helper()
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("Brave received %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if err := checkRequest(providertest.Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header}); err != nil {
		t.Errorf("request breaks Brave's interface: %v", err)
	}
	return reqs[0].URL.Query()
}

func newClient(t *testing.T, f *fake, cfg *brave.Config) *brave.Client {
	t.Helper()
	var c brave.Config
	if cfg != nil {
		c = *cfg
	}
	c.BaseURL = f.URL
	c.HTTP = providertest.HTTPConfig()
	client, err := brave.New(provider.NewPool([]string{testKey}, nil), &c)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func TestSearch_MapsEveryQueryFieldOntoBraveParameters(t *testing.T) {
	f := newFake(t, fixture(t, "search_ok.json"))
	c := newClient(t, f, &brave.Config{SafeSearch: "strict", ExtraSnippets: true})
	_, err := c.Search(context.Background(), provider.Query{
		Text:           "  golang context  ",
		MaxResults:     7,
		IncludeDomains: []string{"go.dev", "https://Example.org/docs"},
		ExcludeDomains: []string{"example.com"},
		TimeRange:      provider.PastWeek,
		Country:        "de",
		Language:       "ja",
	})
	if err != nil {
		t.Fatal(err)
	}
	got := f.only(t)
	want := url.Values{
		"q":                {"golang context site:go.dev OR site:example.org -site:example.com"},
		"count":            {"7"},
		"result_filter":    {"web"},
		"text_decorations": {"false"},
		"freshness":        {"pw"},
		"country":          {"DE"},
		"search_lang":      {"jp"},
		"safesearch":       {"strict"},
		"extra_snippets":   {"true"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("query string\n got %v\nwant %v", got, want)
	}
}

func TestSearch_SendsOnlyTheDefaultsForAPlainQuery(t *testing.T) {
	f := newFake(t, fixture(t, "search_ok.json"))
	if _, err := newClient(t, f, nil).Search(context.Background(), provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	got := f.only(t)
	want := url.Values{"q": {"q"}, "count": {"10"}, "result_filter": {"web"}, "text_decorations": {"false"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("query string\n got %v\nwant %v", got, want)
	}
}

func TestSearch_CapsCountAtTwenty(t *testing.T) {
	f := newFake(t, fixture(t, "search_ok.json"))
	if _, err := newClient(t, f, nil).Search(context.Background(), provider.Query{Text: "q", MaxResults: 500}); err != nil {
		t.Fatal(err)
	}
	if got := f.only(t).Get("count"); got != "20" {
		t.Errorf("count = %s, want 20", got)
	}
}

func TestSearch_LeavesOutACountryOrLanguageBraveDoesNotList(t *testing.T) {
	f := newFake(t, fixture(t, "search_ok.json"))
	if _, err := newClient(t, f, nil).Search(context.Background(), provider.Query{Text: "q", Country: "is", Language: "sw"}); err != nil {
		t.Fatal(err)
	}
	got := f.only(t)
	if got.Has("country") || got.Has("search_lang") {
		t.Errorf("sent country %q and search_lang %q; Brave lists neither", got.Get("country"), got.Get("search_lang"))
	}
}

func TestSearch_SendsTheKeyInTheSubscriptionHeaderOnly(t *testing.T) {
	f := newFake(t, fixture(t, "search_ok.json"))
	if _, err := newClient(t, f, nil).Search(context.Background(), provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if got := r.Header.Get("X-Subscription-Token"); got != testKey {
		t.Errorf("X-Subscription-Token = %q, want the key", got)
	}
	if strings.Contains(r.URL.String(), testKey) || r.Header.Get("Authorization") != "" {
		t.Error("the key travels outside X-Subscription-Token")
	}
	if r.URL.Path != "/res/v1/web/search" || r.Method != http.MethodGet {
		t.Errorf("request %s %s, want GET /res/v1/web/search", r.Method, r.URL.Path)
	}
}

func TestSearch_KeepsOnlyResultsInsideTheDomainFilter(t *testing.T) {
	f := newFake(t, fixture(t, "search_ok.json"))
	res, err := newClient(t, f, nil).Search(context.Background(), provider.Query{
		Text: "q", IncludeDomains: []string{"go.dev", "example.org"}, ExcludeDomains: []string{"pkg.go.dev"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, r := range res.Results {
		urls = append(urls, r.URL)
	}
	want := []string{"https://go.dev/blog/context", "https://example.org/article"}
	if !reflect.DeepEqual(urls, want) {
		t.Errorf("results %v, want %v (pkg.go.dev is excluded)", urls, want)
	}
}

func TestSearch_SendsTheTextAloneWhenSiteOperatorsWouldBreakTheQueryLimits(t *testing.T) {
	f := newFake(t, fixture(t, "search_ok.json"))
	text := strings.TrimSpace(strings.Repeat("word ", 48))
	_, err := newClient(t, f, nil).Search(context.Background(), provider.Query{Text: text, IncludeDomains: []string{"go.dev", "example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.only(t).Get("q"); got != text {
		t.Errorf("q = %q, want the text alone", got)
	}
}

func TestSearch_MapsResultsToPlainText(t *testing.T) {
	f := newFake(t, fixture(t, "search_ok.json"))
	res, err := newClient(t, f, nil).Search(context.Background(), provider.Query{Text: "golang context"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Provider != "brave" || res.Query != "golang context" || len(res.Results) != 3 {
		t.Fatalf("results %+v", res)
	}
	first, second, third := res.Results[0], res.Results[1], res.Results[2]
	if want := time.Date(2025, 3, 4, 9, 0, 0, 0, time.UTC); !first.Published.Equal(want) {
		t.Errorf("Published = %v, want %v (page_age)", first.Published, want)
	}
	if want := time.Date(2014, 7, 29, 0, 0, 0, 0, time.UTC); !second.Published.Equal(want) {
		t.Errorf("Published = %v, want %v (age)", second.Published, want)
	}
	if !strings.Contains(second.Snippet, "It's common") {
		t.Errorf("Snippet = %q; the entity is not decoded", second.Snippet)
	}
	if third.Snippet != "A walk through cancellation, deadlines & values." {
		t.Errorf("Snippet = %q", third.Snippet)
	}
	if first.Score != 1 || second.Score != 0.5 || first.Provider != "brave" {
		t.Errorf("scores %v, %v and provider %q", first.Score, second.Score, first.Provider)
	}
}

func TestSearch_JoinsExtraSnippetsIntoContent(t *testing.T) {
	f := newFake(t, fixture(t, "search_extra_snippets.json"))
	res, err := newClient(t, f, &brave.Config{ExtraSnippets: true}).Search(context.Background(), provider.Query{Text: "brave search"})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Results[0]
	if r.Snippet != "Brave Search is a private search engine..." {
		t.Errorf("Snippet = %q; the highlight markup is left in", r.Snippet)
	}
	if want := "Brave Search does not track you.\n\nIt runs on its own \"independent\" index."; r.Content != want {
		t.Errorf("Content = %q, want %q", r.Content, want)
	}
}

func TestSearch_RejectsAnEmptyQueryOrUnknownTimeRangeWithoutARequest(t *testing.T) {
	f := newFake(t, fixture(t, "search_ok.json"))
	c := newClient(t, f, nil)
	for _, q := range []provider.Query{{Text: "  "}, {Text: "q", TimeRange: "decade"}} {
		_, err := c.Search(context.Background(), q)
		if provider.KindOf(err) != provider.KindBadRequest {
			t.Errorf("query %+v: err %v, want bad-request", q, err)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("Brave received %d requests, want 0", n)
	}
}

func TestSearch_WaitsForTheSpentRateLimitWindowAndThenSucceeds(t *testing.T) {
	limited := providertest.Answer{Status: 429,
		Header: http.Header{
			"X-RateLimit-Limit":     {"1, 15000"},
			"X-RateLimit-Policy":    {"1;w=1, 15000;w=2592000"},
			"X-RateLimit-Remaining": {"0, 1000"},
			"X-RateLimit-Reset":     {"1, 1419704"},
		},
		Body: errorBody(429, "RATE_LIMITED", "Request rate limit exceeded for plan.")}
	f := newFake(t, limited, fixture(t, "search_ok.json"))
	start := time.Now()
	res, err := newClient(t, f, nil).Search(context.Background(), provider.Query{Text: "q"})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || len(f.requests()) != 2 {
		t.Fatalf("got %d results after %d requests, want results after 2", len(res.Results), len(f.requests()))
	}
	if took < 900*time.Millisecond || took > 3*time.Second {
		t.Errorf("returned after %v; the per-second window resets in 1s", took)
	}
}

func TestSearch_ReportsQuotaAndRateLimitAtTheSameStatusByTheirCode(t *testing.T) {
	for code, want := range map[string]provider.Kind{"QUOTA_LIMITED": provider.KindQuota, "RATE_LIMITED": provider.KindRateLimited} {
		f := newFake(t, providertest.Answer{Status: 429, Header: http.Header{"Retry-After": {"3600"}}, Body: errorBody(429, code, "limit")})
		_, err := newClient(t, f, nil).Search(context.Background(), provider.Query{Text: "q"})
		var pe *provider.Error
		if !errors.As(err, &pe) || pe.Kind != want || pe.Tag != code || pe.Status != 429 {
			t.Errorf("%s: err %#v, want kind %s with tag %s", code, err, want, code)
		}
	}
}

func TestNew_ValidatesTheConfigAndNeverChangesIt(t *testing.T) {
	for _, cfg := range []brave.Config{
		{BaseURL: "ftp://api.example"},
		{BaseURL: "https://api.example/?x=1"},
		{MaxResults: 21},
		{MaxResults: -1},
		{SafeSearch: "high"},
	} {
		if _, err := brave.New(nil, &cfg); err == nil {
			t.Errorf("New accepted %+v", cfg)
		}
	}
	cfg := brave.Config{BaseURL: "https://api.example/"}
	before := cfg
	c, err := brave.New(nil, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, before) {
		t.Errorf("New changed the caller's config to %+v", cfg)
	}
	if c.Name() != "brave" {
		t.Errorf("Name() = %q", c.Name())
	}
	if _, err := brave.New(nil, nil); err != nil {
		t.Errorf("New with a nil config: %v", err)
	}
}

func TestCountryCode_AcceptsBravesCountriesInAnyCase(t *testing.T) {
	for in, want := range map[string]string{"us": "US", " De ": "DE", "uk": "GB", "gb": "GB", "is": "", "": "", "usa": "", "ALL": ""} {
		if got := brave.CountryCode(in); got != want {
			t.Errorf("CountryCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSearchLang_MapsLanguageTagsOntoBravesCodes(t *testing.T) {
	for in, want := range map[string]string{
		"en": "en", "EN-us": "en", "en-GB": "en-gb", "en_uk": "en-gb", "ja": "jp", "ja-JP": "jp", "jp": "jp",
		"zh": "zh-hans", "zh-CN": "zh-hans", "zh-TW": "zh-hant", "zh-Hant-HK": "zh-hant", "pt": "pt-br", "pt-PT": "pt-pt",
		"no": "nb", "nn": "nb", "de-AT": "de", "iw": "he", "sw": "", "": "", "xx-yy": "",
	} {
		if got := brave.SearchLang(in); got != want {
			t.Errorf("SearchLang(%q) = %q, want %q", in, got, want)
		}
	}
}
