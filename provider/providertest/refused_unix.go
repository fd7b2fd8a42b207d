//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package providertest

import (
	"fmt"
	"syscall"
)

// refusedAddr returns a loopback address that refuses connections, and a
// function that releases it. The port is bound but never listened on, so no
// other server (another test's fake, run in parallel) can take it over while
// the case runs: a connection attempt gets a reset, not someone's answer.
func refusedAddr() (string, func(), error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return "", nil, err
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return "", nil, err
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		return "", nil, err
	}
	in, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		syscall.Close(fd)
		return "", nil, fmt.Errorf("unexpected socket address %T", sa)
	}
	return fmt.Sprintf("127.0.0.1:%d", in.Port), func() { syscall.Close(fd) }, nil
}
