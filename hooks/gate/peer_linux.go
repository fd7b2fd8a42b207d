package gate

import (
	"os"
	"syscall"
)

// listenerIsUs reports whether the process listening at the other end of
// conn runs as this user (the credentials it had when it listened).
func listenerIsUs(conn *os.File) bool {
	raw, err := conn.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil || cred == nil {
		return false
	}
	return int(cred.Uid) == os.Getuid()
}
