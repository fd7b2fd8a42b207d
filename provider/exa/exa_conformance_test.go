package exa_test

import (
	"net/http"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// extractURL is the page the conformance suite extracts; testdata/contents.json
// answers for it.
const extractURL = "https://arxiv.org/abs/2307.06435"

func TestConformance(t *testing.T) {
	o := spec(t)
	build := func(baseURL string, keys provider.KeySource, hc provider.HTTPConfig) *exa.Client {
		c, err := exa.New(keys, &exa.Config{BaseURL: baseURL, HTTP: hc})
		if err != nil {
			panic(err) // only an invalid base URL fails, and the suite's are valid
		}
		return c
	}
	fault := func(name string, status int, tag string, kind provider.Kind) providertest.Fault {
		return providertest.Fault{
			Name:   name,
			Answer: providertest.Answer{Status: status, Body: errorBody("Exa says: "+name, tag)},
			Kind:   kind,
		}
	}
	providertest.Run(t, providertest.Wire{
		Name: "exa",
		NewSearcher: func(baseURL string, keys provider.KeySource, hc provider.HTTPConfig) provider.Searcher {
			return build(baseURL, keys, hc)
		},
		NewExtractor: func(baseURL string, keys provider.KeySource, hc provider.HTTPConfig) provider.Extractor {
			return build(baseURL, keys, hc)
		},
		SearchPath:      "/search",
		ExtractPath:     "/contents",
		KeyOf:           func(r *http.Request) string { return r.Header.Get("x-api-key") },
		ValidateSearch:  o.RequestValidator("POST", "/search"),
		ValidateExtract: o.RequestValidator("POST", "/contents"),
		SearchOK:        ok(fixture(t, "search.json")),
		SearchEmpty:     ok(`{"requestId":"d1","searchType":"neural","results":[],"costDollars":{"total":0.005,"search":{"neural":0.005}}}`),
		ExtractOK:       ok(fixture(t, "contents.json")),
		ExtractURL:      extractURL,
		ExtractPartial: ok(`{"requestId":"p1","results":[],"statuses":[{"id":"` + extractURL +
			`","status":"error","source":"crawled","error":{"tag":"CRAWL_NOT_FOUND","httpStatusCode":404}}],"costDollars":{"total":0}}`),
		Faults: []providertest.Fault{
			fault("400 INVALID_REQUEST_BODY", 400, "INVALID_REQUEST_BODY", provider.KindBadRequest),
			fault("401 INVALID_API_KEY", 401, "INVALID_API_KEY", provider.KindAuth),
			fault("402 NO_MORE_CREDITS", 402, "NO_MORE_CREDITS", provider.KindQuota),
			fault("402 API_KEY_BUDGET_EXCEEDED", 402, "API_KEY_BUDGET_EXCEEDED", provider.KindQuota),
			fault("402 TEAM_BUDGET_EXCEEDED", 402, "TEAM_BUDGET_EXCEEDED", provider.KindQuota),
			fault("403 FEATURE_DISABLED", 403, "FEATURE_DISABLED", provider.KindAuth),
			fault("403 PROHIBITED_CONTENT", 403, "PROHIBITED_CONTENT", provider.KindUnsupported),
			fault("422 FETCH_DOCUMENT_ERROR", 422, "FETCH_DOCUMENT_ERROR", provider.KindUnsupported),
			fault("503 SERVICE_OVERLOADED", 503, "SERVICE_OVERLOADED", provider.KindTransient),
			fault("501 UNABLE_TO_GENERATE_RESPONSE", 501, "UNABLE_TO_GENERATE_RESPONSE", provider.KindUnknown),
		},
		ErrorBody: func(status int, message string) string { return errorBody(message, statusTag(status)) },
		OKWithError: providertest.Fault{
			Name:   "200 NO_MORE_CREDITS",
			Answer: ok(`{"requestId":"w1","error":"You have exceeded your credits limit","tag":"NO_MORE_CREDITS"}`),
			Kind:   provider.KindQuota,
		},
	})
}

// statusTag is the tag Exa documents for a status, or "" when it names
// none.
func statusTag(status int) string {
	switch status {
	case 400:
		return "INVALID_REQUEST_BODY"
	case 401:
		return "INVALID_API_KEY"
	case 402:
		return "NO_MORE_CREDITS"
	case 429:
		return "RATE_LIMIT_EXCEEDED"
	case 500:
		return "DEFAULT_ERROR"
	case 503:
		return "SERVICE_OVERLOADED"
	}
	return ""
}
