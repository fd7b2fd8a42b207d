package tavily_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
	"github.com/webgate-dev/webgate/provider/tavily"
)

func TestTavily_PassesTheConformanceSuite(t *testing.T) {
	providertest.Run(t, wire(t))
}

// wire describes Tavily's documented wire format to the conformance suite.
func wire(t *testing.T) providertest.Wire {
	spec := loadSpec(t)
	newClient := func(base string, keys provider.KeySource, hc provider.HTTPConfig) *tavily.Client {
		c, err := tavily.New(keys, &tavily.Config{BaseURL: base, HTTP: hc})
		if err != nil {
			panic(err) // the configuration is fixed; New cannot fail here
		}
		return c
	}
	detail := func(status int, msg string) providertest.Answer {
		return providertest.Answer{Status: status, Body: errorBody(status, msg)}
	}
	return providertest.Wire{
		Name: "tavily",
		NewSearcher: func(b string, k provider.KeySource, hc provider.HTTPConfig) provider.Searcher {
			return newClient(b, k, hc)
		},
		NewExtractor: func(b string, k provider.KeySource, hc provider.HTTPConfig) provider.Extractor {
			return newClient(b, k, hc)
		},
		SearchPath:      "/search",
		ExtractPath:     "/extract",
		KeyOf:           bearer,
		ValidateSearch:  spec.RequestValidator("POST", "/search"),
		ValidateExtract: spec.RequestValidator("POST", "/extract"),
		SearchOK:        fixture(t, "search_ok.json"),
		SearchEmpty:     fixture(t, "search_empty.json"),
		ExtractOK:       fixture(t, "extract_ok.json"),
		ExtractURL:      "https://example.org/article",
		ExtractPartial:  fixture(t, "extract_failed.json"),
		Faults: []providertest.Fault{
			{Name: "400 invalid topic", Kind: provider.KindBadRequest, Answer: detail(400, "Invalid topic. Must be 'general' or 'news'.")},
			{Name: "401 invalid key", Kind: provider.KindAuth, Answer: detail(401, "Unauthorized: missing or invalid API key.")},
			{Name: "401 with a plain detail string", Kind: provider.KindAuth, Answer: providertest.Answer{Status: 401, Body: `{"detail":"Not authenticated"}`}},
			{Name: "403 forbidden", Kind: provider.KindAuth, Answer: detail(403, "Forbidden")},
			{Name: "432 plan limit", Kind: provider.KindQuota, Answer: detail(432, "This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com")},
			{Name: "433 pay-as-you-go limit", Kind: provider.KindQuota, Answer: detail(433, "This request exceeds the pay-as-you-go limit. You can increase your limit on the Tavily dashboard.")},
			{Name: "429 excessive requests", Kind: provider.KindRateLimited, Answer: detail(429, "Your request has been blocked due to excessive requests. Please reduce rate of requests.")},
			{Name: "429 keyless envelope", Kind: provider.KindRateLimited, Answer: providertest.Answer{Status: 429,
				Body: `{"error":{"code":"rate_limited","message":"Keyless limit reached","window":"1m","next_actions":["add an API key"]}}`}},
			{Name: "500 internal error", Kind: provider.KindTransient, Answer: detail(500, "Internal Server Error")},
			{Name: "404 HTML page", Kind: provider.KindBadRequest, Answer: providertest.Answer{Status: 404,
				Header: http.Header{"Content-Type": {"text/html"}}, Body: "<html><body>Not Found</body></html>"}},
		},
		ErrorBody: errorBody,
		OKWithError: providertest.Fault{Name: "detail.error in a 200", Kind: provider.KindUnknown,
			Answer: providertest.Answer{Status: 200, Body: `{"detail":{"error":"Internal processing failed"}}`}},
	}
}

// errorBody renders Tavily's documented error envelope.
func errorBody(_ int, msg string) string {
	b, _ := json.Marshal(map[string]any{"detail": map[string]string{"error": msg}})
	return string(b)
}

func bearer(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

func loadSpec(t testing.TB) *providertest.OpenAPI {
	t.Helper()
	spec, err := providertest.LoadOpenAPI(filepath.Join("testdata", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func fixture(t testing.TB, name string) providertest.Answer {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return providertest.Answer{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: string(data)}
}
