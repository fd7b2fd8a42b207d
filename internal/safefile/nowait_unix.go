//go:build unix

package safefile

import (
	"fmt"
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

// keepOwner gives f, a new file that replaces the one fi describes, that
// file's owner and group when they differ from f's. A process that may not
// (only root may give a file away) keeps f's group when only the group
// differs, and fails when the owner differs: the replaced file would
// otherwise silently change hands (a settings file edited under sudo would
// become root's, and its owner could no longer write it).
func keepOwner(f *os.File, fi os.FileInfo) error {
	want, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	nfi, err := f.Stat()
	if err != nil {
		return err
	}
	got, ok := nfi.Sys().(*syscall.Stat_t)
	if !ok || got.Uid == want.Uid && got.Gid == want.Gid {
		return nil
	}
	err = f.Chown(int(want.Uid), int(want.Gid))
	if err == nil || got.Uid == want.Uid {
		return nil
	}
	return fmt.Errorf("%w: it belongs to uid %d and this process (uid %d) cannot give the rewritten file back to that owner; run as that user", ErrOwner, want.Uid, os.Geteuid())
}

// FileOwner returns the owner and group of the file fi describes; ok is
// false where the system does not say.
func FileOwner(fi os.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
