//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package worker

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestAskWarm_RetiresOnlyTheWarmWorkerItAsked(t *testing.T) {
	state, err := os.MkdirTemp("", "wg") // a socket's path is short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(state) })
	worker := filepath.Join(state, "webgate-hook")
	if err := os.WriteFile(worker, []byte("worker"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := envOf("WEBGATE_STATE_DIR="+state, "HOME="+state)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	socket, _, err := socketFor(worker, cwd, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		t.Fatal(err)
	}
	// A warm worker that takes the call and never answers; while the front
	// waits for it, a new warm worker takes the socket's place.
	old, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	old.(*net.UnixListener).SetUnlinkOnClose(false)
	replaced := make(chan net.Listener, 1)
	go func() {
		c, err := old.Accept()
		if err == nil {
			defer c.Close()
		}
		old.Close()
		_ = os.Remove(socket)
		ln, err := net.Listen("unix", socket)
		if err != nil {
			t.Error(err)
		}
		replaced <- ln
		time.Sleep(FirstWait + time.Second) // hold the call past the front's wait
	}()
	var out, errb bytes.Buffer
	if _, answered := Ask("websearch", worker, []byte(`{"tool_name":"WebSearch"}`), time.Now(), time.Second, env, &out, &errb); answered {
		t.Errorf("a warm worker that did not answer took the call: %q %q", out.String(), errb.String())
	}
	ln := <-replaced
	if ln != nil {
		defer ln.Close()
	}
	// The front retires the warm worker it asked, not the new one.
	if _, err := os.Lstat(socket); err != nil {
		t.Errorf("the front removed the socket of the warm worker that replaced the one it asked: %v", err)
	}
}
