package routing_test

import (
	"fmt"
	"os"

	"github.com/webgate-dev/webgate/routing"
)

func ExampleDocsRouter_Route() {
	docs, _ := routing.NewDocsRouter([]routing.Database{{
		Keywords:    []string{"gitlab", "gitlab-ci"},
		Path:        "/srv/docs/gitlab",
		MCPToolName: "mcp__docsearch__search",
		Description: "GitLab documentation",
	}})
	dir, _ := os.MkdirTemp("", "webgate-state")
	defer os.RemoveAll(dir)
	store := &routing.StateStore{Dir: dir}
	call := routing.Call{Query: "configure gitlab-ci caches"}

	_, _, deny, _ := docs.Route(store, "session-1", call)
	fmt.Println("first call denied:", deny)
	_, _, deny, _ = docs.Route(store, "session-1", call)
	fmt.Println("identical retry denied:", deny)
	// Output:
	// first call denied: true
	// identical retry denied: false
}

func ExampleToolRouter_Match() {
	tools, warnings := routing.NewToolRouter([]routing.ToolRoute{
		{Name: "github", Tool: routing.ToolWebFetch, Pattern: `^https://github\.com/[^/]+/[^/]+/(issues|pull)/`, Message: "Use `gh issue view` / `gh pr view` instead of fetching GitHub pages."},
		{Name: "bad", Pattern: `(`, Message: "never used"},
	})
	fmt.Println("warnings:", len(warnings))
	if rt, ok := tools.Match(routing.ToolWebFetch, "https://github.com/golang/go/issues/1"); ok {
		fmt.Println(rt.Reason("https://github.com/golang/go/issues/1", false))
	}
	// Output:
	// warnings: 1
	// Use `gh issue view` / `gh pr view` instead of fetching GitHub pages.
}
