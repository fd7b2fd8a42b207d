// Package fakeweb serves what webgate's frontend tests talk to, on
// 127.0.0.1 only: a fake Tavily API speaking its documented wire format
// (POST /search and /extract with a Bearer key), a page server for the
// shared HTML fixtures, and a small app shell for the local browser. Tests point the real backends at it through the
// configuration's base URL settings (TAVILY_BASE_URL). [RefusedAddr] is
// the other side: a loopback port where every connection is refused.
package fakeweb

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Hit is one search result the fake Tavily returns.
type Hit struct {
	Title, URL, Content string
}

// Tavily is a fake Tavily API. Set its fields before calling [Tavily.Start];
// they must not change afterwards.
type Tavily struct {
	// Key is the only API key accepted; any other gets 401.
	Key string
	// Hits are returned by every search.
	Hits []Hit
	// SearchStatus, when not zero, is the status of every search answer
	// (with a Tavily error body).
	SearchStatus int
	// ExtractStatus, when not zero, is the status of every extract answer.
	ExtractStatus int
	// Pages maps a URL to the raw_content /extract returns for it; other
	// URLs are reported in failed_results.
	Pages map[string]string

	mu       sync.Mutex
	requests []Request
}

// Request is one request the fake received.
type Request struct {
	Path string
	Body map[string]any
}

// Start serves the fake on 127.0.0.1 until the test ends and returns its
// base URL.
func (f *Tavily) Start(t testing.TB) string {
	t.Helper()
	srv := loopback(t, http.HandlerFunc(f.serve))
	return srv.URL
}

// Requests returns the requests received so far.
func (f *Tavily) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// Count returns how many requests went to path.
func (f *Tavily) Count(path string) int {
	n := 0
	for _, r := range f.Requests() {
		if r.Path == path {
			n++
		}
	}
	return n
}

func (f *Tavily) serve(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	data, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	_ = json.Unmarshal(data, &body)
	f.mu.Lock()
	f.requests = append(f.requests, Request{Path: r.URL.Path, Body: body})
	f.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+f.Key {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"detail":{"error":"Unauthorized: missing or invalid API key."}}`)
		return
	}
	switch r.URL.Path {
	case "/search":
		if f.SearchStatus != 0 {
			w.WriteHeader(f.SearchStatus)
			_, _ = io.WriteString(w, `{"detail":{"error":"search refused by the fake"}}`)
			return
		}
		query, _ := body["query"].(string)
		results := []map[string]any{}
		for i, h := range f.Hits {
			results = append(results, map[string]any{"title": h.Title, "url": h.URL, "content": h.Content, "score": 1 - float64(i)/100})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"query": query, "results": results, "response_time": 0.1, "request_id": "fake-search"})
	case "/extract":
		if f.ExtractStatus != 0 {
			w.WriteHeader(f.ExtractStatus)
			_, _ = io.WriteString(w, `{"detail":{"error":"extract refused by the fake"}}`)
			return
		}
		urls, _ := body["urls"].([]any)
		results := []map[string]any{}
		failed := []map[string]any{}
		for _, u := range urls {
			s, _ := u.(string)
			if c, ok := f.Pages[s]; ok {
				results = append(results, map[string]any{"url": s, "raw_content": c})
			} else {
				failed = append(failed, map[string]any{"url": s, "error": "could not read the page"})
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"results": results, "failed_results": failed, "response_time": 0.1, "request_id": "fake-extract"})
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"detail":{"error":"not found"}}`)
	}
}

// Pages serves the repository's fixtures/ directory on 127.0.0.1 (so
// /readable/docs-page.html is fixtures/readable/docs-page.html), plus
// /missing answering 404 and /forbidden answering 403. It returns the base
// URL.
func Pages(t testing.TB) string {
	t.Helper()
	dir := FixturesDir(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/missing", func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) })
	mux.HandleFunc("/forbidden", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	})
	mux.HandleFunc("/notes.txt", serve("text/plain; charset=utf-8", "Plain notes.\nSecond line.\n"))
	mux.Handle("/", http.FileServer(http.Dir(dir)))
	return loopback(t, mux).URL
}

// AppShell serves a small single-page app on 127.0.0.1 and returns its
// URL: the page at / is an empty shell whose script fetches /api, a JSON
// object with the title "Rendered title" and body, and writes them into
// the page. Only a browser shows them.
func AppShell(t testing.TB, body string) string {
	t.Helper()
	api, err := json.Marshal(map[string]string{"title": "Rendered title", "body": body})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api", serve("application/json", string(api)))
	mux.HandleFunc("/{$}", serve(htmlType, appShell))
	return loopback(t, mux).URL + "/"
}

const appShell = `<!doctype html><html><head><title>bench</title></head>
<body><div id="app"></div>
<script>
fetch('/api').then(r => r.json()).then(d => {
  document.getElementById('app').innerHTML = '<h1>' + d.title + '</h1><p>' + d.body + '</p>';
});
</script></body></html>`

// FixturesDir returns the absolute path of the repository's fixtures/
// directory.
func FixturesDir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("fakeweb: cannot locate the source file")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "..", "fixtures")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("fakeweb: fixtures: %v", err)
	}
	return dir
}

// Fixture returns the content of a fixture file, e.g.
// "readable/docs-page.html".
func Fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(FixturesDir(t), filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Env returns the environment that points webgate at a fake Tavily with
// the given base URL and key, allows the probe to read loopback pages, and
// isolates the configuration in home (no configuration file is read).
func Env(home, tavilyURL, key string) []string {
	return []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"TAVILY_API_KEY=" + key,
		"TAVILY_BASE_URL=" + tavilyURL,
		"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1",
		// The local browser has tests of its own; these keep to the
		// probe, the local conversion and the providers.
		"WEBGATE_BROWSER=off",
	}
}

// loopback starts an httptest server listening on 127.0.0.1 only.
func loopback(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakeweb: listen: %v", err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// ContainsAny reports whether s contains any of subs; tests use it to
// check that no secret leaked.
func ContainsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if sub != "" && strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// htmlType is the Content-Type of the pages the fake sites serve.
const htmlType = "text/html; charset=utf-8"

// serve returns a handler that answers every request with body, as
// contentType.
func serve(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, body)
	}
}
