//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/webgate-dev/webgate/internal/safefile"
)

// cacheSupported is true where the cache's files can be opened without
// following links and their owner checked.
const cacheSupported = true

var errCacheUnsafe = errors.New("cache file or directory not private to the user")

// fileIdentity is what tells one version of a file from another without
// reading it.
type fileIdentity struct {
	dev, ino     uint64
	size         int64
	mtime, ctime time.Time
}

// identify returns the identity of the file fi describes.
func identify(fi os.FileInfo) (fileIdentity, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileIdentity{}, false
	}
	return fileIdentity{
		dev:   uint64(st.Dev),
		ino:   uint64(st.Ino),
		size:  fi.Size(),
		mtime: fi.ModTime(),
		ctime: changeTime(st),
	}, true
}

// String encodes the identity for the entry.
func (id fileIdentity) String() string {
	return fmt.Sprintf("%d:%d:%d:%d:%d", id.dev, id.ino, id.size, id.mtime.UnixNano(), id.ctime.UnixNano())
}

// changedWithin reports whether the file changed within window before
// now (or after it).
func (id fileIdentity) changedWithin(now time.Time, window time.Duration) bool {
	return now.Sub(id.mtime) < window || now.Sub(id.ctime) < window
}

// private reports whether fi is owned by the user and neither group nor
// others may write it (nor, for a file, read it).
func private(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Geteuid() {
		return false
	}
	if fi.IsDir() {
		return fi.Mode().Perm()&0o022 == 0
	}
	return fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 == 0 && st.Nlink == 1
}

// checkCacheDir checks that dir is a directory of the user's, not a
// symbolic link, that no one else may write.
func checkCacheDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || !private(fi) {
		return errCacheUnsafe
	}
	return nil
}

// openCacheFile opens the cache file name in dir for reading and returns
// it with its size: a regular file of the user's, mode 0600 or stricter,
// opened without following a symbolic link or waiting on a FIFO, at most
// cacheMaxBytes long.
func openCacheFile(dir, name string) (*os.File, int64, error) {
	if err := checkCacheDir(dir); err != nil {
		return nil, 0, err
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && !private(fi) {
		err = errCacheUnsafe
	}
	if err == nil && fi.Size() > cacheMaxBytes {
		err = errors.New("cache file too large")
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// writeCacheFile writes data as the cache file name in dir, creating dir
// (mode 0700) when needed: to a new file of mode 0600 renamed over the
// old one, so that a reader sees one or the other whole. It then removes
// the cache files no load has written for longer than cacheMaxAge (those
// of files or programs no longer used).
func writeCacheFile(dir, name string, data []byte, now time.Time) error {
	if len(data) > cacheMaxBytes {
		return errors.New("cache entry too large")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := checkCacheDir(dir); err != nil {
		return err
	}
	if err := safefile.Replace(filepath.Join(dir, name), data, 0o600); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		n := e.Name()
		if n == name || !(strings.HasSuffix(n, ".cache") || strings.HasPrefix(n, ".tmp-")) {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > cacheMaxAge {
			os.Remove(filepath.Join(dir, n))
		}
	}
	return nil
}
