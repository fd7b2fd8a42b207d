package jina_test

import (
	"encoding/json"
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

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/jina"
	"github.com/webgate-dev/webgate/provider/providertest"
)

func TestJina_PassesTheConformanceSuite(t *testing.T) {
	providertest.Run(t, wire(t))
}

// wire describes Jina Reader and Search to the conformance suite: search
// needs a key, the reader's key is optional.
func wire(t *testing.T) providertest.Wire {
	return providertest.Wire{
		Name: jina.Name,
		NewSearcher: func(base string, keys provider.KeySource, hc provider.HTTPConfig) provider.Searcher {
			return newClient(keys, &jina.Config{SearchURL: base, HTTP: hc})
		},
		NewExtractor: func(base string, keys provider.KeySource, hc provider.HTTPConfig) provider.Extractor {
			return newClient(keys, &jina.Config{ReaderURL: base, HTTP: hc})
		},
		SearchPath:             "/",
		ExtractPath:            "/",
		SearchKeys:             providertest.KeyRequired,
		ExtractKeys:            providertest.KeyOptional,
		KeyOf:                  bearer,
		ValidateSearchRequest:  validateSearchRequest,
		ValidateExtract:        validateReaderBody,
		ValidateExtractRequest: validateReaderRequest,
		SearchOK:               fixture(t, "search_ok.json"),
		SearchEmpty:            providertest.Answer{Status: 422, Header: jsonHeader(), Body: readFile(t, "search_no_results.json")},
		ExtractOK:              fixture(t, "reader_ok.json"),
		ExtractURL:             "https://example.org/article",
		ExtractPartial:         fixture(t, "reader_target_404.json"),
		// Only faults whose kind is the same for search and the reader;
		// the others are in jina_test.go.
		Faults: []providertest.Fault{
			{Name: "400 ParamValidationError", Kind: provider.KindBadRequest, Answer: errorAnswer(400, "ParamValidationError", 40001, "Invalid value for count")},
			{Name: "401 AuthenticationRequiredError", Kind: provider.KindAuth, Answer: errorAnswer(401, "AuthenticationRequiredError", 40103,
				"Authentication is required to use this endpoint. Please provide a valid API key via Authorization header.")},
			{Name: "401 AuthenticationFailedError", Kind: provider.KindAuth, Answer: errorAnswer(401, "AuthenticationFailedError", 40102, "Invalid API key, please get a new one from https://jina.ai")},
			{Name: "402 InsufficientBalanceError", Kind: provider.KindQuota, Answer: errorAnswer(402, "InsufficientBalanceError", 40203,
				"Account balance not enough to run this query, please recharge.")},
			{Name: "402 InsufficientCreditsError", Kind: provider.KindQuota, Answer: errorAnswer(402, "InsufficientCreditsError", 40201, "Insufficient credits")},
			{Name: "403 AbuseAlleviationError", Kind: provider.KindAuth, Answer: errorAnswer(403, "AbuseAlleviationError", 40305,
				"Anonymous access to domain example.org blocked until Eternally due to previous abuse found on site: DDoS")},
			{Name: "429 RateLimitTriggeredError", Kind: provider.KindRateLimited, Answer: errorAnswer(429, "RateLimitTriggeredError", 42903, "Per IP rate limit exceeded")},
			{Name: "503 ServiceDisabledError", Kind: provider.KindTransient, Answer: errorAnswer(503, "ServiceDisabledError", 50301, "Service disabled")},
			{Name: "200 carrying InsufficientBalanceError", Kind: provider.KindQuota, Answer: providertest.Answer{Status: 200, Header: jsonHeader(),
				Body: envelope(402, "InsufficientBalanceError", 40203, "Account balance not enough to run this query, please recharge.")}},
			{Name: "plain-text 401", Kind: provider.KindAuth, Answer: providertest.Answer{Status: 401, Body: "Unauthorized"}},
		},
		ErrorBody: func(status int, msg string) string {
			return envelope(status, nameFor(status), status*100+1, msg)
		},
		OKWithError: providertest.Fault{Name: "an AuthenticationFailedError envelope in a 200", Kind: provider.KindAuth,
			Answer: providertest.Answer{Status: 200, Header: jsonHeader(), Body: envelope(401, "AuthenticationFailedError", 40102, "Invalid API key")}},
	}
}

func newClient(keys provider.KeySource, cfg *jina.Config) *jina.Client {
	c, err := jina.New(keys, cfg)
	if err != nil {
		panic(err) // the configuration is fixed; New cannot fail here
	}
	return c
}

// envelope renders Jina's (civkit's) error envelope.
func envelope(code int, name string, status int, msg string) string {
	b, _ := json.Marshal(map[string]any{
		"data": nil, "code": code, "name": name, "status": status,
		"message": msg, "readableMessage": name + ": " + msg,
	})
	return string(b)
}

func errorAnswer(code int, name string, status int, msg string) providertest.Answer {
	return providertest.Answer{Status: code, Header: jsonHeader(), Body: envelope(code, name, status, msg)}
}

// nameFor is the error class Jina uses for a status in the suite's
// generic cases.
func nameFor(status int) string {
	switch status {
	case 401:
		return "AuthenticationFailedError"
	case 402:
		return "InsufficientBalanceError"
	case 429:
		return "RateLimitTriggeredError"
	case 400:
		return "ParamValidationError"
	}
	if status >= 500 {
		return "InternalServerError"
	}
	return "ApplicationError"
}

func bearer(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

var (
	hlRE = regexp.MustCompile(`^([a-z]{2,3}|zh-cn|zh-tw|pt-br|pt-pt|es-419)$`)
	glRE = regexp.MustCompile(`^[a-z]{2}$`)
)

// validateSearchRequest checks a search request against Jina Search's
// parameters (searcher.ts): GET / with no body, JSON asked for, a
// non-empty q, count 0..20, gl and hl in Jina's forms.
func validateSearchRequest(req providertest.Request) error {
	if req.Method != http.MethodGet || len(req.Body) != 0 {
		return fmt.Errorf("%s with a %d-byte body, want a GET without one", req.Method, len(req.Body))
	}
	if a := req.Header.Get("Accept"); a != "application/json" {
		return fmt.Errorf("Accept %q, want application/json", a)
	}
	v, err := url.ParseQuery(req.RawQuery)
	if err != nil {
		return err
	}
	for name := range v {
		if !slices.Contains([]string{"q", "count", "site", "gl", "hl"}, name) {
			return fmt.Errorf("unexpected parameter %q", name)
		}
	}
	if strings.TrimSpace(v.Get("q")) == "" {
		return fmt.Errorf("q is empty")
	}
	if n, err := strconv.Atoi(v.Get("count")); err != nil || n < 0 || n > 20 {
		return fmt.Errorf("count %q is outside 0..20", v.Get("count"))
	}
	if gl, ok := v["gl"]; ok && !glRE.MatchString(gl[0]) {
		return fmt.Errorf("gl %q", gl[0])
	}
	if hl, ok := v["hl"]; ok && !hlRE.MatchString(hl[0]) {
		return fmt.Errorf("hl %q", hl[0])
	}
	for _, s := range v["site"] {
		if s == "" || strings.Contains(s, "/") {
			return fmt.Errorf("site %q is not a domain", s)
		}
	}
	return nil
}

// validateReaderBody checks a reader request body: a JSON object with an
// absolute http(s) "url".
func validateReaderBody(body []byte) error {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return err
	}
	u, _ := m["url"].(string)
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return fmt.Errorf("url %q is not an absolute http(s) URL", u)
	}
	return nil
}

// validateReaderRequest checks a reader request: POST / with a JSON body,
// JSON asked for, and an X-Respond-With that yields text.
func validateReaderRequest(req providertest.Request) error {
	if req.Method != http.MethodPost || req.RawQuery != "" {
		return fmt.Errorf("%s with query %q, want a POST without one", req.Method, req.RawQuery)
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/json" {
		return fmt.Errorf("Content-Type %q", ct)
	}
	if a := req.Header.Get("Accept"); a != "application/json" {
		return fmt.Errorf("Accept %q, want application/json", a)
	}
	if rw := req.Header.Get("X-Respond-With"); !slices.Contains(jina.ReturnFormats, rw) {
		return fmt.Errorf("X-Respond-With %q", rw)
	}
	return nil
}

func jsonHeader() http.Header {
	return http.Header{"Content-Type": {"application/json; charset=utf-8"}}
}

func fixture(t testing.TB, name string) providertest.Answer {
	t.Helper()
	return providertest.Answer{Status: 200, Header: jsonHeader(), Body: readFile(t, name)}
}

func readFile(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
