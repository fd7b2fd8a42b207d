package worker

import (
	"os"
	"syscall"
)

// PeerUID returns the user id of the process at the other end of the Unix
// socket fd: the credentials it had when it connected or listened, as the
// system recorded them. ok is false when the system does not say.
func PeerUID(fd int) (uid int, ok bool) {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil || cred == nil {
		return 0, false
	}
	return int(cred.Uid), true
}

// listenerIsUs reports whether the process listening at the other end of
// conn runs as this user (the credentials it had when it listened) and
// lives in this process's world ([listenerInOurWorld]).
func listenerIsUs(conn *sockConn) bool {
	uid, ok := PeerUID(conn.fd)
	return ok && uid == os.Getuid() && listenerInOurWorld(conn.fd)
}
