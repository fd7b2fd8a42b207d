package hooks_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestProcess_SearXNGAloneAnswersWebSearchWithoutAnyKey(t *testing.T) {
	sx := newSearXNG(t, http.StatusOK, searxngAnswer)
	r := runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), keylessEnv(t, "SEARXNG_URL="+sx.URL))
	o := wantDeny(t, r, "PreToolUse", `query "go context cancellation"`, "via webgate (parallel(searxng))",
		"SearXNG: context package", "https://pkg.go.dev/context", "SEARXNG-RESULT-MARKER", "SearXNG: Go blog")
	if strings.Contains(o.HookSpecificOutput.PermissionDecisionReason, "elsewhere.example") {
		t.Errorf("a result outside the allowed domains was shown:\n%s", o.HookSpecificOutput.PermissionDecisionReason)
	}
	if o.SystemMessage != "webgate: WebSearch answered with 2 result(s) via parallel(searxng)" {
		t.Errorf("systemMessage = %q", o.SystemMessage)
	}
	if sx.Count() != 1 {
		t.Fatalf("SearXNG received %d requests, want 1", sx.Count())
	}
	req := sx.Last()
	if req.Method != http.MethodGet || req.Path != "/search" {
		t.Errorf("request %s %s, want GET /search", req.Method, req.Path)
	}
	v, err := url.ParseQuery(req.RawQuery)
	if err != nil {
		t.Fatal(err)
	}
	if v.Get("format") != "json" {
		t.Errorf("format = %q, want json (query %s)", v.Get("format"), req.RawQuery)
	}
	if q := v.Get("q"); !strings.HasPrefix(q, "go context cancellation") || !strings.Contains(q, "site:go.dev") || !strings.Contains(q, "site:pkg.go.dev") {
		t.Errorf("q = %q, want the query restricted to the allowed domains", q)
	}
	if a := req.Header.Get("Authorization"); a != "" {
		t.Errorf("SearXNG was sent an Authorization header")
	}
}

func TestProcess_SearXNGWithoutJSONStepsAsideAndSaysToEnableIt(t *testing.T) {
	sx := newSearXNG(t, http.StatusForbidden, searxngForbidden)
	r := runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), keylessEnv(t, "SEARXNG_URL="+sx.URL))
	// The user is told what to do, without debug mode.
	wantStepAside(t, r, "every search provider failed: searxng", "enable the json format", "passing through")
	if o := decode(t, r); !strings.Contains(o.SystemMessage, "enable the json format") {
		t.Errorf("systemMessage %q does not say what to do", o.SystemMessage)
	}
	if strings.Contains(r.stdout, "Forbidden") || strings.Contains(r.stderr, "Forbidden") {
		t.Errorf("the instance's HTML page reached the output:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	// A 403 cannot pass by itself: asked once, never retried.
	if sx.Count() != 1 {
		t.Errorf("SearXNG received %d requests, want 1", sx.Count())
	}
	r = runBinary(t, "websearch", payload(t, "claude-websearch-pre.json", ""), keylessEnv(t, "SEARXNG_URL="+sx.URL, "WEBGATE_DEBUG=1"))
	wantStepAside(t, r, "HTTP 403", "enable the json format under search.formats")
}

func TestProcess_FirecrawlAloneReadsAnAppShell(t *testing.T) {
	fc := newFirecrawl(t, http.StatusOK, "")
	page := pages(t) + "/browser-render-required/react-cra-empty-root.html"
	env := keylessEnv(t, "FIRECRAWL_API_KEY="+firecrawlKey, "FIRECRAWL_BASE_URL="+fc.URL, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1")
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", page), env)
	wantNoSecret(t, r, firecrawlKey)
	wantDeny(t, r, "PreToolUse", "Content of "+page, "via firecrawl", "Rendered app", "FIRECRAWL-SCRAPE-MARKER",
		"Request: What does the page say about deadlines?")
	fc.checkValid(t)
	if fc.Count() != 1 {
		t.Fatalf("Firecrawl received %d requests, want 1", fc.Count())
	}
	req := fc.Last()
	if req.Key != firecrawlKey {
		t.Errorf("Firecrawl did not receive the configured key as a bearer token")
	}
	var body struct {
		URL     string            `json:"url"`
		Formats []json.RawMessage `json:"formats"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("request body %s: %v", req.Body, err)
	}
	if body.URL != page {
		t.Errorf("url = %q, want %q", body.URL, page)
	}
	if !asksForMarkdown(body.Formats) {
		t.Errorf("formats = %s, want markdown among them", req.Body)
	}
}

// asksForMarkdown reports whether a Firecrawl formats list asks for
// markdown, as a string or as an object {"type":"markdown"}.
func asksForMarkdown(formats []json.RawMessage) bool {
	for _, f := range formats {
		var s string
		if json.Unmarshal(f, &s) == nil && s == "markdown" {
			return true
		}
		var o struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(f, &o) == nil && o.Type == "markdown" {
			return true
		}
	}
	return false
}

func TestProcess_FirecrawlOutOfCreditsStepsAsideNamingQuota(t *testing.T) {
	fc := newFirecrawl(t, http.StatusPaymentRequired, firecrawlNoCredits)
	page := pages(t) + "/browser-render-required/vite-react-empty-root.html"
	env := keylessEnv(t, "FIRECRAWL_API_KEY="+firecrawlKey, "FIRECRAWL_BASE_URL="+fc.URL, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1")
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", page), env)
	wantNoSecret(t, r, firecrawlKey)
	wantStepAside(t, r, "extraction failed:", "firecrawl (credit-or-quota-failed)")
	fc.checkValid(t)
	// Out of credits is not retried with the only key.
	if fc.Count() != 1 {
		t.Errorf("Firecrawl received %d requests, want 1", fc.Count())
	}
}

func TestProcess_KeylessJinaReaderReadsAnAppShell(t *testing.T) {
	jr := newJinaReader(t, jinaReaderAnswer)
	page := pages(t) + "/browser-render-required/angular-app-root.html"
	env := keylessEnv(t, "WEBGATE_PROVIDERS_JINA_KEYLESS=1", "JINA_READER_URL="+jr.URL, "JINA_SEARCH_URL="+jr.URL,
		"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1")
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", page), env)
	wantDeny(t, r, "PreToolUse", "Content of "+page, "via jina", "Rendered by Jina", "JINA-READER-MARKER")
	if jr.Count() != 1 {
		t.Fatalf("Jina Reader received %d requests, want 1", jr.Count())
	}
	req := jr.Last()
	if _, ok := req.Header["Authorization"]; ok {
		t.Errorf("a keyless read carried an Authorization header")
	}
	if a := req.Header.Get("Accept"); a != "application/json" {
		t.Errorf("Accept = %q, want application/json", a)
	}
	var body struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil || body.URL != page {
		t.Errorf("request body %s, want {\"url\": %q}", req.Body, page)
	}
}

func TestProcess_JinaReaderIsNotUsedWithoutAKeyUnlessKeylessIsSet(t *testing.T) {
	jr := newJinaReader(t, jinaReaderAnswer)
	page := pages(t) + "/browser-render-required/angular-app-root.html"
	env := keylessEnv(t, "JINA_READER_URL="+jr.URL, "JINA_SEARCH_URL="+jr.URL, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1")
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", page), env)
	wantNothing(t, r)
	if !strings.Contains(r.stderr, "no extraction provider has an API key") {
		t.Errorf("stderr %q", r.stderr)
	}
	if jr.Count() != 0 {
		t.Errorf("Jina Reader received %d requests without keyless set", jr.Count())
	}
}

func TestProcess_JinaReaderWarningOfAFailedTargetIsNotShownAsThePage(t *testing.T) {
	jr := newJinaReader(t, jinaTargetFailed)
	page := pages(t) + "/browser-render-required/nuxt-empty-nuxt.html"
	env := keylessEnv(t, "WEBGATE_PROVIDERS_JINA_KEYLESS=1", "JINA_READER_URL="+jr.URL, "JINA_SEARCH_URL="+jr.URL,
		"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1")
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", page), env)
	wantStepAside(t, r, "extraction failed:", "jina (")
	for _, s := range []string{"JINA-ERROR-PAGE-MARKER", "404 Not Found"} {
		if strings.Contains(r.stdout, s) {
			t.Errorf("the target's error page reached the answer (%q):\n%s", s, r.stdout)
		}
	}
	if jr.Count() != 1 {
		t.Errorf("Jina Reader received %d requests, want 1", jr.Count())
	}
}
