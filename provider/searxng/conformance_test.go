package searxng_test

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
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
	"github.com/webgate-dev/webgate/provider/searxng"
)

func TestSearXNG_PassesTheConformanceSuite(t *testing.T) {
	providertest.Run(t, wire(t))
}

// wire describes SearXNG's wire format to the conformance suite.
func wire(t *testing.T) providertest.Wire {
	return providertest.Wire{
		Name: searxng.Name,
		NewSearcher: func(base string, keys provider.KeySource, hc provider.HTTPConfig) provider.Searcher {
			c, err := searxng.New(keys, &searxng.Config{BaseURL: base, HTTP: hc})
			if err != nil {
				panic(err) // the configuration is fixed; New cannot fail here
			}
			return c
		},
		SearchPath:            "/search",
		SearchKeys:            providertest.KeyNone,
		KeyOf:                 func(r *http.Request) string { return r.Header.Get("Authorization") },
		ValidateSearchRequest: validateSearchRequest,
		SearchOK:              fixture(t, "search_ok.json"),
		SearchEmpty:           fixture(t, "search_empty.json"),
		Faults: []providertest.Fault{
			{Name: "403 JSON format disabled", Kind: provider.KindBadRequest, Answer: providertest.Answer{Status: 403,
				Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: readFile(t, "forbidden.html")}},
			{Name: "400 no query", Kind: provider.KindBadRequest, Answer: jsonAnswer(400, `{"error": "No query"}`)},
			{Name: "400 invalid pageno", Kind: provider.KindBadRequest, Answer: jsonAnswer(400, `{"error": "Invalid value 0 for parameter pageno"}`)},
			{Name: "429 limiter", Kind: provider.KindRateLimited, Answer: textAnswer(429, "Too Many Requests")},
			{Name: "429 blocklist", Kind: provider.KindRateLimited, Answer: textAnswer(429, "IP is on BLOCKLIST - 203.0.113.7")},
			{Name: "500 search error", Kind: provider.KindTransient, Answer: jsonAnswer(500, `{"error": "search error"}`)},
		},
		ErrorBody: errorBody,
		OKWithError: providertest.Fault{Name: "every engine unresponsive", Kind: provider.KindTransient,
			Answer: fixture(t, "search_unresponsive.json")},
	}
}

// errorBody renders SearXNG's error answers: the limiter's plain text for
// 429, and the JSON {"error": …} of index_error for the rest.
func errorBody(status int, msg string) string {
	if status == http.StatusTooManyRequests {
		return msg
	}
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

var languageRE = regexp.MustCompile(`^([a-z]{2,3}(-[a-zA-Z]{2})?|auto)$`)

// validateSearchRequest checks a request against SearXNG's documented
// parameters (search_api.rst, webadapter.py): a GET with no body, a
// non-empty q, format=json, and only valid values for the rest.
func validateSearchRequest(req providertest.Request) error {
	if req.Method != http.MethodGet {
		return fmt.Errorf("method %s, want GET", req.Method)
	}
	if len(req.Body) != 0 {
		return fmt.Errorf("a GET with a body")
	}
	v, err := url.ParseQuery(req.RawQuery)
	if err != nil {
		return err
	}
	known := []string{"q", "format", "pageno", "language", "time_range", "categories", "engines", "safesearch", "timeout_limit"}
	for name, vs := range v {
		if !slices.Contains(known, name) {
			return fmt.Errorf("unknown parameter %q", name)
		}
		if len(vs) != 1 {
			return fmt.Errorf("parameter %q sent %d times", name, len(vs))
		}
	}
	if v.Get("q") == "" {
		return fmt.Errorf("q is empty")
	}
	if f := v.Get("format"); f != "json" {
		return fmt.Errorf("format = %q, want json", f)
	}
	if p := v.Get("pageno"); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 {
			return fmt.Errorf("pageno %q is not a number ≥ 1", p)
		}
	}
	if l, ok := v["language"]; ok && !languageRE.MatchString(l[0]) {
		return fmt.Errorf("language %q does not match SearXNG's pattern", l[0])
	}
	if tr, ok := v["time_range"]; ok && !slices.Contains([]string{"day", "week", "month", "year"}, tr[0]) {
		return fmt.Errorf("time_range %q", tr[0])
	}
	if s, ok := v["safesearch"]; ok && !slices.Contains([]string{"0", "1", "2"}, s[0]) {
		return fmt.Errorf("safesearch %q", s[0])
	}
	if s, ok := v["timeout_limit"]; ok {
		if _, err := strconv.ParseFloat(s[0], 64); err != nil {
			return fmt.Errorf("timeout_limit %q is not a number", s[0])
		}
	}
	return nil
}

func jsonAnswer(status int, body string) providertest.Answer {
	return providertest.Answer{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
}

func textAnswer(status int, body string) providertest.Answer {
	return providertest.Answer{Status: status, Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, Body: body}
}

func fixture(t testing.TB, name string) providertest.Answer {
	t.Helper()
	return jsonAnswer(200, readFile(t, name))
}

func readFile(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
