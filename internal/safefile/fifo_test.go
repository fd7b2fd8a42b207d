//go:build unix

package safefile

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile_RefusesAFIFOWithoutBlocking(t *testing.T) {
	p := filepath.Join(t.TempDir(), "keys.fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	// With no writer, opening the FIFO would block forever.
	if _, err := ReadFile(p, 0); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("err = %v, want a not-regular error naming a pipe", err)
	}
}
