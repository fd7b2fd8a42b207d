//go:build unix

package pdf_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/webpage/pdf"
)

// childMaxRSS is the largest resident set, in bytes, of the children this
// process has waited for.
func childMaxRSS(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		t.Fatal(err)
	}
	return int64(ru.Maxrss) << 10 // kilobytes on Linux
}

// A Flate bomb — a few hundred kilobytes that inflate to 8 MiB of text
// operators, which pdftotext keeps character by character — makes
// pdftotext run out of the memory it is allowed rather than take
// gigabytes; Read then reads the document with the pure-Go reader.
func TestRead_PdftotextMemoryIsCapped(t *testing.T) {
	tool, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed")
	}
	if !pdf.MemoryBounded {
		t.Skip("the memory of pdftotext is not capped on this system")
	}
	const limit = 48 << 20
	data := buildPDF(pdfSpec{pages: []string{""}, compressed: flateBomb(8 << 20)})
	if len(data) > 1<<20 {
		t.Fatalf("the bomb is %d bytes", len(data))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	_, err = pdf.ReadPdftotext(ctx, tool, data, pdf.DefaultMaxPages, limit)
	if !errors.Is(err, pdf.ErrMemoryLimit) {
		t.Fatalf("pdftotext alone: error = %v, want it out of memory", err)
	}
	if rss := childMaxRSS(t); rss > limit {
		t.Errorf("a child reached %d bytes resident, over the cap of %d", rss, limit)
	}

	doc, err := pdf.Read(ctx, data, &pdf.Options{MaxMemoryBytes: limit, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if doc.Engine != pdf.EngineGo || !strings.Contains(doc.Text, "aaaa") {
		t.Errorf("Read: engine %q, %d bytes of text; want the pure-Go reader's text", doc.Engine, len(doc.Text))
	}
	if rss := childMaxRSS(t); rss > limit {
		t.Errorf("a child reached %d bytes resident, over the cap of %d", rss, limit)
	}
}

// A pdftotext whose output passes the cap is killed with its whole
// process group at once, even when it ignores the broken pipe; the text
// read so far comes back, truncated.
func TestRead_EndlessPdftotextOutputIsCutAndItsGroupKilled(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	script := filepath.Join(dir, "pdftotext")
	body := "#!/bin/sh\ntrap '' PIPE\nsleep 600 &\necho $! > " + pids + "\n" +
		"echo '<html><head><title>Endless</title></head><body><pre>'\n" +
		"while :; do echo 'all work and no play makes jack a dull boy'; done\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	// Without the kill, only the timeout would end the script.
	doc, err := pdf.Read(context.Background(), fixture(t, "pdflatex-4-pages.pdf"), &pdf.Options{Pdftotext: script, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if doc.Engine != pdf.EnginePdftotext || !doc.Truncated || doc.Title != "Endless" || !strings.HasPrefix(doc.Text, "all work and no play") {
		t.Errorf("Read = engine %q, truncated %v, title %q, text %.40q", doc.Engine, doc.Truncated, doc.Title, doc.Text)
	}
	if len(doc.Text) > pdf.MaxText {
		t.Errorf("%d bytes of text, over MaxText", len(doc.Text))
	}
	raw, err := os.ReadFile(pids)
	if err != nil {
		t.Fatalf("the script did not run: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("the script's child %d is still running", pid)
	}
}
