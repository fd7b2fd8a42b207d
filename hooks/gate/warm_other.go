//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package gate

import (
	"io"
	"os"
	"time"
)

// FileIno returns 0: files have no inode number here.
func FileIno(os.FileInfo) uint64 { return 0 }

// askWarm always returns false: the warm worker is for Unix systems.
func askWarm(hook, worker string, data []byte, start time.Time, env Env, stdout, stderr io.Writer) bool {
	return false
}

// PrivateDir always reports false: the warm worker is for Unix systems.
func PrivateDir(string) bool { return false }
