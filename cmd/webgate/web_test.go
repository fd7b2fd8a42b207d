package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/fakeweb"
)

const webKey = "tvly-SECRET-0b7d3c"

var webHits = []fakeweb.Hit{
	{Title: "Context package", URL: "https://pkg.go.dev/context", Content: "Package context defines the Context type."},
	{Title: "Go blog: Context", URL: "https://go.dev/blog/context", Content: "Incoming requests should create a Context."},
}

// webEnv starts a fake Tavily and returns an environment pointing webgate
// at it, with a home of its own so that no real configuration is read.
func webEnv(t *testing.T, fake *fakeweb.Tavily, extra ...string) hostEnv {
	t.Helper()
	if fake.Key == "" {
		fake.Key = webKey
	}
	home := t.TempDir()
	return hostEnv{Env: append(fakeweb.Env(home, fake.Start(t), webKey), extra...), Home: home}
}

func searchCLI(t *testing.T, env hostEnv, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runSearch(context.Background(), env, args, strings.NewReader(""), &out, &errb)
	noWebKey(t, out.String(), errb.String())
	return code, out.String(), errb.String()
}

func fetchCLI(t *testing.T, env hostEnv, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runFetch(context.Background(), env, args, strings.NewReader(""), &out, &errb)
	noWebKey(t, out.String(), errb.String())
	return code, out.String(), errb.String()
}

func noWebKey(t *testing.T, outputs ...string) {
	t.Helper()
	for _, o := range outputs {
		if strings.Contains(o, webKey) {
			t.Fatalf("output leaks the key: %s", o)
		}
	}
}

func TestSearch_PrintsResultsAndExitsZero(t *testing.T) {
	fake := &fakeweb.Tavily{Hits: webHits}
	code, out, errOut := searchCLI(t, webEnv(t, fake), "golang", "context", "-n", "2", "--allow", "go.dev,pkg.go.dev")
	if code != exitOK {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	if !strings.Contains(out, `Web search results for "golang context"`) || !strings.Contains(out, "2. Go blog: Context\n   https://go.dev/blog/context") {
		t.Errorf("stdout:\n%s", out)
	}
	body := fake.Requests()[0].Body
	if body["max_results"] != float64(2) || len(body["include_domains"].([]any)) != 2 {
		t.Errorf("request = %v", body)
	}
}

func TestSearch_JSONPrintsTheResultObject(t *testing.T) {
	code, out, _ := searchCLI(t, webEnv(t, &fakeweb.Tavily{Hits: webHits}), "--json", "golang context")
	if code != exitOK {
		t.Fatalf("code %d", code)
	}
	var res struct {
		Query    string `json:"query"`
		Provider string `json:"provider"`
		Results  []struct {
			Title, URL, Snippet string
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if res.Query != "golang context" || !strings.Contains(res.Provider, "tavily") || len(res.Results) != 2 || res.Results[0].URL != "https://pkg.go.dev/context" {
		t.Errorf("result = %+v", res)
	}
}

func TestSearch_ExitCodesTellTheOutcomeApart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fake   *fakeweb.Tavily
		env    func(hostEnv) hostEnv
		args   []string
		code   int
		stderr string
	}{
		{"no results", &fakeweb.Tavily{}, nil, []string{"nothing"}, exitNoResults, "no results"},
		{"rejected key", &fakeweb.Tavily{Key: "other"}, nil, []string{"q"}, exitProvider, "auth-failed"},
		{"quota", &fakeweb.Tavily{SearchStatus: 432}, nil, []string{"q"}, exitProvider, "credit-or-quota-failed"},
		{"no keys", &fakeweb.Tavily{}, withoutWebKeys, []string{"q"}, exitNotConfigured, "TAVILY_API_KEY"},
		{"no query", &fakeweb.Tavily{}, nil, nil, exitUsage, "no query given"},
		{"bad count", &fakeweb.Tavily{}, nil, []string{"-n", "50", "q"}, exitUsage, "-n must be between"},
		{"bad mode", &fakeweb.Tavily{}, nil, []string{"--mode", "random", "q"}, exitUsage, "--mode must be"},
		{"bad provider", &fakeweb.Tavily{}, nil, []string{"--provider", "bing", "q"}, exitUsage, `unknown provider "bing"`},
		{"bad flag", &fakeweb.Tavily{}, nil, []string{"--frobnicate", "q"}, exitUsage, "frobnicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := webEnv(t, tc.fake)
			if tc.env != nil {
				env = tc.env(env)
			}
			code, _, errOut := searchCLI(t, env, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("code %d, stderr %q; want %d and %q", code, errOut, tc.code, tc.stderr)
			}
		})
	}
}

// withoutWebKeys drops every provider key from env.
func withoutWebKeys(env hostEnv) hostEnv {
	var out []string
	for _, kv := range env.Env {
		if !strings.HasPrefix(kv, "TAVILY_API_KEY=") {
			out = append(out, kv)
		}
	}
	env.Env = out
	return env
}

func TestSearch_JSONFailurePrintsAnErrorObject(t *testing.T) {
	code, out, _ := searchCLI(t, webEnv(t, &fakeweb.Tavily{Key: "other"}), "--json", "q")
	var res jsonError
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if code != exitProvider || res.Error.Reason != "provider-failed" || res.Error.Class != "auth-failed" || len(res.Error.Failures) != 1 {
		t.Fatalf("code %d, error %+v", code, res.Error)
	}
}

func TestSearch_ProviderFlagOverridesTheConfiguredOrder(t *testing.T) {
	// Only exa is asked, and it has no key: not configured, although
	// tavily has one, and the message names exa's key alone.
	code, _, errOut := searchCLI(t, webEnv(t, &fakeweb.Tavily{Hits: webHits}), "--provider", "exa", "q")
	if code != exitNotConfigured || !strings.Contains(errOut, "exa has no API key: set EXA_API_KEY or providers.exa.keys") || strings.Contains(errOut, "TAVILY_API_KEY") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestSearch_ProviderFlagSaysWhatANamedProviderLacks(t *testing.T) {
	code, out, errOut := searchCLI(t, webEnv(t, &fakeweb.Tavily{Hits: webHits}), "--json", "--provider", "brave", "q")
	if code != exitNotConfigured || !strings.Contains(errOut, "brave has no API key: set BRAVE_API_KEY or providers.brave.keys") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	var res jsonError
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Error.Reason != "not-configured" {
		t.Fatalf("stdout %s (%v)", out, err)
	}
	// A named provider without a key next to one with a key is left out
	// with a warning; SearXNG needs its instance's URL.
	code, _, errOut = searchCLI(t, webEnv(t, &fakeweb.Tavily{Hits: webHits}), "--provider", "searxng,tavily", "q")
	if code != exitOK || !strings.Contains(errOut, "warning: searxng has no instance URL: set SEARXNG_URL or providers.searxng.base_url; it is left out") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestSearch_NoKeysHintNamesEveryProviderThatWouldBeAsked(t *testing.T) {
	code, _, errOut := searchCLI(t, withoutWebKeys(webEnv(t, &fakeweb.Tavily{})), "q")
	for _, want := range []string{"TAVILY_API_KEY", "WEBSEARCHAPI_API_KEY", "EXA_API_KEY", "BRAVE_API_KEY", "SEARXNG_URL"} {
		if code != exitNotConfigured || !strings.Contains(errOut, want) {
			t.Errorf("code %d, stderr %q; want %d and %q", code, errOut, exitNotConfigured, want)
		}
	}
	// A configured order is taken as it is.
	code, _, errOut = searchCLI(t, withoutWebKeys(webEnv(t, &fakeweb.Tavily{}, "WEBGATE_SEARCH_PROVIDERS=tavily")), "q")
	if code != exitNotConfigured || !strings.Contains(errOut, "TAVILY_API_KEY") || strings.Contains(errOut, "EXA_API_KEY") {
		t.Errorf("code %d, stderr %q; want only the configured provider's variable", code, errOut)
	}
}

func TestSearch_RateLimitIsReportedOnceWithTheLegacyClassInJSON(t *testing.T) {
	code, out, errOut := searchCLI(t, webEnv(t, &fakeweb.Tavily{SearchStatus: 429}, "WEBGATE_PROVIDERS_TAVILY_HTTP_MAX_ATTEMPTS=1"), "--json", "q")
	var res jsonError
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	e := res.Error
	if code != exitProvider || e.Class != "rate-limited" || e.LegacyClass != "credit-or-quota-failed" ||
		len(e.Failures) != 1 || e.Failures[0].LegacyClass != "credit-or-quota-failed" {
		t.Fatalf("code %d, error %+v, stderr %s", code, e, errOut)
	}
	if !strings.Contains(errOut, "every provider failed: tavily (rate-limited).") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestSearch_HelpHasExamplesAndExitCodes(t *testing.T) {
	code, out, _ := runCLI(t, "", "search", "--help")
	for _, want := range []string{"Usage: webgate search", "Examples:", "Exit status:", "3  no results", "4  every provider failed", "5  not configured"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if code != exitOK {
		t.Errorf("code %d", code)
	}
}

func TestFetch_ReadablePageShowsVerdictAndPathInTheHeader(t *testing.T) {
	pages := fakeweb.Pages(t)
	fake := &fakeweb.Tavily{}
	code, out, errOut := fetchCLI(t, webEnv(t, fake), pages+"/readable/blog-article.html")
	if code != exitOK {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	header, body, _ := strings.Cut(out, "\n\n")
	if !strings.Contains(header, "Read: fetch-readable (") || !strings.Contains(header, "converted from the page's own HTML") || !strings.Contains(header, "Title: Measuring the ice") {
		t.Errorf("header:\n%s", header)
	}
	// The byline and language are one header line; the content starts
	// with the article's text, without a title line repeating the header.
	if !strings.Contains(header, "About: By Ruth Okafor") || !strings.Contains(header, "language en") {
		t.Errorf("header:\n%s", header)
	}
	if !strings.HasPrefix(body, "Every winter the river") {
		t.Errorf("body:\n%s", body)
	}
	// --json carries them as fields.
	code, out, errOut = fetchCLI(t, webEnv(t, fake), "--json", pages+"/readable/blog-article.html")
	if code != exitOK || !strings.Contains(out, `"byline": "By Ruth Okafor`) || !strings.Contains(out, `"language": "en"`) {
		t.Errorf("--json: code %d, stderr %s, output:\n%.600s", code, errOut, out)
	}
	if fake.Count("/extract") != 0 {
		t.Errorf("a readable page went to extraction")
	}
}

func TestFetch_ToolRouteMessageIsPrintedAsOneLine(t *testing.T) {
	routes := filepath.Join(t.TempDir(), "tool-routes.json")
	if err := os.WriteFile(routes, []byte(`{"routes":{"github":{"pattern":"^https://github\\.com/","message":"Use the gh CLI."}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := &fakeweb.Tavily{}
	code, out, errOut := fetchCLI(t, webEnv(t, fake, "WEBGATE_TOOL_ROUTES="+routes), "https://github.com/golang/go/issues/1")
	if code != exitOK || out != "Use the gh CLI.\n" {
		t.Fatalf("code %d, stdout %q, stderr %s", code, out, errOut)
	}
	if len(fake.Requests()) != 0 {
		t.Errorf("a routed fetch called a provider")
	}
}

func TestFetch_AppShellIsExtractedAndSaysSo(t *testing.T) {
	pages := fakeweb.Pages(t)
	u := pages + "/browser-render-required/react-cra-empty-root.html"
	code, out, _ := fetchCLI(t, webEnv(t, &fakeweb.Tavily{Pages: map[string]string{u: "# Kettles\n\nEvery kettle we sell."}}), "--json", u)
	var res struct {
		Class, Path, Provider, Content string
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if code != exitOK || res.Class != "browser-render-required" || res.Path != "extraction" || res.Provider != "tavily" || !strings.Contains(res.Content, "Every kettle") {
		t.Fatalf("code %d, result %+v", code, res)
	}
}

func TestFetch_TemplateHeavyPageIsReadFromItsStructure(t *testing.T) {
	pages := fakeweb.Pages(t)
	fake := &fakeweb.Tavily{}
	code, out, errOut := fetchCLI(t, webEnv(t, fake), pages+"/template-heavy/shop-category.html")
	header, _, _ := strings.Cut(out, "\n\n")
	if code != exitOK || !strings.Contains(header, "Read: template-heavy (") || !strings.Contains(header, "the page's structure") {
		t.Fatalf("code %d, stderr %s, header:\n%s", code, errOut, header)
	}
	if fake.Count("/extract") != 0 {
		t.Errorf("a template-heavy page with a readable structure went to extraction")
	}
}

func TestFetch_ProviderFlagTakesOnlyProvidersThatReadPages(t *testing.T) {
	code, _, errOut := fetchCLI(t, webEnv(t, &fakeweb.Tavily{}), "--provider", "brave", "https://example.org/")
	if code != exitUsage || !strings.Contains(errOut, `provider "brave" cannot read pages`) {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestFetch_ExitCodesTellTheOutcomeApart(t *testing.T) {
	pages := fakeweb.Pages(t)
	shell := pages + "/browser-render-required/react-cra-empty-root.html"
	for _, tc := range []struct {
		name   string
		fake   *fakeweb.Tavily
		env    func(hostEnv) hostEnv
		args   []string
		code   int
		stderr string
	}{
		{"not found", &fakeweb.Tavily{}, nil, []string{pages + "/missing"}, exitFail, "HTTP 404"},
		{"not http", &fakeweb.Tavily{}, nil, []string{"ftp://example.org/x"}, exitUsage, "not an http or https URL"},
		{"loopback refused", &fakeweb.Tavily{}, withoutPrivateAddresses, []string{pages + "/readable/docs-page.html"}, exitUsage, "loopback"},
		{"extraction failed", &fakeweb.Tavily{ExtractStatus: 432}, nil, []string{shell}, exitProvider, "credit-or-quota-failed"},
		{"no keys", &fakeweb.Tavily{}, withoutWebKeys, []string{shell}, exitNotConfigured, "TAVILY_API_KEY"},
		{"no URL", &fakeweb.Tavily{}, nil, nil, exitUsage, "exactly one URL"},
		{"two URLs", &fakeweb.Tavily{}, nil, []string{"https://a.example/", "https://b.example/"}, exitUsage, "exactly one URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := webEnv(t, tc.fake)
			if tc.env != nil {
				env = tc.env(env)
			}
			code, _, errOut := fetchCLI(t, env, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("code %d, stderr %q; want %d and %q", code, errOut, tc.code, tc.stderr)
			}
		})
	}
}

func withoutPrivateAddresses(env hostEnv) hostEnv {
	var out []string
	for _, kv := range env.Env {
		if !strings.HasPrefix(kv, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=") {
			out = append(out, kv)
		}
	}
	env.Env = out
	return env
}

func TestFetch_MaxCharsCutsTheContent(t *testing.T) {
	pages := fakeweb.Pages(t)
	code, out, _ := fetchCLI(t, webEnv(t, &fakeweb.Tavily{}), "--max-chars", "1500", pages+"/readable/blog-article.html")
	if code != exitOK || len([]rune(out)) > 1501 || !strings.Contains(out, "[Content cut to fit the size limit") {
		t.Fatalf("code %d, %d characters:\n%s", code, len([]rune(out)), out)
	}
}

func TestWeb_ConfigurationProblemsAreWarningsNotFailures(t *testing.T) {
	env := webEnv(t, &fakeweb.Tavily{Hits: webHits}, "WEBGATE_SEARCH_MODE=sideways")
	code, _, errOut := searchCLI(t, env, "q")
	if code != exitOK || !strings.Contains(errOut, "warning: search.mode") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestWeb_ReadsToolRoutesFromTheConfiguredFile(t *testing.T) {
	routes := filepath.Join(t.TempDir(), "tool-routes.json")
	if err := os.WriteFile(routes, []byte(`{"routes":{"github":{"pattern":"^https://github\\.com/","message":"Use gh for GitHub."}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := fetchCLI(t, webEnv(t, &fakeweb.Tavily{}, "WEBGATE_TOOL_ROUTES="+routes), "https://github.com/a/b")
	if code != exitOK || strings.TrimSpace(out) != "Use gh for GitHub." {
		t.Fatalf("code %d, stdout %q", code, out)
	}
}

func TestWeb_SpinnerStaysOffWhenStderrIsNotATerminal(t *testing.T) {
	var b bytes.Buffer
	stop := spinner(&b, "searching")
	stop()
	if b.Len() != 0 || isTerminal(&b) {
		t.Fatalf("spinner wrote %q to a buffer", b.String())
	}
}

func TestWeb_ConfigFlagNamesTheConfigurationFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "webgate.toml")
	toml := "[[routes.tool_routes]]\nname = \"docs\"\npattern = \"^https://docs\\\\.internal/\"\nmessage = \"Use the docs MCP server.\"\n"
	if err := os.WriteFile(file, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := fetchCLI(t, webEnv(t, &fakeweb.Tavily{}), "--config", file, "https://docs.internal/page")
	if code != exitOK || strings.TrimSpace(out) != "Use the docs MCP server." {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestFetch_APageCachedWithAllowPrivateIsRefusedWithoutIt(t *testing.T) {
	pages := fakeweb.Pages(t)
	// A patient store bound: the test follows the cache's address rule,
	// not the store's speed on a busy machine.
	env := webEnv(t, &fakeweb.Tavily{}, "WEBGATE_STORE_TIMEOUT=5s")
	u := pages + "/readable/blog-article.html?x=1"
	if code, out, errOut := fetchCLI(t, env, "--json", u); code != exitOK || !strings.Contains(out, `"path": "readable"`) {
		t.Fatalf("with allow_private: code %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := fetchCLI(t, env, "--json", u); code != exitOK || !strings.Contains(out, `"cached_at"`) || !strings.Contains(out, `"class": "fetch-readable"`) {
		t.Fatalf("the second read is not from the cache, or not described as the first: code %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := fetchCLI(t, withoutPrivateAddresses(env), u)
	if code != exitUsage || !strings.Contains(errOut, "loopback") || out != "" {
		t.Fatalf("without allow_private: code %d, stdout %q, stderr %q; want the refusal an uncached read gets", code, out, errOut)
	}
}

func TestFetch_ACachedAnswerReportsWhatTheFreshOneDid(t *testing.T) {
	pages := fakeweb.Pages(t)
	env := webEnv(t, &fakeweb.Tavily{}, "WEBGATE_STORE_TIMEOUT=5s")
	u := pages + "/readable/blog-article.html?cached=1"
	fields := func(out string) map[string]any {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("--json output is not JSON: %v\n%s", err, out)
		}
		return m
	}
	code, out, errOut := fetchCLI(t, env, "--json", u)
	if code != exitOK {
		t.Fatalf("fresh: code %d\n%s\n%s", code, out, errOut)
	}
	fresh := fields(out)
	code, out, errOut = fetchCLI(t, env, "--json", u)
	if code != exitOK {
		t.Fatalf("cached: code %d\n%s\n%s", code, out, errOut)
	}
	cached := fields(out)
	if cached["cached_at"] == nil {
		t.Fatalf("the second read is not from the cache:\n%s", out)
	}
	for _, k := range []string{"class", "confidence", "path", "mode", "title", "byline", "site_name", "language", "status", "content_type"} {
		if fresh[k] == nil && k != "site_name" {
			t.Errorf("the fresh read has no %q to compare", k)
		}
		if cached[k] != fresh[k] {
			t.Errorf("%s: cached %v, fresh %v", k, cached[k], fresh[k])
		}
	}
	// The text header says how the page was read, as the fresh one did.
	code, out, errOut = fetchCLI(t, env, u)
	if code != exitOK || !strings.Contains(out, "Read: fetch-readable") || strings.Contains(out, "not HTML") {
		t.Errorf("cached text answer: code %d\n%s\n%s", code, out, errOut)
	}
}
