// Command custom-provider shows how to add a search backend of your own to
// webgate and combine it with the built-in ones.
//
// The backend, DocsSearch in docs.go, talks to a documentation search
// service with a small JSON API. It implements provider.Searcher and
// provider.Namer, makes its request through provider.HTTP (key rotation,
// retries and a capped body come with it) and turns every failure into a
// *provider.Error whose Kind policies act on: the HTTP status gives the
// usual kind and the service's error code refines it (a 403
// "quota_exceeded" is a quota failure, not a rejected key).
//
// The program puts DocsSearch next to webgate's configured web search (built
// with the config package as every frontend does, assemble.Build, from
// the providers' key variables such as TAVILY_API_KEY, their base URL
// overrides, or the configuration file) in a policy.Parallel (-mode
// parallel: ask both, merge the lists) or a policy.Fallback (-mode
// fallback: the docs first, the web when they fail or find nothing). The
// web search is itself a policy over the providers with keys: policies are
// Searchers, so they nest. It prints the results with the providers
// that returned them, and every failure with its kind, its user-facing
// class and what a program would do about it (provider.KindOf,
// Kind.Class, Kind.Retryable, Kind.Rotatable).
//
// # Running it
//
// Without -docs-url the program starts a small demo docs service on
// 127.0.0.1 and uses it with the key it accepts, so it runs with no setup:
//
//	go run ./examples/custom-provider -query "key rotation"
//	TAVILY_API_KEY=tvly-… go run ./examples/custom-provider -query "context cancellation" -mode fallback
//
// -demo-fail makes the demo service answer every search with an HTTP status,
// to see how each failure is classified and handled:
//
//	go run ./examples/custom-provider -query "key rotation" -demo-fail 403   # quota, from the error code
//	go run ./examples/custom-provider -query "key rotation" -demo-fail 503   # transient, retried once
//
// With -docs-url the program uses a real service of that shape, with the
// keys in DOCS_API_KEY (a key, "k1|k2" or a key file).
//
// Exit codes: 0 when the search succeeded (even if some providers failed),
// 1 when every provider failed or the setup is wrong, 2 for invalid flags.
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
	"time"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program over its arguments, environment and output
// streams.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("custom-provider", flag.ContinueOnError)
	fs.SetOutput(stderr)
	query := fs.String("query", "", "search for `text` (required)")
	mode := fs.String("mode", "parallel", "how to combine the providers: parallel or fallback")
	docsURL := fs.String("docs-url", "", "base `URL` of the docs service; empty starts the built-in demo service")
	demoFail := fs.Int("demo-fail", 0, "make the demo service answer every search with this HTTP `status`")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: custom-provider -query TEXT [-mode parallel|fallback] [-docs-url URL] [-demo-fail STATUS]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	m, err := policy.ParseMode(*mode)
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "custom-provider: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	case strings.TrimSpace(*query) == "":
		fmt.Fprintln(stderr, "custom-provider: -query is required")
		fs.Usage()
		return exitUsage
	case err != nil || m == policy.ModeSingle:
		fmt.Fprintf(stderr, "custom-provider: -mode must be parallel or fallback, not %q\n", *mode)
		return exitUsage
	case *demoFail != 0 && (*docsURL != "" || *demoFail < 400 || *demoFail > 599):
		fmt.Fprintln(stderr, "custom-provider: -demo-fail takes a 4xx or 5xx status and works only with the demo service (no -docs-url)")
		return exitUsage
	}

	// The docs backend: its own keys and base URL.
	base, keySpec := strings.TrimSpace(*docsURL), getenv("DOCS_API_KEY")
	if base == "" {
		demo, stopDemo, err := startDemo(*demoFail)
		if err != nil {
			fmt.Fprintln(stderr, "custom-provider: cannot start the demo docs service:", err)
			return exitFailed
		}
		defer stopDemo()
		base, keySpec = demo, demoKey
	}
	keys, err := provider.ParseKeys(keySpec)
	if err != nil {
		fmt.Fprintln(stderr, "custom-provider: DOCS_API_KEY:", err) // names a path, never a key
		return exitFailed
	}
	docs, err := NewDocsSearch(provider.NewPool(keys, nil), &DocsConfig{
		BaseURL: base,
		// A nearby service answers quickly or not at all: one retry,
		// short waits.
		HTTP: provider.HTTPConfig{AttemptTimeout: 5 * time.Second, MaxAttempts: 2, MinBackoff: 50 * time.Millisecond, MaxBackoff: 500 * time.Millisecond},
	})
	if err != nil {
		fmt.Fprintln(stderr, "custom-provider:", err)
		return exitFailed
	}

	// webgate's web search over the built-in backends that have keys.
	cfg, err := config.LoadFromOS()
	if err != nil {
		fmt.Fprintln(stderr, "custom-provider: the configuration has problems:\n "+strings.ReplaceAll(err.Error(), "\n", "\n "))
		return exitFailed
	}
	stack, err := assemble.Build(cfg, nil)
	if err != nil {
		fmt.Fprintln(stderr, "custom-provider:", err)
		return exitFailed
	}
	providers := []provider.Searcher{docs}
	if stack.Searcher != nil {
		providers = append(providers, stack.Searcher)
	} else {
		var vars []string
		for _, b := range cfg.Registry().All() {
			if b.Search && b.KeyEnv != "" {
				vars = append(vars, b.KeyEnv)
			}
		}
		fmt.Fprintf(stderr, "custom-provider: no web search provider has a key (set one of %s); searching the docs alone\n", strings.Join(vars, ", "))
	}

	// The custom backend is a Searcher like any other, so the policies
	// take it as it is. In fallback mode the docs go first: the web is
	// asked only when they fail or find nothing.
	var search interface {
		provider.Searcher
		provider.Namer
	}
	if m == policy.ModeFallback {
		search, err = policy.NewFallback(providers, assemble.SearchPolicyConfig(cfg))
	} else {
		search, err = policy.NewParallel(providers, assemble.SearchPolicyConfig(cfg))
	}
	if err != nil {
		fmt.Fprintln(stderr, "custom-provider:", err)
		return exitFailed
	}

	res, err := search.Search(ctx, provider.Query{Text: strings.TrimSpace(*query)})
	if err != nil {
		fmt.Fprintf(stdout, "Search %q via %s: every provider failed\n", *query, search.Name())
		var all *policy.AllFailedError
		if errors.As(err, &all) {
			printFailures(stdout, all.Failures)
		}
		// KindOf of the whole error is the overall verdict: the common
		// kind, or the one most worth acting on.
		k := provider.KindOf(err)
		fmt.Fprintf(stderr, "custom-provider: search failed: %s (kind %s): %s\n", k.Class(), k, advice(k))
		return exitFailed
	}
	n := fmt.Sprintf("%d results", len(res.Results))
	if len(res.Results) == 1 {
		n = "1 result"
	}
	fmt.Fprintf(stdout, "Search %q via %s: %s\n", *query, search.Name(), n)
	for i, r := range res.Results {
		from := r.Providers
		if len(from) == 0 {
			from = []string{r.Provider}
		}
		fmt.Fprintf(stdout, "%2d. %s\n    %s\n    from: %s\n", i+1, r.Title, r.URL, strings.Join(from, ", "))
	}
	printFailures(stdout, res.Failures)
	return exitOK
}

// printFailures prints each failed provider with its kind, its user-facing
// class and what to do about it. The kind comes from provider.KindOf, never
// from the error's text.
func printFailures(w io.Writer, failures []provider.Failure) {
	for _, f := range failures {
		k := f.Kind
		if k == "" {
			k = provider.KindOf(f.Err)
		}
		var tag string
		var pe *provider.Error
		if errors.As(f.Err, &pe) && pe.Tag != "" {
			tag = ", code " + pe.Tag
		}
		fmt.Fprintf(w, "failed: %s: %s (kind %s%s): %s\n", f.Provider, k.Class(), k, tag, advice(k))
		fmt.Fprintf(w, "        %v\n", f.Err)
	}
}

// advice says what a program would do after a failure of kind k. Retryable
// kinds may pass by themselves; rotatable ones may pass with another key of
// the same provider (a provider.Pool with several keys does that already).
func advice(k provider.Kind) string {
	switch k {
	case provider.KindAuth:
		return "the key was refused: check it, or add a working key to the pool"
	case provider.KindQuota:
		return "credits or plan exhausted: add credits, or another key to the pool"
	case provider.KindBadRequest:
		return "the request was rejected: change the query"
	case provider.KindUnsupported:
		return "the provider cannot do this: try another"
	case provider.KindCanceled:
		return "canceled"
	}
	switch {
	case k.Retryable() && k.Rotatable():
		return "slow down, or spread the load over more keys"
	case k.Retryable():
		return "may pass: try again in a moment"
	}
	return "unexpected answer: see the error"
}
