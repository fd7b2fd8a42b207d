package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webgate-dev/webgate/cmd/internal/mcpserver"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/tavily"
	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/webpage"
)

const secret = "tvly-SECRET-51c0aa"

// connect serves tools over in-memory transports and returns a connected
// client session from the SDK.
func connect(t *testing.T, tools *webtools.Tools, opts *mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(tools, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func fakeTools(t *testing.T, fake *fakeweb.Tavily) *webtools.Tools {
	t.Helper()
	if fake.Key == "" {
		fake.Key = secret
	}
	client, err := tavily.New(provider.NewPool([]string{secret}, nil), &tavily.Config{BaseURL: fake.Start(t)})
	if err != nil {
		t.Fatal(err)
	}
	// The fake provider runs on loopback, as a self-hosted one would, so
	// it may read the loopback pages.
	return &webtools.Tools{Searcher: client, Reader: &webpage.Reader{Extractor: client, Probe: webpage.ProbeConfig{AllowPrivate: true}, PrivateExtractor: true}, Secrets: []string{secret}}
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (text string, isError bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	var parts []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s: content %T, want text", tool, c)
		}
		parts = append(parts, tc.Text)
	}
	text = strings.Join(parts, "\n")
	if strings.Contains(text, secret) {
		t.Fatalf("%s: output leaks the key: %q", tool, text)
	}
	return text, res.IsError
}

var hits = []fakeweb.Hit{{Title: "Context package", URL: "https://pkg.go.dev/context", Content: "Package context defines the Context type."}}

func TestServer_ListsBothToolsWithDescribedInputSchemas(t *testing.T) {
	cs := connect(t, &webtools.Tools{}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	for name, props := range map[string][]string{
		mcpserver.SearchTool: {"query", "allowed_domains", "blocked_domains", "max_results", "time_range", "topic"},
		mcpserver.FetchTool:  {"url", "prompt", "offset", "max_chars"},
	} {
		tl, ok := tools[name]
		if !ok {
			t.Fatalf("tool %s not listed; got %v", name, tools)
		}
		if tl.Description == "" || tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("%s: description %q, annotations %+v", name, tl.Description, tl.Annotations)
		}
		raw, _ := json.Marshal(tl.InputSchema)
		var schema struct {
			Required   []string `json:"required"`
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		for _, p := range props {
			if schema.Properties[p].Description == "" {
				t.Errorf("%s: property %s lacks a description: %s", name, p, raw)
			}
		}
		if len(schema.Required) != 1 || schema.Required[0] != props[0] {
			t.Errorf("%s: required = %v, want [%s]", name, schema.Required, props[0])
		}
	}
	// web_fetch reads pages locally first and PDFs too: its description
	// says so, rather than sending every script-built page to a service.
	d := tools[mcpserver.FetchTool].Description
	for _, want := range []string{"PDF", "rendered in a browser", "the data they embed"} {
		if !strings.Contains(d, want) {
			t.Errorf("web_fetch description lacks %q: %s", want, d)
		}
	}
}

func TestWebSearch_ReturnsResultsAsText(t *testing.T) {
	cs := connect(t, fakeTools(t, &fakeweb.Tavily{Hits: hits}), nil)
	text, isErr := call(t, cs, mcpserver.SearchTool, map[string]any{"query": "golang context", "max_results": 3})
	if isErr || !strings.Contains(text, "1. Context package\n   https://pkg.go.dev/context\n   Package context defines") {
		t.Fatalf("isError %v, text:\n%s", isErr, text)
	}
}

func TestWebSearch_NotesLocalDocsAndStillAnswers(t *testing.T) {
	tools := fakeTools(t, &fakeweb.Tavily{Hits: hits})
	tools.Docs, _ = routing.NewDocsRouter([]routing.Database{{Keywords: []string{"golang"}, Path: "/idx/go", MCPToolName: "mcp__docs__search", Description: "Go docs"}})
	text, isErr := call(t, connect(t, tools, nil), mcpserver.SearchTool, map[string]any{"query": "golang context"})
	if isErr || !strings.Contains(text, "mcp__docs__search") || !strings.Contains(text, "pkg.go.dev/context") {
		t.Fatalf("isError %v, text:\n%s", isErr, text)
	}
}

func TestWebSearch_FailuresAreToolErrorsNamingTheClass(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fake  *fakeweb.Tavily
		tools *webtools.Tools
		args  map[string]any
		want  []string
	}{
		{"rejected key", &fakeweb.Tavily{Key: "other"}, nil, map[string]any{"query": "q"}, []string{"web_search failed (auth-failed): every provider failed: tavily. "}},
		{"quota", &fakeweb.Tavily{SearchStatus: 432}, nil, map[string]any{"query": "q"}, []string{"web_search failed (credit-or-quota-failed)"}},
		{"no keys", nil, &webtools.Tools{SearchHint: "Set TAVILY_API_KEY or EXA_API_KEY."}, map[string]any{"query": "q"}, []string{"web_search failed (not-configured)", "TAVILY_API_KEY or EXA_API_KEY"}},
		{"blank query", &fakeweb.Tavily{}, nil, map[string]any{"query": "   "}, []string{"web_search failed (bad-input)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools := tc.tools
			if tools == nil {
				tools = fakeTools(t, tc.fake)
			}
			text, isErr := call(t, connect(t, tools, nil), mcpserver.SearchTool, tc.args)
			if !isErr {
				t.Fatalf("isError false, text %q", text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("text %q lacks %q", text, w)
				}
			}
		})
	}
}

func TestWebSearch_SchemaViolationsAreToolErrorsNotCrashes(t *testing.T) {
	cs := connect(t, fakeTools(t, &fakeweb.Tavily{Hits: hits}), nil)
	for _, args := range []map[string]any{{}, {"query": 42}, {"query": "q", "max_results": 99}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.SearchTool, Arguments: args})
		if err != nil {
			t.Fatalf("%v: protocol error %v", args, err)
		}
		if !res.IsError {
			t.Errorf("%v: isError false", args)
		}
	}
	// The server still answers afterwards.
	if text, isErr := call(t, cs, mcpserver.SearchTool, map[string]any{"query": "q"}); isErr {
		t.Fatalf("after bad calls: %s", text)
	}
}

func TestWebFetch_ReturnsReadablePagesAsMarkdown(t *testing.T) {
	pages := fakeweb.Pages(t)
	fake := &fakeweb.Tavily{}
	text, isErr := call(t, connect(t, fakeTools(t, fake), nil), mcpserver.FetchTool, map[string]any{"url": pages + "/readable/docs-page.html"})
	if isErr {
		t.Fatal(text)
	}
	for _, want := range []string{"Title: Configuration reference", "Read: fetch-readable", "## Timeouts", "```\nworkers: 8"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if fake.Count("/extract") != 0 {
		t.Errorf("a readable page went to extraction")
	}
}

func TestWebFetch_ExtractsAppShellsAndCutsToMaxChars(t *testing.T) {
	pages := fakeweb.Pages(t)
	u := pages + "/browser-render-required/angular-app-root.html"
	long := "# App\n\n" + strings.Repeat("Rendered text of the application. ", 400)
	cs := connect(t, fakeTools(t, &fakeweb.Tavily{Pages: map[string]string{u: long}}), &mcpserver.Options{MaxChars: 3000})
	text, isErr := call(t, cs, mcpserver.FetchTool, map[string]any{"url": u, "prompt": "what does it do"})
	if isErr {
		t.Fatal(text)
	}
	if !strings.Contains(text, "extracted via tavily") || !strings.Contains(text, "Rendered text") || !strings.Contains(text, "[Content cut to fit the size limit") {
		t.Errorf("text:\n%s", text)
	}
	if n := len([]rune(text)); n > 3000 {
		t.Errorf("text has %d characters, want at most 3000", n)
	}
}

func TestWebFetch_ToolRouteMessageIsTheResultNotAnError(t *testing.T) {
	tools := &webtools.Tools{}
	tools.Routes, _ = routing.NewToolRouter([]routing.ToolRoute{{Name: "gh", Pattern: `github\.com`, Message: "Use gh api for GitHub URLs."}})
	text, isErr := call(t, connect(t, tools, nil), mcpserver.FetchTool, map[string]any{"url": "https://github.com/a/b"})
	if isErr || text != "Use gh api for GitHub URLs." {
		t.Fatalf("isError %v, text %q", isErr, text)
	}
}

func TestWebFetch_FailuresAreToolErrors(t *testing.T) {
	pages := fakeweb.Pages(t)
	for _, tc := range []struct {
		name, url string
		fake      *fakeweb.Tavily
		want      string
	}{
		{"not http", "file:///etc/passwd", &fakeweb.Tavily{}, "web_fetch failed (bad-input)"},
		{"not found", pages + "/missing", &fakeweb.Tavily{}, "web_fetch failed (page-unavailable)"},
		{"extraction quota", pages + "/browser-render-required/nuxt-empty-nuxt.html", &fakeweb.Tavily{ExtractStatus: 432}, "web_fetch failed (credit-or-quota-failed)"},
		{"extraction auth", pages + "/browser-render-required/nuxt-empty-nuxt.html", &fakeweb.Tavily{Key: "other"}, "web_fetch failed (auth-failed)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, isErr := call(t, connect(t, fakeTools(t, tc.fake), nil), mcpserver.FetchTool, map[string]any{"url": tc.url})
			if !isErr || !strings.Contains(text, tc.want) {
				t.Fatalf("isError %v, text %q; want an error containing %q", isErr, text, tc.want)
			}
		})
	}
}

func TestWebFetch_RefusesLoopbackByDefault(t *testing.T) {
	pages := fakeweb.Pages(t)
	tools := fakeTools(t, &fakeweb.Tavily{})
	tools.Reader.Probe.AllowPrivate = false
	text, isErr := call(t, connect(t, tools, nil), mcpserver.FetchTool, map[string]any{"url": pages + "/readable/blog-article.html"})
	if !isErr || !strings.Contains(text, "bad-input") || !strings.Contains(text, "loopback") {
		t.Fatalf("isError %v, text %q", isErr, text)
	}
}

// panicky is a Searcher that panics, to show the server survives it.
type panicky struct{}

func (panicky) Search(context.Context, provider.Query) (*provider.Results, error) { panic("boom") }

func TestServer_SurvivesAPanickingProvider(t *testing.T) {
	cs := connect(t, &webtools.Tools{Searcher: panicky{}}, nil)
	text, isErr := call(t, cs, mcpserver.SearchTool, map[string]any{"query": "q"})
	if !isErr || !strings.Contains(text, "(unknown)") {
		t.Fatalf("isError %v, text %q", isErr, text)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("server gone after a panic: %v", err)
	}
}

// searcherFunc is a provider.Searcher made of a function.
type searcherFunc func(ctx context.Context, q provider.Query) (*provider.Results, error)

func (f searcherFunc) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	return f(ctx, q)
}

func TestWebSearch_PassesTheTimeRangeAndRefusesAnUnknownOne(t *testing.T) {
	got := make(chan provider.TimeRange, 1)
	cs := connect(t, &webtools.Tools{Searcher: searcherFunc(func(_ context.Context, q provider.Query) (*provider.Results, error) {
		got <- q.TimeRange
		return &provider.Results{}, nil
	})}, nil)
	if text, isErr := call(t, cs, mcpserver.SearchTool, map[string]any{"query": "q", "time_range": "week"}); isErr {
		t.Fatal(text)
	}
	if r := <-got; r != provider.PastWeek {
		t.Errorf("time range = %q, want week", r)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.SearchTool, Arguments: map[string]any{"query": "q", "time_range": "fortnight"}})
	if err != nil || !res.IsError {
		t.Fatalf("an unknown time range: error %v, result %+v", err, res)
	}
}

func TestWebSearch_ARateLimitStatesItsClassOnce(t *testing.T) {
	cs := connect(t, &webtools.Tools{Searcher: searcherFunc(func(context.Context, provider.Query) (*provider.Results, error) {
		return nil, &provider.Error{Provider: "tavily", Op: "search", Status: 429, Kind: provider.KindRateLimited}
	})}, nil)
	text, isErr := call(t, cs, mcpserver.SearchTool, map[string]any{"query": "q"})
	if !isErr || !strings.HasPrefix(text, "web_search failed (rate-limited): every provider failed: tavily. ") {
		t.Fatalf("isError %v, text %q", isErr, text)
	}
	if n := strings.Count(text, "rate-limited"); n != 1 {
		t.Errorf("the class appears %d times, want once: %q", n, text)
	}
}

// namedSearcher gives a searcher a provider name.
type namedSearcher struct {
	name string
	provider.Searcher
}

func (n namedSearcher) Name() string { return n.name }

func TestWebSearch_AProviderThatFailedOtherwiseKeepsItsOwnClass(t *testing.T) {
	fail := func(name string, status int, kind provider.Kind) provider.Searcher {
		return namedSearcher{name, searcherFunc(func(context.Context, provider.Query) (*provider.Results, error) {
			return nil, &provider.Error{Provider: name, Op: "search", Status: status, Kind: kind}
		})}
	}
	both, err := policy.NewParallel([]provider.Searcher{fail("tavily", 432, provider.KindQuota), fail("exa", 401, provider.KindAuth)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, &webtools.Tools{Searcher: both}, nil)
	text, isErr := call(t, cs, mcpserver.SearchTool, map[string]any{"query": "q"})
	if !isErr || strings.Count(text, "credit-or-quota-failed")+strings.Count(text, "auth-failed") != 2 {
		t.Fatalf("isError %v, text %q: want the overall class once and the other provider's class once", isErr, text)
	}
}

// With ToolsFor, each call uses the tools it returns for the call, and the
// tools given to New when it returns nil.
func TestServer_ToolsForChoosesEachCallsTools(t *testing.T) {
	named := func(name string) *webtools.Tools {
		return &webtools.Tools{Searcher: searcherFunc(func(_ context.Context, q provider.Query) (*provider.Results, error) {
			return &provider.Results{Query: q.Text, Provider: name, Results: []provider.Result{{Title: "from " + name, URL: "https://example.com/", Provider: name}}}, nil
		})}
	}
	var other atomic.Bool
	cs := connect(t, named("given"), &mcpserver.Options{ToolsFor: func(context.Context) *webtools.Tools {
		if other.Load() {
			return named("chosen")
		}
		return nil
	}})
	if text, _ := call(t, cs, mcpserver.SearchTool, map[string]any{"query": "q"}); !strings.Contains(text, "from given") {
		t.Errorf("ToolsFor returning nil: %q, want the tools given to New", text)
	}
	other.Store(true)
	if text, _ := call(t, cs, mcpserver.SearchTool, map[string]any{"query": "q"}); !strings.Contains(text, "from chosen") {
		t.Errorf("ToolsFor returning tools: %q, want theirs", text)
	}
}
