package hooks_test

import (
	"context"
	"fmt"
	"os"

	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/routing"
)

// A docs route denies a documentation question before any provider is
// called, even without keys; the identical retry goes through.
func ExampleRoutes() {
	dir, _ := os.MkdirTemp("", "webgate-example-")
	defer os.RemoveAll(dir)
	docs, _ := routing.NewDocsRouter([]routing.Database{{
		Keywords: []string{"kubectl"}, Path: "/srv/docs/kubernetes",
		MCPToolName: "mcp__docsearch__search", Description: "Kubernetes documentation",
	}})
	env := &hooks.WebSearchEnv{Routes: hooks.Routes{Docs: docs, State: &routing.StateStore{Dir: dir}}}
	in, _ := hooks.ParseInput([]byte(`{"hook_event_name":"PreToolUse","session_id":"s1","tool_name":"WebSearch","tool_input":{"query":"kubectl drain"}}`))

	d := hooks.HandleWebSearch(context.Background(), in, env)
	fmt.Println(d.Action, "-", d.Reason)
	d = hooks.HandleWebSearch(context.Background(), in, env)
	fmt.Println(d.Action, "-", d.Diagnostics[0])
	// Output:
	// deny - Search the local documentation index first: call the MCP tool mcp__docsearch__search for "/srv/docs/kubernetes". If their results are not enough, repeat this exact WebSearch and it will run.
	// pass - no search provider has an API key; passing through
}
