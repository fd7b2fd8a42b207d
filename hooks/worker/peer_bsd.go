//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package worker

import (
	"os"
	"path/filepath"
	"syscall"
)

// PeerUID does not know the peer's user here (ok is false): the socket's
// private directory is the guard.
func PeerUID(fd int) (uid int, ok bool) { return 0, false }

// listenerIsUs reports whether only this user can have put the socket
// where conn connected: its directory and every directory above it belong
// to this user or to root, and none lets others rename what it holds
// (writable by group or others without the sticky bit). The system does
// not tell who listens here.
func listenerIsUs(conn *sockConn) bool {
	dir := filepath.Dir(conn.path)
	for {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() {
			return false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || (int(st.Uid) != os.Getuid() && st.Uid != 0) {
			return false
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return true
		}
		dir = parent
	}
}
