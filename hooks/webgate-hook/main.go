// Command webgate-hook is the worker behind webgate's hook binaries: the
// websearch and webfetch fronts run it, with the hook payload on stdin,
// whenever the hook may act on an event. It can also be registered
// directly as "webgate-hook websearch" or "webgate-hook webfetch".
//
// It reads one hook payload on stdin, writes at most one JSON object on
// stdout and always exits 0; see package hooks. Configuration comes from
// the environment and webgate's configuration file (package config). The
// hook's budget counts from the moment the process starts and covers
// everything, the configuration, key, routes and state files included;
// until the configuration is loaded, the default budget applies.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/hooks/hookenv"
)

func main() {
	start := time.Now()
	var h hooks.Handler
	switch hook := firstArg(); hook {
	case "websearch":
		h = hookenv.WebSearchHandler(hookenv.LoadCached)
	case "webfetch":
		h = hookenv.WebFetchHandler(hookenv.LoadCached)
	case "--version", "-version":
		fmt.Printf("webgate-hook (webgate) %s\n", gate.VersionString())
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "webgate: webgate-hook needs websearch or webfetch as its argument, not %q; passing through\n", hook)
		// Read the payload (without waiting forever) so that the writer
		// does not see a broken pipe.
		_, _ = gate.ReadPayload(os.Stdin, gate.MaxInputBytes, gate.StdinWait, gate.StdinQuiet)
		os.Exit(0)
	}
	os.Exit(hooks.Run(hooks.WithStart(context.Background(), start), os.Stdin, os.Stdout, os.Stderr, h))
}

func firstArg() string {
	if len(os.Args) > 1 {
		return os.Args[1]
	}
	return ""
}
