package main

import (
	"context"
	"fmt"
	"io"
)

func cacheCommand() command {
	return command{
		name:    "cache",
		summary: "Clear the cache of search results and page reads",
		run:     runCache,
	}
}

const cacheDescription = `
Cache works on the result cache in webgate's memory (the store: store.url,
WEBGATE_STORE; SQLite in the state directory by default), which every hook
process and the MCP server share.

  webgate cache clear   remove every cached search result and page read,
                        and print how many entries were removed

Key health, usage, budgets and the decision log are kept. The cache's
lifetimes are cache.search_ttl and cache.fetch_ttl.

Exit status: 0 on success (also when the store is off or was never
created), 1 when the store cannot be opened or cleared, 2 for a bad
command line.`

const cacheExamples = `  webgate cache clear
  WEBGATE_STORE=redis://cache.internal:6379/0 webgate cache clear`

func runCache(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("cache", "clear [flags]", cacheDescription, cacheExamples, stderr)
	configFile := fs.String("config", "", configUsage)
	rest, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	if len(rest) != 1 || rest[0] != "clear" {
		if len(rest) > 0 {
			fmt.Fprintf(stderr, "webgate cache: unknown subcommand %q\n", rest[0])
		}
		fs.Usage()
		return exitUsage
	}
	cfg := loadForMemory(*configFile, "cache", stderr)
	loc := locateStore(cfg)
	switch {
	case loc.Driver == "off":
		fmt.Fprintf(stdout, "the store is off (store.url: %s): nothing is cached\n", loc.Origin)
		return exitOK
	case loc.notCreated():
		fmt.Fprintf(stdout, "nothing cached: %s does not exist yet\n", loc.Path)
		return exitOK
	}
	m, err := openMemory(ctx, cfg, cliStoreTimeout)
	if err != nil {
		fmt.Fprintf(stderr, "webgate cache: %s: %s\n", loc, storeError(err))
		return exitFail
	}
	defer m.Store().Close()
	n, err := m.ClearCache(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "webgate cache: clearing %s: %s\n", loc, storeError(err))
		return exitFail
	}
	entries := "entries"
	if n == 1 {
		entries = "entry"
	}
	fmt.Fprintf(stdout, "removed %d cached %s (%s)\n", n, entries, loc.Driver)
	return exitOK
}
