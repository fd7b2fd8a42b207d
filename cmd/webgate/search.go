package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

func searchCommand() command {
	return command{
		name:    "search",
		summary: "Search the web with the configured providers",
		run:     onHost(runSearch),
	}
}

var searchDescription = `
Search runs QUERY (all arguments, joined by spaces) through the same
providers and policy as the web search hook: the configuration file and the
environment decide which providers are asked and how (WEBGATE_… and the
providers' own variables:
  ` + envExamples + `).
It prints one block per result (title, URL, snippet), then the providers
that failed, if any, and the filters a provider could not apply
("Filters not applied: ignored by exa: topic."): such a provider searched
without them. When the query matches a local documentation index, a note
names its MCP tool.

--time-range keeps pages published within the past day, week, month or
year; --topic asks for general, news or finance results, as providers
that know topics understand them (Tavily's topic, Exa's and SearXNG's
news category).

Text from the web is printed under a terminal rule: escape sequences,
control characters and bidirectional overrides are removed, and results
whose URL is not an http or https link are left out. The search gives up
after 25s unless --timeout says otherwise.

` + remoteHelp("the search") + `
With --json it prints the result as one JSON object: {"query", "provider",
"results": [{"title", "url", "snippet", "published", "providers"}],
"failed_providers": [{"provider", "class", "legacy_class"}], "ignored":
{"<provider>": ["topic", …]}, "local_docs": […]}; a failure prints {"error": {"reason", "class", "legacy_class",
"message", "failed_providers", "timed_out"}}.

` + exitCodesHelp

const searchExamples = `  webgate search golang context cancellation
  webgate search -n 3 --allow go.dev "range over func"
  webgate search --topic news --time-range week "go release"
  webgate search --json --mode fallback --provider exa,tavily "sqlite wal mode" | jq -r '.results[].url'`

func runSearch(ctx context.Context, h hostEnv, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("search", "[flags] QUERY...", searchDescription, searchExamples, stderr)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	maxResults := new(int)
	fs.IntVar(maxResults, "max-results", 0, "same as -n")
	fs.IntVar(maxResults, "n", 0, fmt.Sprintf("return at most `N` results (1 to %d; default search.max_results, else %d)", webtools.MaxResultsLimit, policy.DefaultMaxResults))
	var allow, block, providers stringList
	fs.Var(&allow, "allow", "only return results from `DOMAIN` and its subdomains (repeatable, or comma-separated)")
	fs.Var(&block, "block", "never return results from `DOMAIN` (repeatable, or comma-separated)")
	searchNames := config.Providers().SearchNames()
	fs.Var(&providers, "provider", "ask only the providers `NAMES`, in this order (of "+strings.Join(searchNames, ", ")+")")
	timeRange := fs.String("time-range", "", "only return pages published within the past `RANGE`: day, week, month or year")
	topic := fs.String("topic", "", "search for `TOPIC`: general, news or finance (default: as the providers are configured)")
	mode := fs.String("mode", "", "combine the providers as `MODE` (parallel, fallback or single) instead of the configured mode")
	timeout := fs.Duration("timeout", 0, fmt.Sprintf("give up after `DURATION` (default %v)", webtools.DefaultSearchTimeout))
	configFile := fs.String("config", "", configUsage)
	quiet := quietFlag(fs)
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	stderr = quiet(stderr)
	query := strings.TrimSpace(strings.Join(pos, " "))
	switch {
	case query == "":
		fmt.Fprintln(stderr, "webgate search: no query given")
		fs.Usage()
		return exitUsage
	case *timeout < 0:
		fmt.Fprintf(stderr, "webgate search: --timeout must not be negative, got %v\n", *timeout)
		return exitUsage
	case *maxResults < 0 || *maxResults > webtools.MaxResultsLimit:
		fmt.Fprintf(stderr, "webgate search: -n must be between 1 and %d, got %d\n", webtools.MaxResultsLimit, *maxResults)
		return exitUsage
	case *mode != "" && !slices.Contains([]string{config.ModeParallel, config.ModeFallback, config.ModeSingle}, *mode):
		fmt.Fprintf(stderr, "webgate search: --mode must be parallel, fallback or single, got %q\n", *mode)
		return exitUsage
	case *timeRange != "" && !slices.Contains(webtools.TimeRanges, provider.TimeRange(*timeRange)):
		fmt.Fprintf(stderr, "webgate search: --time-range must be day, week, month or year, got %q\n", *timeRange)
		return exitUsage
	case *topic != "" && !slices.Contains(webtools.Topics, provider.Topic(*topic)):
		fmt.Fprintf(stderr, "webgate search: --topic must be general, news or finance, got %q\n", *topic)
		return exitUsage
	}
	gw, ok := target(h, stderr, "search", providers, searchNames, "search", len(providers) > 0 || *mode != "", "--provider and --mode choose")
	if !ok {
		return exitUsage
	}
	req := webtools.SearchRequest{Query: query, AllowedDomains: allow, BlockedDomains: block, MaxResults: *maxResults,
		TimeRange: provider.TimeRange(*timeRange), Topic: provider.Topic(*topic)}
	var res *webtools.SearchResult
	if gw != nil {
		// Remote mode: no configuration, no key, no provider here.
		stop := spinner(stderr, "searching")
		res, err = gw.search(ctx, *timeout, req)
		stop()
		return printSearch(stdout, stderr, *asJSON, res, err)
	}
	tools, _, warnings := loadTools(h, overrides{configFile: *configFile, mode: *mode, searchProviders: providers})
	printWarnings(stderr, "search", warnings)
	tools.SearchTimeout = *timeout
	if len(providers) > 0 && tools.Searcher == nil && tools.SearchHint != "" {
		// Only providers that cannot be used were named: say what each
		// lacks rather than that no provider at all has a key.
		err = &webtools.Error{Reason: webtools.NotConfigured, Message: tools.SearchHint}
	} else {
		stop := spinner(stderr, "searching")
		res, err = tools.Search(ctx, req)
		stop()
	}
	return printSearch(stdout, stderr, *asJSON, res, err)
}

// printSearch prints a search's result or error, locally or from the
// gateway alike, and returns the exit code.
func printSearch(stdout, stderr io.Writer, asJSON bool, res *webtools.SearchResult, err error) int {
	if err != nil {
		if asJSON {
			writeJSON(stdout, jsonErrorOf(err))
		}
		printError(stderr, "search", err)
		return exitCode(err)
	}
	if asJSON {
		writeJSON(stdout, res)
	} else {
		printText(stdout, res.HumanText())
	}
	if len(res.Results) == 0 {
		if !asJSON {
			fmt.Fprintf(stderr, "webgate search: no results (%v)\n", res.Elapsed.Round(time.Millisecond))
		}
		return exitNoResults
	}
	return exitOK
}

// target checks the providers a command (cmd, which does op) names
// against valid, and says whether the command asks a team gateway (gw,
// nil in local mode). It returns ok false, having said why on stderr,
// when the names are wrong, the gateway's settings are, or local flags
// (localOnly, named by flags: "--provider chooses") are given for a
// gateway, which chooses its own providers.
func target(h hostEnv, stderr io.Writer, cmd string, providers, valid []string, op string, localOnly bool, flags string) (gw *gatewayClient, ok bool) {
	if msg := checkProviders(providers, valid, op); msg != "" {
		fmt.Fprintf(stderr, "webgate %s: %s\n", cmd, msg)
		return nil, false
	}
	gw, err := remoteGateway(h)
	if err != nil {
		fmt.Fprintf(stderr, "webgate %s: %v\n", cmd, err)
		return nil, false
	}
	if gw != nil && localOnly {
		fmt.Fprintf(stderr, "webgate %s: %s local providers; the gateway at %s (%s) chooses its own\n", cmd, flags, gw.base, gatewayURLEnv)
		return nil, false
	}
	if gw != nil && hookenv.GatewayInClear(gw.base) {
		// Used all the same (a gateway on a private network may be
		// meant so), but said.
		fmt.Fprintf(stderr, "webgate %s: warning: %s\n", cmd, sanitize.Line(hookenv.InClearWarning(gw.base)))
	}
	return gw, true
}

// checkProviders returns what is wrong with the first of names that is not
// one of valid (the providers that can do what the command does, op), or
// "" when every name is valid.
func checkProviders(names, valid []string, op string) string {
	for _, n := range names {
		if slices.Contains(valid, n) {
			continue
		}
		if _, known := config.Providers().Lookup(n); known {
			return fmt.Sprintf("provider %q cannot %s (want %s)", n, op, strings.Join(valid, ", "))
		}
		return fmt.Sprintf("unknown provider %q (want %s)", n, strings.Join(valid, ", "))
	}
	return ""
}

// envExamples names the key variables of the providers in the help texts,
// from the provider registry, in lines indented by two spaces.
var envExamples = func() string {
	var b strings.Builder
	width := 2
	for _, be := range config.Providers().All() {
		v := setVar(be)
		if v == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(",")
			width++
			if width+len(v) > 72 {
				b.WriteString("\n  ")
				width = 2
			} else {
				b.WriteString(" ")
				width++
			}
		}
		b.WriteString(v)
		width += len(v)
	}
	return b.String()
}()

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
