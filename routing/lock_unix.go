//go:build unix

package routing

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// lockWait is how long lockFile waits for a lock another process holds.
var lockWait = 2 * time.Second

// lockFile takes an exclusive advisory lock on name, creating it if needed.
// It gives up after lockWait, so a process that holds the lock and hangs
// cannot hang every hook after it.
func lockFile(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, errors.New("timed out waiting for the state lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
