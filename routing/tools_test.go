package routing

import (
	"fmt"
	"strings"
	"testing"
)

var sampleRoutes = []ToolRoute{
	{Name: "github", Tool: "WebFetch", Pattern: `^https?://(www\.)?github\.com/`, Message: "Use the gh CLI: gh repo view / gh issue view.",
		Tests: []RouteTest{{Input: "https://github.com/a/b", Expect: "block", Contains: "gh"}, {Input: "https://gist.example.com/x", Expect: "allow"}}},
	{Name: "broken", Tool: "WebFetch", Pattern: `([unclosed`, Message: "never"},
	{Name: "curl-github", Tool: "Bash", Pattern: `\bcurl\b.*api\.github\.com`, Message: "Use gh api instead of curl."},
	{Name: "any-github", Tool: "WebFetch", Pattern: `github`, Message: "second github route"},
}

func TestToolRouter_FirstMatchWinsAndBadPatternsAreSkipped(t *testing.T) {
	r, warns := NewToolRouter(sampleRoutes)
	if len(warns) != 1 || !strings.Contains(warns[0].Error(), "broken") {
		t.Fatalf("warnings %v", warns)
	}
	cases := []struct {
		tool, value, want string
	}{
		{"WebFetch", "https://GitHub.com/golang/go/issues/1", "github"},
		{"WebFetch", "https://raw.githubusercontent.com/x", "any-github"},
		{"WebFetch", "https://example.com", ""},
		{"Bash", "CURL -s https://api.github.com/repos/x", "curl-github"},
		{"Bash", "https://github.com/a/b", ""},
		{"WebFetch", "", ""},
	}
	for _, c := range cases {
		got, ok := r.Match(c.tool, c.value)
		if (c.want == "") == ok || got.Name != c.want {
			t.Errorf("Match(%s, %q) = %q, %v; want %q", c.tool, c.value, got.Name, ok, c.want)
		}
	}
}

func TestToolRoute_ReasonIsTheMessageAloneUnlessDebugging(t *testing.T) {
	rt := sampleRoutes[0]
	if got := rt.Reason("https://github.com/a", false); got != rt.Message {
		t.Errorf("normal reason %q", got)
	}
	long := "https://github.com/" + strings.Repeat("x", 300)
	got := rt.Reason(long, true)
	for _, want := range []string{rt.Message, "route=github", rt.Pattern} {
		if !strings.Contains(got, want) {
			t.Errorf("debug reason lacks %q: %s", want, got)
		}
	}
	if strings.Contains(got, strings.Repeat("x", 201)) {
		t.Error("matched value not cut to 200 characters")
	}
}

func TestNewToolRouter_RejectsUnknownToolsAndEmptyMessages(t *testing.T) {
	_, warns := NewToolRouter([]ToolRoute{{Name: "a", Tool: "Read", Pattern: "x", Message: "m"}, {Name: "b", Pattern: "x"}, {Name: "c", Message: "m"}})
	if len(warns) != 3 {
		t.Fatalf("warnings %v", warns)
	}
}

func TestToolRouter_RunTestsReportsFailures(t *testing.T) {
	routes := append([]ToolRoute(nil), sampleRoutes...)
	routes = append(routes, ToolRoute{Name: "docs", Pattern: `docs\.example\.com`, Message: "Use the docs MCP.",
		Tests: []RouteTest{
			{Input: "https://docs.example.com/a", Expect: "block", Contains: "MCP"},
			{Input: "https://docs.example.com/b", Expect: "block", Contains: "missing words"},
			{Input: "https://github.com/shadowed", Expect: "allow"},
			{Input: "https://example.org", Expect: "block"},
			{Input: "x", Expect: "maybe"},
		}})
	r, _ := NewToolRouter(routes)
	ran, fails := r.RunTests()
	if ran != 7 {
		t.Errorf("ran %d cases, want 7", ran)
	}
	if len(fails) != 4 {
		t.Fatalf("want 4 failures, got %d: %v", len(fails), fails)
	}
	text := fails[0].String()
	if !strings.Contains(text, "docs") || !strings.Contains(text, "missing words") {
		t.Errorf("failure text: %s", text)
	}
}

func TestParseToolRoutes_ReadsTheLegacyFormat(t *testing.T) {
	routes, err := ParseToolRoutes([]byte(`{"routes":{"zeta":{"pattern":"z\\.com","message":"use z"},"alpha":{"pattern":"a\\.com","message":"use a"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) != 2 || routes[0].Name != "alpha" || routes[0].Tool != ToolWebFetch {
		t.Fatalf("got %+v", routes)
	}
	r, warns := NewToolRouter(routes)
	if len(warns) != 0 {
		t.Fatal(warns)
	}
	if got, ok := r.Match("WebFetch", "https://Z.com/page"); !ok || got.Message != "use z" {
		t.Fatalf("got %+v %v", got, ok)
	}
	if _, err := ParseToolRoutes([]byte(`[]`)); err == nil {
		t.Fatal("want an error for the wrong shape")
	}
}

func TestSessionIndex_ListsDatabasesAndRoutesOneLineEach(t *testing.T) {
	d, _ := NewDocsRouter([]Database{db("/g", "gitlab", "GitLab-CI")})
	r, _ := NewToolRouter(sampleRoutes)
	got := SessionIndex(d, r)
	lines := strings.Split(got, "\n")
	if len(lines) != 1+1+1+3 {
		t.Fatalf("got %d lines:\n%s", len(lines), got)
	}
	if !strings.Contains(got, "gitlab, gitlab-ci") || !strings.Contains(got, "Bash curl-github") {
		t.Errorf("index:\n%s", got)
	}
	if SessionIndex(nil, nil) != "" {
		t.Error("empty index not empty")
	}
}

func TestToolRouter_CountsTheRoutesOfATool(t *testing.T) {
	r, _ := NewToolRouter(sampleRoutes)
	if r.Count(ToolWebFetch) != 2 || r.Count(ToolBash) != 1 || r.Count("Read") != 0 || (*ToolRouter)(nil).Count(ToolBash) != 0 {
		t.Errorf("counts %d, %d, %d", r.Count(ToolWebFetch), r.Count(ToolBash), r.Count("Read"))
	}
}

func TestToolRouter_MatchesConcurrently(t *testing.T) {
	r, _ := NewToolRouter(largeRoutes(200))
	done := make(chan bool)
	for g := range 8 {
		go func() {
			for i := range 50 {
				n := (g*50 + i) % 200
				tool := ToolWebFetch
				if n%2 == 1 {
					tool = ToolBash
				}
				rt, ok := r.Match(tool, fmt.Sprintf("https://site%d.example/issues/%d", n, i))
				if !ok || rt.Name != fmt.Sprint("route", n) {
					t.Errorf("route %d: matched %q, %v", n, rt.Name, ok)
				}
			}
			done <- true
		}()
	}
	for range 8 {
		<-done
	}
}
