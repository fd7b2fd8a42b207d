//go:build unix

package routing

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestStateStore_GivesUpOnALockHeldElsewhere(t *testing.T) {
	s := &StateStore{Dir: t.TempDir(), LockWait: 100 * time.Millisecond}
	c := Call{Query: "kubectl logs"}
	// Another process holding the session's lock and never letting go.
	f, err := os.OpenFile(filepath.Join(s.Dir, SessionFile("s1")+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := s.Release("s1", c); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrState) {
			t.Errorf("err = %v, want ErrState", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the store waits forever for the lock")
	}
}
