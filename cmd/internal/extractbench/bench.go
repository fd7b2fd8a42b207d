// Package extractbench measures how well webgate's page reader finds a
// page's main content, on the development split of WCXB, a public web
// content extraction benchmark of pages of seven types (article, forum,
// product, collection, listing, documentation, service) with
// hand-checked ground truth.
//
// Each page is read from its HTML as served through the product's reader
// ([webpage.Reader] with no extraction provider and no browser: what
// `webgate fetch`, the web_fetch tool and the hooks do with no key), its
// Markdown is turned into plain text ([PlainText]), and it is scored the
// way the benchmark's own evaluate.py scores it ([WordF1]: word-level
// precision, recall and F1 on lower-cased \w+ tokens, averaged over
// pages).
//
// `make bench-extract` runs every page of the split and prints the
// figures beside the published systems'; the package's test runs a fixed
// stratified subset with floors. The data lives outside the module, in
// ../shared/extraction/wcxb beside the repository; both skip when it is
// absent.
package extractbench

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/webpage"
)

// DefaultDir is where the benchmark's development split lives, relative
// to the repository's root.
const DefaultDir = "../shared/extraction/wcxb"

// Types lists the benchmark's page types in the order evaluate.py prints
// them.
var Types = []string{"article", "forum", "product", "collection", "listing", "documentation", "service"}

// Page is one page of the benchmark.
type Page struct {
	// ID is the page's file id ("0001").
	ID string
	// Type is the page's type, as evaluate.py reads it from the ground
	// truth ("category" is counted as "collection").
	Type string
	// URL is the page's address.
	URL string
	// Reference is the page's main content as plain text.
	Reference string
	// dir is the split's folder.
	dir string
}

// HTML returns the page as served.
func (p Page) HTML() ([]byte, error) {
	f, err := os.Open(filepath.Join(p.dir, "html", p.ID+".html.gz"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.ID, err)
	}
	return io.ReadAll(z)
}

// ErrNoData reports that the benchmark's data is not where it was looked
// for.
var ErrNoData = errors.New("extractbench: the benchmark's data is absent")

// Load reads the ground truth of the development split under dir (the
// folder holding dev/ and evaluate.py). With ids it loads those pages
// alone, in that order; without, every page in id order.
func Load(dir string, ids ...string) ([]Page, error) {
	split := filepath.Join(dir, "dev")
	if _, err := os.Stat(filepath.Join(split, "ground-truth")); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoData, err)
	}
	if len(ids) == 0 {
		files, err := filepath.Glob(filepath.Join(split, "ground-truth", "*.json"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			ids = append(ids, strings.TrimSuffix(filepath.Base(f), ".json"))
		}
		sort.Strings(ids)
	}
	pages := make([]Page, 0, len(ids))
	for _, id := range ids {
		raw, err := os.ReadFile(filepath.Join(split, "ground-truth", id+".json"))
		if err != nil {
			return nil, err
		}
		var gt struct {
			URL      string `json:"url"`
			Internal struct {
				PageType json.RawMessage `json:"page_type"`
			} `json:"_internal"`
			GroundTruth struct {
				MainContent string `json:"main_content"`
			} `json:"ground_truth"`
		}
		if err := json.Unmarshal(raw, &gt); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		pages = append(pages, Page{ID: id, Type: pageType(gt.Internal.PageType), URL: gt.URL, Reference: gt.GroundTruth.MainContent, dir: split})
	}
	return pages, nil
}

// pageType reads a page's type as evaluate.py's get_page_type does.
func pageType(raw json.RawMessage) string {
	pt := "article"
	var obj struct {
		Primary *string `json:"primary"`
	}
	var s string
	switch {
	case json.Unmarshal(raw, &obj) == nil && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")):
		if obj.Primary != nil {
			pt = *obj.Primary
		}
	case json.Unmarshal(raw, &s) == nil:
		pt = s
	}
	if pt == "category" {
		return "collection"
	}
	return pt
}

// Reading is what an engine made of one page.
type Reading struct {
	// Markdown is the content as the engine returned it.
	Markdown string
	// Text is Markdown as plain text: what is scored.
	Text string
	// Class is the classifier's verdict; empty when the engine does not
	// classify.
	Class classify.Class
	// Structure says the page was read in structure mode (its sections
	// and link lists) rather than for its main content.
	Structure bool
	// Source is the reader's path.
	Source webpage.Source
	// Err is why the page could not be read; its text is then empty.
	Err error
}

// Engine reads one page from its HTML as served.
type Engine func(ctx context.Context, url string, html []byte) Reading

// Product is the product's reader as `webgate fetch` runs it with no key
// and no browser: [webpage.Reader.PlanBody] decides from the page as
// served exactly as [webpage.Reader.Plan] does after its probe, and
// [webpage.Reader.Execute] reads it through its local tiers.
func Product() Engine {
	r := &webpage.Reader{}
	return func(ctx context.Context, url string, html []byte) Reading {
		p := r.PlanBody(url, "text/html; charset=utf-8", html)
		res, err := r.Execute(ctx, p, webpage.Request{URL: url})
		var out Reading
		if p.Verdict != nil {
			out.Class = p.Verdict.Class
		}
		if err != nil {
			out.Err = err
			return out
		}
		out.Markdown, out.Source = res.Content, res.Source
		out.Text = PlainText(res.Content)
		out.Structure = res.Mode == webpage.ConvertStructure
		return out
	}
}

// Converter is webpage.ConvertHTMLMode alone, without the reader's
// classifier and tiers: every page read the way mode says. It measures
// what each conversion would give if the reader chose it.
func Converter(mode webpage.ConvertMode) Engine {
	return func(_ context.Context, url string, html []byte) Reading {
		d := webpage.ConvertHTMLMode(html, url, mode)
		return Reading{Markdown: d.Markdown, Text: PlainText(d.Markdown), Structure: d.Mode == webpage.ConvertStructure, Source: webpage.SourceLocal}
	}
}

// Result is one page read and scored.
type Result struct {
	Page
	Reading
	Score
	// Elapsed is how long the engine took.
	Elapsed time.Duration
}

// Run reads pages with engine, workers at a time (at least one), and
// scores them. It stops early when ctx ends.
func Run(ctx context.Context, pages []Page, engine Engine, workers int) ([]Result, error) {
	if workers < 1 {
		workers = 1
	}
	out := make([]Result, len(pages))
	errs := make([]error, len(pages))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				html, err := pages[i].HTML()
				if err != nil {
					errs[i] = err
					continue
				}
				start := time.Now()
				rd := engine(ctx, pages[i].URL, html)
				out[i] = Result{Page: pages[i], Reading: rd, Elapsed: time.Since(start)}
				out[i].Score = WordF1(rd.Text, pages[i].Reference)
			}
		})
	}
	for i := range pages {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, ctx.Err()
}

// Summary is the mean score of a set of pages.
type Summary struct {
	// Pages is how many pages were scored.
	Pages int
	// Precision, Recall and F1 are means over the pages.
	Precision, Recall, F1 float64
	// Structure is how many pages were read in structure mode.
	Structure int
	// Failed is how many pages the engine could not read.
	Failed int
	// MedianElapsed is the median time an engine took per page.
	MedianElapsed time.Duration
}

// Summarize averages the results whose type is typ; "" means all.
func Summarize(results []Result, typ string) Summary {
	var s Summary
	var times []time.Duration
	for _, r := range results {
		if typ != "" && r.Type != typ {
			continue
		}
		s.Pages++
		s.Precision += r.Precision
		s.Recall += r.Recall
		s.F1 += r.F1
		if r.Structure {
			s.Structure++
		}
		if r.Err != nil {
			s.Failed++
		}
		times = append(times, r.Elapsed)
	}
	if s.Pages > 0 {
		n := float64(s.Pages)
		s.Precision, s.Recall, s.F1 = s.Precision/n, s.Recall/n, s.F1/n
		slices.Sort(times)
		s.MedianElapsed = times[len(times)/2]
	}
	return s
}

// Published are the figures the benchmark's README gives for the
// development split: mean word F1 overall, and per page type for the
// best system.
var Published = []struct {
	System string
	F1     float64
	ByType map[string]float64
}{
	{"rs-trafilatura", 0.859, map[string]float64{"article": 0.932, "documentation": 0.932, "service": 0.844, "forum": 0.808, "collection": 0.716, "listing": 0.707, "product": 0.641}},
	{"MinerU-HTML", 0.827, nil},
	{"Trafilatura", 0.791, nil},
	{"dom-smoothie", 0.762, nil},
	{"Newspaper4k", 0.720, nil},
	{"Readability", 0.675, nil},
}

// Write prints the results: overall and per type, with the best
// published figure beside each.
func Write(w io.Writer, results []Result) {
	best := Published[0]
	all := Summarize(results, "")
	fmt.Fprintf(w, "%-14s %5s %7s %7s %7s %10s %9s %7s\n", "type", "pages", "F1", "P", "R", "structure", "median", "best")
	line := func(name string, s Summary, ref float64) {
		fmt.Fprintf(w, "%-14s %5d %7.3f %7.3f %7.3f %10d %7.1fms %7.3f\n", name, s.Pages, s.F1, s.Precision, s.Recall, s.Structure, float64(s.MedianElapsed.Microseconds())/1000, ref)
	}
	line("all", all, best.F1)
	for _, t := range Types {
		if s := Summarize(results, t); s.Pages > 0 {
			line(t, s, best.ByType[t])
		}
	}
	if all.Failed > 0 {
		fmt.Fprintf(w, "pages not read: %d\n", all.Failed)
	}
	fmt.Fprintf(w, "\npublished (development split, mean word F1):")
	for _, p := range Published {
		fmt.Fprintf(w, " %s %.3f;", p.System, p.F1)
	}
	fmt.Fprintln(w)
}

// Predictions returns the results as evaluate.py reads them: a map from
// page id to extracted plain text.
func Predictions(results []Result) map[string]string {
	out := make(map[string]string, len(results))
	for _, r := range results {
		out[r.ID] = r.Text
	}
	return out
}
