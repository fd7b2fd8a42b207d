package webpage

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusPage reads a page of the labelled corpus next to the repository
// (../shared/corpus), or skips when it is not there.
func corpusPage(t *testing.T, name string) []byte {
	t.Helper()
	dir := os.Getenv("WEBGATE_CORPUS_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus")
	}
	data, err := os.ReadFile(filepath.Join(dir, "pages", name))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus page: %v", err)
		}
		t.Skipf("corpus not available: %v", err)
	}
	return data
}

func TestRecover_ReadsTheDataOfRealAppShells(t *testing.T) {
	for _, tc := range []struct {
		page    string
		sources []string
		want    []string
	}{
		{"browser-render-required/real-youtube-watch.html", []string{"ytInitialData"}, []string{"Star Wars 8 THE LAST JEDI", "la saga Skywalker continúa"}},
		{"browser-render-required/real-scmp-apollo.html", []string{"Apollo state"}, []string{"Tsai Ing-wen"}},
	} {
		r, ok := Recover(corpusPage(t, tc.page))
		if !ok {
			t.Errorf("%s: nothing recovered", tc.page)
			continue
		}
		for _, s := range tc.sources {
			if !slices.Contains(r.Sources, s) {
				t.Errorf("%s: sources %v lack %s", tc.page, r.Sources, s)
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(r.Markdown, w) {
				t.Errorf("%s: recovered text lacks %q", tc.page, w)
			}
		}
		if len(r.Markdown) < 500 {
			t.Errorf("%s: only %d characters recovered", tc.page, len(r.Markdown))
		}
	}
}

func TestRecover_ReadsEveryKindOfEmbeddedData(t *testing.T) {
	prose := "The quarterly report shows revenue growing for the third year in a row, driven by new subscriptions."
	for _, tc := range []struct {
		name, page, source string
	}{
		{"next", `<html><head><title>Report</title></head><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"post":{"id":"x1","slug":"report","body":"` + prose + `"}}},"buildId":"abc"}</script></body></html>`, "__NEXT_DATA__"},
		{"nuxt data", `<html><body><div id="__nuxt"></div><script type="application/json" id="__NUXT_DATA__">[{"data":1},"` + prose + `"]</script></body></html>`, "__NUXT_DATA__"},
		{"json-ld", `<html><body><div id="app"></div><script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Report","articleBody":"` + prose + `"}</script></body></html>`, "JSON-LD"},
		{"apollo", `<html><body><div id="root"></div><script>window.__APOLLO_STATE__ = {"Article:1":{"__typename":"Article","text":"` + prose + `"}};</script></body></html>`, "Apollo state"},
		{"noscript", `<html><body><div id="root"></div><noscript><p>` + prose + `</p></noscript></body></html>`, "noscript"},
		{"meta", `<html><head><meta property="og:description" content="` + prose + `"></head><body><div id="root"></div></body></html>`, "meta description"},
	} {
		r, ok := Recover([]byte(tc.page))
		if !ok || !strings.Contains(r.Markdown, prose) || !slices.Contains(r.Sources, tc.source) {
			t.Errorf("%s: ok %v, sources %v, text %q", tc.name, ok, r.Sources, r.Markdown)
		}
	}
}

func TestRecover_IgnoresIdentifiersURLsAndScriptNotices(t *testing.T) {
	page := `<html><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript>
<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"id":"4f1c9a7e-22a1-4d7e-9d2b-1c5b8a0e9f11","url":"https://example.org/a/very/long/path/that/is/not/text/at/all","image":"https://cdn.example.org/x.png","theme":"dark"}}}</script></body></html>`
	if r, ok := Recover([]byte(page)); ok {
		t.Errorf("recovered %q from a page with no text (sources %v)", r.Markdown, r.Sources)
	}
}

func FuzzRecover(f *testing.F) {
	f.Add([]byte(`<script id="__NEXT_DATA__">{"props":{"a":"some words here and there to read"}}</script>`))
	f.Add([]byte(`<script>window.__APOLLO_STATE__ = {"a":[1,2,{"b":"c"}]</script>`))
	f.Add([]byte(`<noscript><p>text <b>bold</b></p></noscript>`))
	f.Fuzz(func(t *testing.T, page []byte) {
		r, ok := Recover(page)
		if ok && r.Markdown == "" {
			t.Fatal("ok with no text")
		}
		if len(r.Markdown) > maxRecoverChars+1000 {
			t.Fatalf("%d characters recovered", len(r.Markdown))
		}
	})
}
