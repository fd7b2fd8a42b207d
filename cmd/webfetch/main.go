// Command webfetch is webgate's web fetch hook for Claude Code, Copilot CLI
// and VS Code agent hooks. It answers PreToolUse on the native web fetch
// tool: URLs that a tool route sends elsewhere are denied with the route's
// message; pages that need a browser, or portal pages, are read by an
// extraction provider and returned as the tool result; readable pages pass
// through to the native tool. It also applies tool routes to Bash
// commands. It reads one hook payload on stdin, writes at most one JSON
// object on stdout and always exits 0.
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
	os.Exit(gate.Main(gate.WebFetch, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv))
}
