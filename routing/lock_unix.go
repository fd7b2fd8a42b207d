//go:build unix

package routing

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// lockFile takes an exclusive advisory lock on name, creating it (mode
// 0600) if needed, as a regular file opened without following a symbolic
// link. It gives up after wait (a single attempt when wait ≤ 0), so a
// process that holds the lock and hangs cannot hang every hook after it.
func lockFile(name string, wait time.Duration) (func(), error) {
	f, err := openRegular(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			f.Close()
			return nil, lockBusy(wait)
		}
		time.Sleep(min(10*time.Millisecond, left))
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// openRegular opens name with flag and perm, never following a symbolic
// link in its last element (O_NOFOLLOW) and never blocking (O_NONBLOCK: a
// named pipe without a writer opens at once), and returns it only when it
// is a regular file.
func openRegular(name string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		if fi, lerr := os.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, notRegular(name, fi.Mode())
		}
		return nil, err
	}
	return regularOnly(f, name)
}

// readDirSome returns at most n entries of the directory dir, in directory
// order, opening it without blocking.
func readDirSome(dir string, n int) ([]fs.DirEntry, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(n)
}
