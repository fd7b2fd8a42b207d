package hookenv

import (
	"net"
	"syscall"
)

// peerUID returns the user id of the process at the other end of c.
func peerUID(c *net.UnixConn) (uid int, known bool) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, false
	}
	var cred *syscall.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || serr != nil || cred == nil {
		return 0, false
	}
	return int(cred.Uid), true
}
