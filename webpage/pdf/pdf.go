package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Defaults and bounds of [Read].
const (
	// DefaultMaxPages is how many pages are read when Options.MaxPages is
	// zero.
	DefaultMaxPages = 100
	// DefaultTimeout bounds a read when Options.Timeout is zero.
	DefaultTimeout = 10 * time.Second
	// MaxInput is the largest document Read accepts, in bytes.
	MaxInput = 32 << 20
	// MaxText is how much text Read returns, in bytes; the rest is cut
	// and the Document says Truncated.
	MaxText = 4 << 20
	// DefaultMaxMemoryBytes caps the address space of pdftotext when
	// Options.MaxMemoryBytes is zero. pdftotext needs about 25 MiB to
	// read an ordinary document; a document built to exhaust memory
	// (a small compressed stream of millions of text operators) would
	// otherwise take gigabytes.
	DefaultMaxMemoryBytes = 512 << 20
)

// PageBreak separates the pages in Document.Text (a form feed, as
// pdftotext writes).
const PageBreak = "\f"

// Engines name what read a document, in Document.Engine and Error.Engine.
const (
	// EnginePdftotext is the external pdftotext program (poppler-utils).
	EnginePdftotext = "pdftotext"
	// EngineGo is the pure-Go reader.
	EngineGo = "go"
)

// Options tunes [Read]. The zero value looks for pdftotext on PATH, reads
// at most [DefaultMaxPages] pages and gives up after [DefaultTimeout].
type Options struct {
	// Pdftotext is the pdftotext program to run: "" looks for it on
	// PATH, "off" never runs it (the pure-Go reader only), anything else
	// is the program's path. When it is not found the pure-Go reader is
	// used.
	Pdftotext string
	// MaxPages is how many pages are read, from the first; 0 means
	// [DefaultMaxPages].
	MaxPages int
	// Timeout bounds the whole read; 0 means [DefaultTimeout]. The
	// context's deadline, when earlier, wins.
	Timeout time.Duration
	// MaxMemoryBytes caps the address space of pdftotext, and of any
	// process it starts; 0 means [DefaultMaxMemoryBytes]. A document that
	// needs more makes pdftotext fail, and the pure-Go reader reads it
	// instead. The cap is enforced on Linux (RLIMIT_AS, set before
	// pdftotext is given the document); elsewhere only the output cap
	// and the timeout bound pdftotext.
	MaxMemoryBytes int64
}

func (o Options) maxPages() int {
	if o.MaxPages <= 0 {
		return DefaultMaxPages
	}
	return o.MaxPages
}

func (o Options) maxMemory() int64 {
	if o.MaxMemoryBytes <= 0 {
		return DefaultMaxMemoryBytes
	}
	return o.MaxMemoryBytes
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// Document is the text of a PDF.
type Document struct {
	// Title is the document's title from its metadata; may be empty.
	Title string
	// Pages is how many pages the document has.
	Pages int
	// Text is the text of the pages read, in reading order, the pages
	// separated by [PageBreak] and the lines by "\n".
	Text string
	// PagesRead is how many pages Text covers: Pages, or fewer when the
	// document has more than Options.MaxPages or its text was longer than
	// [MaxText].
	PagesRead int
	// Truncated reports that Text does not cover the whole document.
	Truncated bool
	// Engine says what read the document: [EnginePdftotext] or
	// [EngineGo].
	Engine string
}

// PageTexts returns the text of each page read.
func (d Document) PageTexts() []string {
	if d.Text == "" {
		return nil
	}
	return strings.Split(d.Text, PageBreak)
}

// The kinds of [Error]; test with errors.Is.
var (
	// ErrNotPDF: the data is not a PDF document.
	ErrNotPDF = errors.New("not a PDF document")
	// ErrEncrypted: the document is encrypted or forbids copying its
	// text, and cannot be read without a password.
	ErrEncrypted = errors.New("the document is encrypted")
	// ErrMalformed: the document is damaged or built in a way the reader
	// refuses.
	ErrMalformed = errors.New("the document is damaged or malformed")
	// ErrTooLarge: the document is larger than [MaxInput].
	ErrTooLarge = errors.New("the document is too large")
	// ErrTimeout: reading took longer than the timeout or the context
	// ended.
	ErrTimeout = errors.New("reading the document took too long")
	// ErrNoText: the document has no text to extract (scanned pages,
	// images); the Document returned with it has the title and page
	// count.
	ErrNoText = errors.New("the document has no text")
)

// Error is a document [Read] could not read.
type Error struct {
	// Kind is one of the Err values of this package.
	Kind error
	// Engine is what failed: [EnginePdftotext] or [EngineGo]; empty for
	// checks made before either ran.
	Engine string
	// Err is the cause, when there is one.
	Err error
}

// Error describes the failure.
func (e *Error) Error() string {
	msg := "pdf: " + e.Kind.Error()
	if e.Engine != "" {
		msg += " (" + e.Engine + ")"
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is reports whether target is the error's Kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Read extracts the text of a PDF locally, with no network and no key. It
// runs pdftotext (poppler-utils) when Options.Pdftotext finds it — in its
// own process group, fed on stdin, its memory and output capped, killed
// when the time is up or its output overflows — and the pure-Go reader
// otherwise, or when pdftotext could not run or ran out of memory. Failures are [*Error] values: [ErrNotPDF],
// [ErrEncrypted], [ErrMalformed], [ErrTooLarge], [ErrTimeout], and
// [ErrNoText] (returned with the Document's title and page count). Read
// never panics. A nil opts means defaults.
func Read(ctx context.Context, data []byte, opts *Options) (Document, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	return read(ctx, data, o)
}

func read(ctx context.Context, data []byte, opts Options) (Document, error) {
	if len(data) > MaxInput {
		return Document{}, &Error{Kind: ErrTooLarge, Err: fmt.Errorf("%d bytes, the limit is %d", len(data), MaxInput)}
	}
	if !isPDF(data) {
		return Document{}, &Error{Kind: ErrNotPDF}
	}
	ctx, cancel := context.WithTimeout(ctx, opts.timeout())
	defer cancel()

	if tool := findPdftotext(opts.Pdftotext); tool != "" {
		doc, err := readPdftotext(ctx, tool, data, opts.maxPages(), opts.maxMemory())
		// A document poppler cannot parse is not worth a second try;
		// but if the program itself could not run, read it here.
		if err == nil || !errors.Is(err, errToolFailed) {
			return finish(doc, err)
		}
	}
	return finish(readGo(ctx, data, opts.maxPages()))
}

// errToolFailed marks a pdftotext that could not run at all (missing,
// not executable, killed by something else than the deadline, over its
// memory cap).
var errToolFailed = errors.New("pdftotext could not run")

// errMemoryLimit is the cause of an errToolFailed when pdftotext ran out
// of the memory Options.MaxMemoryBytes allows it.
var errMemoryLimit = errors.New("pdftotext ran out of memory")

// finish checks a read's result: text is cut to MaxText, a document
// without text is ErrNoText.
func finish(doc Document, err error) (Document, error) {
	if err != nil {
		return doc, err
	}
	if len(doc.Text) > MaxText {
		cut := MaxText
		for cut > 0 && !utf8.RuneStart(doc.Text[cut]) {
			cut--
		}
		doc.Text = doc.Text[:cut]
		doc.PagesRead = strings.Count(doc.Text, PageBreak) + 1
		doc.Truncated = true
	}
	if strings.TrimSpace(strings.ReplaceAll(doc.Text, PageBreak, "")) == "" {
		return Document{Title: doc.Title, Pages: doc.Pages, Engine: doc.Engine}, &Error{Kind: ErrNoText, Engine: doc.Engine}
	}
	return doc, nil
}

// isPDF reports whether data starts like a PDF: "%PDF-" within its first
// kilobyte, as readers accept.
func isPDF(data []byte) bool {
	return bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-"))
}

// ligatures spells out the typographic ligatures, so that the text
// matches what a reader searches for.
var ligatures = strings.NewReplacer("\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl", "\uFB05", "st", "\uFB06", "st")

// cleanText normalises extracted text: valid UTF-8, ligatures spelled
// out, "\n" line ends, no control characters but tabs, line feeds and
// page breaks, no trailing spaces, at most one blank line in a row.
func cleanText(s string) string {
	s = ligatures.Replace(strings.ToValidUTF8(s, "\uFFFD"))
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || r == '\f':
		case r == '\r':
			r = '\n'
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			continue
		}
		b.WriteRune(r)
	}
	pages := strings.Split(b.String(), PageBreak)
	for i, p := range pages {
		lines := strings.Split(p, "\n")
		out := lines[:0]
		blank := true
		for _, l := range lines {
			l = strings.TrimRight(l, " \t\u00a0")
			if l == "" {
				if blank {
					continue
				}
				blank = true
			} else {
				blank = false
			}
			out = append(out, l)
		}
		pages[i] = strings.TrimSpace(strings.Join(out, "\n"))
	}
	return strings.Join(pages, PageBreak)
}
