package firecrawl_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/firecrawl"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// extractURL is the page the conformance suite extracts; the scrape
// fixtures answer for it.
const extractURL = "https://example.org/article"

// rateLimited is Firecrawl's documented 429 message; its wait (15s) is
// longer than the suite's MaxRetryAfter, so the client stops at once.
const rateLimited = "Rate limit exceeded. Consumed (req/min): 13, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after 15s, resets at Tue Sep 08 2026 03:16:17 GMT+0000 (Coordinated Universal Time)"

// Firecrawl gives 403 and a 200 with "success": false a different meaning
// for a scrape and for a search, so each operation gets its own Wire with
// its own faults.

func TestFirecrawl_SearchPassesTheConformanceSuite(t *testing.T) {
	w := wire(t)
	w.NewExtractor = nil
	w.Faults = append(w.Faults,
		fault("403 key without permission", 403, "", "Forbidden", provider.KindAuth),
	)
	w.OKWithError = providertest.Fault{Name: `"success": false without a code`, Kind: provider.KindUnknown,
		Answer: ok(`{"success":false,"error":"An unexpected error occurred."}`)}
	providertest.Run(t, w)
}

func TestFirecrawl_ExtractPassesTheConformanceSuite(t *testing.T) {
	w := wire(t)
	w.NewSearcher = nil
	w.Faults = append(w.Faults,
		fault("403 unsupported site", 403, "", "This website is no longer supported, please reach out to help@firecrawl.com for more info on how to activate it on your account.", provider.KindUnsupported),
		fault("403 UNSUPPORTED_SITE", 403, "UNSUPPORTED_SITE", "This website is not supported.", provider.KindUnsupported),
		fault("408 SCRAPE_TIMEOUT", 408, "SCRAPE_TIMEOUT", "Scrape timed out", provider.KindTransient),
		fault("500 SCRAPE_ALL_ENGINES_FAILED", 500, "SCRAPE_ALL_ENGINES_FAILED", "All scraping engines failed!", provider.KindUnsupported),
		fault("500 SCRAPE_SSL_ERROR", 500, "SCRAPE_SSL_ERROR", "An SSL error occurred while scraping the URL.", provider.KindUnsupported),
		providertest.Fault{Name: "200 SCRAPE_DNS_RESOLUTION_ERROR", Kind: provider.KindUnsupported,
			Answer: ok(`{"success":false,"code":"SCRAPE_DNS_RESOLUTION_ERROR","error":"DNS resolution failed for the hostname."}`)},
		providertest.Fault{Name: "200 without markdown", Kind: provider.KindUnsupported,
			Answer: ok(`{"success":true,"data":{"metadata":{"sourceURL":"` + extractURL + `","statusCode":200}}}`)},
	)
	providertest.Run(t, w)
}

// wire describes Firecrawl's documented wire format to the conformance
// suite; requests are validated against the official v2 OpenAPI document.
func wire(t *testing.T) providertest.Wire {
	spec := loadSpec(t)
	build := func(base string, keys provider.KeySource, hc provider.HTTPConfig) *firecrawl.Client {
		c, err := firecrawl.New(keys, &firecrawl.Config{BaseURL: base, HTTP: hc})
		if err != nil {
			panic(err) // the configuration is fixed; New cannot fail here
		}
		return c
	}
	return providertest.Wire{
		Name: "firecrawl",
		NewSearcher: func(b string, k provider.KeySource, hc provider.HTTPConfig) provider.Searcher {
			return build(b, k, hc)
		},
		NewExtractor: func(b string, k provider.KeySource, hc provider.HTTPConfig) provider.Extractor {
			return build(b, k, hc)
		},
		SearchPath:      "/v2/search",
		ExtractPath:     "/v2/scrape",
		KeyOf:           bearer,
		ValidateSearch:  spec.RequestValidator("POST", "/search"),
		ValidateExtract: spec.RequestValidator("POST", "/scrape"),
		SearchOK:        fixture(t, "search_ok.json"),
		SearchEmpty:     fixture(t, "search_empty.json"),
		ExtractOK:       fixture(t, "scrape_ok.json"),
		ExtractURL:      extractURL,
		ExtractPartial:  fixture(t, "scrape_target_404.json"),
		Faults: []providertest.Fault{
			fault("400 BAD_REQUEST", 400, "BAD_REQUEST", "Bad Request", provider.KindBadRequest),
			fault("401 invalid token", 401, "", "Unauthorized: Invalid token", provider.KindAuth),
			fault("401 missing token", 401, "", "Unauthorized: Token missing", provider.KindAuth),
			fault("402 insufficient credits", 402, "", "Insufficient credits to perform this request. For more credits, you can upgrade your plan at https://firecrawl.dev/pricing or try changing the request limit to a lower value.", provider.KindQuota),
			fault("408 request timed out", 408, "", "Request timed out", provider.KindTransient),
			fault("409 idempotency key reused", 409, "", "Idempotency key already used", provider.KindBadRequest),
			fault("429 with the wait in the message", 429, "", rateLimited, provider.KindRateLimited),
			fault("500 UNKNOWN_ERROR", 500, "UNKNOWN_ERROR", "An unexpected error occurred on the server.", provider.KindTransient),
			{Name: "502 HTML page", Kind: provider.KindTransient, Answer: providertest.Answer{Status: 502,
				Header: http.Header{"Content-Type": {"text/html"}}, Body: "<html><body>502 Bad Gateway</body></html>"}},
		},
		ErrorBody: func(status int, msg string) string { return errorBody("", msg) },
	}
}

func fault(name string, status int, code, msg string, kind provider.Kind) providertest.Fault {
	return providertest.Fault{Name: name, Kind: kind, Answer: providertest.Answer{Status: status, Body: errorBody(code, msg)}}
}

// errorBody renders Firecrawl's documented error envelope; an empty code
// is left out.
func errorBody(code, msg string) string {
	m := map[string]any{"success": false, "error": msg}
	if code != "" {
		m["code"] = code
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func bearer(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

func ok(body string) providertest.Answer {
	return providertest.Answer{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
}

// loadSpec loads Firecrawl's official v2 OpenAPI document, a byte-for-byte
// copy of firecrawl/firecrawl-docs api-reference/v2-openapi.json at commit
// 2edce52b23258c503060166af92485ff6ab1231b.
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
	return ok(string(data))
}
