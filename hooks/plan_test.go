package hooks

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/routing"
)

// stepNames lists the names of p's steps.
func stepNames(p *Plan) string {
	var out []string
	for _, s := range p.Steps {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

func TestPlanWebSearch_DeniesADocsQueryWithoutRecordingTheDenial(t *testing.T) {
	env, _ := docsEnv(t, okSearcher(1))
	in := searchIn(t, "s1", "kubectl rollout restart")
	for range 2 {
		p := PlanWebSearch(context.Background(), in, env)
		if p.Decision != OutcomeDenyDocs || !p.Routed() || len(p.Docs) != 1 || p.Input != "kubectl rollout restart" {
			t.Fatalf("plan = %+v", p)
		}
		if got := stepNames(p); got != "tool routes, docs routes, escape hatch, providers" {
			t.Errorf("steps = %s", got)
		}
	}
	if entries, _ := os.ReadDir(env.Routes.State.Describe()); len(entries) != 0 {
		t.Errorf("planning wrote routing state: %v", entries)
	}
	if n := env.Searcher.(*fakeSearcher).calls.Load(); n != 0 {
		t.Errorf("planning searched %d times", n)
	}
}

func TestPlanWebSearch_ReadsTheEscapeHatchAndPlansTheProviders(t *testing.T) {
	env, _ := docsEnv(t, okSearcher(1))
	env.Providers, env.Mode = []string{"tavily", "exa"}, "parallel"
	in := searchIn(t, "s1", "kubectl rollout restart")
	call := routing.Call{Query: "kubectl rollout restart"}
	if err := env.Routes.State.Remember("s1", call); err != nil {
		t.Fatal(err)
	}
	p := PlanWebSearch(context.Background(), in, env)
	if p.Decision != OutcomeSearchResults || p.Decision.Action() != Deny || strings.Join(p.Providers, ",") != "tavily,exa" || p.Mode != "parallel" {
		t.Fatalf("plan = %+v", p)
	}
	if !strings.Contains(p.Why, "answered with results from tavily, exa (parallel)") {
		t.Errorf("why = %q", p.Why)
	}
	if ok, _ := env.Routes.State.Remembered("s1", call); !ok {
		t.Error("planning released the remembered denial")
	}
	// Carrying the plan out releases it.
	if d := HandleWebSearch(context.Background(), in, env); d.Action != Deny || !strings.Contains(d.Reason, "Web search results") {
		t.Errorf("decision = %+v", d)
	}
	if ok, _ := env.Routes.State.Remembered("s1", call); ok {
		t.Error("the handler did not release the remembered denial")
	}
}

func TestPlanWebSearch_SaysWhyItStepsAside(t *testing.T) {
	for name, c := range map[string]struct {
		env  *WebSearchEnv
		want string
	}{
		"no keys":         {&WebSearchEnv{}, "no search provider has an API key"},
		"bad config":      {&WebSearchEnv{Searcher: okSearcher(1), Problems: []string{"search.mode: bad"}}, "invalid configuration: search.mode: bad"},
		"too short query": {&WebSearchEnv{Searcher: okSearcher(1)}, "the search call has no query"},
	} {
		q := "golang"
		if name == "too short query" {
			q = "g"
		}
		p := PlanWebSearch(context.Background(), preSearch(q), c.env)
		if p.Decision != OutcomePass || p.Why != c.want {
			t.Errorf("%s: plan = %+v", name, p)
		}
	}
	in, _ := ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{}}`))
	if p := PlanWebSearch(context.Background(), in, nil); p.Hook != "" || p.Decision != OutcomePass {
		t.Errorf("other tool: plan = %+v", p)
	}
}

func TestPlanWebFetch_OfflineSaysWhatTheDecisionDependsOn(t *testing.T) {
	x := pageExtractor("T", "body")
	env := fetchEnv(x)
	env.Providers, env.Mode = []string{"tavily"}, "in order, tavily first"
	p := PlanWebFetch(context.Background(), preFetch("https://example.org/app", ""), env, PageSource{})
	if p.Decision != OutcomeDependsOnPage || p.Page != nil || !strings.Contains(p.Why, "read by webgate locally or via tavily") {
		t.Fatalf("plan = %+v", p)
	}
	if got := stepNames(p); got != "tool routes, providers, reading, page" {
		t.Errorf("steps = %s", got)
	}
	if x.calls.Load() != 0 {
		t.Error("planning extracted")
	}
}

func TestPlanWebFetch_JudgesASavedPageAsTheProbedOne(t *testing.T) {
	env := fetchEnv(pageExtractor("T", "body"))
	for page, want := range map[string]Outcome{
		"readable/blog-article.html":                        OutcomePass,
		"browser-render-required/react-cra-empty-root.html": OutcomeExtractedPage,
		"template-heavy/news-homepage.html":                 OutcomeExtractedPage,
	} {
		saved := PageSource{Saved: fixture(t, page), MediaType: "text/html"}
		p := PlanWebFetch(context.Background(), preFetch("https://example.org/page", ""), env, saved)
		if p.Decision != want || p.Page == nil || p.Page.Verdict == nil {
			t.Errorf("%s: plan = %+v", page, p)
		}
	}
	base := fixtureServer(t)
	p := PlanWebFetch(context.Background(), preFetch(base+"/browser-render-required/react-cra-empty-root.html", ""), env, ProbePage)
	if p.Decision != OutcomeExtractedPage || p.Page == nil || p.Page.Status != 200 {
		t.Errorf("probed: plan = %+v", p)
	}
}

func TestPlanWebFetch_RoutesTheShellToolOnly(t *testing.T) {
	env := &WebFetchEnv{Routes: Routes{Tools: toolRoutes(t, routing.ToolRoute{Name: "gh", Tool: routing.ToolBash, Pattern: `^gh `, Message: "Use the GitHub MCP server."})}}
	in, _ := ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"gh issue list"}}`))
	p := PlanWebFetch(context.Background(), in, env, ProbePage)
	if p.Hook != HookToolRoutes || p.Decision != OutcomeDenyRoute || p.ToolRoute == nil || p.ToolRoute.Name != "gh" {
		t.Fatalf("plan = %+v", p)
	}
	in, _ = ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`))
	if p := PlanWebFetch(context.Background(), in, env, ProbePage); p.Decision != OutcomePass || p.Page != nil {
		t.Errorf("plan = %+v", p)
	}
}

func TestHandleWebFetch_ExtractsHTMLWithNoReadableText(t *testing.T) {
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body></body></html>"))
	})
	env := fetchEnv(pageExtractor("T", "the body"))
	env.Reader.Classify = func([]byte) classify.Result { return classify.Result{Class: classify.FetchReadable} }
	d := HandleWebFetch(context.Background(), preFetch(s.URL+"/empty", ""), env)
	if d.Action != Deny || !strings.Contains(d.Reason, "because the page has no readable text in its HTML") {
		t.Errorf("decision = %+v", d)
	}
}

func TestOutcome_ActionIsWhatCarryingItOutAnswers(t *testing.T) {
	for o, want := range map[Outcome]Action{
		OutcomePass: Pass, OutcomeDependsOnPage: Pass,
		OutcomeDenyRoute: Deny, OutcomeDenyDocs: Deny, OutcomeSearchResults: Deny, OutcomeExtractedPage: Deny,
		OutcomeAddContext: AddContext, OutcomeSessionIndex: AddContext,
	} {
		if got := o.Action(); got != want {
			t.Errorf("%s: %v, want %v", o, got, want)
		}
	}
}
