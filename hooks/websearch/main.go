// Command websearch is webgate's web search hook for Claude Code, Copilot
// CLI and VS Code agent hooks. It answers PreToolUse on the native web
// search tool with provider-backed results, and adds companion or fallback
// results to an MCP search tool's output (PostToolUse,
// PostToolUseFailure). It reads one hook payload on stdin, writes at most
// one JSON object on stdout and always exits 0; see package hooks.
//
// Configuration comes from the environment and webgate's configuration
// file (package config).
package main

import (
	"context"
	"os"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/hookenv"
)

func main() {
	os.Exit(hooks.Run(context.Background(), os.Stdin, os.Stdout, os.Stderr, hookenv.WebSearchHandler(config.LoadFromOS)))
}
