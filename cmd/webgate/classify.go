package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/safefile"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/webpage"
)

func classifyCommand() command {
	return command{
		name:    "classify",
		summary: "Classify HTML pages as fetch-readable, template-heavy or browser-render-required",
		run:     runClassify,
	}
}

const classifyDescription = `
Classify reads each page's initial HTML (as served, before JavaScript runs)
and prints one line per file: FILE<TAB>CLASS<TAB>CONFIDENCE. Use "-" to read
standard input. An http or https URL is read as the web fetch hook reads it:
through webgate's page probe, which refuses loopback, private-network and
metadata addresses (unless hooks.webfetch.allow_private is set), follows at
most 5 redirects and reads a bounded part of the page. With -v the signals
behind each decision follow, indented.

With --corpus DIR it instead evaluates a labelled corpus: DIR/labels.tsv is a
tab-separated file with a header row whose first two columns are the page
path (relative to DIR) and its expected class; it prints per-class accuracy
and the confusion matrix.

Exit status: 0 on success, 1 if a file or URL could not be read or a URL
is not an HTML page (the others are still printed), 2 for a bad command
line.`

const classifyExamples = `  webgate classify page.html
  webgate classify -v https://example.org/docs/
  curl -s https://example.org/ | webgate classify -v -
  webgate classify -v fixtures/*/*.html
  webgate classify --corpus ~/corpus
  webgate classify --corpus ~/corpus -v   # also list the misses`

func runClassify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("classify", "[flags] FILE|URL...", classifyDescription, classifyExamples, stderr)
	verbose := fs.Bool("v", false, "print the signals behind each decision (with --corpus: list misclassified pages)")
	corpus := fs.String("corpus", "", "evaluate the labelled corpus in `DIR` (reads DIR/labels.tsv)")
	maxBytes := fs.Int64("max-bytes", classify.DefaultMaxBytes, "classify at most this many `bytes` of each page; the rest is ignored")
	files, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	if *maxBytes <= 0 {
		fmt.Fprintf(stderr, "webgate classify: --max-bytes must be positive, got %d\n", *maxBytes)
		return exitUsage
	}
	c := classify.New(&classify.Options{MaxBytes: *maxBytes})
	if *corpus != "" {
		if len(files) > 0 {
			fmt.Fprintln(stderr, "webgate classify: give either --corpus DIR or files, not both")
			return exitUsage
		}
		return evalCorpus(ctx, c, *corpus, *verbose, stdout, stderr)
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "webgate classify: no files given (use - for standard input)")
		fs.Usage()
		return exitUsage
	}
	code := exitOK
	var reader *webpage.Reader
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			fmt.Fprintf(stderr, "webgate classify: %v\n", err)
			return exitFail
		}
		var (
			res classify.Result
			err error
		)
		if isWebURL(name) {
			if reader == nil {
				reader = classifyReader(c)
			}
			res, err = classifyURL(ctx, reader, name)
			name = sanitize.Line(name)
		} else {
			res, err = classifyFile(c, name, stdin)
		}
		if err != nil {
			fmt.Fprintf(stderr, "webgate classify: %v\n", err)
			code = exitFail
			continue
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", name, res.Class, strconv.FormatFloat(res.Confidence, 'f', 2, 64))
		if *verbose {
			printSignals(stdout, res)
		}
	}
	return code
}

// isWebURL reports whether a classify argument names a web page rather
// than a file.
func isWebURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// classifyReader returns the page reader the web fetch hook uses, with the
// configured probe settings (allow_private, size, time), classifying with
// c.
func classifyReader(c *classify.Classifier) *webpage.Reader {
	probe := assemble.ProbeConfig(config.Default())
	if cfg, _ := currentHost().loadConfig(""); cfg != nil {
		probe = assemble.ProbeConfig(cfg)
	}
	return &webpage.Reader{Probe: probe, Classify: func(html []byte) classify.Result {
		res, _ := c.Classify(bytes.NewReader(html))
		return res
	}}
}

// classifyURL reads a page through the reader's probe and returns the
// classifier's verdict on its HTML. A page that is not HTML, answered an
// error status or could not be read is an error saying so.
func classifyURL(ctx context.Context, r *webpage.Reader, rawURL string) (classify.Result, error) {
	name := sanitize.Line(rawURL)
	p, err := r.Plan(ctx, rawURL)
	var we *webpage.Error
	switch {
	case errors.As(err, &we) && we.Kind == webpage.KindHTTPStatus:
		return classify.Result{}, fmt.Errorf("%s: answered HTTP %d %s; there is no page to classify", name, we.Status, http.StatusText(we.Status))
	case errors.As(err, &we) && we.Kind == webpage.KindBlocked:
		msg := name + ": " + sanitize.Line(err.Error())
		if hint := privateHint(rawURL); hint != "" {
			msg += ". " + hint
		}
		return classify.Result{}, errors.New(msg)
	case err != nil:
		return classify.Result{}, fmt.Errorf("%s: %s", name, sanitize.Line(err.Error()))
	case p.Verdict != nil:
		return *p.Verdict, nil
	case p.ProbeFailure != "":
		return classify.Result{}, fmt.Errorf("%s: could not be read (%s)", name, sanitize.Line(p.ProbeErr.Error()))
	case p.Status < 200 || p.Status > 299:
		return classify.Result{}, fmt.Errorf("%s: answered HTTP %d %s; there is no page to classify", name, p.Status, http.StatusText(p.Status))
	}
	return classify.Result{}, fmt.Errorf("%s: not an HTML page (%s)", name, sanitize.Line(p.ContentType))
}

func classifyFile(c *classify.Classifier, name string, stdin io.Reader) (classify.Result, error) {
	if name == "-" {
		res, err := classifySniffed(c, stdin)
		if err != nil {
			return res, fmt.Errorf("standard input: %w", err)
		}
		return res, nil
	}
	// Regular files only: a FIFO would block the open and a device such as
	// /dev/zero never ends (Classify reads at most its cap either way).
	f, err := safefile.Open(name)
	if err != nil {
		return classify.Result{}, cleanPathError(err)
	}
	defer f.Close()
	res, err := classifySniffed(c, f)
	if err != nil {
		if !errors.Is(err, errNotHTML) {
			err = errors.Unwrap(err)
		}
		return res, fmt.Errorf("%s: %w", name, err)
	}
	return res, nil
}

// errNotHTML is the error of a document that is not a web page.
var errNotHTML = errors.New("not an HTML page")

// classifySniffed classifies r unless its first bytes say it is not text
// (a PDF, an image, an archive), which the classifier would read as an
// HTML page and judge; such a document is refused as a URL is.
func classifySniffed(c *classify.Classifier, r io.Reader) (classify.Result, error) {
	br := bufio.NewReaderSize(r, 512)
	head, _ := br.Peek(512)
	if len(head) > 0 {
		if ct := http.DetectContentType(head); !strings.HasPrefix(ct, "text/") && !strings.Contains(ct, "xml") {
			mt, _, _ := strings.Cut(ct, ";")
			return classify.Result{}, fmt.Errorf("%w (%s)", errNotHTML, mt)
		}
	}
	return c.Classify(br)
}

// cleanPathError turns "open x: no such file or directory" into
// "x: no such file or directory".
func cleanPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

func printSignals(w io.Writer, res classify.Result) {
	if res.Title != "" {
		fmt.Fprintf(w, "    title: %s\n", res.Title)
	}
	for _, s := range res.Signals {
		fmt.Fprintf(w, "    %s\n", s)
	}
}

func evalCorpus(ctx context.Context, c *classify.Classifier, dir string, verbose bool, stdout, stderr io.Writer) int {
	data, err := safefile.ReadFile(filepath.Join(dir, "labels.tsv"), 0)
	if err != nil {
		fmt.Fprintf(stderr, "webgate classify: corpus: %v\n", cleanPathError(err))
		return exitFail
	}
	labels, err := classify.ReadLabels(bytes.NewReader(data))
	if err != nil {
		fmt.Fprintf(stderr, "webgate classify: corpus: %v\n", err)
		return exitFail
	}
	if len(labels) == 0 {
		fmt.Fprintf(stderr, "webgate classify: corpus: %s has no labelled pages\n", filepath.Join(dir, "labels.tsv"))
		return exitFail
	}
	var m classify.Confusion
	code := exitOK
	var misses []string
	for _, l := range labels {
		if err := ctx.Err(); err != nil {
			fmt.Fprintf(stderr, "webgate classify: %v\n", err)
			return exitFail
		}
		res, err := classifyFile(c, filepath.Join(dir, filepath.FromSlash(l.File)), nil)
		if err != nil {
			fmt.Fprintf(stderr, "webgate classify: corpus: %v\n", err)
			code = exitFail
			continue
		}
		m.Add(l.Class, res.Class)
		if res.Class != l.Class {
			misses = append(misses, fmt.Sprintf("%s\texpected %s\tgot %s\t%.2f", l.File, l.Class, res.Class, res.Confidence))
		}
	}
	fmt.Fprint(stdout, m.String())
	if verbose && len(misses) > 0 {
		fmt.Fprintf(stdout, "\nmisclassified (%d):\n", len(misses))
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for _, s := range misses {
			fmt.Fprintf(tw, "  %s\n", s)
		}
		tw.Flush()
	}
	return code
}
