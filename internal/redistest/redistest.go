//go:build unix

// Package redistest starts a private redis-server for tests: on a free
// 127.0.0.1 port, with persistence off, stopped by PID when the test ends.
package redistest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is a running redis-server.
type Server struct {
	// Addr is host:port; URL is redis://Addr/0.
	Addr, URL string

	mu  sync.Mutex
	cmd *exec.Cmd
	log *bytes.Buffer
}

// Start starts a redis-server and stops it in t.Cleanup. Without
// redis-server on PATH it skips the test, or fails it when CI=true.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed (apt-get install -y redis-server); CI requires the Redis tests")
		}
		t.Skip("redis-server is not installed (apt-get install -y redis-server); skipping the Redis tests")
	}
	var last error
	for range 5 {
		s, err := start(t, bin)
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		last = err
	}
	t.Fatalf("starting redis-server: %v", last)
	return nil
}

func start(t testing.TB, bin string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), log: &bytes.Buffer{}}
	s.URL = "redis://" + s.Addr + "/0"
	s.cmd = exec.Command(bin, "--save", "", "--appendonly", "no", "--port", strconv.Itoa(port),
		"--bind", "127.0.0.1", "--dir", t.TempDir(), "--daemonize", "no")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if ping(s.Addr) {
			return s, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("redis-server on %s did not answer: %s", s.Addr, s.log.String())
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ping reports whether a Redis server answers PING at addr.
func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	buf := make([]byte, 7)
	n, _ := c.Read(buf)
	return string(buf[:n]) == "+PONG\r\n"
}

func (s *Server) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(sig)
	}
}

// Pause stops the server process (SIGSTOP): connections stay open but
// nothing is answered, as with a server that hangs.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

// Stop kills the server by its PID and waits for it to exit. Calling it
// again does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGCONT)
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}
