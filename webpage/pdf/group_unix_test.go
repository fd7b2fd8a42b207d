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

// A pdftotext that hangs, and leaves a child behind, is killed with its
// whole process group when the timeout passes.
func TestRead_SlowPdftotextIsKilledWithItsGroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	script := filepath.Join(dir, "pdftotext")
	body := "#!/bin/sh\nsleep 60 &\necho $$ $! > " + pids + "\nwait\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := pdf.Read(context.Background(), fixture(t, "pdflatex-4-pages.pdf"), &pdf.Options{Pdftotext: script, Timeout: 500 * time.Millisecond})
	if !errors.Is(err, pdf.ErrTimeout) {
		t.Fatalf("error = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	raw, err := os.ReadFile(pids)
	if err != nil {
		t.Fatalf("the script did not run: %v", err)
	}
	for _, f := range strings.Fields(string(raw)) {
		pid, _ := strconv.Atoi(f)
		deadline := time.Now().Add(2 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d is still running", pid)
		}
	}
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(stat))
	return len(f) < 3 || f[2] != "Z"
}
