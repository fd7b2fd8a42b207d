package classify

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// Class is the kind of page a classifier decides on. Its string value is
// stable and meant for output and configuration.
type Class string

// The three classes. See the package documentation for what each means.
const (
	// FetchReadable pages hold one main body of text in their initial HTML;
	// a plain HTTP fetch plus text extraction is enough.
	FetchReadable Class = "fetch-readable"
	// TemplateHeavy pages are mostly navigation, link lists, teasers or
	// listings, with no single substantial body of text.
	TemplateHeavy Class = "template-heavy"
	// BrowserRenderRequired pages show their content only after JavaScript
	// runs; the initial HTML is an application shell.
	BrowserRenderRequired Class = "browser-render-required"
)

// Classes lists every class in a fixed order (useful for reports).
var Classes = []Class{FetchReadable, TemplateHeavy, BrowserRenderRequired}

// String returns the class name.
func (c Class) String() string { return string(c) }

// ParseClass turns a class name into a Class. Besides the canonical names it
// accepts the short labels "readable", "template" and "browser", case
// insensitively.
func ParseClass(s string) (Class, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "fetch-readable", "readable":
		return FetchReadable, nil
	case "template-heavy", "template":
		return TemplateHeavy, nil
	case "browser-render-required", "browser", "browser-render":
		return BrowserRenderRequired, nil
	}
	return "", fmt.Errorf("classify: unknown class %q (want fetch-readable, template-heavy or browser-render-required)", s)
}

// Signal is one measured fact behind a decision, printable for users who
// want to know why a page got its class.
type Signal struct {
	// Name identifies the measurement, e.g. "visible_words".
	Name string
	// Value is the measured value, formatted.
	Value string
	// Note says how the value weighed in the decision; it may be empty.
	Note string
}

// String formats the signal as "name=value (note)".
func (s Signal) String() string {
	if s.Note == "" {
		return s.Name + "=" + s.Value
	}
	return s.Name + "=" + s.Value + " (" + s.Note + ")"
}

// Result is the outcome of classifying one page.
type Result struct {
	// Class is the decided class.
	Class Class
	// Confidence is in [0, 1]; values near 0.5 or below mean the page sits
	// close to a class boundary.
	Confidence float64
	// Title is the text of the page's first <title>, whitespace collapsed,
	// cut to 300 characters; empty when there is none.
	Title string
	// Truncated reports that the input was longer than the byte cap and
	// only its first part was classified.
	Truncated bool
	// Article reports that the page declares itself an article: og:type
	// article, or a JSON-LD Article, NewsArticle, BlogPosting or kindred
	// type. A reader weighs it when a template-heavy page's main body
	// could still be an article's.
	Article bool
	// Signals are the facts behind the decision, the deciding ones first.
	Signals []Signal
}

// String formats the result as "class (confidence)".
func (r Result) String() string {
	return string(r.Class) + " (" + strconv.FormatFloat(r.Confidence, 'f', 2, 64) + ")"
}

// DefaultMaxBytes is the input cap used when Options.MaxBytes is zero: 4 MiB.
const DefaultMaxBytes int64 = 4 << 20

// Options configure a Classifier. The zero value is ready to use.
type Options struct {
	// MaxBytes caps how much of the input is read and classified. Input
	// beyond the cap is ignored (not read from the reader) and the result
	// is marked Truncated. Zero or negative means DefaultMaxBytes.
	MaxBytes int64 `koanf:"max_bytes"`
}

// Classifier classifies pages. It holds no mutable state and is safe for
// concurrent use.
type Classifier struct {
	maxBytes int64
}

// New returns a Classifier using opts; nil opts means defaults. opts is
// not retained.
func New(opts *Options) *Classifier {
	c := &Classifier{maxBytes: DefaultMaxBytes}
	if opts != nil && opts.MaxBytes > 0 {
		c.maxBytes = opts.MaxBytes
	}
	return c
}

var defaultClassifier = New(nil)

// Classify reads a page's initial HTML from r (up to DefaultMaxBytes) and
// classifies it. The only error is a read error from r.
func Classify(r io.Reader) (Result, error) { return defaultClassifier.Classify(r) }

// ClassifyBytes classifies a page's initial HTML held in b (up to
// DefaultMaxBytes). It never fails: any input, however broken, gets a class.
func ClassifyBytes(b []byte) Result { return defaultClassifier.ClassifyBytes(b) }

// Classify reads up to the byte cap from r and classifies it. It returns an
// error only when reading fails; the error wraps the reader's error.
func (c *Classifier) Classify(r io.Reader) (Result, error) {
	b, err := io.ReadAll(io.LimitReader(r, c.maxBytes+1))
	if err != nil {
		return Result{}, fmt.Errorf("classify: reading page: %w", err)
	}
	return c.ClassifyBytes(b), nil
}

// ClassifyBytes classifies the HTML in b, ignoring bytes beyond the cap.
// It never fails and never panics: any input gets a class.
func (c *Classifier) ClassifyBytes(b []byte) Result {
	truncated := false
	if int64(len(b)) > c.maxBytes {
		b = b[:c.maxBytes]
		truncated = true
	}
	f := analyze(b)
	res := decide(f)
	res.Title = f.title
	res.Truncated = truncated
	if truncated {
		res.Signals = append(res.Signals, Signal{Name: "truncated", Value: strconv.FormatInt(c.maxBytes, 10), Note: "input beyond this many bytes was ignored"})
	}
	return res
}

// analyze parses b and measures it. The HTML5 parser accepts any byte
// sequence, so the error path only guards against future changes.
func analyze(b []byte) *features {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(b))
	if err != nil || len(doc.Nodes) == 0 {
		return &features{}
	}
	return extract(doc.Nodes[0])
}
