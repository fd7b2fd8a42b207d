package examples_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The programs are built once, into binDir, by TestMain.
var binDir string

func TestMain(m *testing.M) {
	code, err := buildAndRun(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "examples:", err)
		code = 1
	}
	os.Exit(code)
}

func buildAndRun(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "webgate-examples-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	goBin, err := exec.LookPath("go")
	if err != nil {
		return 0, fmt.Errorf("the go command is needed to build the examples: %w", err)
	}
	cmd := exec.Command(goBin, "build", "-o", dir+string(filepath.Separator), "./embed", "./custom-provider")
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("building the examples: %v\n%s", err, out)
	}
	binDir = dir
	return m.Run(), nil
}

// Keys the fakes accept. They must never appear in the programs' output.
const (
	tavilyKey = "tvly-examples-SECRET-5f1c"
	wsaKey    = "wsa-examples-SECRET-93ab"
)

// fakeProviders are loopback fakes of Tavily (/search, /extract) and
// WebSearchAPI.ai (/ai-search, /scrape) speaking their wire formats, with
// switches to make them fail.
type fakeProviders struct {
	tavily, wsa *httptest.Server

	mu    sync.Mutex
	calls map[string]int // "tavily /search" → count
	auth  map[string]string

	tavilySearchStatus int // 0: answer normally
	wsaSearchStatus    int
	wsaScrapeStatus    int
}

func newFakeProviders(t *testing.T) *fakeProviders {
	t.Helper()
	f := &fakeProviders{calls: map[string]int{}, auth: map[string]string{}}
	f.tavily = httptest.NewServer(http.HandlerFunc(f.serveTavily))
	f.wsa = httptest.NewServer(http.HandlerFunc(f.serveWSA))
	t.Cleanup(f.tavily.Close)
	t.Cleanup(f.wsa.Close)
	return f
}

func (f *fakeProviders) record(name string, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[name+" "+r.URL.Path]++
	f.auth[name] = r.Header.Get("Authorization")
}

func (f *fakeProviders) count(call string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[call]
}

// fail sets the statuses the fakes answer with; 0 answers normally.
func (f *fakeProviders) fail(tavilySearch, wsaSearch, wsaScrape int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tavilySearchStatus, f.wsaSearchStatus, f.wsaScrapeStatus = tavilySearch, wsaSearch, wsaScrape
}

func (f *fakeProviders) authOf(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.auth[name]
}

func (f *fakeProviders) settings() (tavilyStatus, wsaStatus, scrapeStatus int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tavilySearchStatus, f.wsaSearchStatus, f.wsaScrapeStatus
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// requestBody decodes a JSON request body, or nil.
func requestBody(r *http.Request) map[string]any {
	var m map[string]any
	_ = json.NewDecoder(r.Body).Decode(&m)
	return m
}

func (f *fakeProviders) serveTavily(w http.ResponseWriter, r *http.Request) {
	f.record("tavily", r)
	if r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer "+tavilyKey {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"detail": map[string]string{"error": "Unauthorized: missing or invalid API key."}})
		return
	}
	status, _, _ := f.settings()
	body := requestBody(r)
	switch r.URL.Path {
	case "/search":
		if status != 0 {
			writeJSON(w, status, map[string]any{"detail": map[string]string{"error": http.StatusText(status)}})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"query": body["query"],
			"results": []map[string]any{
				{"title": "context package - Go Packages", "url": "https://pkg.go.dev/context", "content": "Package context defines the Context type.", "score": 0.92},
				{"title": "Go Concurrency Patterns: Context", "url": "https://go.dev/blog/context", "content": "Each incoming request is handled in its own goroutine.", "score": 0.81},
				{"title": "Key pools", "url": "https://docs.internal.example/webgate/keys", "content": "How keys rotate.", "score": 0.5},
			},
			"response_time": 0.4,
			"request_id":    "tavily-req-1",
		})
	case "/extract":
		var results []map[string]any
		urls, _ := body["urls"].([]any)
		for _, u := range urls {
			results = append(results, map[string]any{"url": u, "raw_content": "# Extracted app\n\nTAVILY-EXTRACTED-CONTENT: the rendered application text."})
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": results, "failed_results": []any{}, "request_id": "tavily-req-2"})
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeProviders) serveWSA(w http.ResponseWriter, r *http.Request) {
	f.record("websearchapi", r)
	if r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer "+wsaKey {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid API key"})
		return
	}
	_, status, scrape := f.settings()
	body := requestBody(r)
	switch r.URL.Path {
	case "/ai-search":
		if status != 0 {
			writeJSON(w, status, map[string]any{"error": http.StatusText(status)})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"searchParameters": map[string]any{"query": body["query"]},
			"organic": []map[string]any{
				{"title": "Go Concurrency Patterns: Context", "url": "https://go.dev/blog/context/", "description": "Go servers handle each request in its own goroutine, and contexts carry deadlines.", "position": 1},
				{"title": "Contexts and structs", "url": "https://go.dev/blog/context-and-structs", "description": "Pass a context explicitly.", "position": 2},
			},
			"responseTime": 0.6,
		})
	case "/scrape":
		if scrape != 0 {
			writeJSON(w, scrape, map[string]any{"error": "the page could not be scraped"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"code": 200, "data": map[string]any{
			"title": "Rendered app", "url": body["url"],
			"content": "# Rendered app\n\nWSA-EXTRACTED-CONTENT: what the browser showed after JavaScript ran.",
		}})
	default:
		http.NotFound(w, r)
	}
}

// env returns the environment of a program run: an empty home and
// configuration directory, both providers' keys and base URLs, and extra.
func (f *fakeProviders) env(t *testing.T, extra ...string) []string {
	t.Helper()
	home := t.TempDir()
	e := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"TAVILY_API_KEY=" + tavilyKey,
		"TAVILY_BASE_URL=" + f.tavily.URL,
		"WEBSEARCHAPI_API_KEY=" + wsaKey,
		"WEBSEARCHAPI_BASE_URL=" + f.wsa.URL,
	}
	return append(e, extra...)
}

// pageServer serves the shared fixtures directory on 127.0.0.1.
func pageServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.FileServer(http.Dir(fixturesDir)))
	t.Cleanup(s.Close)
	return s
}

// fixturesDir is the repository's shared HTML fixtures, next to this
// package (go test runs in the package directory).
var fixturesDir = filepath.Join("..", "fixtures")

type result struct {
	code           int
	stdout, stderr string
}

// run runs a built example with env (and nothing else from the test's
// environment) and returns its exit code and output.
func run(t *testing.T, program string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, program), args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ctx.Err() == nil:
		res.code = ee.ExitCode()
	default:
		t.Fatalf("running %s %q: %v\nstdout:\n%s\nstderr:\n%s", program, args, err, res.stdout, res.stderr)
	}
	for _, secret := range []string{tavilyKey, wsaKey} {
		if strings.Contains(res.stdout, secret) || strings.Contains(res.stderr, secret) {
			t.Errorf("%s printed an API key\nstdout:\n%s\nstderr:\n%s", program, res.stdout, res.stderr)
		}
	}
	return res
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// expect fails t unless the run exited with code and its stdout holds
// every want.
func (r result) expect(t *testing.T, code int, want ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d", r.code, code)
	}
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("stdout lacks %q", w)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Log(r)
	}
}

func TestEmbed_SearchPrintsMergedResultsWithProvenance(t *testing.T) {
	f := newFakeProviders(t)
	r := run(t, "embed", f.env(t), "-query", "go context")
	r.expect(t, 0,
		`Search "go context" via parallel(tavily,websearchapi): 4 result(s)`,
		// Both providers returned the blog post (with and without a
		// trailing slash): one entry, both named.
		" 1. Go Concurrency Patterns: Context\n    https://go.dev/blog/context/\n    from: tavily, websearchapi",
		"https://pkg.go.dev/context\n    from: tavily (score",
		"https://go.dev/blog/context-and-structs\n    from: websearchapi (score",
	)
	if strings.Contains(r.stdout, "failed:") {
		t.Errorf("no provider failed, but the output reports a failure:\n%s", r.stdout)
	}
	if got := f.count("tavily /search") + f.count("websearchapi /ai-search"); got != 2 {
		t.Errorf("the providers got %d searches, want one each", got)
	}
	if f.authOf("tavily") != "Bearer "+tavilyKey || f.authOf("websearchapi") != "Bearer "+wsaKey {
		t.Errorf("the providers did not get their keys from the environment")
	}
}

func TestEmbed_SearchReportsPartialFailureWithItsClass(t *testing.T) {
	f := newFakeProviders(t)
	f.fail(0, http.StatusPaymentRequired, 0)
	r := run(t, "embed", f.env(t), "-query", "go context")
	r.expect(t, 0,
		"via parallel(tavily,websearchapi): 3 result(s)",
		"from: tavily (score",
		"failed: websearchapi: credit-or-quota-failed (kind quota): websearchapi search: quota (HTTP 402)",
	)
}

func TestEmbed_SearchExitsOneWhenEveryProviderFails(t *testing.T) {
	f := newFakeProviders(t)
	r := run(t, "embed", f.env(t, "TAVILY_API_KEY=tvly-revoked", "WEBSEARCHAPI_API_KEY=wsa-revoked"), "-query", "go context")
	r.expect(t, 1,
		"every provider failed",
		"failed: tavily: auth-failed (kind auth)",
		"failed: websearchapi: auth-failed (kind auth)",
	)
	if !strings.Contains(r.stderr, "search failed: auth-failed (kind auth)") {
		t.Errorf("stderr does not give the overall class:\n%s", r.stderr)
	}
}

func TestEmbed_SearchWithoutKeysSaysWhichVariablesToSet(t *testing.T) {
	home := t.TempDir()
	r := run(t, "embed", []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home}, "-query", "go context")
	r.expect(t, 1)
	if !strings.Contains(r.stderr, "TAVILY_API_KEY") {
		t.Errorf("stderr does not say how to configure a key:\n%s", r.stderr)
	}
}

// fixtureTitle returns the text of a fixture's <title>.
func fixtureTitle(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<title>([^<]*)</title>`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no title", path)
	}
	return html.UnescapeString(string(m[1]))
}

func fixtures(t *testing.T, class string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixturesDir, class, "*.html"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s: %v", filepath.Join(fixturesDir, class), err)
	}
	return files
}

func TestEmbed_ReadsAppShellsThroughTheExtractionPolicy(t *testing.T) {
	pages := pageServer(t)
	for _, page := range []string{"react-cra-empty-root.html", "angular-app-root.html", "nuxt-empty-nuxt.html"} {
		t.Run(page, func(t *testing.T) {
			f := newFakeProviders(t)
			url := pages.URL + "/browser-render-required/" + page
			r := run(t, "embed", f.env(t, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1", "WEBGATE_EXTRACT_PRIMARY=websearchapi"), "-url", url)
			r.expect(t, 0,
				"Page "+url+"\nclass: browser-render-required (confidence ",
				"read: provider via websearchapi",
				"title: Rendered app",
				"WSA-EXTRACTED-CONTENT: what the browser showed after JavaScript ran.",
			)
			if n := f.count("websearchapi /scrape"); n != 1 {
				t.Errorf("the extractor was called %d times, want once", n)
			}
		})
	}
}

func TestEmbed_ReadsTemplateHeavyPagesFromTheirStructureWithoutAnExtractor(t *testing.T) {
	pages := pageServer(t)
	f := newFakeProviders(t)
	url := pages.URL + "/template-heavy/news-homepage.html"
	r := run(t, "embed", f.env(t, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1"), "-url", url)
	r.expect(t, 0, "class: template-heavy (confidence ", "read: local\nnote: ", "structure")
	if n := f.count("websearchapi /scrape") + f.count("tavily /extract"); n != 0 {
		t.Errorf("an extractor was called %d times", n)
	}
}

func TestEmbed_ExtractionFallsBackWhenTheFirstExtractorCannotReadThePage(t *testing.T) {
	pages := pageServer(t)
	f := newFakeProviders(t)
	f.fail(0, 0, http.StatusUnprocessableEntity) // unsupported: the page cannot be scraped
	url := pages.URL + "/browser-render-required/react-cra-empty-root.html"
	r := run(t, "embed", f.env(t, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1", "WEBGATE_EXTRACT_PRIMARY=websearchapi"), "-url", url)
	r.expect(t, 0,
		"class: browser-render-required",
		"read: provider via tavily",
		"TAVILY-EXTRACTED-CONTENT",
	)
	if f.count("websearchapi /scrape") != 1 || f.count("tavily /extract") != 1 {
		t.Errorf("want one scrape then one extract, got %d scrapes and %d extracts", f.count("websearchapi /scrape"), f.count("tavily /extract"))
	}
}

func TestEmbed_ReadsReadablePagesDirectlyWithoutCallingAnExtractor(t *testing.T) {
	pages := pageServer(t)
	for _, file := range fixtures(t, "readable") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f := newFakeProviders(t)
			url := pages.URL + "/readable/" + filepath.Base(file)
			r := run(t, "embed", f.env(t, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1"), "-url", url, "-chars", "300")
			r.expect(t, 0,
				"class: fetch-readable (confidence ",
				"read: local\n",
				"title: "+fixtureTitle(t, file),
				"content (",
			)
			if got := regexp.MustCompile(`(?s)content \(\d+ characters\):\n(.*)`).FindStringSubmatch(r.stdout); got == nil || len(strings.TrimSpace(got[1])) < 100 {
				t.Errorf("the page's text is missing or short:\n%s", r.stdout)
			}
			if n := f.count("websearchapi /scrape") + f.count("tavily /extract"); n != 0 {
				t.Errorf("an extractor was called %d times for a readable page", n)
			}
		})
	}
}

func TestEmbed_RefusesLoopbackPagesUnlessAllowed(t *testing.T) {
	pages := pageServer(t)
	f := newFakeProviders(t)
	r := run(t, "embed", f.env(t), "-url", pages.URL+"/readable/blog-article.html")
	r.expect(t, 1)
	if !strings.Contains(r.stderr, "loopback") || !strings.Contains(r.stderr, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1") {
		t.Errorf("stderr does not explain the refusal:\n%s", r.stderr)
	}
	if n := f.count("websearchapi /scrape") + f.count("tavily /extract"); n != 0 {
		t.Errorf("a refused page was sent to an extractor %d times", n)
	}
}

func TestEmbed_ReportsAMissingPageWithoutExtractingIt(t *testing.T) {
	pages := pageServer(t)
	f := newFakeProviders(t)
	r := run(t, "embed", f.env(t, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1"), "-url", pages.URL+"/readable/no-such-page.html")
	r.expect(t, 1)
	if !strings.Contains(r.stderr, "answered HTTP 404") {
		t.Errorf("stderr does not name the status:\n%s", r.stderr)
	}
	if n := f.count("websearchapi /scrape") + f.count("tavily /extract"); n != 0 {
		t.Errorf("a missing page was sent to an extractor %d times", n)
	}
}

func TestEmbed_RejectsInvalidInvocationsWithExitTwo(t *testing.T) {
	f := newFakeProviders(t)
	for name, args := range map[string][]string{
		"no flags":     {},
		"unknown flag": {"-nope"},
		"stray arg":    {"-query", "x", "extra"},
		"ftp url":      {"-url", "ftp://example.com/file"},
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, "embed", f.env(t), args...)
			r.expect(t, 2)
			if strings.TrimSpace(r.stderr) == "" {
				t.Error("no message on stderr")
			}
		})
	}
}

func TestCustomProvider_MergesTheDocsBackendWithAWebBackendInParallel(t *testing.T) {
	f := newFakeProviders(t)
	r := run(t, "custom-provider", f.env(t, "WEBSEARCHAPI_API_KEY="), "-query", "key rotation")
	r.expect(t, 0,
		`Search "key rotation" via parallel(docs,parallel(tavily)):`,
		// Both the docs service and Tavily found the key pools page.
		"Key pools\n    https://docs.internal.example/webgate/keys\n    from: docs, tavily",
		"https://pkg.go.dev/context\n    from: tavily",
	)
	if strings.Contains(r.stdout, "failed:") {
		t.Errorf("no provider failed, but the output reports a failure")
	}
}

func TestCustomProvider_FallsBackToTheWebWhenTheDocsServiceFails(t *testing.T) {
	f := newFakeProviders(t)
	r := run(t, "custom-provider", f.env(t, "WEBSEARCHAPI_API_KEY="), "-query", "key rotation", "-mode", "fallback", "-demo-fail", "503")
	r.expect(t, 0,
		`via fallback(docs,parallel(tavily)): 3 results`,
		"https://go.dev/blog/context\n    from: tavily",
		"failed: docs: transient-provider-failed (kind transient, code index_unavailable): may pass: try again in a moment",
		"docs search: transient (HTTP 503 index_unavailable)",
	)
}

func TestCustomProvider_ClassifiesAQuotaCodeOnA403AsQuotaNotAuth(t *testing.T) {
	home := t.TempDir()
	r := run(t, "custom-provider", []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home}, "-query", "key rotation", "-demo-fail", "403")
	r.expect(t, 1,
		"via parallel(docs): every provider failed",
		"failed: docs: credit-or-quota-failed (kind quota, code quota_exceeded)",
	)
	if !strings.Contains(r.stderr, "search failed: credit-or-quota-failed (kind quota)") {
		t.Errorf("stderr does not give the overall class:\n%s", r.stderr)
	}
}

func TestCustomProvider_RejectsInvalidInvocationsWithExitTwo(t *testing.T) {
	home := t.TempDir()
	for name, args := range map[string][]string{
		"no query":        {},
		"single mode":     {"-query", "x", "-mode", "single"},
		"unknown mode":    {"-query", "x", "-mode", "random"},
		"fail not status": {"-query", "x", "-demo-fail", "200"},
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, "custom-provider", []string{"HOME=" + home}, args...)
			r.expect(t, 2)
		})
	}
}
