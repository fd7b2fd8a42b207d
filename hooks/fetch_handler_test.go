package hooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixtureServer serves every fixture page under its path, plus a few
// special pages.
func fixtureServer(t *testing.T) string {
	t.Helper()
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/forbidden":
			http.Error(w, "no bots", http.StatusForbidden)
			return
		case "/missing":
			http.NotFound(w, r)
			return
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"a":1}`))
			return
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		b, err := os.ReadFile(filepath.Join("..", "fixtures", filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(b)
	})
	return s.URL
}

func preFetch(url, prompt string) *Input {
	in, err := ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":` + jsonString(url) + `,"prompt":` + jsonString(prompt) + `}}`))
	if err != nil {
		panic(err)
	}
	return in
}

// localReader is a page reader without an extraction provider that may
// read the loopback test servers.
func localReader() *webpage.Reader {
	return &webpage.Reader{Probe: webpage.ProbeConfig{AllowPrivate: true}}
}

// fetchEnv is a web fetch environment whose reader extracts with x and may
// read the loopback test servers; x, in this process, is as self-hosted
// as an extractor gets, so it may read them too.
func fetchEnv(x provider.Extractor) *WebFetchEnv {
	r := localReader()
	r.Extractor, r.PrivateExtractor = x, true
	return &WebFetchEnv{Reader: r}
}

func TestHandleWebFetch_LetsReadablePagesThroughToTheNativeTool(t *testing.T) {
	base := fixtureServer(t)
	x := pageExtractor("T", "content")
	for _, page := range []string{"readable/blog-article.html", "readable/docs-page.html", "readable/nextjs-ssr-article.html"} {
		d := HandleWebFetch(context.Background(), preFetch(base+"/"+page, "what is it"), fetchEnv(x))
		if d.Action != Pass || d.SystemMessage != "" {
			t.Errorf("%s: decision = %+v", page, d)
		}
	}
	if n := x.calls.Load(); n != 0 {
		t.Errorf("extractions = %d, want 0", n)
	}
}

func TestHandleWebFetch_ReadsATemplatePageStructureLocallyFirst(t *testing.T) {
	base := fixtureServer(t)
	page := "template-heavy/news-homepage.html"
	x := pageExtractor("Extracted Title", "# Heading\n\nThe extracted body.")
	d := HandleWebFetch(context.Background(), preFetch(base+"/"+page, "find the body"), fetchEnv(x))
	if d.Action != Deny || x.calls.Load() != 0 {
		t.Fatalf("decision = %+v, %d extractions; want the page's structure, read locally", d, x.calls.Load())
	}
	for _, want := range []string{"Content of " + base + "/" + page, "read by webgate (its structure, converted from the page's HTML) because the page is mostly navigation and page template", "not the native WebFetch tool"} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason lacks %q:\n%s", want, d.Reason)
		}
	}
	// With the providers first, the provider reads it.
	env := fetchEnv(x)
	env.Reader.Order = webpage.ProvidersFirst
	if d := HandleWebFetch(context.Background(), preFetch(base+"/"+page, "find the body"), env); d.Action != Deny || x.calls.Load() != 1 || !strings.Contains(d.Reason, "extracted by webgate via fakex") {
		t.Errorf("providers-first: %+v, %d extractions", d, x.calls.Load())
	}
}

func TestHandleWebFetch_ExtractsAppShellsAndTemplatePages(t *testing.T) {
	base := fixtureServer(t)
	for _, page := range []string{"browser-render-required/react-cra-empty-root.html", "browser-render-required/vite-react-empty-root.html"} {
		x := pageExtractor("Extracted Title", "# Heading\n\nThe extracted body.")
		d := HandleWebFetch(context.Background(), preFetch(base+"/"+page, "find the body"), fetchEnv(x))
		if d.Action != Deny {
			t.Errorf("%s: decision = %+v", page, d)
			continue
		}
		req := x.last.Load()
		if req.URL != base+"/"+page || req.Query != "find the body" || req.Format != provider.Markdown {
			t.Errorf("%s: request = %+v", page, req)
		}
		for _, want := range []string{"Content of " + base + "/" + page, "extracted by webgate via fakex", "not the native WebFetch tool", "Title: Extracted Title", "URL: " + base, "Request: find the body", "The extracted body."} {
			if !strings.Contains(d.Reason, want) {
				t.Errorf("%s: reason lacks %q:\n%s", page, want, d.Reason)
			}
		}
	}
}

func TestHandleWebFetch_UsesTheClassifierGiven(t *testing.T) {
	base := fixtureServer(t)
	env := fetchEnv(pageExtractor("T", "body"))
	env.Reader.Classify = func([]byte) classify.Result { return classify.Result{Class: classify.BrowserRenderRequired} }
	if d := HandleWebFetch(context.Background(), preFetch(base+"/readable/blog-article.html", ""), env); d.Action != Deny || !strings.Contains(d.Reason, "only after JavaScript runs") {
		t.Errorf("decision = %+v", d)
	}
}

func TestHandleWebFetch_ExtractsWhenTheProbeIsRefusedOrFails(t *testing.T) {
	base := fixtureServer(t)
	x := pageExtractor("T", "body")
	d := HandleWebFetch(context.Background(), preFetch(base+"/forbidden", ""), fetchEnv(x))
	if d.Action != Deny || !strings.Contains(d.Reason, "refused a direct read (HTTP 403)") {
		t.Errorf("403: decision = %+v", d)
	}
	env := fetchEnv(x)
	env.Reader.Probe.Timeout = 100 * time.Millisecond
	d = HandleWebFetch(context.Background(), preFetch(base+"/slow", ""), env)
	if d.Action != Deny || !strings.Contains(d.Reason, "could not be read directly (timed out)") {
		t.Errorf("timeout: decision = %+v", d)
	}
	// A server whose certificate is not trusted fails the handshake.
	tlsServer := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsServer.Close()
	d = HandleWebFetch(context.Background(), preFetch(tlsServer.URL+"/x", ""), fetchEnv(x))
	if d.Action != Deny || !strings.Contains(d.Reason, "could not be read directly (TLS error)") {
		t.Errorf("tls: decision = %+v", d)
	}
}

func TestHandleWebFetch_PassesThroughOnMissingAndNonHTMLPages(t *testing.T) {
	base := fixtureServer(t)
	x := pageExtractor("T", "body")
	for _, path := range []string{"/missing", "/json"} {
		if d := HandleWebFetch(context.Background(), preFetch(base+path, ""), fetchEnv(x)); d.Action != Pass {
			t.Errorf("%s: decision = %+v", path, d)
		}
	}
	if n := x.calls.Load(); n != 0 {
		t.Errorf("extractions = %d", n)
	}
}

func TestHandleWebFetch_RefusesPrivateAddressesByDefault(t *testing.T) {
	base := fixtureServer(t)
	x := pageExtractor("T", "body")
	d := HandleWebFetch(context.Background(), preFetch(base+"/browser-render-required/react-cra-empty-root.html", ""), &WebFetchEnv{Reader: &webpage.Reader{Extractor: x}})
	if d.Action != Pass || x.calls.Load() != 0 {
		t.Fatalf("decision = %+v, extractions %d", d, x.calls.Load())
	}
	if !strings.Contains(strings.Join(d.Diagnostics, "\n"), "loopback address") {
		t.Errorf("diagnostics = %q", d.Diagnostics)
	}
}

func TestHandleWebFetch_PassesThroughWithoutExtractionKeysBeforeProbing(t *testing.T) {
	d := HandleWebFetch(context.Background(), preFetch("http://127.0.0.1:1/", ""), &WebFetchEnv{Reader: localReader()})
	if d.Action != Pass || !strings.Contains(strings.Join(d.Diagnostics, "\n"), "no extraction provider has an API key") {
		t.Errorf("decision = %+v", d)
	}
}

func TestHandleWebFetch_PassesThroughWhenExtractionFails(t *testing.T) {
	base := fixtureServer(t)
	x := &fakeExtractor{fn: func(context.Context, provider.ExtractRequest) (*provider.Page, error) {
		return nil, &policy.AllFailedError{Policy: "fallback(tavily)", Op: "extract", Failures: []provider.Failure{{Provider: "tavily", Kind: provider.KindQuota}}}
	}}
	env := fetchEnv(x)
	env.Settings.SystemMessage = true
	d := HandleWebFetch(context.Background(), preFetch(base+"/browser-render-required/angular-app-root.html", ""), env)
	if d.Action != Pass || d.SystemMessage != "webgate: extraction failed: tavily (credit-or-quota-failed); the native WebFetch tool runs instead" {
		t.Errorf("decision = %+v", d)
	}
	empty := pageExtractor("T", "  ")
	if d := HandleWebFetch(context.Background(), preFetch(base+"/browser-render-required/angular-app-root.html", ""), fetchEnv(empty)); d.Action != Pass {
		t.Errorf("empty content: decision = %+v", d)
	}
}

func TestHandleWebFetch_StepsAsideWhenTheBudgetRunsOut(t *testing.T) {
	base := fixtureServer(t)
	x := &fakeExtractor{fn: func(ctx context.Context, _ provider.ExtractRequest) (*provider.Page, error) {
		<-ctx.Done()
		return nil, errors.New("late")
	}}
	env := fetchEnv(x)
	env.Settings.Budget = 300 * time.Millisecond
	start := time.Now()
	d := HandleWebFetch(context.Background(), preFetch(base+"/browser-render-required/angular-app-root.html", ""), env)
	if d.Action != Pass || time.Since(start) > 3*time.Second {
		t.Errorf("decision = %+v after %v", d, time.Since(start))
	}
}

func TestHandleWebFetch_CapsLongContentKeepingWhatThePromptAsksFor(t *testing.T) {
	base := fixtureServer(t)
	env := fetchEnv(pageExtractor("Manual", longDoc()))
	env.Settings.MaxReasonChars = 3000
	d := HandleWebFetch(context.Background(), preFetch(base+"/browser-render-required/nuxt-empty-nuxt.html", "warranty refund"), env)
	if d.Action != Deny {
		t.Fatalf("decision = %+v", d)
	}
	if n := textLen(d.Reason); n > 3000 {
		t.Errorf("reason is %d chars", n)
	}
	for _, want := range []string{"Chapter 17 covers the warranty", "Chapter 23 lists the refund", "[Content truncated to fit the size limit: kept the parts most relevant to the request"} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason lacks %q", want)
		}
	}
	env.Settings.MaxReasonChars = 0
	env.Reader.Extractor = pageExtractor("Manual", strings.Repeat("plain words here ", 3000))
	d = HandleWebFetch(context.Background(), preFetch(base+"/browser-render-required/nuxt-empty-nuxt.html", ""), env)
	if n := textLen(d.Reason); n > gate.DefaultMaxReasonChars || !strings.Contains(d.Reason, "[Content truncated to fit the size limit: only the beginning of the page is shown") {
		t.Errorf("reason is %d chars:\n…%s", n, d.Reason[len(d.Reason)-200:])
	}
}

func TestHandleWebFetch_AnswersCopilotWebFetch(t *testing.T) {
	base := fixtureServer(t)
	in, _ := ParseInput([]byte(`{"sessionId":"c","toolName":"web_fetch","toolArgs":` + jsonString(`{"url":"`+base+`/browser-render-required/angular-app-root.html"}`) + `}`))
	d := HandleWebFetch(context.Background(), in, fetchEnv(pageExtractor("T", "body text")))
	out := decisionJSON(t, d, in)
	if !strings.HasPrefix(out, `{"permissionDecision":"deny","permissionDecisionReason":"Content of `) {
		t.Errorf("output = %s", out)
	}
}

func TestHandleWebFetch_IgnoresOtherToolsAndEvents(t *testing.T) {
	x := pageExtractor("T", "b")
	for _, payload := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"abc"}}`,
		`{"hook_event_name":"PostToolUse","tool_name":"WebFetch","tool_input":{"url":"http://127.0.0.1/"}}`,
		`{"hookEventName":"PreToolUse","tool_name":"vscode_fetchWebPage_internal","tool_input":{"urls":["http://127.0.0.1/"]}}`,
	} {
		in, _ := ParseInput([]byte(payload))
		if d := HandleWebFetch(context.Background(), in, fetchEnv(x)); d.Action != Pass || len(d.Diagnostics) != 0 {
			t.Errorf("%s: decision = %+v", payload, d)
		}
	}
}

// longDoc is a long manual whose chapters 17 and 23 answer "warranty
// refund".
func longDoc() string {
	var parts []string
	parts = append(parts, "# Widget Manual")
	parts = append(parts, "An introduction to widgets.")
	for i := 1; i <= 30; i++ {
		parts = append(parts, fmt.Sprintf("## Chapter %d", i))
		body := fmt.Sprintf("Chapter %d talks about assembly and painting of ordinary parts. ", i)
		if i == 17 {
			body = "Chapter 17 covers the warranty: the warranty period lasts two years and claims need a receipt. "
		}
		if i == 23 {
			body = "Chapter 23 lists the refund rules; a warranty claim can end in a refund. "
		}
		parts = append(parts, strings.Repeat(body, 6))
	}
	return strings.Join(parts, "\n\n")
}
