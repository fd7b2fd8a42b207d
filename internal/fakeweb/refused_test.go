//go:build linux

package fakeweb

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

func TestRefusedAddr_RefusesAndKeepsItsPort(t *testing.T) {
	addr := RefusedAddr(t)
	_, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s: %v, want connection refused", addr, err)
	}
	// While the test runs, no server can take the port.
	if l, err := net.Listen("tcp", addr); err == nil {
		l.Close()
		t.Fatalf("listen %s succeeded; the port should be held", addr)
	}
}
