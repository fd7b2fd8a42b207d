package gate

import (
	"os"
	"syscall"
)

// listenerIsUs reports whether the process listening at the other end of
// conn runs as this user (the credentials it had when it listened).
func listenerIsUs(conn *sockConn) bool {
	cred, err := syscall.GetsockoptUcred(conn.fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	return err == nil && cred != nil && int(cred.Uid) == os.Getuid()
}
