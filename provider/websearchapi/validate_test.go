package websearchapi

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/provider/internal/backend"
)

// There is no published schema for WebSearchAPI.ai, so these validators
// check a request body against the documented request shape by hand: the
// fields the provider's page shows plus those independent clients agree on
// (see the package documentation). Unknown fields are rejected so that a
// misspelt field ("max_results") fails loudly.

var searchFields = map[string]func(any) error{
	"query":          nonEmptyString,
	"maxResults":     intIn(1, 20),
	"includeContent": isBool,
	"contentFormat":  enum("markdown", "text", "html"),
	"contentLength":  enum("short", "medium", "long"),
	"answerLength":   enum("short", "medium", "long"),
	"country":        alpha2,
	"language":       alpha2,
	"timeframe":      enum("day", "week", "month", "year", "any"),
	"includeDomains": stringList,
	"excludeDomains": stringList,
	"includeAnswer":  isBool,
	"safeSearch":     isBool,
	"sortBy":         enum("relevance", "date"),
	"siteSearch":     nonEmptyString,
	"exactTerms":     nonEmptyString,
	"excludeTerms":   nonEmptyString,
	"fileType":       nonEmptyString,
}

var scrapeFields = map[string]func(any) error{
	"url":              absoluteURL,
	"returnFormat":     enum("markdown", "text", "html"),
	"engine":           enum("browser", "direct", "cf-browser-rendering"),
	"timeout":          intIn(1, 180),
	"targetSelector":   nonEmptyString,
	"removeSelector":   nonEmptyString,
	"tokenBudget":      intIn(100, 1000000),
	"retainImages":     enum("all", "none"),
	"respondWith":      enum("default", "readerlm-v2"),
	"proxy":            nonEmptyString,
	"locale":           nonEmptyString,
	"withGeneratedAlt": isBool,
	"withIframe":       isBool,
	"withShadowDom":    isBool,
	"noCache":          isBool,
	"dnt":              isBool,
}

// validateSearchBody checks an /ai-search request body.
func validateSearchBody(body []byte) error { return validate(body, searchFields, "query") }

// validateScrapeBody checks a /scrape request body.
func validateScrapeBody(body []byte) error { return validate(body, scrapeFields, "url") }

func validate(body []byte, fields map[string]func(any) error, required string) error {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return fmt.Errorf("body is not a JSON object")
	}
	if _, ok := m[required]; !ok {
		return fmt.Errorf("%s is required", required)
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		check, ok := fields[k]
		if !ok {
			return fmt.Errorf("unknown field %q", k)
		}
		if err := check(m[k]); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

func nonEmptyString(v any) error {
	if s, ok := v.(string); !ok || s == "" {
		return fmt.Errorf("want a non-empty string, got %#v", v)
	}
	return nil
}

func isBool(v any) error {
	if _, ok := v.(bool); !ok {
		return fmt.Errorf("want a boolean, got %#v", v)
	}
	return nil
}

func intIn(lo, hi float64) func(any) error {
	return func(v any) error {
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || f < lo || f > hi {
			return fmt.Errorf("want an integer in %v..%v, got %#v", lo, hi, v)
		}
		return nil
	}
}

func enum(allowed ...string) func(any) error {
	return func(v any) error {
		s, _ := v.(string)
		for _, a := range allowed {
			if s == a {
				return nil
			}
		}
		return fmt.Errorf("want one of %v, got %#v", allowed, v)
	}
}

func alpha2(v any) error {
	s, ok := v.(string)
	if !ok || !backend.IsAlpha2(s) || s != strings.ToLower(s) {
		return fmt.Errorf("want a two-letter lower-case code, got %#v", v)
	}
	return nil
}

func stringList(v any) error {
	l, ok := v.([]any)
	if !ok {
		return fmt.Errorf("want a list of strings, got %#v", v)
	}
	for _, e := range l {
		if err := nonEmptyString(e); err != nil {
			return err
		}
	}
	return nil
}

func absoluteURL(v any) error {
	s, _ := v.(string)
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("want an absolute http(s) URL, got %#v", v)
	}
	return nil
}

func TestValidators_RejectBodiesOutsideTheDocumentedShape(t *testing.T) {
	for _, body := range []string{
		`[]`, `{}`, `{"query":""}`, `{"query":"x","maxResults":0}`, `{"query":"x","maxResults":21}`,
		`{"query":"x","maxResults":2.5}`, `{"query":"x","max_results":5}`, `{"query":"x","timeframe":"decade"}`,
		`{"query":"x","country":"USA"}`, `{"query":"x","includeDomains":"go.dev"}`, `{"query":"x","includeContent":"yes"}`,
	} {
		if validateSearchBody([]byte(body)) == nil {
			t.Errorf("validateSearchBody accepted %s", body)
		}
	}
	for _, body := range []string{
		`{}`, `{"url":"example.org"}`, `{"url":"https://example.org","engine":"curl"}`,
		`{"url":"https://example.org","timeout":0}`, `{"url":"https://example.org","format":"markdown"}`,
	} {
		if validateScrapeBody([]byte(body)) == nil {
			t.Errorf("validateScrapeBody accepted %s", body)
		}
	}
}
