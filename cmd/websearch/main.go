// Command websearch is webgate's web search hook for Claude Code, Copilot
// CLI and VS Code agent hooks. It answers PreToolUse on the native web
// search tool with provider-backed results (after webgate's docs routes),
// adds companion or fallback results to an MCP search tool's output
// (PostToolUse, PostToolUseFailure), and can tell the agent about the
// configured routes at SessionStart. It reads one hook payload on stdin,
// writes at most one JSON object on stdout and always exits 0.
//
// This binary is a small front (package hooks/gate): events it never
// handles cost only its start-up, and the rest is handed to the
// webgate-hook worker installed next to it. Configuration comes from the
// environment and webgate's configuration file (package config).
package main

import (
	"os"

	"github.com/webgate-dev/webgate/hooks/gate"
)

func main() {
	os.Exit(gate.Main(gate.WebSearch, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv))
}
