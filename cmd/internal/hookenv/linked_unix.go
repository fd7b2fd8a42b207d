//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hookenv

import (
	"os"
	"syscall"
)

// linked reports whether a file still has a name (it was not removed).
func linked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink > 0
}
