package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/app/webtools"
)

func fetchCommand() command {
	return command{
		name:    "fetch",
		summary: "Read a web page as Markdown, directly or through an extraction provider",
		run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return runFetch(ctx, currentHost(), args, stdin, stdout, stderr)
		},
	}
}

const fetchDescription = `
Fetch reads URL with the same page reader as the web fetch hook. A
matching tool route answers first. Otherwise webgate reads the page itself
(http and https only; loopback and private addresses are refused unless
hooks.webfetch.allow_private is set) and classifies its HTML. A
fetch-readable page is converted to Markdown here; a template-heavy page is
read from its structure, an app shell from the data it embeds when it has
enough, and other pages, or pages that could not be read directly, through
the configured extraction providers. When nothing could read the page, its
own text is shown with a note, if it has enough.

The output starts with a header: the title, the URL, and a "Read:" line
with the classifier's verdict and the path taken (converted from the
page's own HTML, recovered from its data, extracted via a provider, or a
fallback). Text from the web is printed under a terminal rule: escape
sequences, control characters and bidirectional overrides are removed,
and only http and https links are kept as links. The fetch, probe and
extraction included, gives up after 30s unless --timeout says otherwise.
With --json it prints one JSON object: {"url", "final_url", "status",
"class", "confidence", "path", "why", "provider", "title", "content",
"note", …}, where path is route, readable, recovered, rendered,
extraction or readable-fallback; a failure prints {"error": {"reason",
"class", "legacy_class", "message", "failed_providers", "timed_out"}}.

` + exitCodesHelp

const fetchExamples = `  webgate fetch https://go.dev/doc/effective_go
  webgate fetch --prompt "how are goroutines scheduled" --max-chars 8000 https://go.dev/doc/faq
  webgate fetch --json https://example.org/ | jq -r '.class, .path'`

func runFetch(ctx context.Context, h hostEnv, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("fetch", "[flags] URL", fetchDescription, fetchExamples, stderr)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	prompt := fs.String("prompt", "", "what you want from the page: passed to extraction providers, and used to keep the most relevant parts when --max-chars cuts")
	maxChars := fs.Int("max-chars", 0, "cut the content to about `N` characters (0: no limit)")
	var providers listFlag
	extractNames := config.Providers().ExtractNames()
	fs.Var(&providers, "provider", "extract only with the providers `NAMES`, in this order (of "+strings.Join(extractNames, ", ")+")")
	timeout := fs.Duration("timeout", 0, fmt.Sprintf("give up after `DURATION`, probe and extraction included (default %v)", webtools.DefaultFetchTimeout))
	configFile := fs.String("config", "", "read the configuration from `FILE` instead of WEBGATE_CONFIG or the default location")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	switch {
	case len(pos) != 1:
		fmt.Fprintln(stderr, "webgate fetch: give exactly one URL")
		fs.Usage()
		return exitUsage
	case *maxChars < 0:
		fmt.Fprintf(stderr, "webgate fetch: --max-chars must not be negative, got %d\n", *maxChars)
		return exitUsage
	case *timeout < 0:
		fmt.Fprintf(stderr, "webgate fetch: --timeout must not be negative, got %v\n", *timeout)
		return exitUsage
	}
	if msg := checkProviders(providers, extractNames, "read pages"); msg != "" {
		fmt.Fprintf(stderr, "webgate fetch: %s\n", msg)
		return exitUsage
	}

	tools, _, warnings := loadTools(h, overrides{configFile: *configFile, extractProviders: providers})
	printWarnings(stderr, "fetch", warnings)
	tools.FetchTimeout = *timeout
	stop := spinner(stderr, "fetching")
	res, err := tools.Fetch(ctx, webtools.FetchRequest{URL: pos[0], Prompt: *prompt})
	stop()
	if err != nil {
		if *asJSON {
			writeJSON(stdout, jsonErrorOf(err))
		}
		printError(stderr, "fetch", err)
		return exitCode(err)
	}
	if *asJSON {
		if *maxChars > 0 {
			if r := []rune(res.Content); len(r) > *maxChars {
				res.Content = string(r[:*maxChars])
			}
		}
		writeJSON(stdout, res)
		return exitOK
	}
	printText(stdout, res.Text(*maxChars))
	return exitOK
}
