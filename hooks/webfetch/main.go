// Command webfetch is webgate's web fetch hook for Claude Code, Copilot CLI
// and VS Code agent hooks. It reads the page itself, lets pages a plain
// fetch can read through to the native tool, and answers app shells and
// template-heavy pages with content from an extraction provider. It reads
// one hook payload on stdin, writes at most one JSON object on stdout and
// always exits 0; see package hooks.
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
	os.Exit(hooks.Run(context.Background(), os.Stdin, os.Stdout, os.Stderr, hookenv.WebFetchHandler(config.LoadFromOS)))
}
