// Command embed shows how a program embeds webgate: it searches the web over
// every provider that has an API key and reads a page the way an agent's web
// fetch tool should.
//
// It loads webgate's configuration the way every frontend does
// (config.LoadFromOS: defaults, then the configuration file, then the
// environment), so the usual variables work:
//
//	TAVILY_API_KEY, WEBSEARCHAPI_API_KEY, EXA_API_KEY   a key, "k1|k2" or a key file
//	TAVILY_BASE_URL, WEBSEARCHAPI_BASE_URL, EXA_BASE_URL   point a provider elsewhere
//	WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1   let the page fetch reach loopback and private networks
//	WEBGATE_DEBUG=1   print each policy's trace on stderr
//
// # Searching
//
// With -query it builds a policy.Parallel over the search backends that have
// keys, asks all of them at once and prints the merged list: for each result
// the providers that returned it (its provenance) and the fused score. When
// some providers fail and others answer, the failures are printed with their
// kind and user-facing class (auth-failed, credit-or-quota-failed,
// transient-provider-failed, unknown); the search still succeeds.
//
// # Reading a page
//
// With -url it fetches the page itself with hooks.Probe (http and https only,
// a bounded body, every dialled address checked against loopback, private and
// cloud-metadata ranges), classifies the HTML with package classify and:
//
//   - for a fetch-readable page, prints the page's own text: no extraction
//     provider is called;
//   - for a template-heavy or browser-render-required page, or one that
//     refuses a direct fetch, reads it with the extraction policy
//     (policy.Extraction over the extractors that have keys) and prints what
//     came back.
//
// It prints the class, the classifier's confidence, the path taken and the
// first part of the content (-chars).
//
// # Running it
//
//	go run ./examples/embed -query "go context cancellation"
//	go run ./examples/embed -url https://go.dev/blog/context
//	go run ./examples/embed -query "tavily extract api" -url https://example.com/app
//
// Exit codes: 0 when everything asked for succeeded (partial search failures
// included), 1 when a search or a page read failed or the configuration has
// problems, 2 for invalid flags.
//
// API keys never appear in the output: provider errors are scrubbed of them.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// errUsage marks errors caused by what the user asked for (a URL that is not
// http or https), which exit with exitUsage.
var errUsage = errors.New("invalid input")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program over its arguments and output streams, so that it
// reads as one function from flags to exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("embed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	query := fs.String("query", "", "search the web for `text`")
	pageURL := fs.String("url", "", "read the page at `URL`")
	results := fs.Int("n", 0, "number of search results; 0 means the configured default")
	chars := fs.Int("chars", 600, "print at most `n` characters of the page content")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: embed [-query TEXT] [-url URL] [-n N] [-chars N]")
		fmt.Fprintln(stderr, "Search the web over every provider with a key, and/or read one page.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "embed: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	case strings.TrimSpace(*query) == "" && strings.TrimSpace(*pageURL) == "":
		fmt.Fprintln(stderr, "embed: give -query, -url or both")
		fs.Usage()
		return exitUsage
	case *results < 0 || *chars < 0:
		fmt.Fprintln(stderr, "embed: -n and -chars must not be negative")
		return exitUsage
	}

	cfg, err := config.LoadFromOS()
	if err != nil {
		// Load returns a usable Config even then, but a program run by
		// hand is better off stopping: an invalid base URL, for instance,
		// would silently fall back to the real API.
		fmt.Fprintln(stderr, "embed: the configuration has problems:")
		var ce *config.Error
		if errors.As(err, &ce) {
			for _, p := range ce.Problems {
				fmt.Fprintln(stderr, "  "+p.Error())
			}
		} else {
			fmt.Fprintln(stderr, "  "+err.Error())
		}
		return exitFailed
	}
	var observer policy.Observer
	if cfg.Debug {
		observer = func(t policy.Trace) { fmt.Fprintln(stderr, "embed: trace:", t) }
	}

	code := exitOK
	if q := strings.TrimSpace(*query); q != "" {
		if err := search(ctx, cfg, observer, provider.Query{Text: q, MaxResults: *results}, stdout); err != nil {
			fmt.Fprintln(stderr, "embed: search failed:", err)
			code = exitFailed
		}
	}
	if u := strings.TrimSpace(*pageURL); u != "" {
		if code == exitOK && strings.TrimSpace(*query) != "" {
			fmt.Fprintln(stdout)
		}
		if err := read(ctx, cfg, observer, u, *chars, stdout); err != nil {
			fmt.Fprintln(stderr, "embed: reading the page failed:", err)
			if errors.Is(err, errUsage) {
				return exitUsage
			}
			code = exitFailed
		}
	}
	return code
}

// search runs q through a Parallel policy over the configured search
// backends and prints the merged results and any partial failures.
func search(ctx context.Context, cfg *config.Config, observer policy.Observer, q provider.Query, w io.Writer) error {
	searchers, err := cfg.Searchers()
	if err != nil {
		return fmt.Errorf("%w: set TAVILY_API_KEY, WEBSEARCHAPI_API_KEY or EXA_API_KEY", err)
	}
	pc := cfg.SearchPolicyConfig()
	pc.Observer = observer
	parallel, err := policy.NewParallel(searchers, pc)
	if err != nil {
		return err
	}

	res, err := parallel.Search(ctx, q)
	if err != nil {
		// Every provider failed. The *AllFailedError carries each one's
		// failure; KindOf and ClassOf of the whole error give the overall
		// verdict.
		var all *policy.AllFailedError
		if errors.As(err, &all) {
			fmt.Fprintf(w, "Search %q: every provider failed\n", q.Text)
			printFailures(w, all.Failures)
		}
		return fmt.Errorf("%s (kind %s)", provider.ClassOf(err), provider.KindOf(err))
	}

	fmt.Fprintf(w, "Search %q via %s: %s\n", q.Text, parallel.Name(), count(len(res.Results), "result"))
	for i, r := range res.Results {
		from := r.Providers
		if len(from) == 0 {
			from = []string{r.Provider}
		}
		fmt.Fprintf(w, "%2d. %s\n", i+1, oneLine(r.Title, 120))
		fmt.Fprintf(w, "    %s\n", r.URL)
		fmt.Fprintf(w, "    from: %s (score %.4f)\n", strings.Join(from, ", "), r.Score)
		if s := oneLine(r.Snippet, 200); s != "" {
			fmt.Fprintf(w, "    %s\n", s)
		}
	}
	printFailures(w, res.Failures)
	return nil
}

// printFailures prints one line per failed provider with its user-facing
// class and kind. Provider errors never contain API keys.
func printFailures(w io.Writer, failures []provider.Failure) {
	for _, f := range failures {
		note := ""
		if f.TimedOut {
			note = ", timed out"
		}
		fmt.Fprintf(w, "failed: %s: %s (kind %s%s): %v\n", f.Provider, f.Kind.Class(), f.Kind, note, f.Err)
	}
}

// read fetches rawURL, classifies it and, when a plain fetch cannot read it,
// runs the extraction policy. It prints the class, the path taken and the
// start of the content.
func read(ctx context.Context, cfg *config.Config, observer policy.Observer, rawURL string, chars int, w io.Writer) error {
	wf := cfg.Hooks.WebFetch
	probe, err := hooks.Probe(ctx, rawURL, hooks.ProbeConfig{
		MaxBytes:     int64(wf.MaxBytes),
		Timeout:      wf.ProbeTimeout,
		AllowPrivate: wf.AllowPrivate,
	})

	// why is set when the page has to go to an extraction provider.
	var why string
	switch {
	case errors.Is(err, hooks.ErrUnsupportedURL):
		return fmt.Errorf("%w: %v", errUsage, err)
	case errors.Is(err, hooks.ErrBlockedAddress):
		return fmt.Errorf("%w (set WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1 to read pages on loopback or private networks)", err)
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		// Timeouts, TLS failures, resets: an extraction provider fetches
		// from elsewhere and may still succeed.
		why = "could not be fetched directly (" + err.Error() + ")"
	case hooks.RefusedStatus(probe.Status):
		why = fmt.Sprintf("refused a direct fetch (HTTP %d)", probe.Status)
	case probe.Status < 200 || probe.Status > 299:
		return fmt.Errorf("the page answered HTTP %d", probe.Status)
	case !probe.HTML():
		fmt.Fprintf(w, "Page %s\n", probe.URL)
		fmt.Fprintf(w, "class: none (not HTML: %s)\n", probe.ContentType)
		fmt.Fprintln(w, "path: direct fetch")
		printContent(w, "", string(bytes.ToValidUTF8(probe.Body, nil)), chars)
		return nil
	}

	fmt.Fprintf(w, "Page %s\n", rawURL)
	if why == "" {
		res := classify.New(&classify.Options{MaxBytes: int64(wf.MaxBytes)}).ClassifyBytes(probe.Body)
		fmt.Fprintf(w, "class: %s\n", res.Class)
		fmt.Fprintf(w, "confidence: %.2f\n", res.Confidence)
		if len(res.Signals) > 0 {
			fmt.Fprintf(w, "because: %s\n", res.Signals[0])
		}
		if res.Class == classify.FetchReadable {
			fmt.Fprintln(w, "path: direct fetch (no extraction provider called)")
			title, text := pageText(probe.Body)
			if title == "" {
				title = res.Title
			}
			printContent(w, title, text, chars)
			return nil
		}
		why = "is " + string(res.Class)
	} else {
		fmt.Fprintf(w, "class: not classified (the page %s)\n", why)
	}

	extractors, err := cfg.Extractors()
	if err != nil {
		return fmt.Errorf("the page %s and needs an extraction provider, but %w: set TAVILY_API_KEY, WEBSEARCHAPI_API_KEY or EXA_API_KEY", why, err)
	}
	pc := cfg.ExtractPolicyConfig()
	pc.Observer = observer
	extractor, err := policy.NewExtraction(extractors, pc)
	if err != nil {
		return err
	}
	page, err := extractor.Extract(ctx, provider.ExtractRequest{URL: rawURL, Format: provider.Markdown})
	if err != nil {
		var all *policy.AllFailedError
		if errors.As(err, &all) {
			printFailures(w, all.Failures)
		}
		return fmt.Errorf("the page %s, and extraction failed: %s (kind %s)", why, provider.ClassOf(err), provider.KindOf(err))
	}
	if page == nil {
		return fmt.Errorf("the page %s, and %s returned no page", why, provider.NameOf(extractor))
	}
	fmt.Fprintf(w, "path: extracted via %s, because the page %s\n", page.Provider, why)
	printContent(w, page.Title, page.Content, chars)
	return nil
}

// pageText returns the title and the readable text of a fetch-readable
// page: the text of its headings, paragraphs, list items and code blocks,
// one per line, taken from <article> or <main> when the page has one. It is
// deliberately small; a program that needs Markdown would use a
// readability library here.
func pageText(html []byte) (title, text string) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(html))
	if err != nil {
		return "", ""
	}
	title = strings.Join(strings.Fields(doc.Find("title").First().Text()), " ")
	doc.Find("script, style, noscript, template, nav, header, footer, aside, form").Remove()
	root := doc.Find("article").First()
	if root.Length() == 0 {
		root = doc.Find("main").First()
	}
	if root.Length() == 0 {
		root = doc.Find("body")
	}
	var lines []string
	root.Find("h1, h2, h3, h4, h5, h6, p, li, pre, blockquote").Each(func(_ int, s *goquery.Selection) {
		if s.ParentsFiltered("p, li, pre, blockquote").Length() > 0 {
			return // already counted with its parent
		}
		if t := strings.Join(strings.Fields(s.Text()), " "); t != "" {
			lines = append(lines, t)
		}
	})
	if len(lines) == 0 {
		return title, strings.Join(strings.Fields(root.Text()), " ")
	}
	return title, strings.Join(lines, "\n")
}

// printContent prints a title line and at most chars characters of
// content.
func printContent(w io.Writer, title, content string, chars int) {
	if t := oneLine(title, 200); t != "" {
		fmt.Fprintf(w, "title: %s\n", t)
	}
	content = strings.TrimSpace(content)
	r := []rune(content)
	cut := len(r) > chars
	if cut {
		r = r[:chars]
	}
	fmt.Fprintf(w, "content (%d characters):\n%s", len([]rune(content)), string(r))
	if cut {
		fmt.Fprint(w, " […]")
	}
	fmt.Fprintln(w)
}

// count returns "1 result", "2 results".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// oneLine collapses whitespace and cuts s to max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
