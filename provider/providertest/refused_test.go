package providertest

import (
	"net"
	"testing"
	"time"
)

func TestRefusedAddr_RefusesConnectionsWhileHeld(t *testing.T) {
	addr := RefusedAddr(t)
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("a connection to %s was accepted", addr)
	}
}
