package e2e

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var versions sync.Map // binary path -> version string

// ClaudeVersion returns the version of the Claude Code binary the tests use
// (for example "2.1.330"), skipping or failing the test as ClaudeBinary does
// when there is none.
func ClaudeVersion(t testing.TB) string {
	t.Helper()
	bin := ClaudeBinary(t)
	if v, ok := versions.Load(bin); ok {
		return v.(string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	versions.Store(bin, v)
	return v
}

// VersionAtLeast reports whether the dotted version v is at least min
// ("2.1.281" >= "2.1.197"). Parts that are not numbers count as 0.
func VersionAtLeast(v, min string) bool {
	a, b := strings.Split(v, "."), strings.Split(min, ".")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y int
		if i < len(a) {
			x, _ = strconv.Atoi(a[i])
		}
		if i < len(b) {
			y, _ = strconv.Atoi(b[i])
		}
		if x != y {
			return x > y
		}
	}
	return true
}

// DenyPrefixSince is the first CLI version that prefixes a PreToolUse deny
// reason with "PreToolUse:<tool> hook error: " in the tool_result; earlier
// versions sent the reason verbatim.
const DenyPrefixSince = "2.1.281"

// DenyContent returns the tool_result body (see ToolResult.Body) that CLI
// version v sends the model when a PreToolUse hook denies tool with reason.
func DenyContent(v, tool, reason string) string {
	if VersionAtLeast(v, DenyPrefixSince) {
		return "PreToolUse:" + tool + " hook error: " + reason
	}
	return reason
}

// MCPToolName returns the name Claude Code gives tool of the MCP server
// configured as server: "mcp__<server>__<tool>".
func MCPToolName(server, tool string) string { return "mcp__" + server + "__" + tool }
