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

	mu   sync.Mutex
	cmd  *exec.Cmd
	log  *bytes.Buffer
	args []string // the command line, for Restart
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
	return startOn(t, bin, port)
}

// startOn starts redis-server on port of 127.0.0.1.
func startOn(t testing.TB, bin string, port int) (*Server, error) {
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), log: &bytes.Buffer{}}
	s.URL = "redis://" + s.Addr + "/0"
	s.args = []string{bin, "--save", "", "--appendonly", "no", "--port", strconv.Itoa(port),
		"--bind", "127.0.0.1", "--dir", t.TempDir(), "--daemonize", "no"}
	if err := s.run(); err != nil {
		return nil, err
	}
	return s, nil
}

// run starts the server's command line and waits until it answers PING.
func (s *Server) run() error {
	s.mu.Lock()
	s.log.Reset()
	s.cmd = exec.Command(s.args[0], s.args[1:]...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	err := s.cmd.Start()
	if err != nil {
		s.cmd = nil
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	pid := s.cmd.Process.Pid
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if ping(s.Addr) {
			// The port was free when it was picked, but a test binary
			// running beside this one may have started its own server on
			// it since; then this one could not bind and the answer came
			// from the other. Only our own process will do.
			if servedBy(s.Addr, pid) {
				return nil
			}
			s.Stop()
			return fmt.Errorf("another redis-server answers on %s", s.Addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("redis-server on %s did not answer: %s", s.Addr, s.log.String())
}

// Restart stops the server if it runs and starts it again on the same
// address, as after a crash or a redeploy. It comes back with what the
// last [Server.Save] wrote and nothing else; it fails the test when the
// server does not answer.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.run(); err != nil {
		t.Fatalf("restarting redis-server: %v", err)
	}
}

// Save writes the server's data to its directory (SAVE), where a
// [Server.Restart] loads it from, as a persistent Redis would keep it.
func (s *Server) Save(t testing.TB) {
	t.Helper()
	if got := command(s.Addr, "SAVE", 5*time.Second); got != "+OK\r\n" {
		t.Fatalf("redis-server SAVE answered %q", got)
	}
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
func ping(addr string) bool { return command(addr, "PING", 500*time.Millisecond) == "+PONG\r\n" }

// servedBy reports whether the Redis server answering at addr is process
// pid (INFO server's process_id).
func servedBy(addr string, pid int) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("INFO server\r\n")); err != nil {
		return false
	}
	want := "\nprocess_id:" + strconv.Itoa(pid) + "\r\n"
	var got []byte
	buf := make([]byte, 4096)
	for len(got) < 64<<10 {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if bytes.Contains(got, []byte(want)) {
			return true
		}
		if err != nil || bytes.Contains(got, []byte("\nprocess_id:")) && bytes.Contains(got[bytes.Index(got, []byte("\nprocess_id:")):], []byte("\r\n")) {
			return false
		}
	}
	return false
}

// command sends an inline command to the server at addr and returns the
// first bytes of its answer, or "" when it does not answer within timeout.
func command(addr, cmd string, timeout time.Duration) string {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return ""
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
		return ""
	}
	buf := make([]byte, 64)
	n, _ := c.Read(buf)
	return string(buf[:n])
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
