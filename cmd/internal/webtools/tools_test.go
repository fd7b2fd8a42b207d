package webtools_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/tavily"
	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/webpage"
)

const secret = "tvly-SECRET-9d2e71"

// newTools returns Tools whose search and extraction go to a fake Tavily
// and whose probe may read the loopback page server.
func newTools(t *testing.T, fake *fakeweb.Tavily) *webtools.Tools {
	t.Helper()
	if fake.Key == "" {
		fake.Key = secret
	}
	base := fake.Start(t)
	client, err := tavily.New(provider.NewPool([]string{secret}, nil), &tavily.Config{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	return &webtools.Tools{
		Searcher: client,
		// The fake provider runs on loopback, as a self-hosted one would,
		// so it may read the loopback pages.
		Reader:  &webpage.Reader{Extractor: client, Probe: webpage.ProbeConfig{AllowPrivate: true}, PrivateExtractor: true},
		Secrets: []string{secret},
	}
}

func reasonOf(t *testing.T, err error) *webtools.Error {
	t.Helper()
	var e *webtools.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *webtools.Error", err, err)
	}
	if strings.Contains(e.Message, secret) {
		t.Fatalf("error message leaks the key: %q", e.Message)
	}
	return e
}

var hits = []fakeweb.Hit{
	{Title: "Context package", URL: "https://pkg.go.dev/context", Content: "Package context defines the Context type."},
	{Title: "Go blog: Context", URL: "https://go.dev/blog/context", Content: "Incoming requests to a server should create a Context."},
}

func TestSearch_ReturnsTheProvidersResultsAsHitsAndText(t *testing.T) {
	fake := &fakeweb.Tavily{Hits: hits}
	tools := newTools(t, fake)

	res, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "golang context", MaxResults: 5, AllowedDomains: []string{"go.dev", " "}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].URL != "https://pkg.go.dev/context" || res.Results[1].Snippet == "" || res.Provider != "tavily" {
		t.Fatalf("result = %+v", res)
	}
	req := fake.Requests()[0]
	if req.Body["max_results"] != float64(5) || req.Body["query"] != "golang context" {
		t.Errorf("search request = %v, want the query and max_results 5", req.Body)
	}
	if d, _ := req.Body["include_domains"].([]any); len(d) != 1 || d[0] != "go.dev" {
		t.Errorf("include_domains = %v, want [go.dev] without blanks", req.Body["include_domains"])
	}
	text := res.Text()
	for _, want := range []string{`Web search results for "golang context" (via tavily)`, "1. Context package", "https://go.dev/blog/context", "Incoming requests", "Cite the sources"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

func TestSearch_WithNoHitsSucceedsWithAnEmptyList(t *testing.T) {
	tools := newTools(t, &fakeweb.Tavily{})
	res, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "nothing matches"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Results == nil || len(res.Results) != 0 || !strings.Contains(res.Text(), "No results were found.") {
		t.Fatalf("result = %+v, text %q", res, res.Text())
	}
}

func TestSearch_MatchingLocalDocsAddsANoteAndStillSearches(t *testing.T) {
	fake := &fakeweb.Tavily{Hits: hits}
	tools := newTools(t, fake)
	tools.Docs, _ = routing.NewDocsRouter([]routing.Database{{
		Keywords: []string{"golang"}, Path: "/idx/go", MCPToolName: "mcp__docsearch__search", Description: "Go documentation",
	}})

	res, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "golang context"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.LocalDocs) != 1 || res.LocalDocs[0].MCPTool != "mcp__docsearch__search" || len(res.Results) != 2 {
		t.Fatalf("result = %+v", res)
	}
	if !strings.Contains(res.Text(), `call the MCP tool mcp__docsearch__search with path "/idx/go"`) {
		t.Errorf("text lacks the docs note:\n%s", res.Text())
	}
	if fake.Count("/search") != 1 {
		t.Errorf("searches = %d, want 1", fake.Count("/search"))
	}
}

func TestSearch_RejectsAnEmptyQueryOrABadCountAsBadInput(t *testing.T) {
	fake := &fakeweb.Tavily{Hits: hits}
	tools := newTools(t, fake)
	for _, req := range []webtools.SearchRequest{{Query: "  "}, {Query: "q", MaxResults: 21}, {Query: "q", MaxResults: -1}} {
		_, err := tools.Search(context.Background(), req)
		if e := reasonOf(t, err); e.Reason != webtools.BadInput {
			t.Errorf("%+v: reason %s, want bad-input", req, e.Reason)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("requests = %d, want none", n)
	}
}

func TestSearch_WithoutASearcherIsNotConfiguredAndSaysWhatToSet(t *testing.T) {
	tools := &webtools.Tools{SearchHint: "Set TAVILY_API_KEY."}
	_, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q"})
	e := reasonOf(t, err)
	if e.Reason != webtools.NotConfigured || !strings.Contains(e.Message, "TAVILY_API_KEY") {
		t.Fatalf("error = %+v", e)
	}
}

func TestSearch_RejectedKeyIsAuthFailedWithoutTheKey(t *testing.T) {
	fake := &fakeweb.Tavily{Key: "another-key", Hits: hits}
	tools := newTools(t, fake)
	_, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q"})
	e := reasonOf(t, err)
	if e.Reason != webtools.ProviderFailed || e.Class != provider.ClassAuthFailed ||
		len(e.Failures) != 1 || e.Failures[0].Provider != "tavily" || !strings.Contains(e.Message, "tavily (auth-failed)") {
		t.Fatalf("error = %+v", e)
	}
}

func TestSearch_ListsProvidersThatFailedWhileOthersAnswered(t *testing.T) {
	good := newTools(t, &fakeweb.Tavily{Hits: hits}).Searcher
	bad := newTools(t, &fakeweb.Tavily{SearchStatus: 432}).Searcher
	both, err := policy.NewSearch(policy.ModeParallel, []provider.Searcher{named{good, "tavily"}, named{bad, "second"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := &webtools.Tools{Searcher: both}
	res, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Class != provider.ClassCreditOrQuota {
		t.Fatalf("failed = %+v", res.Failed)
	}
	if !strings.Contains(res.Text(), "Providers that failed: second (credit-or-quota-failed).") {
		t.Errorf("text lacks the failure line:\n%s", res.Text())
	}
}

type named struct {
	provider.Searcher
	name string
}

func (n named) Name() string { return n.name }

func TestFetch_ReadablePageIsConvertedHereWithoutExtraction(t *testing.T) {
	fake := &fakeweb.Tavily{}
	tools := newTools(t, fake)
	pages := fakeweb.Pages(t)

	res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + "/readable/docs-page.html"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != webtools.PathReadable || res.Class != classify.FetchReadable || res.Status != 200 {
		t.Fatalf("result = %+v", res)
	}
	for _, want := range []string{"## Workers", "```\nworkers: 8", "| `read_timeout` | 30s |"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("content lacks %q:\n%s", want, res.Content)
		}
	}
	// The title is the result's field; the content does not repeat it.
	if !strings.HasPrefix(res.Title, "Configuration reference") || strings.Contains(res.Content, "# Configuration reference") {
		t.Errorf("title %q; content:\n%s", res.Title, res.Content)
	}
	if strings.Contains(res.Content, "Installation") {
		t.Errorf("content keeps the sidebar navigation:\n%s", res.Content)
	}
	if fake.Count("/extract") != 0 {
		t.Errorf("extractions = %d, want 0 for a readable page", fake.Count("/extract"))
	}
	if s := res.Summary(); !strings.HasPrefix(s, "fetch-readable (") || !strings.Contains(s, "converted from the page's own HTML") {
		t.Errorf("summary = %q", s)
	}
}

func TestFetch_AppShellsGoToExtraction(t *testing.T) {
	pages := fakeweb.Pages(t)
	for _, tc := range []struct {
		page  string
		class classify.Class
		order webpage.Order
	}{
		{"/browser-render-required/react-cra-empty-root.html", classify.BrowserRenderRequired, ""},
		{"/template-heavy/news-homepage.html", classify.TemplateHeavy, webpage.ProvidersFirst},
	} {
		t.Run(tc.page, func(t *testing.T) {
			fake := &fakeweb.Tavily{Pages: map[string]string{pages + tc.page: "# Extracted\n\nThe real text."}}
			tools := newTools(t, fake)
			tools.Reader.Order = tc.order
			res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + tc.page, Prompt: "what is new"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Path != webtools.PathExtraction || res.Class != tc.class || res.Provider != "tavily" || res.Content != "# Extracted\n\nThe real text." {
				t.Fatalf("result = %+v", res)
			}
			if q, ok := fake.Requests()[0].Body["query"]; ok {
				t.Errorf("extract query = %v, want none: the whole page is extracted and trimmed here", q)
			}
			text := res.Text(0)
			for _, want := range []string{"Read: " + string(tc.class), "extracted via tavily because the page", "Request: what is new", "The real text."} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
		})
	}
}

func TestFetch_TemplateHeavyPageIsReadFromItsStructureWithoutExtraction(t *testing.T) {
	pages := fakeweb.Pages(t)
	fake := &fakeweb.Tavily{}
	tools := newTools(t, fake)
	res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + "/template-heavy/news-homepage.html"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != webtools.PathReadable || res.Class != classify.TemplateHeavy || !strings.Contains(res.Content, "City approves budget") || !strings.Contains(res.Note, "structure") {
		t.Fatalf("result = %+v", res)
	}
	if s := res.Summary(); !strings.Contains(s, "the page's structure") {
		t.Errorf("summary = %q", s)
	}
	if fake.Count("/extract") != 0 {
		t.Errorf("extractions = %d, want 0", fake.Count("/extract"))
	}
}

// shellWithText is an app shell whose HTML holds enough text to fall back
// on.
const shellWithText = "/browser-render-required/cra-div-menu-cookie-banner.html"

func TestFetch_FallsBackToThePagesOwnTextWhenExtractionFails(t *testing.T) {
	pages := fakeweb.Pages(t)
	tools := newTools(t, &fakeweb.Tavily{ExtractStatus: 432})
	res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + shellWithText})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != webtools.PathReadableFallback || strings.TrimSpace(res.Content) == "" ||
		!strings.Contains(res.Note, "extraction failed (tavily (credit-or-quota-failed))") ||
		len(res.Failed) != 1 || res.Failed[0].Class != provider.ClassCreditOrQuota {
		t.Fatalf("result = %+v", res)
	}
}

func TestFetch_AppShellWithFailingExtractionIsAProviderFailure(t *testing.T) {
	pages := fakeweb.Pages(t)
	tools := newTools(t, &fakeweb.Tavily{Key: "other"})
	_, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + "/browser-render-required/react-cra-empty-root.html"})
	e := reasonOf(t, err)
	if e.Reason != webtools.ProviderFailed || e.Class != provider.ClassAuthFailed || !strings.Contains(e.Message, "shows its content only after JavaScript runs") ||
		!strings.Contains(e.Message, "extraction failed: tavily (auth-failed)") || strings.Count(e.Message, "auth-failed") != 1 {
		t.Fatalf("error = %+v", e)
	}
}

func TestFetch_WithoutAnExtractorUsesThePageTextOrSaysWhatToSet(t *testing.T) {
	pages := fakeweb.Pages(t)
	tools := &webtools.Tools{Reader: &webpage.Reader{Probe: webpage.ProbeConfig{AllowPrivate: true}}, ExtractHint: "Set TAVILY_API_KEY."}
	res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + shellWithText})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != webtools.PathReadableFallback || !strings.Contains(res.Note, "no extraction provider is configured") || !strings.Contains(res.Note, "TAVILY_API_KEY") {
		t.Fatalf("result = %+v", res)
	}
	_, err = tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + "/browser-render-required/vite-react-empty-root.html"})
	if e := reasonOf(t, err); e.Reason != webtools.NotConfigured || !strings.Contains(e.Message, "TAVILY_API_KEY") {
		t.Fatalf("error = %+v", e)
	}
}

// Under fetch.order = local-only, a page no local tier reads is not a
// missing key: the providers have keys, and the order keeps pages from
// them. The error and the fallback's note say so, and no provider is
// asked.
func TestFetch_LocalOnlySaysTheOrderKeptThePageFromTheProviders(t *testing.T) {
	pages := fakeweb.Pages(t)
	fake := &fakeweb.Tavily{}
	tools := newTools(t, fake)
	tools.ExtractHint = "Set TAVILY_API_KEY."
	tools.Reader.Order = webpage.LocalOnly
	res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + shellWithText})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Note, "local only") || strings.Contains(res.Note, "no extraction provider is configured") {
		t.Errorf("fallback note = %q", res.Note)
	}
	_, err = tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + "/browser-render-required/vite-react-empty-root.html"})
	if e := reasonOf(t, err); e.Reason != webtools.PageUnavailable || !strings.Contains(e.Message, "local-only") || strings.Contains(e.Message, "API key") {
		t.Errorf("error = %+v", e)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("the provider was asked %d times", n)
	}
}

func TestFetch_ToolRouteAnswersWithItsMessageWithoutReadingThePage(t *testing.T) {
	fake := &fakeweb.Tavily{}
	tools := newTools(t, fake)
	tools.Routes, _ = routing.NewToolRouter([]routing.ToolRoute{{Name: "github", Pattern: `^https://github\.com/`, Message: "Use the gh CLI for GitHub."}})
	res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: "https://github.com/webgate-dev/webgate/issues/1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != webtools.PathRoute || res.Route != "github" || res.Text(100) != "Use the gh CLI for GitHub." {
		t.Fatalf("result = %+v", res)
	}
	if len(fake.Requests()) != 0 {
		t.Errorf("the fake got requests: %v", fake.Requests())
	}
}

func TestFetch_RefusesLoopbackUnlessPrivateAddressesAreAllowed(t *testing.T) {
	pages := fakeweb.Pages(t)
	fake := &fakeweb.Tavily{}
	tools := newTools(t, fake)
	tools.Reader.Probe.AllowPrivate = false
	_, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + "/readable/blog-article.html"})
	if e := reasonOf(t, err); e.Reason != webtools.BadInput || !strings.Contains(e.Message, "loopback") {
		t.Fatalf("error = %+v", e)
	}
	if len(fake.Requests()) != 0 {
		t.Errorf("a refused address went to extraction: %v", fake.Requests())
	}
}

func TestFetch_RejectsURLsThatAreNotHTTP(t *testing.T) {
	tools := &webtools.Tools{}
	for _, u := range []string{"", "file:///etc/passwd", "ftp://example.org/", "https://", "https://user:pw@example.org/", "not a url"} {
		_, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: u})
		if e := reasonOf(t, err); e.Reason != webtools.BadInput {
			t.Errorf("%q: reason %s, want bad-input", u, e.Reason)
		}
	}
}

func TestFetch_NotFoundIsPageUnavailableWithoutExtraction(t *testing.T) {
	pages := fakeweb.Pages(t)
	fake := &fakeweb.Tavily{}
	tools := newTools(t, fake)
	_, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + "/missing"})
	if e := reasonOf(t, err); e.Reason != webtools.PageUnavailable || !strings.Contains(e.Message, "HTTP 404") {
		t.Fatalf("error = %+v", e)
	}
	if len(fake.Requests()) != 0 {
		t.Errorf("a 404 went to extraction")
	}
}

func TestFetch_RefusingStatusGoesToExtraction(t *testing.T) {
	pages := fakeweb.Pages(t)
	fake := &fakeweb.Tavily{Pages: map[string]string{pages + "/forbidden": "Members-only text."}}
	tools := newTools(t, fake)
	res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + "/forbidden"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != webtools.PathExtraction || res.Why != "refused a direct read (HTTP 403)" || res.Content != "Members-only text." {
		t.Fatalf("result = %+v", res)
	}
}

func TestFetch_PlainTextIsReturnedAsServed(t *testing.T) {
	pages := fakeweb.Pages(t)
	tools := newTools(t, &fakeweb.Tavily{})
	res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + "/notes.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != webtools.PathReadable || res.Class != "" || res.Content != "Plain notes.\nSecond line.\n" || !strings.HasPrefix(res.Summary(), "not HTML (text/plain)") {
		t.Fatalf("result = %+v, summary %q", res, res.Summary())
	}
}

func TestFetch_UnreachablePageGoesToExtraction(t *testing.T) {
	const dead = "http://127.0.0.1:1/page"
	fake := &fakeweb.Tavily{Pages: map[string]string{dead: "# Cached\n\nText from the provider."}}
	tools := newTools(t, fake)
	res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: dead})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != webtools.PathExtraction || !strings.HasPrefix(res.Why, "could not be read directly") || res.Title != "Cached" {
		t.Fatalf("result = %+v", res)
	}
}

func TestFetchResult_TextCutsLongContentAndSaysSo(t *testing.T) {
	res := &webtools.FetchResult{URL: "https://example.org/", Path: webtools.PathExtraction, Provider: "tavily", Why: "is mostly navigation and page template",
		Content: strings.Repeat("A paragraph of text that goes on.\n\n", 400)}
	text := res.Text(2000)
	if n := len([]rune(text)); n > 2000 {
		t.Errorf("text has %d characters, want at most 2000", n)
	}
	if !strings.Contains(text, "[Content cut to fit the size limit: only the beginning of the page is shown") {
		t.Errorf("text lacks the cut notice:\n%s", text[len(text)-300:])
	}
	if full := res.Text(0); !strings.HasSuffix(full, "goes on.\n") || strings.Contains(full, "[Content cut") {
		t.Errorf("Text(0) cut the content")
	}
}

func TestTools_ScrubSecretsFromContent(t *testing.T) {
	pages := fakeweb.Pages(t)
	fake := &fakeweb.Tavily{Pages: map[string]string{pages + "/forbidden": "leaked " + secret + " here"}}
	tools := newTools(t, fake)
	res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: pages + "/forbidden"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Content, secret) || !strings.Contains(res.Content, "[redacted]") {
		t.Fatalf("content = %q", res.Content)
	}
}

func TestSearch_AsksForThePolicysDefaultCountWhenLeftOpen(t *testing.T) {
	fake := &fakeweb.Tavily{Hits: hits}
	tools := newTools(t, fake)
	if _, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q"}); err != nil {
		t.Fatal(err)
	}
	if got := fake.Requests()[0].Body["max_results"]; got != float64(policy.DefaultMaxResults) {
		t.Errorf("max_results = %v, want %d", got, policy.DefaultMaxResults)
	}
}

func TestSearch_PassesTheTimeRangeAndRejectsAnUnknownOne(t *testing.T) {
	var got provider.TimeRange
	tools := &webtools.Tools{Searcher: searcherFunc(func(_ context.Context, q provider.Query) (*provider.Results, error) {
		got = q.TimeRange
		return &provider.Results{}, nil
	})}
	if _, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q", TimeRange: provider.PastWeek}); err != nil || got != provider.PastWeek {
		t.Fatalf("time range %q, error %v", got, err)
	}
	_, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q", TimeRange: "fortnight"})
	if e := reasonOf(t, err); e.Reason != webtools.BadInput || !strings.Contains(e.Message, "time_range") {
		t.Fatalf("error = %+v", e)
	}
}

func TestSearch_RateLimitIsItsOwnClassWithTheLegacyNameAlongside(t *testing.T) {
	tools := &webtools.Tools{Searcher: searcherFunc(func(context.Context, provider.Query) (*provider.Results, error) {
		return nil, &provider.Error{Provider: "tavily", Op: "search", Status: 429, Kind: provider.KindRateLimited}
	})}
	_, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q"})
	e := reasonOf(t, err)
	if e.Class != provider.ClassRateLimited || len(e.Failures) != 1 || e.Failures[0].LegacyClass != provider.ClassCreditOrQuota {
		t.Fatalf("error = %+v", e)
	}
	if !strings.HasPrefix(e.Message, "every provider failed: tavily (rate-limited).") || !strings.Contains(e.Message, "wait a little or add another key") {
		t.Errorf("message = %q", e.Message)
	}
	raw, _ := json.Marshal(e.Failures[0])
	if string(raw) != `{"provider":"tavily","class":"rate-limited","legacy_class":"credit-or-quota-failed"}` {
		t.Errorf("JSON = %s", raw)
	}
	raw, _ = json.Marshal(webtools.Failure{Provider: "exa", Class: provider.ClassAuthFailed})
	if strings.Contains(string(raw), "legacy_class") {
		t.Errorf("a class without another name has a legacy_class: %s", raw)
	}
}

func TestFetch_ALoopbackPageIsNeverSentToAThirdPartyProvider(t *testing.T) {
	pages := fakeweb.Pages(t)
	u := pages + "/browser-render-required/react-cra-empty-root.html"
	fake := &fakeweb.Tavily{Pages: map[string]string{u: "# Extracted\n\nThe provider read the loopback page."}}
	tools := newTools(t, fake)
	tools.Reader.PrivateExtractor = false // a provider on the Internet
	_, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: u})
	var e *webtools.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "not sent to an extraction provider: 127.0.0.1 is a loopback address") {
		t.Fatalf("err = %v; want the reason the provider was not asked", err)
	}
	if n := fake.Count("/extract"); n != 0 {
		t.Errorf("the provider was asked %d times for a loopback page", n)
	}
}

// The summary names what was read of a page the classifier doubted: its
// structure, or its main content when the reader found its article.
func TestFetchResult_SummarySaysWhetherTheStructureOrTheArticleWasRead(t *testing.T) {
	why := "is mostly navigation and page template"
	for _, tc := range []struct {
		mode webpage.ConvertMode
		want string
	}{
		{webpage.ConvertStructure, "the page's structure, converted from its own HTML (the page " + why + ")"},
		{webpage.ConvertArticle, "the page's main content, converted from its own HTML (the page " + why + ", but its article was found)"},
	} {
		r := &webtools.FetchResult{Class: classify.TemplateHeavy, Confidence: 0.8, Path: webtools.PathReadable, Why: why, Mode: tc.mode}
		if got := r.Summary(); got != "template-heavy (0.80); "+tc.want {
			t.Errorf("mode %q: summary %q", tc.mode, got)
		}
	}
}
