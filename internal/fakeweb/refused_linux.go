//go:build linux

package fakeweb

import (
	"net"
	"strconv"
	"syscall"
	"testing"
)

// RefusedAddr returns a loopback address, "127.0.0.1:port", where a
// connection is refused. A socket is bound to the port but never
// listens, and it is held until the test ends: the kernel gives the port
// to no other server meanwhile, of this test binary or of another one
// running beside it. (Listening on port 0 and closing the listener gives
// an address that a parallel test may be serving a moment later.)
func RefusedAddr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("fakeweb: socket: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("fakeweb: bind: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	in4, ok := sa.(*syscall.SockaddrInet4)
	if err != nil || !ok {
		t.Fatalf("fakeweb: getsockname: %v", err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(in4.Port))
}
