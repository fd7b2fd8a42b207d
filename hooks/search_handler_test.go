package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

func preSearch(query string) *Input {
	in, err := ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":` + jsonString(query) + `,"allowed_domains":["go.dev"],"blocked_domains":["bad.example"]}}`))
	if err != nil {
		panic(err)
	}
	return in
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestHandleWebSearch_DeniesWithProviderResults(t *testing.T) {
	s := okSearcher(3)
	d := HandleWebSearch(context.Background(), preSearch("golang generics"), &WebSearchEnv{Searcher: s})
	if d.Action != Deny {
		t.Fatalf("action = %v, want deny; diagnostics %q", d.Action, d.Diagnostics)
	}
	q := s.last.Load()
	if q.Text != "golang generics" || strings.Join(q.IncludeDomains, ",") != "go.dev" || strings.Join(q.ExcludeDomains, ",") != "bad.example" || q.MaxResults != DefaultMaxResults {
		t.Errorf("query = %+v", q)
	}
	for _, want := range []string{
		`Web search results for query "golang generics"`, "via webgate (fake)", "not the native WebSearch tool",
		"1. Result number 1\n   https://example.com/r/1\n   Snippet for result 1 with some words.",
		"3. Result number 3", "REMINDER: cite the sources", "Markdown links",
	} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason lacks %q:\n%s", want, d.Reason)
		}
	}
	if strings.Contains(d.Reason, "debug") {
		t.Errorf("normal mode reason has a debug footer:\n%s", d.Reason)
	}
	if len(d.Diagnostics) != 0 {
		t.Errorf("normal mode diagnostics = %q, want none", d.Diagnostics)
	}
}

func TestHandleWebSearch_NamesProvidersThatFailedWithTheirClass(t *testing.T) {
	s := &fakeSearcher{name: "parallel", fn: func(context.Context, provider.Query) (*provider.Results, error) {
		r := resultsOf(2)
		r.Failures = []provider.Failure{{Provider: "exa", Kind: provider.KindQuota}, {Provider: "tavily", Kind: provider.KindTransient, TimedOut: true}}
		return r, nil
	}}
	d := HandleWebSearch(context.Background(), preSearch("abc"), &WebSearchEnv{Searcher: s})
	want := "Providers that failed: exa (credit-or-quota-failed), tavily (transient-provider-failed, timed out)."
	if !strings.Contains(d.Reason, want) {
		t.Errorf("reason lacks %q:\n%s", want, d.Reason)
	}
}

func TestHandleWebSearch_CapsTheReasonAndSaysResultsWereCut(t *testing.T) {
	s := &fakeSearcher{fn: func(context.Context, provider.Query) (*provider.Results, error) {
		r := resultsOf(40)
		for i := range r.Results {
			r.Results[i].Snippet = strings.Repeat("word ", 200)
		}
		return r, nil
	}}
	for _, max := range []int{0, 1500, 20000} {
		env := &WebSearchEnv{Searcher: s, Settings: Settings{MaxReasonChars: max}}
		d := HandleWebSearch(context.Background(), preSearch("many results"), env)
		limit := env.Settings.maxChars()
		if n := textLen(d.Reason); n > limit || n >= 10000 {
			t.Errorf("max %d: reason is %d chars, want ≤ %d", max, n, limit)
		}
		if !strings.Contains(d.Reason, "[Results cut to fit the size limit:") || !strings.Contains(d.Reason, "of 40 shown.]") {
			t.Errorf("max %d: reason does not say results were cut:\n%s", max, d.Reason[len(d.Reason)-300:])
		}
		if !strings.HasSuffix(d.Reason, "Markdown links, e.g. [title](url).") {
			t.Errorf("max %d: reason does not end with the reminder", max)
		}
	}
}

func TestHandleWebSearch_PassesThroughWithoutKeys(t *testing.T) {
	d := HandleWebSearch(context.Background(), preSearch("abc"), &WebSearchEnv{})
	if d.Action != Pass || d.SystemMessage != "" {
		t.Fatalf("decision = %+v", d)
	}
	if !strings.Contains(strings.Join(d.Diagnostics, "\n"), "no search provider has an API key") {
		t.Errorf("diagnostics = %q", d.Diagnostics)
	}
	d = HandleWebSearch(context.Background(), preSearch("abc"), &WebSearchEnv{Settings: Settings{SystemMessage: true}})
	const msg = "webgate: no search provider has an API key; the native WebSearch tool runs instead"
	if d.SystemMessage != msg {
		t.Errorf("system message = %q", d.SystemMessage)
	}
	if got := decisionJSON(t, d, preSearch("abc")); got != `{"systemMessage":"`+msg+`"}`+"\n" {
		t.Errorf("output = %s", got)
	}
}

func TestHandleWebSearch_PassesThroughOnConfigurationProblems(t *testing.T) {
	s := okSearcher(1)
	d := HandleWebSearch(context.Background(), preSearch("abc"), &WebSearchEnv{Searcher: s, Problems: []string{"search.mode (env WEBGATE_SEARCH_MODE): want parallel"}})
	if d.Action != Pass || s.calls.Load() != 0 {
		t.Fatalf("decision = %+v, calls %d", d, s.calls.Load())
	}
	if !strings.Contains(strings.Join(d.Diagnostics, "\n"), "invalid configuration: search.mode") {
		t.Errorf("diagnostics = %q", d.Diagnostics)
	}
}

func TestHandleWebSearch_PassesThroughWhenEveryProviderFails(t *testing.T) {
	s := &fakeSearcher{fn: func(context.Context, provider.Query) (*provider.Results, error) {
		return nil, &policy.AllFailedError{Policy: "parallel(tavily,exa)", Op: "search", Failures: []provider.Failure{
			{Provider: "tavily", Kind: provider.KindAuth, Err: &provider.Error{Provider: "tavily", Kind: provider.KindAuth, Status: 401}},
			{Provider: "exa", Kind: provider.KindRateLimited, Err: &provider.Error{Provider: "exa", Kind: provider.KindRateLimited, Status: 429}},
		}}
	}}
	d := HandleWebSearch(context.Background(), preSearch("abc"), &WebSearchEnv{Searcher: s, Settings: Settings{SystemMessage: true}})
	if d.Action != Pass {
		t.Fatalf("action = %v", d.Action)
	}
	want := "every search provider failed: tavily (auth-failed), exa (rate-limited)"
	if !strings.Contains(strings.Join(d.Diagnostics, "\n"), want) || !strings.Contains(d.SystemMessage, want) {
		t.Errorf("diagnostics %q / system message %q lack %q", d.Diagnostics, d.SystemMessage, want)
	}
}

func TestHandleWebSearch_StepsAsideWhenTheBudgetRunsOut(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	s := &fakeSearcher{fn: func(ctx context.Context, q provider.Query) (*provider.Results, error) {
		<-block // ignores ctx on purpose
		return resultsOf(1), nil
	}}
	start := time.Now()
	d := HandleWebSearch(context.Background(), preSearch("slow"), &WebSearchEnv{Searcher: s, Settings: Settings{Budget: 50 * time.Millisecond}})
	if d.Action != Pass {
		t.Fatalf("action = %v", d.Action)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("returned after %v", el)
	}
	if !strings.Contains(strings.Join(d.Diagnostics, "\n"), "did not finish within the 50ms budget") {
		t.Errorf("diagnostics = %q", d.Diagnostics)
	}
}

func TestHandleWebSearch_HonoursTheCallersDeadline(t *testing.T) {
	s := &fakeSearcher{fn: func(ctx context.Context, q provider.Query) (*provider.Results, error) {
		<-ctx.Done()
		return nil, &provider.Error{Provider: "fake", Kind: provider.KindTransient, Err: ctx.Err()}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	d := HandleWebSearch(ctx, preSearch("slow"), &WebSearchEnv{Searcher: s})
	if d.Action != Pass {
		t.Fatalf("action = %v", d.Action)
	}
}

func TestHandleWebSearch_IgnoresOtherToolsAndEvents(t *testing.T) {
	s := okSearcher(1)
	for _, payload := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"PostToolUse","tool_name":"WebSearch","tool_input":{"query":"abc"},"tool_response":{}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"mcp__ccs-websearch__WebSearch","tool_input":{"query":"abc"}}`,
		`{"hookEventName":"PreToolUse","sessionId":"v","tool_name":"vscode_searchWeb","tool_input":{"query":"abc"}}`,
		`{"toolName":"web_fetch","toolArgs":"{}"}`,
		`{"toolName":"mcp__ccs-websearch__WebSearch","toolArgs":"{}","toolResult":{"textResultForLlm":"x"}}`,
		`{"hook_event_name":"SessionStart","source":"startup"}`,
	} {
		in, err := ParseInput([]byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		d := HandleWebSearch(context.Background(), in, &WebSearchEnv{Searcher: s, Settings: Settings{Debug: true}})
		if d.Action != Pass || d.SystemMessage != "" || len(d.Diagnostics) != 0 || d.Output(in) != nil {
			t.Errorf("%s: decision = %+v", payload, d)
		}
	}
	if n := s.calls.Load(); n != 0 {
		t.Errorf("searches = %d, want 0", n)
	}
}

func TestHandleWebSearch_AcceptsConfiguredToolNames(t *testing.T) {
	in, _ := ParseInput([]byte(`{"hookEventName":"PreToolUse","tool_name":"vscode_searchWeb","tool_input":{"query":"abc"}}`))
	env := &WebSearchEnv{Searcher: okSearcher(1), Settings: Settings{Tools: ToolNames{WebSearch: []string{"WebSearch", "vscode_*"}}}}
	if d := HandleWebSearch(context.Background(), in, env); d.Action != Deny {
		t.Errorf("action = %v, want deny", d.Action)
	}
}

func TestHandleWebSearch_AddsCompanionBlockAfterMCPOutput(t *testing.T) {
	for _, tool := range []string{"mcp__ccs-websearch__WebSearch", "mcp__plugin_ccs_ccs-websearch__WebSearch"} {
		in, _ := ParseInput([]byte(`{"hook_event_name":"PostToolUse","tool_name":"` + tool + `","tool_input":{"query":"mcp query"},"tool_response":[{"type":"text","text":"ORIGINAL"}]}`))
		d := HandleWebSearch(context.Background(), in, &WebSearchEnv{Searcher: okSearcher(2)})
		if d.Action != ReplaceMCPOutput || len(d.MCPOutput) != 2 {
			t.Fatalf("%s: decision = %+v", tool, d)
		}
		if string(d.MCPOutput[0]) != `{"type":"text","text":"ORIGINAL"}` {
			t.Errorf("first block = %s", d.MCPOutput[0])
		}
		var b struct{ Type, Text string }
		if err := json.Unmarshal(d.MCPOutput[1], &b); err != nil || b.Type != "text" {
			t.Fatalf("companion block = %s", d.MCPOutput[1])
		}
		if !strings.HasPrefix(b.Text, "[webgate companion results]") || !strings.Contains(b.Text, `"mcp query"`) || !strings.Contains(b.Text, "https://example.com/r/2") {
			t.Errorf("companion text:\n%s", b.Text)
		}
	}
}

func TestHandleWebSearch_CompanionForAStringOutputKeepsTheString(t *testing.T) {
	in, _ := ParseInput([]byte(`{"hook_event_name":"PostToolUse","tool_name":"mcp__ccs-websearch__WebSearch","tool_input":{"query":"q q"},"tool_response":"plain"}`))
	d := HandleWebSearch(context.Background(), in, &WebSearchEnv{Searcher: okSearcher(1)})
	if d.Action != ReplaceMCPOutput || string(d.MCPOutput[0]) != `{"text":"plain","type":"text"}` {
		t.Fatalf("decision = %+v (%s)", d, d.MCPOutput)
	}
}

func TestHandleWebSearch_AddsFallbackResultsBeforeTheOriginalError(t *testing.T) {
	in, _ := ParseInput([]byte(`{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__ccs-websearch__WebSearch","tool_input":{"query":"q q"},"error":"MCP error -32000: upstream down"}`))
	d := HandleWebSearch(context.Background(), in, &WebSearchEnv{Searcher: okSearcher(2)})
	if d.Action != AddContext {
		t.Fatalf("decision = %+v", d)
	}
	r, e := strings.Index(d.Context, "https://example.com/r/1"), strings.Index(d.Context, "Original error from mcp__ccs-websearch__WebSearch: MCP error -32000: upstream down")
	if r < 0 || e < 0 || r > e {
		t.Errorf("context does not hold results then the error:\n%s", d.Context)
	}
	if !strings.HasPrefix(d.Context, "webgate fallback:") {
		t.Errorf("context is not labelled:\n%s", d.Context)
	}
}

func TestHandleWebSearch_FallbackStaysWithinASmallReasonCap(t *testing.T) {
	in, _ := ParseInput([]byte(`{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__ccs-websearch__WebSearch","tool_input":{"query":"q q"},"error":` + jsonString(strings.Repeat("upstream failure detail ", 80)) + `}`))
	for _, max := range []int{300, 1000, 9500} {
		d := HandleWebSearch(context.Background(), in, &WebSearchEnv{Searcher: okSearcher(8), Settings: Settings{MaxReasonChars: max}})
		if d.Action != AddContext || textLen(d.Context) > max {
			t.Errorf("cap %d: action %v, context of %d chars", max, d.Action, textLen(d.Context))
		}
		if max >= 1000 && (!strings.Contains(d.Context, "https://example.com/r/1") || !strings.Contains(d.Context, "Original error from")) {
			t.Errorf("cap %d: context lacks the results or the error:\n%s", max, d.Context)
		}
	}
}

func TestHandleWebSearch_DebugModeTracesAndAddsAFooter(t *testing.T) {
	s := &fakeSearcher{name: "parallel(a,b)", fn: func(context.Context, provider.Query) (*provider.Results, error) {
		r := resultsOf(1)
		r.Provider = "parallel(a,b)"
		r.Failures = []provider.Failure{{Provider: "b", Kind: provider.KindAuth, Elapsed: 12 * time.Millisecond, Err: errors.New("b search: auth (HTTP 401)")}}
		return r, nil
	}}
	env := &WebSearchEnv{Searcher: s, Settings: Settings{Debug: true, Trace: []string{"config: defaults, env TAVILY_API_KEY"}}}
	d := HandleWebSearch(context.Background(), preSearch("abc"), env)
	diag := strings.Join(d.Diagnostics, "\n")
	for _, want := range []string{"config: defaults, env TAVILY_API_KEY", "search via parallel(a,b): 1 result(s)", "provider b failed: auth (auth-failed) after 12ms"} {
		if !strings.Contains(diag, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diag)
		}
	}
	if !strings.Contains(d.Reason, "[webgate debug: parallel(a,b), 1 result(s)") || !strings.Contains(d.Reason, "failed: b (auth-failed)") {
		t.Errorf("reason lacks the debug footer:\n%s", d.Reason)
	}
}

func TestHandleWebSearch_ScrubsSecretsFromEveryOutput(t *testing.T) {
	const key = "tvly-SECRETKEY123456"
	s := &fakeSearcher{fn: func(context.Context, provider.Query) (*provider.Results, error) {
		r := resultsOf(1)
		r.Results[0].Snippet = "leaked " + key
		r.Failures = []provider.Failure{{Provider: "x", Kind: provider.KindAuth, Err: errors.New("bad key " + key)}}
		return r, nil
	}}
	d := HandleWebSearch(context.Background(), preSearch("abc"), &WebSearchEnv{Searcher: s, Settings: Settings{Debug: true, Secrets: []string{key}}})
	all := d.Reason + strings.Join(d.Diagnostics, "\n")
	if strings.Contains(all, key) || !strings.Contains(all, "[redacted]") {
		t.Errorf("secret not scrubbed:\n%s", all)
	}
}

func TestRenderResults_HandlesEmptyAndUntitledResults(t *testing.T) {
	got, _ := renderResults("H", &provider.Results{}, "", 1000)
	if !strings.Contains(got, "No results were found.") {
		t.Errorf("got %q", got)
	}
	got, _ = renderResults("H", &provider.Results{Results: []provider.Result{{URL: "https://x.example", Content: "long\ncontent"}}}, "", 1000)
	if !strings.Contains(got, "1. (untitled)\n   https://x.example\n   long content") {
		t.Errorf("got %q", got)
	}
}

func TestHandleWebSearch_TellsTheUserWhatItDidWhenAsked(t *testing.T) {
	d := HandleWebSearch(context.Background(), preSearch("abc"), &WebSearchEnv{Searcher: okSearcher(3), Settings: Settings{SystemMessage: true}})
	if d.Action != Deny || d.SystemMessage != "webgate: WebSearch answered with 3 result(s) via fake" {
		t.Errorf("decision = %+v", d)
	}
	out := decisionJSON(t, d, preSearch("abc"))
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.HasSuffix(out, `"systemMessage":"webgate: WebSearch answered with 3 result(s) via fake"}`+"\n") {
		t.Errorf("output = %s", out)
	}
}

func TestHandleWebSearch_CompanionStepsAsideQuietlyWithoutKeys(t *testing.T) {
	in, _ := ParseInput([]byte(`{"hook_event_name":"PostToolUse","tool_name":"mcp__ccs-websearch__WebSearch","tool_input":{"query":"q q"},"tool_response":[]}`))
	d := HandleWebSearch(context.Background(), in, &WebSearchEnv{Settings: Settings{SystemMessage: true}})
	if d.Action != Pass || d.SystemMessage != "" || d.Output(in) != nil {
		t.Errorf("decision = %+v", d)
	}
}

func TestRenderResults_LeavesOutResultsThatCannotBeCitedAsWebLinks(t *testing.T) {
	huge := "https://x.example/" + strings.Repeat("p", 100_000)
	res := &provider.Results{Results: []provider.Result{
		{Title: "Giant", URL: huge},
		{Title: "Script", URL: "javascript:alert(1)"},
		{Title: "Data", URL: "data:text/html,<script>"},
		{Title: "Good", URL: "https://good.example/a", Snippet: "kept"},
	}}
	got, _ := renderResults("H", res, "", 8000)
	if strings.Contains(got, "javascript:") || strings.Contains(got, "data:text") || strings.Contains(got, "ppppp") {
		t.Errorf("an unusable result was shown:\n%s", got)
	}
	if !strings.Contains(got, "1. Good\n   https://good.example/a\n   kept") || strings.Contains(got, "cut to fit") {
		t.Errorf("the usable result was not shown first and whole:\n%s", got)
	}
	got, _ = renderResults("H", &provider.Results{Results: res.Results[:3]}, "", 8000)
	if !strings.Contains(got, "No results were found.") {
		t.Errorf("with no usable result:\n%s", got)
	}
}

func TestRenderPage_UsesTheRequestedURLWhenTheProviderReportsAnUnusableOne(t *testing.T) {
	args := FetchArgs{URL: "https://app.example/page", Prompt: "p"}
	for _, bad := range []string{"javascript:alert(1)", "https://app.example/" + strings.Repeat("x", 100_000)} {
		got := renderPage(args, &provider.Page{URL: bad, Content: "BODY-MARKER"}, "", "Intro.", "", 8000)
		if !strings.Contains(got, "URL: https://app.example/page\n") || !strings.Contains(got, "BODY-MARKER") {
			t.Errorf("page URL %.40q:\n%.600s", bad, got)
		}
	}
}

func TestHandleWebSearch_CountsQueryLengthInCharacters(t *testing.T) {
	for query, want := range map[string]Action{"日本": Deny, "Go": Deny, "日": Pass, " x ": Pass, "": Pass} {
		d := HandleWebSearch(context.Background(), preSearch(query), &WebSearchEnv{Searcher: okSearcher(1)})
		if d.Action != want {
			t.Errorf("query %q: action %v, want %v", query, d.Action, want)
		}
	}
}

func TestHandleWebSearch_AProviderThatWasNotReachedSaysWhy(t *testing.T) {
	s := &fakeSearcher{fn: func(context.Context, provider.Query) (*provider.Results, error) {
		return nil, &policy.AllFailedError{Policy: "parallel(tavily,exa)", Op: "search", Failures: []provider.Failure{
			{Provider: "tavily", Kind: provider.KindTransient, Err: &provider.Error{Provider: "tavily", Kind: provider.KindTransient, Err: syscall.ECONNREFUSED}},
			{Provider: "exa", Kind: provider.KindTransient, Err: &provider.Error{Provider: "exa", Kind: provider.KindTransient, Err: &net.DNSError{Err: "no such host", Name: "api.exa.example", IsNotFound: true}}},
		}}
	}}
	d := HandleWebSearch(context.Background(), preSearch("abc"), &WebSearchEnv{Searcher: s, Settings: Settings{SystemMessage: true}})
	want := "tavily (transient-provider-failed): connection refused, exa (transient-provider-failed): no such host api.exa.example"
	if d.Action != Pass || !strings.Contains(d.SystemMessage, want) {
		t.Errorf("%v, system message %q; want it to say %q", d.Action, d.SystemMessage, want)
	}
}

// The notice counts the results the answer shows: a result that is not a
// web link is left out of the answer, and so of the count.
func TestHandleWebSearch_NoticeCountsTheResultsShown(t *testing.T) {
	mixed := func(urls ...string) *fakeSearcher {
		return &fakeSearcher{name: "fake", fn: func(context.Context, provider.Query) (*provider.Results, error) {
			res := &provider.Results{Provider: "fake"}
			for i, u := range urls {
				res.Results = append(res.Results, provider.Result{Title: "R" + strconv.Itoa(i), URL: u, Snippet: "s"})
			}
			return res, nil
		}}
	}
	post, _ := ParseInput([]byte(`{"hook_event_name":"PostToolUse","tool_name":"mcp__ccs-websearch__WebSearch","tool_input":{"query":"q q"},"tool_response":[{"type":"text","text":"ORIGINAL"}]}`))
	failed, _ := ParseInput([]byte(`{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__ccs-websearch__WebSearch","tool_input":{"query":"q q"},"error":"down"}`))
	for _, c := range []struct {
		in    *Input
		urls  []string
		count string
	}{
		{preSearch("abc"), []string{"https://good.example/", "javascript:alert(1)"}, "answered with 1 result(s)"},
		{preSearch("abc"), []string{"javascript:alert(1)", "data:text/html,x"}, "answered with 0 result(s)"},
		{post, []string{"https://good.example/", "javascript:alert(1)"}, "added 1 companion result(s)"},
		{failed, []string{"https://good.example/", "javascript:alert(1)"}, "added 1 fallback result(s)"},
	} {
		d := HandleWebSearch(context.Background(), c.in, &WebSearchEnv{Searcher: mixed(c.urls...), Settings: Settings{SystemMessage: true}})
		if !strings.Contains(d.SystemMessage, c.count) {
			t.Errorf("%s %v: notice %q, want %q", c.in.Event, c.urls, d.SystemMessage, c.count)
		}
	}
}
