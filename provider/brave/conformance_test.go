package brave_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/brave"
	"github.com/webgate-dev/webgate/provider/providertest"
)

func TestBrave_PassesTheConformanceSuite(t *testing.T) {
	providertest.Run(t, wire(t))
}

// wire describes Brave's documented wire format to the conformance suite.
// Brave's web search is a GET whose parameters travel in the query string,
// so the whole request is checked against the documented parameters
// (checkRequest) rather than a body schema.
func wire(t *testing.T) providertest.Wire {
	fault := func(name string, status int, code, detail string, kind provider.Kind) providertest.Fault {
		return providertest.Fault{Name: name, Kind: kind, Answer: providertest.Answer{Status: status, Body: errorBody(status, code, detail)}}
	}
	return providertest.Wire{
		Name: "brave",
		NewSearcher: func(base string, keys provider.KeySource, hc provider.HTTPConfig) provider.Searcher {
			c, err := brave.New(keys, &brave.Config{BaseURL: base, HTTP: hc})
			if err != nil {
				panic(err) // the configuration is fixed; New cannot fail here
			}
			return c
		},
		SearchPath:            "/res/v1/web/search",
		KeyOf:                 subscriptionToken,
		ValidateSearchRequest: checkRequest,
		SearchOK:              fixture(t, "search_ok.json"),
		SearchEmpty:           fixture(t, "search_empty.json"),
		Faults: []providertest.Fault{
			fault("422 SUBSCRIPTION_TOKEN_INVALID", 422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.", provider.KindAuth),
			{Name: "422 SUBSCRIPTION_TOKEN_INVALID in an errors list", Kind: provider.KindAuth, Answer: providertest.Answer{Status: 422,
				Body: `{"type":"ErrorResponse","errors":[{"id":"b4b0b2b8-0e0e-4c1b-9d39-0a8b8f8e8d11","status":422,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","meta":{"component":"authentication"}}],"time":1663072993}`}},
			{Name: "422 parameter validation", Kind: provider.KindBadRequest, Answer: providertest.Answer{Status: 422,
				Body: `{"type":"ErrorResponse","error":{"id":"1c9e5b1e-3f0a-4c55-8a51-ffcf06b0c3a0","status":422,"code":"VALIDATION","detail":"Unable to validate request parameter(s)","meta":{"errors":[{"type":"string_too_long","loc":["query","q"],"msg":"String should have at most 400 characters"}]}},"time":1725600000}`}},
			fault("429 QUOTA_LIMITED", 429, "QUOTA_LIMITED", "Request quota limit exceeded for plan.", provider.KindQuota),
			{Name: "429 RATE_LIMITED with the monthly window spent", Kind: provider.KindRateLimited, Answer: providertest.Answer{Status: 429,
				Header: http.Header{
					"X-Ratelimit-Limit":     {"1, 15000"},
					"X-Ratelimit-Policy":    {"1;w=1, 15000;w=2592000"},
					"X-Ratelimit-Remaining": {"1, 0"},
					"X-Ratelimit-Reset":     {"1, 1419704"},
				},
				Body: errorBody(429, "RATE_LIMITED", "Request rate limit exceeded for plan.")}},
			fault("404 SUBSCRIPTION_NOT_FOUND", 404, "SUBSCRIPTION_NOT_FOUND", "No subscription found.", provider.KindAuth),
			fault("402 CREDIT_EXHAUSTED", 402, "CREDIT_EXHAUSTED", "Credits exhausted.", provider.KindQuota),
			{Name: "401 without a body", Kind: provider.KindAuth, Answer: providertest.Answer{Status: 401}},
			{Name: "403 HTML page", Kind: provider.KindAuth, Answer: providertest.Answer{Status: 403,
				Header: http.Header{"Content-Type": {"text/html"}}, Body: "<html><body>Forbidden</body></html>"}},
			fault("500 internal error", 500, "", "Internal server error", provider.KindTransient),
		},
		ErrorBody: func(status int, msg string) string { return errorBody(status, statusCode(status), msg) },
		OKWithError: providertest.Fault{Name: "QUOTA_LIMITED envelope", Kind: provider.KindQuota,
			Answer: providertest.Answer{Status: 200, Body: errorBody(200, "QUOTA_LIMITED", "Request quota limit exceeded for plan.")}},
	}
}

// errorBody renders Brave's documented error envelope; an empty code is
// left out.
func errorBody(status int, code, detail string) string {
	e := map[string]any{"id": "0d3f2c4e-5b6a-4f1e-9b0c-7a8d9e0f1a2b", "status": status, "detail": detail, "meta": map[string]any{"component": "api"}}
	if code != "" {
		e["code"] = code
	}
	b, _ := json.Marshal(map[string]any{"type": "ErrorResponse", "error": e, "time": 1725600000})
	return string(b)
}

// statusCode is the code Brave documents for a status, or "" when it
// documents none.
func statusCode(status int) string {
	switch status {
	case 401, 422:
		return "SUBSCRIPTION_TOKEN_INVALID"
	case 429:
		return "RATE_LIMITED"
	case 404:
		return "SUBSCRIPTION_NOT_FOUND"
	}
	return ""
}

func subscriptionToken(r *http.Request) string { return r.Header.Get("X-Subscription-Token") }

// Brave's documented web search parameters (API reference; Brave's MCP
// server, src/tools/web/params.ts).
var (
	knownParams = []string{"q", "count", "offset", "country", "search_lang", "ui_lang", "safesearch", "freshness",
		"text_decorations", "spellcheck", "result_filter", "goggles", "units", "extra_snippets", "summary", "enable_rich_callback"}
	boolParams    = []string{"text_decorations", "spellcheck", "extra_snippets", "summary", "enable_rich_callback"}
	resultFilters = []string{"discussions", "faq", "infobox", "news", "query", "summarizer", "videos", "web", "locations", "rich"}
	dateRange     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2}$`)
)

// checkRequest checks one request against Brave's documented web search
// interface: a GET without a body, with the key in X-Subscription-Token,
// JSON accepted, and only documented parameters, each with an allowed
// value.
func checkRequest(r providertest.Request) error {
	if r.Method != http.MethodGet {
		return fmt.Errorf("method %s, want GET", r.Method)
	}
	if len(r.Body) != 0 {
		return fmt.Errorf("a GET web search carries a body of %d bytes", len(r.Body))
	}
	if r.Header.Get("X-Subscription-Token") == "" {
		return errors.New("no key in X-Subscription-Token")
	}
	if r.Header.Get("Authorization") != "" {
		return errors.New("an Authorization header is sent")
	}
	if !strings.Contains(r.Header.Get("Accept"), "application/json") {
		return fmt.Errorf("Accept = %q, want application/json", r.Header.Get("Accept"))
	}
	v, err := url.ParseQuery(r.RawQuery)
	if err != nil {
		return fmt.Errorf("query string %q: %v", r.RawQuery, err)
	}
	return validateParams(v)
}

// validateParams checks a web search query string against the documented
// parameters.
func validateParams(v url.Values) error {
	for name, vs := range v {
		if !slices.Contains(knownParams, name) {
			return fmt.Errorf("undocumented parameter %q", name)
		}
		if len(vs) != 1 && name != "goggles" {
			return fmt.Errorf("parameter %q sent %d times", name, len(vs))
		}
	}
	q := v.Get("q")
	switch {
	case strings.TrimSpace(q) == "":
		return errors.New("q is missing")
	case utf8.RuneCountInString(q) > 400:
		return fmt.Errorf("q has %d characters, more than 400", utf8.RuneCountInString(q))
	case len(strings.Fields(q)) > 50:
		return fmt.Errorf("q has %d words, more than 50", len(strings.Fields(q)))
	}
	if err := intParam(v, "count", 1, 20); err != nil {
		return err
	}
	if err := intParam(v, "offset", 0, 9); err != nil {
		return err
	}
	if c := v.Get("country"); v.Has("country") && c != "ALL" && !slices.Contains(brave.Countries, c) {
		return fmt.Errorf("country %q is not a Brave country code", c)
	}
	if l := v.Get("search_lang"); v.Has("search_lang") && !slices.Contains(brave.SearchLangs, l) {
		return fmt.Errorf("search_lang %q is not a Brave language code", l)
	}
	if s := v.Get("safesearch"); v.Has("safesearch") && !slices.Contains([]string{"off", "moderate", "strict"}, s) {
		return fmt.Errorf("safesearch %q is not off, moderate or strict", s)
	}
	if f := v.Get("freshness"); v.Has("freshness") && !slices.Contains([]string{"pd", "pw", "pm", "py"}, f) && !dateRange.MatchString(f) {
		return fmt.Errorf("freshness %q is not pd, pw, pm, py or a date range", f)
	}
	for _, b := range boolParams {
		if val := v.Get(b); v.Has(b) && val != "true" && val != "false" {
			return fmt.Errorf("%s %q is not a boolean", b, val)
		}
	}
	if v.Has("result_filter") {
		for _, f := range strings.Split(v.Get("result_filter"), ",") {
			if !slices.Contains(resultFilters, strings.TrimSpace(f)) {
				return fmt.Errorf("result_filter entry %q is not documented", f)
			}
		}
	}
	return nil
}

func intParam(v url.Values, name string, lo, hi int) error {
	if !v.Has(name) {
		return nil
	}
	n, err := strconv.Atoi(v.Get(name))
	if err != nil || n < lo || n > hi {
		return fmt.Errorf("%s %q is not an integer between %d and %d", name, v.Get(name), lo, hi)
	}
	return nil
}

func fixture(t testing.TB, name string) providertest.Answer {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return providertest.Answer{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: string(data)}
}

func TestValidateParams_RejectsWhatBraveDoesNotDocument(t *testing.T) {
	for _, raw := range []string{
		"", "count=5", "q=a&count=21", "q=a&count=0", "q=a&offset=10", "q=a&country=XX", "q=a&country=us",
		"q=a&search_lang=ja", "q=a&safesearch=high", "q=a&freshness=pm2", "q=a&text_decorations=0",
		"q=a&result_filter=web,images", "q=a&include_domains=go.dev", "q=a&q=b",
		"q=" + strings.Repeat("x", 401), "q=" + strings.Repeat("w+", 51),
	} {
		v, _ := url.ParseQuery(raw)
		if err := validateParams(v); err == nil {
			t.Errorf("validateParams accepted %q", raw)
		}
	}
	v, _ := url.ParseQuery("q=a+site:go.dev&count=20&offset=9&country=ALL&search_lang=zh-hant&safesearch=off&freshness=2022-04-01to2022-07-30&result_filter=web,query&extra_snippets=true")
	if err := validateParams(v); err != nil {
		t.Errorf("validateParams rejected a documented query: %v", err)
	}
}
