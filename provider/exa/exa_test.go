package exa_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/providertest"
)

const testKey = "exa-test-7c1d-SECRET-KEY"

var fixedNow = time.Date(2026, 3, 15, 12, 30, 0, 0, time.UTC)

// keyOf reads Exa's x-api-key header.
func keyOf(r *http.Request) string { return r.Header.Get("x-api-key") }

// fake starts a fake Exa that answers every request with a.
func fake(t *testing.T, a providertest.Answer) *providertest.Server {
	t.Helper()
	return providertest.NewServer(t, keyOf, func(int, providertest.Request) providertest.Answer { return a })
}

// newClient builds a client against srv with the test key and a fixed
// clock; cfg may be nil.
func newClient(t *testing.T, srv *providertest.Server, cfg *exa.Config) *exa.Client {
	t.Helper()
	var c exa.Config
	if cfg != nil {
		c = *cfg
	}
	c.BaseURL = srv.URL
	c.HTTP = providertest.HTTPConfig()
	c.HTTP.MaxAttempts = 1
	if c.Now == nil {
		c.Now = func() time.Time { return fixedNow }
	}
	cl, err := exa.New(provider.NewPool([]string{testKey}, nil), &c)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return cl
}

// fixture reads testdata/name.
func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sent decodes the JSON body of the last request srv received.
func sent(t *testing.T, srv *providertest.Server) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(srv.Last().Body, &m); err != nil {
		t.Fatalf("request body is not a JSON object: %v\n%s", err, srv.Last().Body)
	}
	return m
}

// at walks a decoded JSON value along a path of object keys.
func at(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func ok(body string) providertest.Answer { return providertest.Answer{Status: 200, Body: body} }

func TestSearch_SendsEveryHonouredQueryFieldUnderItsCamelCaseName(t *testing.T) {
	srv := fake(t, ok(fixture(t, "search.json")))
	c := newClient(t, srv, nil)
	_, err := c.Search(context.Background(), provider.Query{
		Text:           "  go generics  ",
		MaxResults:     7,
		IncludeDomains: []string{"go.dev", " ", "github.com"},
		ExcludeDomains: []string{"example.com"},
		TimeRange:      provider.PastWeek,
		Country:        "de",
		Language:       "fr",
	})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Last()
	if req.Method != http.MethodPost || req.Path != "/search" {
		t.Errorf("request = %s %s, want POST /search", req.Method, req.Path)
	}
	if req.Key != testKey {
		t.Errorf("x-api-key = %q, want the pool's key", req.Key)
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	want := map[string]any{
		"query":              "go generics",
		"type":               "auto",
		"numResults":         float64(7),
		"includeDomains":     []any{"go.dev", "github.com"},
		"excludeDomains":     []any{"example.com"},
		"startPublishedDate": "2026-03-08T12:30:00.000Z",
		"userLocation":       "DE",
		"contents":           map[string]any{"text": map[string]any{"maxCharacters": float64(1000)}},
	}
	if got := sent(t, srv); !reflect.DeepEqual(got, want) {
		t.Errorf("body =\n%v\nwant\n%v", got, want)
	}
}

func TestSearch_AlwaysSendsContentsAndOmitsUnsetFilters(t *testing.T) {
	srv := fake(t, ok(fixture(t, "search.json")))
	c := newClient(t, srv, nil)
	if _, err := c.Search(context.Background(), provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	got := sent(t, srv)
	want := map[string]any{
		"query":      "q",
		"type":       "auto",
		"numResults": float64(exa.DefaultNumResults),
		"contents":   map[string]any{"text": map[string]any{"maxCharacters": float64(exa.DefaultSearchMaxCharacters)}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body = %v, want %v", got, want)
	}
}

func TestSearch_SendsConfiguredTypeCategoryHighlightsAndCrawlOptions(t *testing.T) {
	srv := fake(t, ok(fixture(t, "search.json")))
	age := 24
	c := newClient(t, srv, &exa.Config{
		Type: "neural", Category: "news", NumResults: 5, SearchMaxCharacters: 400,
		Highlights: true, MaxAgeHours: &age, LivecrawlTimeout: 2500 * time.Millisecond,
	})
	if _, err := c.Search(context.Background(), provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	got := sent(t, srv)
	want := map[string]any{
		"query":      "q",
		"type":       "neural",
		"category":   "news",
		"numResults": float64(5),
		"contents": map[string]any{
			"text":             map[string]any{"maxCharacters": float64(400)},
			"highlights":       true,
			"maxAgeHours":      float64(24),
			"livecrawlTimeout": float64(2500),
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body = %v, want %v", got, want)
	}
}

func TestSearch_SendsMaxAgeHoursZeroWhenConfigured(t *testing.T) {
	srv := fake(t, ok(fixture(t, "search.json")))
	zero := 0
	c := newClient(t, srv, &exa.Config{MaxAgeHours: &zero})
	if _, err := c.Search(context.Background(), provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	if v, present := at(sent(t, srv), "contents").(map[string]any)["maxAgeHours"]; !present || v != float64(0) {
		t.Errorf("contents.maxAgeHours = %v (present %v), want 0", v, present)
	}
}

func TestSearch_ClampsMaxResultsToExasRange(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{0, 10}, {-3, 10}, {1, 1}, {100, 100}, {250, 100}} {
		srv := fake(t, ok(fixture(t, "search.json")))
		c := newClient(t, srv, nil)
		if _, err := c.Search(context.Background(), provider.Query{Text: "q", MaxResults: tc.in}); err != nil {
			t.Fatal(err)
		}
		if got := at(sent(t, srv), "numResults"); got != float64(tc.want) {
			t.Errorf("MaxResults %d: numResults = %v, want %d", tc.in, got, tc.want)
		}
	}
}

func TestSearch_ComputesStartPublishedDateFromEachTimeRange(t *testing.T) {
	for tr, want := range map[provider.TimeRange]string{
		provider.PastDay:   "2026-03-14T12:30:00.000Z",
		provider.PastWeek:  "2026-03-08T12:30:00.000Z",
		provider.PastMonth: "2026-02-13T12:30:00.000Z",
		provider.PastYear:  "2025-03-15T12:30:00.000Z",
	} {
		srv := fake(t, ok(fixture(t, "search.json")))
		c := newClient(t, srv, nil)
		if _, err := c.Search(context.Background(), provider.Query{Text: "q", TimeRange: tr}); err != nil {
			t.Fatal(err)
		}
		if got := at(sent(t, srv), "startPublishedDate"); got != want {
			t.Errorf("%s: startPublishedDate = %v, want %s", tr, got, want)
		}
	}
}

func TestSearch_RejectsInvalidQueriesWithoutSendingARequest(t *testing.T) {
	for name, q := range map[string]provider.Query{
		"blank text":           {Text: "  "},
		"unknown time range":   {Text: "q", TimeRange: "fortnight"},
		"three-letter country": {Text: "q", Country: "deu"},
		"country with digits":  {Text: "q", Country: "d1"},
	} {
		srv := fake(t, ok(fixture(t, "search.json")))
		c := newClient(t, srv, nil)
		_, err := c.Search(context.Background(), q)
		if provider.KindOf(err) != provider.KindBadRequest {
			t.Errorf("%s: kind = %q (%v), want bad-request", name, provider.KindOf(err), err)
		}
		if srv.Count() != 0 {
			t.Errorf("%s: %d requests sent, want none", name, srv.Count())
		}
	}
}

func TestSearch_MapsResultsAndToleratesNullFields(t *testing.T) {
	srv := fake(t, ok(fixture(t, "search.json")))
	c := newClient(t, srv, nil)
	res, err := c.Search(context.Background(), provider.Query{Text: "llm research"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Provider != "exa" || res.Query != "llm research" || res.RequestID != "b5947044c4b78efa9552a7c89b306d95" {
		t.Errorf("results header = %q %q %q", res.Provider, res.Query, res.RequestID)
	}
	if len(res.Results) != 3 {
		t.Fatalf("got %d results, want 3 (the one without url or id dropped): %+v", len(res.Results), res.Results)
	}
	r0 := res.Results[0]
	if r0.Title != "A Comprehensive Overview of Large Language Models" || r0.URL != "https://arxiv.org/pdf/2307.06435.pdf" {
		t.Errorf("result 0 = %q %q", r0.Title, r0.URL)
	}
	if r0.Snippet != "Such requirements have limited their adoption..." {
		t.Errorf("result 0 snippet = %q, want the first highlight", r0.Snippet)
	}
	if !strings.HasPrefix(r0.Content, "Abstract Large Language Models") {
		t.Errorf("result 0 content = %q", r0.Content)
	}
	if want := time.Date(2023, 11, 16, 1, 36, 32, 547e6, time.UTC); !r0.Published.Equal(want) {
		t.Errorf("result 0 published = %v, want %v", r0.Published, want)
	}
	if r0.Score != 0.46 || r0.Provider != "exa" {
		t.Errorf("result 0 score/provider = %v %q", r0.Score, r0.Provider)
	}
	r1 := res.Results[1]
	if !r1.Published.IsZero() || r1.Score != 0 {
		t.Errorf("result 1 with null date and score: published %v score %v, want zero values", r1.Published, r1.Score)
	}
	if !strings.HasPrefix(r1.Snippet, "Go is an open source programming language") || !strings.HasSuffix(r1.Snippet, "…") {
		t.Errorf("result 1 snippet = %q, want the start of the text, cut", r1.Snippet)
	}
	if n := len([]rune(r1.Snippet)); n > 301 {
		t.Errorf("result 1 snippet has %d runes, want at most 301", n)
	}
	r2 := res.Results[2]
	if r2.URL != "https://example.org/from-id" || !r2.Published.Equal(time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("result 2 (url from id, plain date) = %q %v", r2.URL, r2.Published)
	}
	if r2.Snippet != "A short summary." {
		t.Errorf("result 2 snippet = %q, want the summary", r2.Snippet)
	}
}

func TestSearch_ReturnsEmptyResultsForNoHits(t *testing.T) {
	srv := fake(t, ok(`{"requestId":"r1","results":[],"searchType":"neural","costDollars":{"total":0.005}}`))
	res, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil || res == nil || len(res.Results) != 0 || res.Results == nil {
		t.Fatalf("got %+v, %v; want empty non-nil results and no error", res, err)
	}
}

func TestSearch_TakesTheRequestIDFromTheHeaderWhenTheBodyHasNone(t *testing.T) {
	srv := fake(t, providertest.Answer{Status: 200, Header: http.Header{"X-Request-Id": {"hdr-42"}}, Body: `{"results":[]}`})
	res, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if res.RequestID != "hdr-42" {
		t.Errorf("RequestID = %q, want hdr-42", res.RequestID)
	}
}

func TestSearch_ReturnsDeepSearchOutputAsTheAnswer(t *testing.T) {
	for body, want := range map[string]string{
		`{"results":[],"output":{"content":"Go 1.26 is out.","grounding":[]}}`:                      "Go 1.26 is out.",
		`{"results":[],"output":{"content":{"version": "1.26", "n": 2},"grounding":[]}}`:            `{"version":"1.26","n":2}`,
		`{"results":[],"output":{"content":null}}`:                                                  "",
		`{"results":[],"output":"unexpected"}`:                                                      "",
		`{"results":[],"resolvedSearchType":"deep","output":{"content":"x","grounding":"garbage"}}`: "x",
	} {
		srv := fake(t, ok(body))
		res, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"})
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if res.Answer != want {
			t.Errorf("%s: Answer = %q, want %q", body, res.Answer, want)
		}
	}
}

func TestSearch_AcceptsBothCostShapesAndReportsTheTotal(t *testing.T) {
	for name, cost := range map[string]float64{"search.json": 0.007, "search_old_cost.json": 0.005} {
		srv := fake(t, ok(fixture(t, name)))
		res, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Results) == 0 {
			t.Errorf("%s: no results", name)
		}
		if want := (&provider.Usage{CostUSD: cost}); !reflect.DeepEqual(res.Usage, want) {
			t.Errorf("%s: Usage = %+v, want %+v", name, res.Usage, want)
		}
	}
}

func TestSearch_ReportsNoUsageWithoutACostObject(t *testing.T) {
	for body, want := range map[string]*provider.Usage{
		`{"results":[]}`:                                 nil,
		`{"results":[],"costDollars":null}`:              nil,
		`{"results":[],"costDollars":"0.01"}`:            nil,
		`{"results":[],"costDollars":{"total":-1}}`:      nil,
		`{"results":[],"costDollars":{"total":"0.012"}}`: {CostUSD: 0.012},
		`{"results":[],"costDollars":{"total":0}}`:       {},
	} {
		srv := fake(t, ok(body))
		res, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"})
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if !reflect.DeepEqual(res.Usage, want) {
			t.Errorf("%s: Usage = %+v, want %+v", body, res.Usage, want)
		}
	}
}

func TestSearch_ReportsAMalformedBodyAsUnknown(t *testing.T) {
	for _, body := range []string{`not json`, `{"results":`, `[]`, `{"results":"nope"}`, ``} {
		srv := fake(t, ok(body))
		_, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"})
		if provider.KindOf(err) != provider.KindUnknown {
			t.Errorf("%q: kind = %q (%v), want unknown", body, provider.KindOf(err), err)
		}
	}
}

// errorBody renders Exa's error envelope.
func errorBody(msg, tag string) string {
	b, _ := json.Marshal(map[string]string{"requestId": "req-err-1", "error": msg, "tag": tag})
	return string(b)
}

func TestErrors_AreClassifiedByStatusThenTag(t *testing.T) {
	cases := []struct {
		status int
		tag    string
		search provider.Kind
		// extract is the kind for /contents when it differs from search.
		extract provider.Kind
	}{
		{400, "INVALID_REQUEST_BODY", provider.KindBadRequest, ""},
		{400, "INVALID_URLS", provider.KindBadRequest, ""},
		{400, "NO_CONTENT_FOUND", provider.KindBadRequest, provider.KindUnsupported},
		{400, "SOMETHING_NEW", provider.KindBadRequest, ""},
		{401, "INVALID_API_KEY", provider.KindAuth, ""},
		{402, "NO_MORE_CREDITS", provider.KindQuota, ""},
		{402, "API_KEY_BUDGET_EXCEEDED", provider.KindQuota, ""},
		{402, "TEAM_BUDGET_EXCEEDED", provider.KindQuota, ""},
		{402, "", provider.KindQuota, ""},
		{403, "FEATURE_DISABLED", provider.KindAuth, ""},
		{403, "INSUFFICIENT_SCOPE", provider.KindAuth, ""},
		{403, "PROHIBITED_CONTENT", provider.KindUnsupported, ""},
		{404, "NOT_FOUND", provider.KindBadRequest, ""},
		{422, "FETCH_DOCUMENT_ERROR", provider.KindUnsupported, ""},
		{422, "OTHER", provider.KindBadRequest, ""},
		{429, "RATE_LIMIT_EXCEEDED", provider.KindRateLimited, ""},
		{500, "DEFAULT_ERROR", provider.KindTransient, ""},
		{500, "INTERNAL_ERROR", provider.KindTransient, ""},
		{501, "UNABLE_TO_GENERATE_RESPONSE", provider.KindUnknown, ""},
		{502, "", provider.KindTransient, ""},
		{503, "SERVICE_OVERLOADED", provider.KindTransient, ""},
		{504, "", provider.KindTransient, ""},
		// The status decides: a tag that means something else elsewhere
		// does not override it.
		{500, "INVALID_API_KEY", provider.KindTransient, ""},
	}
	for _, tc := range cases {
		for _, op := range []string{"search", "extract"} {
			want := tc.search
			if op == "extract" && tc.extract != "" {
				want = tc.extract
			}
			msg := "something failed for key " + testKey
			srv := fake(t, providertest.Answer{Status: tc.status, Body: errorBody(msg, tc.tag)})
			c := newClient(t, srv, nil)
			var err error
			if op == "search" {
				_, err = c.Search(context.Background(), provider.Query{Text: "q"})
			} else {
				_, err = c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.com/a"})
			}
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("%d %s %s: error %v is not a *provider.Error", tc.status, tc.tag, op, err)
			}
			if pe.Kind != want {
				t.Errorf("%d %s %s: kind = %q, want %q", tc.status, tc.tag, op, pe.Kind, want)
			}
			if pe.Status != tc.status || pe.Tag != tc.tag || pe.RequestID != "req-err-1" || pe.Provider != "exa" || pe.Op != op {
				t.Errorf("%d %s %s: error fields = %+v", tc.status, tc.tag, op, pe)
			}
			if !strings.Contains(pe.Message, "something failed for key [redacted]") {
				t.Errorf("%d %s %s: message = %q, want the envelope's error, scrubbed", tc.status, tc.tag, op, pe.Message)
			}
			providertest.CheckNoSecrets(t, err, testKey)
		}
	}
}

func TestErrors_UseTheStatusTextWhenTheBodyIsNotAnEnvelope(t *testing.T) {
	srv := fake(t, providertest.Answer{Status: 429, Header: http.Header{"X-Request-Id": {"hdr-9"}}, Body: "slow down"})
	_, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindRateLimited || pe.Message != "Too Many Requests" || pe.RequestID != "hdr-9" {
		t.Errorf("error = %#v", err)
	}
}

func TestErrors_A200CarryingAnErrorEnvelopeIsAFailure(t *testing.T) {
	cases := []struct {
		body string
		want provider.Kind
	}{
		{`{"requestId":"r","error":"You have exceeded your credits limit","tag":"NO_MORE_CREDITS"}`, provider.KindQuota},
		{`{"requestId":"r","error":"Invalid API key","tag":"INVALID_API_KEY"}`, provider.KindAuth},
		{`{"requestId":"r","error":"bad body","tag":"INVALID_REQUEST_BODY"}`, provider.KindBadRequest},
		{`{"requestId":"r","error":"overloaded","tag":"SERVICE_OVERLOADED"}`, provider.KindTransient},
		{`{"requestId":"r","error":"something odd"}`, provider.KindUnknown},
		{`{"requestId":"r","error":{"message":"nested"},"results":[]}`, provider.KindUnknown},
		{`{"requestId":"r","tag":"BRAND_NEW_TAG","results":[]}`, provider.KindUnknown},
	}
	for _, tc := range cases {
		srv := fake(t, ok(tc.body))
		c := newClient(t, srv, nil)
		_, err := c.Search(context.Background(), provider.Query{Text: "q"})
		if provider.KindOf(err) != tc.want {
			t.Errorf("%s: kind = %q (%v), want %q", tc.body, provider.KindOf(err), err, tc.want)
		}
	}
	// An empty or null error field is no failure.
	for _, body := range []string{`{"results":[],"error":null}`, `{"results":[],"error":""}`, `{"results":[],"tag":""}`} {
		srv := fake(t, ok(body))
		if _, err := newClient(t, srv, nil).Search(context.Background(), provider.Query{Text: "q"}); err != nil {
			t.Errorf("%s: %v, want success", body, err)
		}
	}
}

func TestErrors_NoKeysIsAnAuthFailureWithoutARequest(t *testing.T) {
	srv := fake(t, ok(`{"results":[]}`))
	c, err := exa.New(provider.NewPool(nil, nil), &exa.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Search(context.Background(), provider.Query{Text: "q"})
	if provider.KindOf(err) != provider.KindAuth || srv.Count() != 0 {
		t.Errorf("kind = %q, requests = %d; want auth and none", provider.KindOf(err), srv.Count())
	}
}

func TestExtract_SendsTheURLWithAnExplicitTextLimit(t *testing.T) {
	srv := fake(t, ok(fixture(t, "contents.json")))
	age := -1
	c := newClient(t, srv, &exa.Config{ExtractMaxCharacters: 5000, MaxAgeHours: &age, LivecrawlTimeout: 20 * time.Second, Highlights: true})
	if _, err := c.Extract(context.Background(), provider.ExtractRequest{URL: " https://arxiv.org/abs/2307.06435 ", Query: "key findings"}); err != nil {
		t.Fatal(err)
	}
	req := srv.Last()
	if req.Method != http.MethodPost || req.Path != "/contents" || req.Key != testKey {
		t.Errorf("request = %s %s key %q", req.Method, req.Path, req.Key)
	}
	want := map[string]any{
		"urls":             []any{"https://arxiv.org/abs/2307.06435"},
		"text":             map[string]any{"maxCharacters": float64(5000)},
		"maxAgeHours":      float64(-1),
		"livecrawlTimeout": float64(20000),
	}
	if got := sent(t, srv); !reflect.DeepEqual(got, want) {
		t.Errorf("body = %v, want %v", got, want)
	}
}

func TestExtract_DefaultsToExasMaximumTextLength(t *testing.T) {
	srv := fake(t, ok(fixture(t, "contents.json")))
	if _, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: "https://arxiv.org/abs/2307.06435"}); err != nil {
		t.Fatal(err)
	}
	if got := at(sent(t, srv), "text", "maxCharacters"); got != float64(10000) {
		t.Errorf("text.maxCharacters = %v, want 10000", got)
	}
}

func TestExtract_ReturnsThePageAsMarkdownWithItsTitle(t *testing.T) {
	srv := fake(t, ok(fixture(t, "contents.json")))
	c := newClient(t, srv, nil)
	for _, f := range []provider.Format{"", provider.Markdown, provider.Text} {
		p, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://arxiv.org/abs/2307.06435", Format: f})
		if err != nil {
			t.Fatal(err)
		}
		want := provider.Page{
			URL:       "https://arxiv.org/abs/2307.06435",
			Title:     "A Comprehensive Overview of Large Language Models",
			Content:   "Abstract Large Language Models (LLMs) have recently demonstrated remarkable capabilities.",
			Format:    provider.Markdown,
			Provider:  "exa",
			RequestID: "e492118ccdedcba5088bfc4357a8a125",
			Usage:     &provider.Usage{CostUSD: 0.001},
		}
		if !reflect.DeepEqual(*p, want) {
			t.Errorf("format %q: page = %+v\nwant %+v", f, *p, want)
		}
	}
}

func TestExtract_RejectsAnUnknownFormatOrEmptyURLWithoutARequest(t *testing.T) {
	srv := fake(t, ok(fixture(t, "contents.json")))
	c := newClient(t, srv, nil)
	for _, req := range []provider.ExtractRequest{{URL: "https://a.example", Format: "html"}, {URL: " "}} {
		if _, err := c.Extract(context.Background(), req); provider.KindOf(err) != provider.KindBadRequest {
			t.Errorf("%+v: kind = %q, want bad-request", req, provider.KindOf(err))
		}
	}
	if srv.Count() != 0 {
		t.Errorf("%d requests sent, want none", srv.Count())
	}
}

func TestExtract_ClassifiesAURLReportedAsFailedInStatuses(t *testing.T) {
	cases := []struct {
		tag  string
		want provider.Kind
	}{
		{"CRAWL_NOT_FOUND", provider.KindUnsupported},
		{"UNSUPPORTED_URL", provider.KindUnsupported},
		{"SOURCE_NOT_AVAILABLE", provider.KindUnsupported},
		{"CRAWL_UNKNOWN_ERROR", provider.KindUnsupported},
		{"SOMETHING_NEW", provider.KindUnsupported},
		{"CRAWL_TIMEOUT", provider.KindTransient},
		{"CRAWL_LIVECRAWL_TIMEOUT", provider.KindTransient},
	}
	for _, tc := range cases {
		body := `{"requestId":"rq","results":[],"statuses":[{"id":"https://a.example/x","status":"error","source":"crawled",` +
			`"error":{"tag":"` + tc.tag + `","httpStatusCode":404}}],"costDollars":{"total":0}}`
		srv := fake(t, ok(body))
		_, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: "https://a.example/x"})
		var pe *provider.Error
		if !errors.As(err, &pe) {
			t.Fatalf("%s: error %v is not a *provider.Error", tc.tag, err)
		}
		if pe.Kind != tc.want || pe.Tag != tc.tag || pe.Status != 200 || pe.RequestID != "rq" || pe.Op != "extract" {
			t.Errorf("%s: error = %+v, want kind %q", tc.tag, pe, tc.want)
		}
		if !strings.Contains(pe.Message, "HTTP 404") {
			t.Errorf("%s: message %q does not quote the site's status", tc.tag, pe.Message)
		}
	}
}

func TestExtract_FailsWhenTheStatusSaysErrorEvenIfAResultCameBack(t *testing.T) {
	body := `{"results":[{"id":"https://a.example/x","url":"https://a.example/x","text":"stale"}],` +
		`"statuses":[{"id":"https://a.example/x","status":"error","error":{"tag":"CRAWL_NOT_FOUND","httpStatusCode":null}}]}`
	srv := fake(t, ok(body))
	_, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: "https://a.example/x"})
	if provider.KindOf(err) != provider.KindUnsupported {
		t.Errorf("kind = %q (%v), want unsupported", provider.KindOf(err), err)
	}
}

func TestExtract_IgnoresFailedStatusesOfOtherURLs(t *testing.T) {
	body := `{"results":[{"id":"https://other.example","url":"https://other.example","text":"other"},` +
		`{"id":"https://a.example/x","url":"https://a.example/x/","title":"X","text":"wanted"}],` +
		`"statuses":[{"id":"https://other.example","status":"error","error":{"tag":"CRAWL_NOT_FOUND"}},` +
		`{"id":"https://a.example/x","status":"success","source":"cached","error":null}]}`
	srv := fake(t, ok(body))
	p, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: "https://a.example/x"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Content != "wanted" || p.Title != "X" {
		t.Errorf("page = %+v, want the matching result", p)
	}
}

func TestExtract_UsesTheFirstResultWhenExaReportsACanonicalURL(t *testing.T) {
	body := `{"results":[{"id":"https://canonical.example/a","url":"https://canonical.example/a.pdf","title":"A","text":"body"}],"statuses":[]}`
	srv := fake(t, ok(body))
	p, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: "https://a.example/x"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Content != "body" || p.URL != "https://a.example/x" {
		t.Errorf("page = %+v", p)
	}
}

func TestExtract_NoResultOrEmptyTextIsUnsupported(t *testing.T) {
	for _, body := range []string{
		`{"requestId":"r","results":[],"statuses":[]}`,
		`{"requestId":"r"}`,
		`{"results":[{"id":"https://a.example/x","url":"https://a.example/x","title":"T","text":"  \n "}]}`,
		`{"results":[{"id":"https://a.example/x","url":"https://a.example/x","title":"T","text":null}]}`,
		`{"results":[{"id":"https://a.example/x","url":"https://a.example/x","title":"T","text":true}]}`,
		`{"results":[null]}`,
	} {
		srv := fake(t, ok(body))
		_, err := newClient(t, srv, nil).Extract(context.Background(), provider.ExtractRequest{URL: "https://a.example/x"})
		if provider.KindOf(err) != provider.KindUnsupported {
			t.Errorf("%s: kind = %q (%v), want unsupported", body, provider.KindOf(err), err)
		}
	}
}

func TestNew_RejectsInvalidConfiguration(t *testing.T) {
	neg, big := -2, 721
	for name, cfg := range map[string]exa.Config{
		"relative base URL":        {BaseURL: "api.exa.ai"},
		"ftp base URL":             {BaseURL: "ftp://api.exa.ai"},
		"unknown type":             {Type: "semantic"},
		"unknown category":         {Category: "blogs"},
		"too many results":         {NumResults: 101},
		"negative results":         {NumResults: -1},
		"negative search chars":    {SearchMaxCharacters: -1},
		"extract chars over limit": {ExtractMaxCharacters: 10001},
		"max age below -1":         {MaxAgeHours: &neg},
		"max age above 720":        {MaxAgeHours: &big},
		"livecrawl over 90s":       {LivecrawlTimeout: 91 * time.Second},
		"negative livecrawl":       {LivecrawlTimeout: -time.Second},
	} {
		if _, err := exa.New(nil, &cfg); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
}

func TestNew_AcceptsEveryDocumentedTypeAndCategory(t *testing.T) {
	for _, ty := range exa.Types {
		if _, err := exa.New(nil, &exa.Config{Type: ty}); err != nil {
			t.Errorf("type %q: %v", ty, err)
		}
	}
	for _, cat := range exa.Categories {
		if _, err := exa.New(nil, &exa.Config{Category: cat}); err != nil {
			t.Errorf("category %q: %v", cat, err)
		}
	}
}

func TestNew_NeverModifiesTheCallersConfig(t *testing.T) {
	age := 5
	cfg := &exa.Config{MaxAgeHours: &age}
	before := *cfg
	c, err := exa.New(nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != before.BaseURL || cfg.Type != "" || cfg.NumResults != 0 || cfg.Now != nil || cfg.MaxAgeHours != &age || age != 5 {
		t.Errorf("config changed: %+v", cfg)
	}
	if c.Name() != "exa" {
		t.Errorf("Name = %q", c.Name())
	}
	if _, err := exa.New(nil, nil); err != nil {
		t.Errorf("New with nil config: %v", err)
	}
}

func TestSearch_HonoursCancellation(t *testing.T) {
	srv := fake(t, ok(`{"results":[]}`))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newClient(t, srv, nil).Search(ctx, provider.Query{Text: "q"})
	if provider.KindOf(err) != provider.KindCanceled {
		t.Errorf("kind = %q (%v), want canceled", provider.KindOf(err), err)
	}
}
