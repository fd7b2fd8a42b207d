//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package config

import (
	"errors"
	"os"
	"time"
)

// cacheSupported is false where the cache's files cannot be opened
// without following links, their owner checked and the configuration
// file identified: there is no cache.
const cacheSupported = false

var errNoCache = errors.New("no configuration cache on this system")

// fileIdentity is empty: files are not identified on this system.
type fileIdentity struct{}

func identify(os.FileInfo) (fileIdentity, bool) { return fileIdentity{}, false }

func (fileIdentity) String() string { return "" }

func (fileIdentity) changedWithin(time.Time, time.Duration) bool { return true }

func openCacheFile(string, string) (*os.File, int64, error) { return nil, 0, errNoCache }

func writeCacheFile(string, string, []byte, time.Time) error { return errNoCache }
