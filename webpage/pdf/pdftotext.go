package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"os/exec"
	"strconv"
	"strings"
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
// its own process group, without environment, and the whole group is
// killed when ctx ends or the read returns; its output is capped.
//
// pdftotext's default reading-order mode is used rather than -layout:
// -layout keeps columns side by side, which mixes the lines of a
// two-column paper, while the default mode reads each column in turn.
func readPdftotext(ctx context.Context, tool string, data []byte, maxPages int) (Document, error) {
	fail := func(kind, err error) (Document, error) {
		return Document{Engine: EnginePdftotext}, &Error{Kind: kind, Engine: EnginePdftotext, Err: err}
	}
	cmd := exec.CommandContext(ctx, tool, "-q", "-htmlmeta", "-enc", "UTF-8", "-eol", "unix",
		"-f", "1", "-l", strconv.Itoa(maxPages), "-", "-")
	cmd.Env = []string{}
	cmd.Stdin = bytes.NewReader(data)
	out := &cappedBuffer{max: MaxText + 64<<10}
	errOut := &cappedBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = out, errOut
	ownGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = time.Second

	err := cmd.Start()
	if err != nil {
		return fail(errToolFailed, err)
	}
	err = cmd.Wait()
	_ = killGroup(cmd) // anything it left behind
	if ctx.Err() != nil {
		return fail(ErrTimeout, context.Cause(ctx))
	}
	if err != nil && !out.full {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() < 0 {
			return fail(errToolFailed, err)
		}
		cause := fmt.Errorf("exit status %d: %s", exit.ExitCode(), strings.TrimSpace(errOut.String()))
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
	if out.full {
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

// cappedBuffer keeps the first max bytes written to it and then refuses
// more, so that a runaway program stops on a broken pipe.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	full bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.Buffer.Write(p[:max(room, 0)])
		c.full = true
		return max(room, 0), errors.New("output limit reached")
	}
	return c.Buffer.Write(p)
}
