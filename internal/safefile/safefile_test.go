package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadFile_ReadsARegularFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "keys.txt")
	if err := os.WriteFile(p, []byte("k1\nk2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(p, 0)
	if err != nil || string(got) != "k1\nk2\n" {
		t.Fatalf("ReadFile = %q, %v", got, err)
	}
}

func TestReadFile_RefusesDevicesAndSymlinksToThem(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero")
	}
	link := filepath.Join(t.TempDir(), "config.toml")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", link} {
		_, err := ReadFile(p, 0)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a device") {
			t.Errorf("%s: err = %v, want a not-regular error naming a device", p, err)
		}
	}
}

func TestReadFile_RefusesADirectory(t *testing.T) {
	if _, err := ReadFile(t.TempDir(), 0); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("err = %v", err)
	}
}

func TestReadFile_RefusesAFileOverTheCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 101)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(p, 101); err != nil {
		t.Errorf("at the cap: %v", err)
	}
}

func TestReadFile_ReportsAMissingFileAsNotExist(t *testing.T) {
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v", err)
	}
}
