//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package worker

import (
	"io"
	"os"
	"time"
)

// FileIno returns 0: files have no inode number here.
func FileIno(os.FileInfo) uint64 { return 0 }

// Ask always returns false: the warm worker is for Unix systems.
func Ask(hook, worker string, data []byte, start time.Time, fallback time.Duration, env Env, stdout, stderr io.Writer) (exit int, answered bool) {
	return 0, false
}

// PrivateDir always reports false: the warm worker is for Unix systems.
func PrivateDir(string) bool { return false }
