//go:build unix

package redistest

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestStart_OnlyItsOwnServerWillDo(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("no redis-server")
	}
	a := Start(t)
	if !ping(a.Addr) {
		t.Fatal("the server started does not answer")
	}
	// A second server asked for the first one's port cannot bind it; the
	// PONG it then sees comes from the first, and must not be taken for
	// its own.
	p, err := strconv.Atoi(a.Addr[strings.LastIndex(a.Addr, ":")+1:])
	if err != nil {
		t.Fatal(err)
	}
	if b, err := startOn(t, bin, p); err == nil {
		b.Stop()
		t.Fatalf("a second server on %s was taken as started", a.Addr)
	} else if !strings.Contains(err.Error(), "another redis-server") {
		t.Fatalf("error %v, want it to name another server", err)
	}
	if !ping(a.Addr) {
		t.Error("the first server stopped answering")
	}
}
