//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package hookenv

import "net"

// peerUID does not know the peer's user here: the socket's private
// directory is the guard.
func peerUID(*net.UnixConn) (uid int, known bool) { return 0, false }
