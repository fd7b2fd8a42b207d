package gate_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/hooks/worker"
)

// A front binary's whole body: a call the hook does not answer (here a
// Read, in Claude Code's payload) returns at once, writes nothing and
// exits 0, without starting the worker.
func ExampleMain() {
	payload := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/tmp/notes.txt"}}`
	var stdout, stderr bytes.Buffer
	env := worker.EnvList([]string{"HOME=/nonexistent"})
	code := gate.Main(gate.WebFetch, nil, strings.NewReader(payload), &stdout, &stderr, env)
	fmt.Printf("exit %d, stdout %q\n", code, stdout.String())
	// Output: exit 0, stdout ""
}

// Tool names are matched exactly or as globs, the way a plugin's MCP tool
// names vary with its install.
func ExampleMatchName() {
	patterns := []string{"WebSearch", "mcp__plugin_*_ccs-websearch__WebSearch"}
	fmt.Println(gate.MatchName(patterns, "WebSearch"))
	fmt.Println(gate.MatchName(patterns, "mcp__plugin_tools_ccs-websearch__WebSearch"))
	fmt.Println(gate.MatchName(patterns, "WebFetch"))
	// Output:
	// true
	// true
	// false
}

// A hook's budget before any configuration is loaded: the environment's
// wins over the shortest one the configuration file sets.
func ExampleHookBudget() {
	env := worker.EnvList([]string{gate.BudgetEnv(gate.WebSearch) + "=12s"})
	fmt.Println(gate.BudgetEnv(gate.WebSearch))
	fmt.Println(gate.HookBudget(gate.WebSearch, env, 0))
	fmt.Println(gate.HookBudget(gate.WebSearch, worker.EnvList(nil), 20e9))
	// Output:
	// WEBGATE_HOOKS_WEBSEARCH_BUDGET
	// 12s
	// 20s
}
