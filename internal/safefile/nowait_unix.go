//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNoWait opens path with O_NONBLOCK, so that opening a FIFO returns at
// once instead of waiting for the other end. Regular files ignore the flag.
func openNoWait(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NONBLOCK, 0)
}

// linkCount returns the number of hard links of the file fi describes,
// 1 when unknown.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 0 {
		return uint64(st.Nlink)
	}
	return 1
}
