package firecrawl_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/firecrawl"
)

func TestSpec_SearchRequestsConformForEveryOption(t *testing.T) {
	spec := loadSpec(t)
	off, fresh := false, time.Duration(0)
	queries := []provider.Query{
		{Text: "q"},
		{Text: "q", MaxResults: 500, IncludeDomains: []string{"https://go.dev/doc", "example.org"}, ExcludeDomains: []string{"example.com"},
			TimeRange: provider.PastYear, Country: "uk", Language: "fr"},
		{Text: "q", ExcludeDomains: []string{"example.com"}, TimeRange: provider.PastDay},
	}
	for _, cfg := range []firecrawl.Config{
		{},
		{ScrapeResults: true, OnlyMainContent: &off, ScrapeTimeout: 300 * time.Second, MaxAge: &fresh, Proxy: "enhanced", MaxResults: 100},
		{ScrapeResults: true, ScrapeTimeout: time.Second, Proxy: "basic"},
	} {
		for _, q := range queries {
			srv := newServer(t, fixture(t, "search_ok.json"))
			if _, err := newClient(t, srv, &cfg).Search(context.Background(), q); err != nil {
				t.Fatal(err)
			}
			if err := spec.ValidateRequest("POST", "/search", srv.Last().Body); err != nil {
				t.Errorf("config %+v, query %+v: %v\n%s", cfg, q, err, srv.Last().Body)
			}
		}
	}
}

func TestSpec_ScrapeRequestsConformForEveryOption(t *testing.T) {
	spec := loadSpec(t)
	on, day := true, 24*time.Hour
	for _, cfg := range []firecrawl.Config{
		{},
		{OnlyMainContent: &on, ScrapeTimeout: 1500 * time.Millisecond, MaxAge: &day, Proxy: "auto", MaxCharacters: 10},
	} {
		for _, format := range []provider.Format{"", provider.Markdown, provider.Text} {
			srv := newServer(t, fixture(t, "scrape_ok.json"))
			req := provider.ExtractRequest{URL: extractURL, Format: format, Query: "cancellation"}
			if _, err := newClient(t, srv, &cfg).Extract(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if err := spec.ValidateRequest("POST", "/scrape", srv.Last().Body); err != nil {
				t.Errorf("config %+v, format %q: %v\n%s", cfg, format, err, srv.Last().Body)
			}
		}
	}
}

func TestSpec_FormatsInTheirStringFormDoNotValidate(t *testing.T) {
	// The official document lists formats only as objects; the client
	// sends that form so its requests validate.
	if err := loadSpec(t).ValidateRequest("POST", "/scrape", []byte(`{"url":"https://example.org","formats":["markdown"]}`)); err == nil {
		t.Error("formats as strings validate; the validator does not check formats")
	}
}

func TestSpec_FixturesAreValidResponses(t *testing.T) {
	spec := loadSpec(t)
	for _, pattern := range []string{"scrape_*.json", "search_*.json"} {
		files, err := filepath.Glob(filepath.Join("testdata", pattern))
		if err != nil || len(files) == 0 {
			t.Fatalf("no fixture matches %s", pattern)
		}
		for _, f := range files {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			path := "/" + strings.SplitN(filepath.Base(f), "_", 2)[0]
			if err := spec.ValidateResponse("POST", path, 200, body); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}
