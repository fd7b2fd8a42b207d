package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"io"
	"os"
	"strings"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/config"
)

func fetchCommand() command {
	return command{
		name:    "fetch",
		summary: "Read a web page as Markdown, directly or through an extraction provider",
		run:     onHost(runFetch),
	}
}

var fetchDescription = `
Fetch reads URL with the same page reader as the web fetch hook. A
matching tool route answers first. Otherwise webgate reads the page itself
(http and https only; loopback and private addresses are refused unless
hooks.webfetch.allow_private is set) and classifies its HTML. A
fetch-readable page is converted to Markdown here; a template-heavy page is
read from its structure, an app shell from the data it embeds when it has
enough or else rendered in the local browser (fetch.browser), a PDF read
as text; pages these cannot read, or that could not be read directly, go
to the configured extraction providers (fetch.order sets the order). When
nothing could read the page, its own text is shown with a note, if it has
enough.

The output starts with a header: the title, the URL, and a "Read:" line
with the classifier's verdict and the path taken (converted from the
page's own HTML, recovered from its data, extracted via a provider, or a
fallback). Text from the web is printed under a terminal rule: escape
sequences, control characters and bidirectional overrides are removed,
and only http and https links are kept as links. The fetch, probe and
extraction included, gives up after 30s unless --timeout says otherwise.
--max-chars cuts a long page to about N characters, keeping the parts
most relevant to --prompt, or else its beginning. To read a long page in
order instead, one part at a time, give --offset (0 for the beginning)
and --max-chars: the output shows the characters from the offset, at
most N of them, and ends with the range shown, the page's length and the
next offset ("[Characters 8000–16000 of 52311; next: offset=16000.]");
run it again with --offset 16000 to read on, until it says the end of the
page. Without --max-chars, --offset shows the rest of the page. Characters
are counted as agents count them (UTF-16 code units). Every part is cut
from the same read of the page: the result cache answers the reads after
the first.

` + remoteHelp("the page") + `
With --json it prints one JSON object: {"url", "final_url", "status",
"class", "confidence", "path", "why", "provider", "title", "content",
"note", "total_chars", "offset", "next_offset", …}, where path is route,
readable, recovered, rendered, extraction or readable-fallback, and
next_offset is where the rest of the content starts (null when content
reaches the end; --max-chars without --offset keeps the beginning); a
failure prints {"error": {"reason", "class", "legacy_class", "message",
"failed_providers", "timed_out"}}.

` + exitCodesHelp

const fetchExamples = `  webgate fetch https://go.dev/doc/effective_go
  webgate fetch --prompt "how are goroutines scheduled" --max-chars 8000 https://go.dev/doc/faq
  webgate fetch --offset 8000 --max-chars 8000 https://go.dev/ref/spec
  webgate fetch --json https://example.org/ | jq -r '.class, .path'`

func runFetch(ctx context.Context, h hostEnv, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("fetch", "[flags] URL", fetchDescription, fetchExamples, stderr)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	prompt := fs.String("prompt", "", "what you want from the page: passed to extraction providers, and used to keep the most relevant parts when --max-chars cuts")
	maxChars := fs.Int("max-chars", 0, "cut the content to about `N` characters (0: no limit); with --offset, show at most N characters of the page")
	offset := fs.Int("offset", 0, "read the page in order from character `N` on (0: its beginning), instead of keeping the parts most relevant to --prompt")
	var providers stringList
	extractNames := config.Providers().ExtractNames()
	fs.Var(&providers, "provider", "extract only with the providers `NAMES`, in this order (of "+strings.Join(extractNames, ", ")+")")
	timeout := fs.Duration("timeout", 0, fmt.Sprintf("give up after `DURATION`, probe and extraction included (default %v)", webtools.DefaultFetchTimeout))
	configFile := fs.String("config", "", configUsage)
	outFile := new(string)
	fs.StringVar(outFile, "o", "", "write the page to `FILE` instead of standard output")
	fs.StringVar(outFile, "output", "", "same as -o")
	quiet := quietFlag(fs)
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	stderr = quiet(stderr)
	switch {
	case len(pos) != 1:
		fmt.Fprintln(stderr, "webgate fetch: give exactly one URL")
		fs.Usage()
		return exitUsage
	case *maxChars < 0:
		fmt.Fprintf(stderr, "webgate fetch: --max-chars must not be negative, got %d\n", *maxChars)
		return exitUsage
	case *offset < 0:
		fmt.Fprintf(stderr, "webgate fetch: --offset must not be negative, got %d\n", *offset)
		return exitUsage
	case *timeout < 0:
		fmt.Fprintf(stderr, "webgate fetch: --timeout must not be negative, got %v\n", *timeout)
		return exitUsage
	}
	gw, ok := target(h, stderr, "fetch", providers, extractNames, "read pages", len(providers) > 0, "--provider chooses")
	if !ok {
		return exitUsage
	}
	var res *webtools.FetchResult
	req := webtools.FetchRequest{URL: pos[0], Prompt: *prompt}
	stop := spinner(stderr, "fetching")
	if gw != nil {
		// Remote mode: no configuration, no key, no provider here.
		res, err = gw.fetch(ctx, *timeout, req)
	} else {
		tools, _, warnings := loadTools(h, overrides{configFile: *configFile, extractProviders: providers})
		printWarnings(stderr, "fetch", warnings)
		tools.FetchTimeout = *timeout
		res, err = tools.Fetch(ctx, req)
	}
	stop()
	paged := false
	fs.Visit(func(f *flag.Flag) { paged = paged || f.Name == "offset" })
	if err == nil && (paged || (*asJSON && *maxChars > 0)) {
		// A page is cut by position; so is the JSON content, which has
		// no room for a note about a cut by relevance.
		err = res.Page(*offset, *maxChars)
	}
	if err != nil {
		if *asJSON {
			writeJSON(stdout, jsonErrorOf(err))
		}
		printError(stderr, "fetch", err)
		return exitCode(err)
	}
	out := stdout
	var file *os.File
	if *outFile != "" {
		if file, err = os.OpenFile(*outFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err != nil {
			printError(stderr, "fetch", err)
			return exitFail
		}
		out = file
	}
	if *asJSON {
		writeJSON(out, res)
	} else {
		printText(out, res.Text(*maxChars))
	}
	if file != nil {
		if err := file.Close(); err != nil {
			printError(stderr, "fetch", err)
			return exitFail
		}
		fmt.Fprintf(stderr, "webgate fetch: wrote %s (%s)\n", sanitize.Line(*outFile), res.Summary())
	}
	return exitOK
}
