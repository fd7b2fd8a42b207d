package hooks

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/webpage"
)

// preflightError is the error Claude Code's WebFetch reports when its
// domain-safety preflight cannot reach api.anthropic.com.
const preflightError = "Unable to verify if domain 127.0.0.1 is safe to fetch. This may be due to network restrictions or enterprise security policies blocking claude.ai."

func failedFetch(url, prompt string) *Input {
	in, err := ParseInput([]byte(`{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"WebFetch","tool_input":{"url":` + jsonString(url) + `,"prompt":` + jsonString(prompt) + `},"error":` + jsonString(preflightError) + `,"is_interrupt":false,"tool_use_id":"t"}`))
	if err != nil {
		panic(err)
	}
	return in
}

func TestHandleWebFetch_AfterAFailedFetchAddsTheReadablePageConvertedFromItsHTML(t *testing.T) {
	base := fixtureServer(t)
	x := pageExtractor("T", "extracted")
	url := base + "/readable/docs-page.html"
	in := failedFetch(url, "How are values resolved?")
	d := HandleWebFetch(context.Background(), in, fetchEnv(x))
	if d.Action != AddContext {
		t.Fatalf("decision = %+v", d)
	}
	for _, want := range []string{
		"webgate fallback: the native WebFetch tool failed, so webgate read the page itself (converted from the page's HTML).",
		"Title: Configuration reference — Relay 3.2 documentation\n",
		"URL: " + url + "\n",
		"Request: How are values resolved?\n",
		"Values are resolved in a fixed order",
	} {
		if !strings.Contains(d.Context, want) {
			t.Errorf("context lacks %q:\n%s", want, d.Context)
		}
	}
	// The title is the header's; the content does not repeat it.
	if strings.Contains(d.Context, "# Configuration reference") {
		t.Errorf("the content repeats the title:\n%s", d.Context)
	}
	if !strings.HasSuffix(d.Context, "\n\nOriginal error from WebFetch: "+preflightError) {
		t.Errorf("context does not end with the original error:\n…%s", d.Context[max(0, len(d.Context)-300):])
	}
	if n := x.calls.Load(); n != 0 {
		t.Errorf("extractions = %d, want 0 for a readable page", n)
	}
	out := decisionJSON(t, d, in)
	if !strings.HasPrefix(out, `{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"webgate fallback: `) {
		t.Errorf("output = %.200s", out)
	}
}

func TestHandleWebFetch_AfterAFailedFetchConvertsReadablePagesWithoutAnyProviderKey(t *testing.T) {
	base := fixtureServer(t)
	env := &WebFetchEnv{Reader: localReader()}
	env.Settings.SystemMessage = true
	d := HandleWebFetch(context.Background(), failedFetch(base+"/readable/blog-article.html", ""), env)
	if d.Action != AddContext || !strings.Contains(d.Context, "Measuring the ice on the mill river") {
		t.Fatalf("decision = %+v", d)
	}
	if d.SystemMessage != "webgate: WebFetch failed; added the page's content (converted from the page's HTML)" {
		t.Errorf("systemMessage = %q", d.SystemMessage)
	}
}

func TestHandleWebFetch_AfterAFailedFetchExtractsAppShellsAndTemplatePages(t *testing.T) {
	base := fixtureServer(t)
	for _, page := range []string{"browser-render-required/react-cra-empty-root.html", "template-heavy/news-homepage.html"} {
		x := pageExtractor("Extracted Title", "# Heading\n\nThe extracted body.")
		env := fetchEnv(x)
		// Providers first: the template page's structure is not read
		// locally first.
		env.Reader.Order = webpage.ProvidersFirst
		d := HandleWebFetch(context.Background(), failedFetch(base+"/"+page, "find the body"), env)
		if d.Action != AddContext {
			t.Errorf("%s: decision = %+v", page, d)
			continue
		}
		if req := x.last.Load(); req == nil || req.URL != base+"/"+page || req.Query != "find the body" || req.Format != provider.Markdown {
			t.Errorf("%s: request = %+v", page, req)
		}
		for _, want := range []string{"read the page itself (extracted via fakex)", "Title: Extracted Title", "The extracted body.", "Original error from WebFetch: Unable to verify"} {
			if !strings.Contains(d.Context, want) {
				t.Errorf("%s: context lacks %q:\n%s", page, want, d.Context)
			}
		}
	}
}

func TestHandleWebFetch_AfterAFailedFetchReadsATemplatePagesStructureBeforeAskingAProvider(t *testing.T) {
	base := fixtureServer(t)
	x := pageExtractor("Extracted Title", "The extracted body.")
	d := HandleWebFetch(context.Background(), failedFetch(base+"/template-heavy/news-homepage.html", ""), fetchEnv(x))
	if d.Action != AddContext || x.calls.Load() != 0 {
		t.Fatalf("decision = %+v, extractions %d", d, x.calls.Load())
	}
	for _, want := range []string{"read the page itself (its structure, converted from the page's HTML)", "The page is mostly navigation and page template; this is its structure as served."} {
		if !strings.Contains(d.Context, want) {
			t.Errorf("context lacks %q:\n%s", want, d.Context)
		}
	}
}

func TestHandleWebFetch_AfterAFailedFetchExtractsPagesThatRefuseTheProbe(t *testing.T) {
	base := fixtureServer(t)
	x := pageExtractor("T", "the body behind the wall")
	d := HandleWebFetch(context.Background(), failedFetch(base+"/forbidden", ""), fetchEnv(x))
	if d.Action != AddContext || !strings.Contains(d.Context, "the body behind the wall") {
		t.Errorf("decision = %+v", d)
	}
}

func TestHandleWebFetch_AfterAFailedFetchFallsBackToAPagesOwnTextWithoutAProvider(t *testing.T) {
	base := fixtureServer(t)
	env := &WebFetchEnv{Reader: localReader()}
	env.Reader.Order = webpage.ProvidersOnly
	d := HandleWebFetch(context.Background(), failedFetch(base+"/template-heavy/news-homepage.html", ""), env)
	if d.Action != AddContext || !strings.Contains(d.Context, "The page is mostly navigation and page template, and no extraction provider is configured. This is the text of the page as served, which may be incomplete.") {
		t.Errorf("decision = %+v", d)
	}
	// An app shell has no text of its own: nothing to add.
	d = HandleWebFetch(context.Background(), failedFetch(base+"/browser-render-required/angular-app-root.html", ""), &WebFetchEnv{Reader: localReader()})
	if d.Action != Pass || !strings.Contains(strings.Join(d.Diagnostics, "\n"), "no extraction provider has an API key; passing through") {
		t.Errorf("decision = %+v", d)
	}
}

func TestHandleWebFetch_AfterAFailedFetchFallsBackToOwnTextOfTheReadersMinimumLength(t *testing.T) {
	text := strings.Repeat("word ", webpage.MinFallbackChars/5+10)
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><p>" + text + "</p></body></html>"))
	})
	env := &WebFetchEnv{Reader: localReader()}
	env.Reader.Order = webpage.ProvidersOnly
	env.Reader.Classify = func([]byte) classify.Result { return classify.Result{Class: classify.TemplateHeavy} }
	d := HandleWebFetch(context.Background(), failedFetch(s.URL+"/short", ""), env)
	if d.Action != AddContext || !strings.Contains(d.Context, strings.TrimSpace(text)) {
		t.Errorf("decision = %+v", d)
	}
}

func TestHandleWebFetch_AfterAFailedFetchPassesThroughWhenThePageCannotBeRead(t *testing.T) {
	base := fixtureServer(t)
	failing := &fakeExtractor{fn: func(context.Context, provider.ExtractRequest) (*provider.Page, error) {
		return nil, &policy.AllFailedError{Policy: "fallback(tavily)", Op: "extract", Failures: []provider.Failure{{Provider: "tavily", Kind: provider.KindAuth}}}
	}}
	cases := map[string]struct {
		url  string
		env  *WebFetchEnv
		diag string
	}{
		"refused address":   {base + "/readable/docs-page.html", &WebFetchEnv{Reader: &webpage.Reader{Extractor: pageExtractor("T", "b")}}, "loopback address"},
		"missing page":      {base + "/missing", fetchEnv(pageExtractor("T", "b")), "the page answered HTTP 404"},
		"not a web URL":     {"file:///etc/passwd", fetchEnv(pageExtractor("T", "b")), "unsupported URL"},
		"extraction failed": {base + "/browser-render-required/angular-app-root.html", fetchEnv(failing), "extraction failed: tavily (auth-failed)"},
		"bad configuration": {base + "/readable/docs-page.html", &WebFetchEnv{Reader: localReader(), Problems: []string{"bad key file"}}, "invalid configuration"},
	}
	for name, c := range cases {
		c.env.Settings.SystemMessage = true
		d := HandleWebFetch(context.Background(), failedFetch(c.url, ""), c.env)
		if d.Action != Pass || d.SystemMessage != "" || d.Context != "" {
			t.Errorf("%s: decision = %+v", name, d)
		}
		if diag := strings.Join(d.Diagnostics, "\n"); !strings.Contains(diag, c.diag) || !strings.Contains(diag, "passing through") {
			t.Errorf("%s: diagnostics = %q", name, d.Diagnostics)
		}
	}
}

func TestHandleWebFetch_AfterAFailedFetchIgnoresInterruptsCopilotAndOtherTools(t *testing.T) {
	base := fixtureServer(t)
	x := pageExtractor("T", "b")
	page := base + "/readable/docs-page.html"
	for _, payload := range []string{
		`{"hook_event_name":"PostToolUseFailure","tool_name":"WebFetch","tool_input":{"url":"` + page + `"},"error":"Interrupted","is_interrupt":true}`,
		`{"sessionId":"c","toolName":"web_fetch","toolArgs":` + jsonString(`{"url":"`+page+`"}`) + `,"error":"fetch failed"}`,
		`{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"curl ` + page + `"},"error":"exit 7"}`,
	} {
		in, err := ParseInput([]byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		d := HandleWebFetch(context.Background(), in, fetchEnv(x))
		if d.Action != Pass || decisionJSON(t, d, in) != "" {
			t.Errorf("%s: decision = %+v", payload, d)
		}
	}
	if n := x.calls.Load(); n != 0 {
		t.Errorf("extractions = %d", n)
	}
}

func TestHandleWebFetch_AfterAFailedFetchKeepsTheBudget(t *testing.T) {
	base := fixtureServer(t)
	// A page that never answers: the probe gets the whole budget when no
	// provider is configured.
	env := &WebFetchEnv{Reader: localReader()}
	env.Settings.Budget = 300 * time.Millisecond
	start := time.Now()
	d := HandleWebFetch(context.Background(), failedFetch(base+"/slow", ""), env)
	if d.Action != Pass || time.Since(start) > 3*time.Second {
		t.Errorf("slow page: decision = %+v after %v", d, time.Since(start))
	}
	// An extraction that never returns.
	hang := &fakeExtractor{fn: func(ctx context.Context, _ provider.ExtractRequest) (*provider.Page, error) {
		<-ctx.Done()
		return nil, errors.New("late")
	}}
	env = fetchEnv(hang)
	env.Settings.Budget = 300 * time.Millisecond
	start = time.Now()
	d = HandleWebFetch(context.Background(), failedFetch(base+"/browser-render-required/angular-app-root.html", ""), env)
	if d.Action != Pass || time.Since(start) > 3*time.Second {
		t.Errorf("hanging extraction: decision = %+v after %v", d, time.Since(start))
	}
}

func TestHandleWebFetch_AfterAFailedFetchFitsThePageAndTheErrorWithinTheCap(t *testing.T) {
	manual := "<html><head><title>Widget Manual</title></head><body><main>"
	for _, block := range strings.Split(longDoc(), "\n\n") {
		if strings.HasPrefix(block, "## ") {
			manual += "<h2>" + strings.TrimPrefix(block, "## ") + "</h2>"
		} else {
			manual += "<p>" + block + "</p>"
		}
	}
	manual += "</main></body></html>"
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(manual))
	})
	env := &WebFetchEnv{Reader: localReader()}
	env.Settings.MaxReasonChars = 3000
	in := failedFetch(s.URL+"/manual", "warranty refund")
	in.Error = strings.Repeat("a very long error ", 500)
	d := HandleWebFetch(context.Background(), in, env)
	if d.Action != AddContext {
		t.Fatalf("decision = %+v", d)
	}
	if n := textLen(d.Context); n > 3000 {
		t.Errorf("context is %d chars", n)
	}
	for _, want := range []string{"Chapter 17 covers the warranty", "Chapter 23 lists the refund", "kept the parts most relevant to the request", "Original error from WebFetch: a very long error"} {
		if !strings.Contains(d.Context, want) {
			t.Errorf("context lacks %q", want)
		}
	}
}

func TestHandleWebFetch_AfterAFailedFetchReadsPlainTextAsServed(t *testing.T) {
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("PLAIN-TEXT-MARKER release notes"))
	})
	d := HandleWebFetch(context.Background(), failedFetch(s.URL+"/notes.txt", ""), &WebFetchEnv{Reader: localReader()})
	if d.Action != AddContext || !strings.Contains(d.Context, "(read as served (text/plain))") || !strings.Contains(d.Context, "PLAIN-TEXT-MARKER") {
		t.Errorf("decision = %+v", d)
	}
}

func TestHandleWebFetch_AfterAFailedFetchScrubsKeys(t *testing.T) {
	const key = "tvly-SECRET-0123456789"
	base := fixtureServer(t)
	env := fetchEnv(pageExtractor("T", "content quoting "+key))
	env.Settings.Secrets = []string{key}
	in := failedFetch(base+"/browser-render-required/angular-app-root.html", "")
	in.Error = "proxy said " + key
	d := HandleWebFetch(context.Background(), in, env)
	if d.Action != AddContext || strings.Contains(d.Context, key) || !strings.Contains(d.Context, "[redacted]") {
		t.Errorf("decision = %+v", d)
	}
}

func TestHandleWebFetch_AfterAFailedFetchAppliesNoToolRoutes(t *testing.T) {
	base := fixtureServer(t)
	env := &WebFetchEnv{Reader: localReader()}
	env.Routes.Tools = toolRoutes(t, routing.ToolRoute{Name: "local", Pattern: `127\.0\.0\.1`, Message: "Use the local tool."})
	d := HandleWebFetch(context.Background(), failedFetch(base+"/readable/docs-page.html", ""), env)
	if d.Action != AddContext || strings.Contains(d.Context, "Use the local tool.") {
		t.Errorf("decision = %+v", d)
	}
}

// The path a hook names for a page the classifier doubted says what the
// reader read of it: its structure, or its main content when it found the
// page's article.
func TestReadVia_NamesTheStructureOrTheMainContent(t *testing.T) {
	plan := &webpage.Plan{Action: webpage.ActionExtract, ContentType: "text/html"}
	for _, tc := range []struct {
		mode webpage.ConvertMode
		want string
	}{
		{webpage.ConvertStructure, "its structure, converted from the page's HTML"},
		{webpage.ConvertArticle, "its main content, converted from the page's HTML"},
	} {
		if got := readVia(plan, &webpage.Result{Source: webpage.SourceLocal, Mode: tc.mode}); got != tc.want {
			t.Errorf("mode %q: %q, want %q", tc.mode, got, tc.want)
		}
	}
}

// TestHandleWebFetch_PageMetadataIsOneHeaderLineNotContent checks that
// what a page says about itself (author, site, date, language) reaches the
// model as one "About:" line of the header, and that the content does not
// carry it as prose.
func TestHandleWebFetch_PageMetadataIsOneHeaderLineNotContent(t *testing.T) {
	body := strings.Repeat("<p>The harbour's tide tables were rewritten after the survey found the old datum off by forty centimetres, which changed every mooring plan in the port.</p>\n", 12)
	page := `<!doctype html><html lang="en"><head><title>Tide tables rewritten</title>
<meta name="author" content="Ruth Okafor">
<meta property="og:site_name" content="Harbour Gazette">
<meta property="article:published_time" content="2026-03-02T08:00:00Z">
</head><body><article><h1>Tide tables rewritten</h1>` + body + `</article></body></html>`
	srv := servePage(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, page)
	})
	in := failedFetch(srv.URL+"/tides", "What changed?")
	d := HandleWebFetch(context.Background(), in, fetchEnv(pageExtractor("T", "extracted")))
	if d.Action != AddContext {
		t.Fatalf("decision = %+v", d)
	}
	const about = "About: By Ruth Okafor · Harbour Gazette · published 2026-03-02 · language en\n"
	i, j := strings.Index(d.Context, about), strings.Index(d.Context, "The harbour's tide tables")
	if i < 0 || j < 0 || i > j {
		t.Fatalf("want the About line in the header, before the content:\n%s", d.Context)
	}
	if strings.Count(d.Context, "Ruth Okafor") != 1 {
		t.Errorf("the byline is repeated in the content:\n%s", d.Context)
	}
}
