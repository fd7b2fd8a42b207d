//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package providertest

import "net"

// refusedAddr returns a loopback address that refuses connections: a port
// that was just listened on and closed. Elsewhere than on Unix another
// server may take the port over in the meantime; the Unix version holds it.
func refusedAddr() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr, func() {}, nil
}
