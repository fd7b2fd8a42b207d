//go:build unix

package routing

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs fn and fails the test when it has not returned after a
// generous limit (a blocked open or an endless read).
func within(t *testing.T, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked", what)
		return nil
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
}

func TestAdversarialStateFileThatIsAFIFOIsRefusedWithoutBlocking(t *testing.T) {
	s, _ := newStore(t)
	c := Call{Query: "kubectl logs"}
	mkfifo(t, filepath.Join(s.Dir, SessionFile("s1")))
	err := within(t, "Remember", func() error { return s.Remember("s1", c) })
	if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Remember = %v, want a not-regular-file ErrState", err)
	}
	err = within(t, "Release", func() error { _, err := s.Release("s1", c); return err })
	if !errors.Is(err, ErrState) {
		t.Errorf("Release = %v, want ErrState", err)
	}
	err = within(t, "Remembered", func() error { _, err := s.Remembered("s1", c); return err })
	if !errors.Is(err, ErrState) {
		t.Errorf("Remembered = %v, want ErrState", err)
	}
	if fi, err := os.Lstat(filepath.Join(s.Dir, SessionFile("s1"))); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi, err)
	}
}

func TestAdversarialLockFileThatIsAFIFOIsRefused(t *testing.T) {
	s, _ := newStore(t)
	mkfifo(t, filepath.Join(s.Dir, SessionFile("s1")+".lock"))
	err := within(t, "Remember", func() error { return s.Remember("s1", Call{Query: "q"}) })
	if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Remember = %v, want a not-regular-file ErrState", err)
	}
}

func TestAdversarialSymlinkedLockIsNotFollowed(t *testing.T) {
	s, _ := newStore(t)
	target := filepath.Join(t.TempDir(), "created-by-the-store")
	if err := os.Symlink(target, filepath.Join(s.Dir, SessionFile("s1")+".lock")); err != nil {
		t.Fatal(err)
	}
	err := within(t, "Remember", func() error { return s.Remember("s1", Call{Query: "q"}) })
	if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Remember = %v, want a symbolic-link ErrState", err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Errorf("the store created the link's target")
	}
}

func TestAdversarialSymlinkedStateFileIsNotRead(t *testing.T) {
	for _, target := range []string{"/dev/zero", "elsewhere.json"} {
		s, _ := newStore(t)
		if target == "elsewhere.json" {
			target = filepath.Join(t.TempDir(), target)
			if err := os.WriteFile(target, []byte(`{"denied":[]}`), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		link := filepath.Join(s.Dir, SessionFile("s1"))
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		err := within(t, "Remember", func() error { return s.Remember("s1", Call{Query: "q"}) })
		if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: Remember = %v, want a symbolic-link ErrState", target, err)
		}
		err = within(t, "Remembered", func() error { _, err := s.Remembered("s1", Call{Query: "q"}); return err })
		if !errors.Is(err, ErrState) {
			t.Errorf("%s: Remembered = %v, want ErrState", target, err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the link was replaced: %v, %v", target, fi, err)
		}
	}
}

func TestAdversarialOversizedStateFileIsTreatedAsCorrupt(t *testing.T) {
	s, _ := newStore(t)
	name := filepath.Join(s.Dir, SessionFile("s1"))
	big := `{"denied":[` + strings.Repeat(`{"query":"q","at":"2026-01-02T03:04:05Z"},`, maxStateBytes/40) + `{"query":"q","at":"2026-01-02T03:04:05Z"}]}`
	if err := os.WriteFile(name, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Remembered("s1", Call{Query: "q"}); ok || err != nil {
		t.Errorf("Remembered = %v, %v; want an oversized file to count as empty", ok, err)
	}
	if err := s.Remember("s1", Call{Query: "q"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(name); err != nil || fi.Size() > 1000 {
		t.Errorf("the oversized file was not replaced: %v, %v", fi, err)
	}
}

func TestAdversarialHeldLockIsWaitedForOncePerBurst(t *testing.T) {
	s := &StateStore{Dir: t.TempDir(), LockWait: 500 * time.Millisecond}
	f, err := os.OpenFile(filepath.Join(s.Dir, SessionFile("s1")+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	c := Call{Query: "kubectl logs"}
	// As a docs route does: Release, then Remember.
	_, err = s.Release("s1", c)
	if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "held by another process (waited 500ms)") {
		t.Fatalf("Release = %v", err)
	}
	err = s.Remember("s1", c)
	if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "(waited 0s)") {
		t.Errorf("Remember = %v, want a single attempt right after a wait ran out", err)
	}
	// Once the lock is free, the store takes it again.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if err := s.Remember("s1", c); err != nil {
		t.Errorf("Remember with the lock free: %v", err)
	}
}

func TestAdversarialStaleFIFOsAreRemovedWithoutBeingOpened(t *testing.T) {
	s, c := newStore(t)
	past := c.t.Add(-48 * time.Hour)
	var fifos []string
	for _, n := range []string{SessionFile("old"), SessionFile("old") + ".lock", ".tmp-" + SessionFile("old") + "-1"} {
		p := filepath.Join(s.Dir, n)
		mkfifo(t, p)
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
		fifos = append(fifos, p)
	}
	if err := within(t, "Remember", func() error { return s.Remember("new", Call{Query: "q"}) }); err != nil {
		t.Fatal(err)
	}
	for _, p := range fifos {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("stale %s kept", filepath.Base(p))
		}
	}
}
