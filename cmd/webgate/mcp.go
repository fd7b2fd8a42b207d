package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webgate-dev/webgate/cmd/internal/mcpserver"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/webpage/browser"
)

func mcpCommand() command {
	return command{
		name:    "mcp",
		summary: "Serve web_search and web_fetch as an MCP server over stdio",
		run:     onHost(runMCP),
	}
}

var mcpDescription = `
webgate mcp runs an MCP server on standard input and output, for agents
that have no hooks (Codex, for one) or that prefer a tool of their own. It
offers two tools:

  web_search {query, allowed_domains?, blocked_domains?, max_results?,
              time_range?, topic?}
      search with the configured providers and policy (time_range: day,
      week, month or year; topic: general, news or finance); a query
      matching a local documentation index gets a note naming its MCP tool
  web_fetch {url, prompt?, offset?, max_chars?}
      read a page or a PDF as Markdown with the hooks' page reader: tool
      routes first, then the page itself (SSRF-protected) when it is
      readable; a page that needs more is read in fetch.order (by default
      locally first: its structure, the data it embeds, a local browser,
      then the extraction providers); a PDF is read locally. A long page
      is cut to the parts most relevant to the prompt, or read in order
      from offset

Configuration is the same as the hooks': the configuration file and the
environment (WEBGATE_… and the providers' own variables:
  ` + envExamples + `),
which an agent's MCP configuration usually sets in the server's "env".
Failures are tool errors naming the failure class once (auth-failed,
credit-or-quota-failed, rate-limited, transient-provider-failed, unknown);
diagnostics go to standard error.

Every call answers within its deadline (--search-timeout, default 25s;
--fetch-timeout, default 30s, probe and extraction included) or as soon as
the client cancels it; past the deadline the answer is a tool error
labelled "timeout". Results are labelled as untrusted web content; escape
sequences, control and bidirectional characters are removed from them,
results without an http or https URL are dropped, and tags imitating an
agent runtime's framing (such as </system-reminder>) are neutralised.

Exit status: 0 when the client closes the connection, 1 if the server
fails, 2 for a bad command line.`

const mcpExamples = `  claude mcp add webgate -e TAVILY_API_KEY=tvly-… -- webgate mcp
  {"mcpServers": {"webgate": {"command": "webgate", "args": ["mcp"],
                              "env": {"TAVILY_API_KEY": "tvly-…"}}}}`

func runMCP(ctx context.Context, h hostEnv, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcp", "[flags]", mcpDescription, mcpExamples, stderr)
	maxChars := fs.Int("max-chars", mcpserver.DefaultMaxChars, "cut web_fetch answers to about `N` characters")
	verbose := fs.Bool("v", false, "log each tool call (tool, outcome, duration) to standard error; also on with debug = true")
	configFile := fs.String("config", "", configUsage)
	searchTimeout := fs.Duration("search-timeout", webtools.DefaultSearchTimeout, "answer each web_search call within `DURATION`")
	fetchTimeout := fs.Duration("fetch-timeout", webtools.DefaultFetchTimeout, "answer each web_fetch call within `DURATION`, probe and extraction included")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if *maxChars <= 0 {
		fmt.Fprintf(stderr, "webgate mcp: --max-chars must be positive, got %d\n", *maxChars)
		return exitUsage
	}
	if *searchTimeout <= 0 || *fetchTimeout <= 0 {
		fmt.Fprintf(stderr, "webgate mcp: --search-timeout and --fetch-timeout must be positive, got %v and %v\n", *searchTimeout, *fetchTimeout)
		return exitUsage
	}
	// The server lives for the client's session: the local browser stays
	// up between web_fetch calls (and goes when idle, or with the server).
	browsers := browser.NewPool(browser.DefaultPoolIdle)
	defer browsers.Close()
	tools, cfg, warnings := loadTools(h, overrides{configFile: *configFile, browsers: browsers})
	tools.SearchTimeout, tools.FetchTimeout = *searchTimeout, *fetchTimeout
	printWarnings(stderr, "mcp", warnings)
	var logger *slog.Logger
	if *verbose || cfg.Debug {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	server := mcpserver.New(tools, &mcpserver.Options{Version: versionString(), MaxChars: *maxChars, Logger: logger})
	transport := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := server.Run(ctx, transport); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "webgate mcp: %v\n", err)
		return exitFail
	}
	return exitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
