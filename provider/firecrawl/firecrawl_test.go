package firecrawl_test

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
	"github.com/webgate-dev/webgate/provider/firecrawl"
	"github.com/webgate-dev/webgate/provider/providertest"
)

const testKey = "fc-0b6a4f1e-9b0c-4d2e-8f3a-5c6d7e8f9a0b"

// newServer starts a fake Firecrawl that answers with the given answers in
// turn, the last one repeating.
func newServer(t *testing.T, answers ...providertest.Answer) *providertest.Server {
	t.Helper()
	return providertest.NewServer(t, bearer, func(i int, _ providertest.Request) providertest.Answer {
		return answers[min(i, len(answers)-1)]
	})
}

func newClient(t *testing.T, srv *providertest.Server, cfg *firecrawl.Config) *firecrawl.Client {
	t.Helper()
	var c firecrawl.Config
	if cfg != nil {
		c = *cfg
	}
	c.BaseURL = srv.URL
	c.HTTP = providertest.HTTPConfig()
	client, err := firecrawl.New(provider.NewPool([]string{testKey}, nil), &c)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// sent decodes the body of the only request srv received.
func sent(t *testing.T, srv *providertest.Server) map[string]any {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("Firecrawl received %d requests, want 1", len(reqs))
	}
	if got := reqs[0].Key; got != testKey {
		t.Errorf("request carried key %q in its Authorization header", got)
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[0].Body, &m); err != nil {
		t.Fatalf("request body %s: %v", reqs[0].Body, err)
	}
	return m
}

// jsonOf round-trips v through JSON, so it compares with a decoded body.
func jsonOf(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSearch_MapsEveryQueryFieldOntoTheBody(t *testing.T) {
	srv := newServer(t, fixture(t, "search_ok.json"))
	_, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{
		Text: " golang context ", MaxResults: 7, IncludeDomains: []string{"https://Go.dev/doc/", "example.org", " "},
		TimeRange: provider.PastMonth, Country: "de", Language: "de",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := jsonOf(t, map[string]any{
		"query": "golang context", "limit": 7, "sources": []any{map[string]any{"type": "web"}},
		"includeDomains": []string{"go.dev", "example.org"}, "tbs": "qdr:m", "country": "DE",
	})
	if got := sent(t, srv); !reflect.DeepEqual(got, want) {
		t.Errorf("body\n got %v\nwant %v", got, want)
	}
	if p := srv.Last().Path; p != "/v2/search" {
		t.Errorf("path %s, want /v2/search", p)
	}
}

func TestSearch_SendsOnlyTheDefaultsForAPlainQuery(t *testing.T) {
	srv := newServer(t, fixture(t, "search_ok.json"))
	if _, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	want := jsonOf(t, map[string]any{"query": "q", "limit": 10, "sources": []any{map[string]any{"type": "web"}}})
	if got := sent(t, srv); !reflect.DeepEqual(got, want) {
		t.Errorf("body\n got %v\nwant %v", got, want)
	}
}

func TestSearch_SendsExcludeDomainsWhenNoDomainIsIncluded(t *testing.T) {
	srv := newServer(t, fixture(t, "search_ok.json"))
	res, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q", ExcludeDomains: []string{"example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	body := sent(t, srv)
	if !reflect.DeepEqual(body["excludeDomains"], []any{"example.com"}) || body["includeDomains"] != nil {
		t.Errorf("body %v, want excludeDomains only", body)
	}
	if len(res.Results) != 3 {
		t.Errorf("got %d results; Firecrawl did the excluding, the client must not drop more", len(res.Results))
	}
}

func TestSearch_DropsExcludedResultsWhenBothDomainListsAreSet(t *testing.T) {
	srv := newServer(t, fixture(t, "search_ok.json"))
	res, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{
		Text: "q", IncludeDomains: []string{"go.dev", "example.com"}, ExcludeDomains: []string{"pkg.go.dev"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if body := sent(t, srv); body["excludeDomains"] != nil {
		t.Errorf("sent excludeDomains with includeDomains: %v", body)
	}
	var urls []string
	for _, r := range res.Results {
		urls = append(urls, r.URL)
	}
	if want := []string{"https://go.dev/blog/context", "https://example.com/context-tutorial"}; !reflect.DeepEqual(urls, want) {
		t.Errorf("results %v, want %v", urls, want)
	}
}

func TestSearch_AsksForScrapedResultsAndMapsThem(t *testing.T) {
	srv := newServer(t, fixture(t, "search_scraped.json"))
	res, err := newClient(t, srv, &firecrawl.Config{ScrapeResults: true, MaxCharacters: 12}).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := sent(t, srv)["scrapeOptions"].(map[string]any)
	if !reflect.DeepEqual(opts, jsonOf(t, map[string]any{"formats": []any{map[string]any{"type": "markdown"}}, "onlyMainContent": true})) {
		t.Errorf("scrapeOptions %v", opts)
	}
	if len(res.Results) != 2 {
		t.Fatalf("got %d results, want 2", len(res.Results))
	}
	first, second := res.Results[0], res.Results[1]
	if first.Content != "# Go Concurr" || first.Title != "Go Concurrency Patterns: Context" || first.Score != 1 {
		t.Errorf("first result %+v", first)
	}
	if second.URL != "https://example.org/from-metadata" || second.Title != "From metadata only" || second.Score != 0.5 {
		t.Errorf("second result %+v; want the URL and title from its metadata", second)
	}
	if res.RequestID != "01928a7e-6a1b-7c22-8e3f-2c3d4e5f6071" || res.Provider != "firecrawl" {
		t.Errorf("request id %q, provider %q", res.RequestID, res.Provider)
	}
	if want := (&provider.Usage{Credits: 4}); !reflect.DeepEqual(res.Usage, want) {
		t.Errorf("Usage = %+v, want %+v (creditsUsed)", res.Usage, want)
	}
}

func TestSearchAndExtract_ReadTheCreditsUsed(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		want        *provider.Usage
	}{
		{"a number", `"creditsUsed":3,`, &provider.Usage{Credits: 3}},
		{"a numeric string", `"creditsUsed":"1.5",`, &provider.Usage{Credits: 1.5}},
		{"zero", `"creditsUsed":0,`, &provider.Usage{}},
		{"absent", ``, nil},
		{"null", `"creditsUsed":null,`, nil},
		{"negative", `"creditsUsed":-2,`, nil},
		{"an object", `"creditsUsed":{"n":1},`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, ok(`{"success":true,`+tc.field+`"data":{"web":[{"url":"https://go.dev/","title":"Go"}]}}`))
			res, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Usage, tc.want) {
				t.Errorf("search: Usage = %+v, want %+v", res.Usage, tc.want)
			}
			srv = newServer(t, ok(`{"success":true,"data":{"markdown":"# Go","metadata":{`+tc.field+`"statusCode":200}}}`))
			page, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: extractURL})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(page.Usage, tc.want) {
				t.Errorf("extract: Usage = %+v, want %+v", page.Usage, tc.want)
			}
		})
	}
}

func TestSearch_ReadsAListOfResultsInPlaceOfTheSourcesObject(t *testing.T) {
	srv := newServer(t, ok(`{"success":true,"data":[{"url":"https://go.dev/","title":"Go","description":"d"}]}`))
	res, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].URL != "https://go.dev/" {
		t.Errorf("results %+v", res.Results)
	}
}

func TestSearch_RejectsBadInputWithoutARequest(t *testing.T) {
	srv := newServer(t, fixture(t, "search_ok.json"))
	c := newClient(t, srv, nil)
	for _, q := range []provider.Query{
		{Text: " "},
		{Text: strings.Repeat("é", 501)},
		{Text: "q", Country: "usa"},
		{Text: "q", Country: "u1"},
		{Text: "q", TimeRange: "hour"},
	} {
		if _, err := c.Search(context.Background(), q); provider.KindOf(err) != provider.KindBadRequest {
			t.Errorf("query %.40v: err %v, want bad-request", q, err)
		}
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("Firecrawl received %d requests, want 0", n)
	}
}

func TestExtract_SendsMarkdownAndTheConfiguredOptions(t *testing.T) {
	srv := newServer(t, fixture(t, "scrape_ok.json"))
	off, hour := false, time.Hour
	cfg := &firecrawl.Config{OnlyMainContent: &off, ScrapeTimeout: 20 * time.Second, MaxAge: &hour, Proxy: "enhanced"}
	page, err := newClient(t, srv, cfg).Extract(context.Background(), provider.ExtractRequest{URL: extractURL, Query: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	want := jsonOf(t, map[string]any{"url": extractURL, "formats": []any{map[string]any{"type": "markdown"}},
		"onlyMainContent": false, "timeout": 20000, "maxAge": 3600000, "proxy": "enhanced"})
	if got := sent(t, srv); !reflect.DeepEqual(got, want) {
		t.Errorf("body\n got %v\nwant %v", got, want)
	}
	if p := srv.Last().Path; p != "/v2/scrape" {
		t.Errorf("path %s, want /v2/scrape", p)
	}
	if page.Title != "Understanding context in Go | Example" || page.Format != provider.Markdown || page.URL != extractURL ||
		page.RequestID != "019285c1-7d0a-7a3e-9a61-3f2b9c1d4e5f" || !strings.HasPrefix(page.Content, "# Understanding context in Go") {
		t.Errorf("page %+v", page)
	}
	if want := (&provider.Usage{Credits: 1}); !reflect.DeepEqual(page.Usage, want) {
		t.Errorf("Usage = %+v, want %+v (metadata.creditsUsed)", page.Usage, want)
	}
}

func TestExtract_SendsZeroMaxAgeToAlwaysScrapeAfresh(t *testing.T) {
	srv := newServer(t, fixture(t, "scrape_ok.json"))
	fresh := time.Duration(0)
	if _, err := newClient(t, srv, &firecrawl.Config{MaxAge: &fresh}).Extract(context.Background(), provider.ExtractRequest{URL: extractURL}); err != nil {
		t.Fatal(err)
	}
	if got, ok := sent(t, srv)["maxAge"]; !ok || got != float64(0) {
		t.Errorf("maxAge = %v (sent: %v), want 0", got, ok)
	}
}

func TestExtract_ReturnsMarkdownLabelledAsSuchWhenTextIsAskedFor(t *testing.T) {
	srv := newServer(t, fixture(t, "scrape_title_list.json"))
	page, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: extractURL, Format: provider.Text})
	if err != nil {
		t.Fatal(err)
	}
	if page.Format != provider.Markdown || page.Title != "First title" {
		t.Errorf("format %q, title %q; want markdown and the first non-empty title", page.Format, page.Title)
	}
}

func TestExtract_TitlesThePageByItsFirstHeadingWhenMetadataHasNone(t *testing.T) {
	srv := newServer(t, ok(`{"success":true,"data":{"markdown":"intro\n\n## Real  title ##\n\nbody","metadata":{"statusCode":200}}}`))
	page, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: extractURL})
	if err != nil {
		t.Fatal(err)
	}
	if page.Title != "Real title" {
		t.Errorf("title %q", page.Title)
	}
}

func TestExtract_ReportsAPageTheTargetFailedAsUnsupported(t *testing.T) {
	for name, body := range map[string]string{
		"404 from the site":              `{"success":true,"data":{"markdown":"# Not found","metadata":{"statusCode":404,"error":"Not Found"}}}`,
		"500 from the site":              `{"success":true,"data":{"markdown":"oops","metadata":{"statusCode":"500"}}}`,
		"an error without a status":      `{"success":true,"data":{"markdown":"partial","metadata":{"error":"net::ERR_CONNECTION_RESET"}}}`,
		"no markdown":                    `{"success":true,"data":{"markdown":"  ","metadata":{"statusCode":200}}}`,
		"no data":                        `{"success":true}`,
		"success false without a code":   `{"success":false,"error":"The page could not be scraped."}`,
		"success false with a DNS error": `{"success":false,"code":"SCRAPE_DNS_RESOLUTION_ERROR","error":"DNS resolution failed."}`,
	} {
		srv := newServer(t, ok(body))
		_, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: extractURL})
		var pe *provider.Error
		if !errors.As(err, &pe) || pe.Kind != provider.KindUnsupported || pe.Provider != "firecrawl" || pe.Op != "extract" || pe.Attempts != 1 {
			t.Errorf("%s: err %#v, want unsupported after one attempt", name, err)
		}
		if n := srv.Count(); n != 1 {
			t.Errorf("%s: %d requests, want 1", name, n)
		}
	}
}

func TestExtract_AcceptsAPageWithAnErrorNoteButASuccessfulStatus(t *testing.T) {
	srv := newServer(t, ok(`{"success":true,"data":{"markdown":"# Title\n\ntext","metadata":{"statusCode":200,"error":"some assets failed"}}}`))
	if _, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: extractURL}); err != nil {
		t.Errorf("Extract failed: %v", err)
	}
}

func TestExtract_RejectsABadURLOrFormatWithoutARequest(t *testing.T) {
	srv := newServer(t, fixture(t, "scrape_ok.json"))
	c := newClient(t, srv, nil)
	for _, req := range []provider.ExtractRequest{
		{URL: ""}, {URL: "example.org/article"}, {URL: "ftp://example.org/file"}, {URL: extractURL, Format: "html"},
	} {
		if _, err := c.Extract(context.Background(), req); provider.KindOf(err) != provider.KindBadRequest {
			t.Errorf("request %+v: err %v, want bad-request", req, err)
		}
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("Firecrawl received %d requests, want 0", n)
	}
}

func TestExtract_WaitsAsLongAsThe429MessageSaysAndThenSucceeds(t *testing.T) {
	msg := "Rate limit exceeded. Consumed (req/min): 20, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after 1s, resets at Tue Sep 08 2026 03:16:17 GMT+0000"
	srv := newServer(t, providertest.Answer{Status: 429, Body: errorBody("", msg)}, fixture(t, "scrape_ok.json"))
	start := time.Now()
	_, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: extractURL})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Count() != 2 || took < 900*time.Millisecond || took > 3*time.Second {
		t.Errorf("%d requests in %v; want 2 about 1s apart", srv.Count(), took)
	}
}

func TestSearch_ReportsTheBodysWaitOnARateLimitTooLongToWaitFor(t *testing.T) {
	srv := newServer(t, providertest.Answer{Status: 429, Body: `{"success":false,"error":"Keyless limit reached","retry_after_seconds":120}`})
	_, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindRateLimited || pe.RetryAfter != 2*time.Minute || srv.Count() != 1 {
		t.Errorf("err %#v after %d requests; want rate-limited with RetryAfter 2m after one", err, srv.Count())
	}
}

func TestNew_AcceptsABaseURLWithTheVersionPrefix(t *testing.T) {
	srv := newServer(t, fixture(t, "scrape_ok.json"))
	c, err := firecrawl.New(provider.NewPool([]string{testKey}, nil), &firecrawl.Config{BaseURL: srv.URL + "/v2/", HTTP: providertest.HTTPConfig()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Extract(context.Background(), provider.ExtractRequest{URL: extractURL}); err != nil {
		t.Fatal(err)
	}
	if p := srv.Last().Path; p != "/v2/scrape" {
		t.Errorf("path %s, want /v2/scrape", p)
	}
}

func TestNew_ValidatesTheConfigAndNeverChangesIt(t *testing.T) {
	neg := -time.Second
	for _, cfg := range []firecrawl.Config{
		{BaseURL: "localhost:3002"},
		{BaseURL: "https://api.example#x"},
		{MaxResults: 101},
		{MaxResults: -1},
		{ScrapeTimeout: 500 * time.Millisecond},
		{ScrapeTimeout: 301 * time.Second},
		{MaxAge: &neg},
		{Proxy: "stealth"},
		{MaxCharacters: -1},
	} {
		if _, err := firecrawl.New(nil, &cfg); err == nil {
			t.Errorf("New accepted %+v", cfg)
		}
	}
	on, age := true, time.Hour
	cfg := firecrawl.Config{OnlyMainContent: &on, MaxAge: &age}
	before := cfg
	c, err := firecrawl.New(nil, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, before) || on != true || age != time.Hour {
		t.Errorf("New changed the caller's config to %+v", cfg)
	}
	if c.Name() != "firecrawl" {
		t.Errorf("Name() = %q", c.Name())
	}
	if _, err := firecrawl.New(nil, nil); err != nil {
		t.Errorf("New with a nil config: %v", err)
	}
}

func TestNew_CopiesThePointerFieldsOfTheConfig(t *testing.T) {
	srv := newServer(t, fixture(t, "scrape_ok.json"))
	off, age := false, time.Hour
	c := newClient(t, srv, &firecrawl.Config{OnlyMainContent: &off, MaxAge: &age})
	off, age = true, 0
	if _, err := c.Extract(context.Background(), provider.ExtractRequest{URL: extractURL}); err != nil {
		t.Fatal(err)
	}
	body := sent(t, srv)
	if body["onlyMainContent"] != false || body["maxAge"] != float64(3600000) {
		t.Errorf("body %v; a change to the caller's config after New reached the client", body)
	}
}

func TestClient_SendsTheKeyAsABearerTokenOnly(t *testing.T) {
	srv := newServer(t, fixture(t, "search_ok.json"))
	if _, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	r := srv.Last()
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	if strings.Contains(string(r.Body), testKey) {
		t.Error("the key is in the body")
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if r.Method != http.MethodPost {
		t.Errorf("method %s, want POST", r.Method)
	}
}
