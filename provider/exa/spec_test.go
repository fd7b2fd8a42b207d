package exa_test

import (
	"context"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/exa"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// spec loads Exa's published OpenAPI document (1.2.0).
func spec(t *testing.T) *providertest.OpenAPI {
	t.Helper()
	o, err := providertest.LoadOpenAPI("testdata/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestSpec_SearchRequestsConformForEveryPublishedTypeAndOption(t *testing.T) {
	o := spec(t)
	age := 0
	full := provider.Query{
		Text: "q", MaxResults: 250, IncludeDomains: []string{"a.example"}, ExcludeDomains: []string{"b.example"},
		TimeRange: provider.PastMonth, Country: "us", Language: "en",
	}
	for _, ty := range []string{"auto", "neural", "fast", "deep", "deep-reasoning", "instant"} {
		for _, cfg := range []exa.Config{
			{Type: ty},
			{Type: ty, Category: "research paper", Highlights: true, MaxAgeHours: &age, LivecrawlTimeout: time.Second, NumResults: 100},
		} {
			srv := fake(t, ok(fixture(t, "search.json")))
			if _, err := newClient(t, srv, &cfg).Search(context.Background(), full); err != nil {
				t.Fatal(err)
			}
			if err := o.ValidateRequest("POST", "/search", srv.Last().Body); err != nil {
				t.Errorf("type %s: %v\n%s", ty, err, srv.Last().Body)
			}
		}
	}
}

func TestSpec_TypesOutsideThePublishedEnumAreDocumentedAsSuch(t *testing.T) {
	// deep-lite, keyword and hybrid are accepted by the service but not by
	// the 1.2.0 document; if a newer spec adds them, update the docs.
	o := spec(t)
	for _, ty := range []string{"deep-lite", "keyword", "hybrid"} {
		srv := fake(t, ok(fixture(t, "search.json")))
		if _, err := newClient(t, srv, &exa.Config{Type: ty}).Search(context.Background(), provider.Query{Text: "q"}); err != nil {
			t.Fatal(err)
		}
		if err := o.ValidateRequest("POST", "/search", srv.Last().Body); err == nil {
			t.Errorf("type %s now validates against the spec", ty)
		}
	}
}

func TestSpec_ContentsRequestsConform(t *testing.T) {
	o := spec(t)
	age := 720
	for _, cfg := range []exa.Config{{}, {ExtractMaxCharacters: 1, MaxAgeHours: &age, LivecrawlTimeout: 90 * time.Second}} {
		srv := fake(t, ok(fixture(t, "contents.json")))
		if _, err := newClient(t, srv, &cfg).Extract(context.Background(), provider.ExtractRequest{URL: "https://arxiv.org/abs/2307.06435", Query: "q"}); err != nil {
			t.Fatal(err)
		}
		if err := o.ValidateRequest("POST", "/contents", srv.Last().Body); err != nil {
			t.Errorf("%v\n%s", err, srv.Last().Body)
		}
	}
}

func TestSpec_FixturesAreValidResponses(t *testing.T) {
	o := spec(t)
	for name, path := range map[string]string{"search.json": "/search", "contents.json": "/contents"} {
		if err := o.ValidateResponse("POST", path, 200, []byte(fixture(t, name))); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
