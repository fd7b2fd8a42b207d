//go:build !unix

package routing

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// lockFile takes an exclusive lock on name by creating it exclusively (an
// existing file or link is never opened), waiting up to wait (a single
// attempt when wait ≤ 0); a lock older than ten seconds is taken over.
func lockFile(name string, wait time.Duration) (func(), error) {
	deadline := time.Now().Add(wait)
	for {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(name) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if info, serr := os.Lstat(name); serr == nil {
			if !info.Mode().IsRegular() {
				return nil, notRegular(name, info.Mode())
			}
			if time.Since(info.ModTime()) > 10*time.Second {
				os.Remove(name)
				continue
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, lockBusy(wait)
		}
		time.Sleep(min(10*time.Millisecond, left))
	}
}

// openRegular opens name with flag and perm and returns it only when it
// is a regular file; a symbolic link is refused before it is opened.
func openRegular(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, notRegular(name, fi.Mode())
	}
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return regularOnly(f, name)
}

// readDirSome returns at most n entries of the directory dir, in directory
// order.
func readDirSome(dir string, n int) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(n)
}
