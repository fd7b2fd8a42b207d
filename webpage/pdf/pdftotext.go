package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// findPdftotext resolves Options.Pdftotext to a program to run, or ""
// when pdftotext is off or not found.
func findPdftotext(setting string) string {
	switch setting {
	case "off":
		return ""
	case "":
		setting = "pdftotext"
	}
	path, err := exec.LookPath(setting)
	if err != nil {
		return ""
	}
	return path
}

// readPdftotext runs pdftotext on data (fed on stdin) and reads its
// output: "-htmlmeta" gives the title in a small HTML head and the text,
// unescaped, in a <pre>; pages end with a form feed. The program runs in
// its own process group, without environment, its address space capped
// at maxMemory bytes before it is given the document; the whole group is
// killed when ctx ends, when its output passes the cap, or when the read
// returns.
//
// pdftotext's default reading-order mode is used rather than -layout:
// -layout keeps columns side by side, which mixes the lines of a
// two-column paper, while the default mode reads each column in turn.
func readPdftotext(ctx context.Context, tool string, data []byte, maxPages int, maxMemory int64) (Document, error) {
	fail := func(kind, err error) (Document, error) {
		return Document{Engine: EnginePdftotext}, &Error{Kind: kind, Engine: EnginePdftotext, Err: err}
	}
	cmd := exec.CommandContext(ctx, tool, "-q", "-htmlmeta", "-enc", "UTF-8", "-eol", "unix",
		"-f", "1", "-l", strconv.Itoa(maxPages), "-", "-")
	cmd.Env = []string{}
	// The document waits until the memory cap is in place: a program
	// can only be made to allocate by what it reads.
	stdin := &gatedReader{r: bytes.NewReader(data), open: make(chan struct{})}
	cmd.Stdin = stdin
	// An output that passes the cap stops the whole group at once, even
	// a program that ignores the broken pipe. (The copying goroutine
	// starts after Start has set Process.)
	out := &cappedBuffer{max: MaxText + 64<<10, onFull: func() { _ = killGroup(cmd) }}
	errOut := &cappedBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = out, errOut
	ownGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = time.Second

	err := cmd.Start()
	if err != nil {
		return fail(errToolFailed, err)
	}
	if err := limitMemory(cmd.Process.Pid, maxMemory); err != nil {
		_ = killGroup(cmd)
		close(stdin.open)
		_ = cmd.Wait()
		return fail(errToolFailed, fmt.Errorf("capping its memory: %w", err))
	}
	close(stdin.open)
	err = cmd.Wait()
	_ = killGroup(cmd) // anything it left behind
	if ctx.Err() != nil {
		return fail(ErrTimeout, context.Cause(ctx))
	}
	if err != nil && !out.isFull() {
		var exit *exec.ExitError
		stderr := strings.TrimSpace(errOut.String())
		if memoryBounded && outOfMemory(stderr) {
			return fail(errToolFailed, fmt.Errorf("%w (the cap is %d bytes): %v: %s", errMemoryLimit, maxMemory, err, stderr))
		}
		if !errors.As(err, &exit) || exit.ExitCode() < 0 {
			return fail(errToolFailed, err)
		}
		cause := fmt.Errorf("exit status %d: %s", exit.ExitCode(), stderr)
		switch {
		case exit.ExitCode() == 3, exit.ExitCode() == 1 && encrypted(data):
			// 3: copying text is not permitted; 1 with an /Encrypt
			// dictionary: a password is needed.
			return fail(ErrEncrypted, cause)
		case exit.ExitCode() == 1:
			return fail(ErrMalformed, cause)
		}
		return fail(errToolFailed, cause)
	}
	title, text := parseHTMLMeta(out.String())
	doc := Document{Title: title, Text: text, Engine: EnginePdftotext}
	// Each page ends with a form feed.
	doc.PagesRead = strings.Count(text, PageBreak)
	if !strings.HasSuffix(strings.TrimRight(text, "\n"), PageBreak) {
		doc.PagesRead++ // the output was cut inside a page
		doc.Truncated = true
	}
	doc.Pages = doc.PagesRead
	if out.isFull() {
		doc.Truncated = true
	}
	if doc.PagesRead >= maxPages {
		// There may be more pages than were read; the document says how
		// many.
		if n := pageCount(ctx, data); n > doc.PagesRead {
			doc.Pages, doc.Truncated = n, true
		}
	}
	doc.Text = cleanText(strings.TrimSuffix(strings.TrimRight(text, "\n"), PageBreak))
	return doc, nil
}

// parseHTMLMeta splits pdftotext -htmlmeta output into the title (HTML
// escaped there) and the text of the <pre> (not escaped).
func parseHTMLMeta(out string) (title, text string) {
	if i := strings.Index(out, "<title>"); i >= 0 {
		if j := strings.Index(out[i:], "</title>"); j >= 0 {
			title = strings.Join(strings.Fields(html.UnescapeString(out[i+len("<title>"):i+j])), " ")
		}
	}
	start := strings.Index(out, "<pre>\n")
	if start < 0 {
		return title, ""
	}
	text = out[start+len("<pre>\n"):]
	if end := strings.LastIndex(text, "</pre>\n</body>"); end >= 0 {
		text = text[:end]
	}
	return title, text
}

// encrypted reports whether a PDF has an encryption dictionary.
func encrypted(data []byte) bool {
	return bytes.Contains(data, []byte("/Encrypt"))
}

// outOfMemory reports whether pdftotext's error output says an
// allocation failed: poppler's own allocator prints "Out of memory" and
// aborts, the C++ runtime reports a std::bad_alloc.
func outOfMemory(stderr string) bool {
	return strings.Contains(stderr, "Out of memory") || strings.Contains(stderr, "bad_alloc")
}

// gatedReader serves r once open is closed.
type gatedReader struct {
	r    io.Reader
	open chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

// cappedBuffer keeps the first max bytes written to it and then refuses
// more, so that a runaway program stops on a broken pipe; onFull, when
// set, is called the first time the cap is reached.
type cappedBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	max    int
	full   bool
	onFull func()
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:max(room, 0)])
		if !c.full && c.onFull != nil {
			c.onFull()
		}
		c.full = true
		return max(room, 0), errors.New("output limit reached")
	}
	return c.buf.Write(p)
}

// String returns what was kept.
func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// isFull reports whether the cap was reached.
func (c *cappedBuffer) isFull() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.full
}
