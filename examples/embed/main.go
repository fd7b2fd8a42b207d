// Command embed shows how a program embeds webgate: it loads the
// configuration, builds everything from it in one call, searches the web
// and reads a page the way an agent's web fetch tool should.
//
// It loads webgate's configuration the way every frontend does
// (config.LoadFromOS: defaults, then the configuration file, then the
// environment), so the usual variables work: each provider's key variable
// (TAVILY_API_KEY, EXA_API_KEY, …, a key, "k1|k2" or a key file), its base
// URL (TAVILY_BASE_URL, …), and WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1 to let
// the page reader reach loopback and private networks.
//
// assemble.Build returns a Stack: the configured search policy over
// every provider with a key (Stack.Searcher) and the page reader
// (Stack.Reader), which probes a page safely, classifies it, converts it
// locally when it can and asks the extraction policy otherwise.
//
// # Running it
//
//	go run ./examples/embed -query "go context cancellation"
//	go run ./examples/embed -url https://go.dev/blog/context
//
// With -query it prints the merged results, with the providers that returned
// each one, and the providers that failed. With -url it prints the
// classifier's verdict, how the page was read and the start of its content
// (-chars).
//
// Exit codes: 0 when everything asked for succeeded (partial search failures
// included), 1 when a search or a page read failed or the configuration has
// problems, 2 for invalid flags or a URL that is not http or https.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage"
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program over its arguments and output streams.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("embed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	query := fs.String("query", "", "search the web for `text`")
	pageURL := fs.String("url", "", "read the page at `URL`")
	chars := fs.Int("chars", 600, "print at most `n` characters of the page content")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 || (*query == "" && *pageURL == "") || *chars < 0 {
		fmt.Fprintln(stderr, "usage: embed [-query TEXT] [-url URL] [-chars N]")
		return exitUsage
	}

	// Load the configuration; a program run by hand stops on problems (an
	// invalid base URL, for instance, would fall back to the real API).
	cfg, err := config.LoadFromOS()
	if err != nil {
		fmt.Fprintf(stderr, "embed: the configuration has problems:\n  %s\n", strings.Join(config.Problems(err), "\n  "))
		return exitFailed
	}
	stack, err := assemble.Build(cfg, nil)
	if err != nil {
		fmt.Fprintln(stderr, "embed:", err)
		return exitFailed
	}

	code := exitOK
	if *query != "" {
		if err := search(ctx, stack, cfg, *query, stdout); err != nil {
			fmt.Fprintln(stderr, "embed: search failed:", err)
			code = exitFailed
		}
	}
	if *pageURL != "" {
		if err := read(ctx, stack.Reader, *pageURL, *chars, stdout); err != nil {
			fmt.Fprintln(stderr, "embed: reading the page failed:", err)
			if webpage.KindOf(err) == webpage.KindBadURL {
				return exitUsage
			}
			code = exitFailed
		}
	}
	return code
}

// search runs q through the configured search policy and prints the
// results and the providers that failed.
func search(ctx context.Context, stack *assemble.Stack, cfg *config.Config, q string, w io.Writer) error {
	if stack.Searcher == nil {
		var vars []string
		for _, b := range cfg.Registry().All() {
			if b.Search && b.KeyEnv != "" {
				vars = append(vars, b.KeyEnv)
			}
		}
		return fmt.Errorf("no search provider has a key: set one of %s", strings.Join(vars, ", "))
	}
	res, err := stack.Searcher.Search(ctx, provider.Query{Text: q})
	if err != nil {
		// Every provider failed: each one's failure, then the overall
		// class.
		fmt.Fprintf(w, "Search %q: every provider failed\n", q)
		printFailures(w, provider.FailuresOf(err))
		return fmt.Errorf("%s (kind %s)", provider.ClassOf(err), provider.KindOf(err))
	}
	fmt.Fprintf(w, "Search %q via %s: %d result(s)\n", q, res.Provider, len(res.Results))
	for i, r := range res.Results {
		from := r.Providers
		if len(from) == 0 {
			from = []string{r.Provider}
		}
		fmt.Fprintf(w, "%2d. %s\n    %s\n    from: %s (score %.4f)\n", i+1, r.Title, r.URL, strings.Join(from, ", "), r.Score)
	}
	printFailures(w, res.Failures)
	return nil
}

// printFailures prints one line per failed provider with its user-facing
// class and kind. Provider errors never contain API keys.
func printFailures(w io.Writer, failures []provider.Failure) {
	for _, f := range failures {
		fmt.Fprintf(w, "failed: %s: %s (kind %s): %v\n", f.Provider, f.Kind.Class(), f.Kind, f.Err)
	}
}

// read reads the page at rawURL and prints the classifier's verdict, how
// the page was read and the start of its content.
func read(ctx context.Context, reader *webpage.Reader, rawURL string, chars int, w io.Writer) error {
	page, err := reader.Read(ctx, webpage.Request{URL: rawURL})
	if err != nil {
		if webpage.KindOf(err) == webpage.KindBlocked {
			return fmt.Errorf("%w (set WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1 to read pages on loopback or private networks)", err)
		}
		return err
	}
	fmt.Fprintf(w, "Page %s\n", rawURL)
	if v := page.Plan.Verdict; v != nil {
		fmt.Fprintf(w, "class: %s (confidence %.2f)\n", v.Class, v.Confidence)
	}
	how := string(page.Source) // local, recovered, rendered, provider or local-fallback
	if page.Provider != "" {
		how += " via " + page.Provider
	}
	fmt.Fprintf(w, "read: %s\n", how)
	if page.Note != "" {
		fmt.Fprintf(w, "note: %s\n", page.Note)
	}
	fmt.Fprintf(w, "title: %s\n", page.Title)
	content := []rune(strings.TrimSpace(page.Content))
	fmt.Fprintf(w, "content (%d characters):\n%s\n", len(content), string(content[:min(chars, len(content))]))
	return nil
}
