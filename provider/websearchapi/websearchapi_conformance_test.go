package websearchapi

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
)

func TestConformance(t *testing.T) {
	providertest.Run(t, wire(t))
}

// wire describes WebSearchAPI.ai to the conformance suite.
func wire(t *testing.T) providertest.Wire {
	build := func(baseURL string, keys provider.KeySource, hc provider.HTTPConfig) *Client {
		c, err := New(keys, &Config{BaseURL: baseURL, HTTP: hc})
		if err != nil {
			panic("websearchapi.New: " + err.Error()) // the config is fixed, so this is a bug in the test
		}
		return c
	}
	jsonAnswer := func(status int, body string) providertest.Answer {
		return providertest.Answer{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
	}
	errorBody := func(_ int, msg string) string {
		b, _ := json.Marshal(map[string]string{"error": msg})
		return string(b)
	}
	return providertest.Wire{
		Name:        Name,
		NewSearcher: func(u string, k provider.KeySource, hc provider.HTTPConfig) provider.Searcher { return build(u, k, hc) },
		NewExtractor: func(u string, k provider.KeySource, hc provider.HTTPConfig) provider.Extractor {
			return build(u, k, hc)
		},
		SearchPath:  "/ai-search",
		ExtractPath: "/scrape",
		KeyOf: func(r *http.Request) string {
			return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		},
		ValidateSearch:  validateSearchBody,
		ValidateExtract: validateScrapeBody,
		SearchOK:        jsonAnswer(200, readTestdata(t, "search_ok.json")),
		SearchEmpty:     jsonAnswer(200, readTestdata(t, "search_empty.json")),
		ExtractOK:       jsonAnswer(200, readTestdata(t, "scrape_ok.json")),
		ExtractURL:      "https://example.org/article",
		ExtractPartial:  jsonAnswer(200, readTestdata(t, "scrape_failed.json")),
		// Only faults whose kind is the same for search and extract; 404 and
		// 422 differ by operation and are covered in websearchapi_test.go.
		Faults: []providertest.Fault{
			{Name: "402 out of credits", Answer: jsonAnswer(402, `{"error":"Insufficient credits. Please upgrade your plan."}`), Kind: provider.KindQuota},
			{Name: "400 invalid request", Answer: jsonAnswer(400, `{"error":"Invalid request: query is required"}`), Kind: provider.KindBadRequest},
			{Name: "401 invalid key", Answer: jsonAnswer(401, `{"message":"Invalid API key"}`), Kind: provider.KindAuth},
			{Name: "403 suspended key", Answer: jsonAnswer(403, `{"error":{"message":"API key suspended"}}`), Kind: provider.KindAuth},
			{Name: "402 as an error object", Answer: jsonAnswer(402, `{"error":{"message":"Monthly credits exhausted","code":"insufficient_credits"}}`), Kind: provider.KindQuota},
			{Name: "403 with a plain-text body", Answer: providertest.Answer{Status: 403, Body: "Forbidden"}, Kind: provider.KindAuth},
			{Name: "200 with body code 402", Answer: jsonAnswer(200, `{"code":402,"message":"Out of credits","data":null}`), Kind: provider.KindQuota},
			{Name: "200 with body code 401", Answer: jsonAnswer(200, `{"code":401,"message":"Unauthorized"}`), Kind: provider.KindAuth},
			{Name: "408 request timeout", Answer: jsonAnswer(408, `{"error":"Request timed out"}`), Kind: provider.KindTransient},
		},
		ErrorBody: errorBody,
		OKWithError: providertest.Fault{
			Name:   "200 with an error field",
			Answer: jsonAnswer(200, `{"error":"Search backend failed"}`),
			Kind:   provider.KindUnknown,
		},
	}
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
