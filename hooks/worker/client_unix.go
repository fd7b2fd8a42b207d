//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package worker

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// warmFallbackWithin is how long after the front's start a failed warm
// worker still leaves time to run the worker by exec (whose budget counts
// from the front's start too, see [FrontEnv]); past it, the hook steps
// aside.
const warmFallbackWithin = 3 * time.Second

// warmWriteWait bounds sending the request to the warm worker.
const warmWriteWait = 2 * time.Second

// warmReplySlack is how long past the hook's budget the front waits for
// the warm worker's answer: the worker steps aside on its own at the
// budget, and needs a moment to say so.
const warmReplySlack = time.Second

// FileIno returns the inode number of the file fi describes (0 where the
// system gives none).
func FileIno(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// Ask hands a hook call to the warm worker of the worker binary worker,
// if one is up: the hook, its payload data, the moment the front started
// (start) and the process's environment and working directory; and it
// copies the answer to stdout and stderr. fallback is the hook's budget
// when the warm worker does not say it. Ask returns false when the front
// should run the worker itself: the warm worker is off (env, [Off]), not
// running, refused the call, or failed early enough to leave the worker
// its time. Otherwise the call is answered, and Ask returns the hook's
// exit code (or, past the budget, steps aside with a line on stderr). A warm worker that does not answer
// in time is retired: its socket is removed.
func Ask(hook, worker string, data []byte, start time.Time, fallback time.Duration, env Env, stdout, stderr io.Writer) (exit int, answered bool) {
	if Off(env) {
		return 0, false
	}
	cwd, err := os.Getwd()
	if err != nil {
		return 0, false
	}
	files, key, err := SocketFor(worker, cwd, env)
	if err != nil || !PrivateDir(files.dir()) {
		return 0, false
	}
	socket := files.Socket
	// The socket as it is when asked: only this one is retired below, not
	// one a new warm worker put in its place meanwhile.
	asked, err := os.Lstat(socket)
	if err != nil {
		return 0, false
	}
	conn, err := dialUnix(socket)
	if err != nil {
		return 0, false
	}
	defer conn.Close()
	// Whoever listens must be this user: the environment holds the keys.
	if !listenerIsUs(conn) {
		return 0, false
	}
	// A warm worker that does not answer in time is retired: its socket
	// is removed, so that it exits and the next calls do not wait for it.
	retire := func() {
		if fi, err := os.Lstat(socket); err == nil && fi.Mode()&os.ModeSocket != 0 && os.SameFile(fi, asked) {
			_ = os.Remove(socket)
		}
	}
	failed := func(what string, err error) (int, bool) {
		if time.Since(start) < warmFallbackWithin {
			return 0, false
		}
		fmt.Fprintf(stderr, "webgate: the warm worker %s: %v; passing through\n", what, err)
		return 0, true
	}
	conn.SetDeadline(time.Now().Add(warmWriteWait))
	req := Request{Version: Version, Key: key, Hook: hook, Start: start.UnixNano(), Sent: time.Now().UnixNano(), Env: os.Environ(), Cwd: cwd, Payload: data}
	if err := WriteFrame(conn, &req); err != nil {
		retire()
		return failed("could not be asked", err)
	}
	var first Reply
	conn.SetDeadline(time.Now().Add(FirstWait))
	if err := ReadFrame(conn, &first); err != nil {
		retire()
		return failed("did not answer", err)
	}
	if first.Refused != "" {
		return 0, false
	}
	budget := first.Budget
	if budget <= 0 {
		budget = fallback
	}
	var final Reply
	conn.SetDeadline(start.Add(budget + warmReplySlack))
	if err := ReadFrame(conn, &final); err != nil || !final.Final {
		if err == nil {
			err = errors.New("no final answer")
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) && time.Since(start) < warmFallbackWithin {
			return 0, false // it went away early: the worker has the time to answer
		}
		retire()
		fmt.Fprintf(stderr, "webgate: the warm worker did not answer within the %v budget: %v; passing through\n", budget, err)
		return 0, true
	}
	_, _ = stdout.Write(final.Stdout)
	_, _ = stderr.Write(final.Stderr)
	return final.Exit, true
}

// dialUnix connects to the Unix socket at path without blocking (a
// listener whose queue is full refuses at once rather than making the
// front wait); the connection is then used with blocking system calls.
func dialUnix(path string) (*sockConn, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &sockConn{fd: fd, path: path}, nil
}

// sockConn is a connected socket read and written with blocking system
// calls under kernel timeouts (SO_RCVTIMEO, SO_SNDTIMEO) up to a deadline.
// The front waits for the warm worker in the kernel rather than in Go's
// poller, whose spinning threads would take the processor the warm
// worker needs to answer.
type sockConn struct {
	fd       int
	path     string
	deadline time.Time
}

// SetDeadline sets when reads and writes give up, with
// os.ErrDeadlineExceeded.
func (c *sockConn) SetDeadline(t time.Time) { c.deadline = t }

// arm sets the kernel timeout opt to what is left until the deadline.
func (c *sockConn) arm(opt int) error {
	left := time.Until(c.deadline)
	if left <= 0 {
		return os.ErrDeadlineExceeded
	}
	tv := syscall.NsecToTimeval(max(left, time.Millisecond).Nanoseconds())
	return syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv)
}

func (c *sockConn) Read(p []byte) (int, error) {
	for {
		if err := c.arm(syscall.SO_RCVTIMEO); err != nil {
			return 0, err
		}
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK:
			return 0, os.ErrDeadlineExceeded
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *sockConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		if err := c.arm(syscall.SO_SNDTIMEO); err != nil {
			return done, err
		}
		n, err := syscall.Write(c.fd, p[done:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK:
			return done, os.ErrDeadlineExceeded
		case err != nil:
			return done, err
		}
		done += n
	}
	return done, nil
}

// Close closes the socket.
func (c *sockConn) Close() error { return syscall.Close(c.fd) }

// PrivateDir reports whether dir is a directory (not a link) of the
// running user's that no one else may enter or write: where a warm
// worker's socket may be trusted with the environment, keys included.
func PrivateDir(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
