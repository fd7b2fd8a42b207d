//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func drain(opts *ServeOptions) time.Duration {
	if opts.Drain > 0 {
		return opts.Drain
	}
	return DefaultDrain
}

// startingFresh is how long a marker that a warm worker is starting keeps
// others from starting one too.
const startingFresh = 10 * time.Second

// watchEvery is how often a warm worker checks that its socket and its
// binary are still the ones it started with.
const watchEvery = 2 * time.Second

// requestWait bounds reading a request once a front has connected.
const requestWait = 2 * time.Second

// Serve runs a warm worker: it answers the hook calls fronts send
// ([Request]) on opts.Files.Socket with opts.Handler until it has had no
// call for opts.Idle, its socket is removed or replaced, its binary
// changes, an answer asks it to retire ([Answer].Retire), or ctx ends. A
// call's budget counts from the front's start. A caller of another user
// or, on Linux, of another world ([World]: namespaces, root, working
// directory, confinement) or with another process environment
// ([ProcessEnv]) is refused before anything of its call is read, and its
// front runs the worker itself. Only one warm worker serves a socket (its
// lock file, [Files].Lock); Serve returns nil at once when another does.
// The socket's directory must be private to the user ([PrivateDir]).
func Serve(ctx context.Context, opts *ServeOptions) error {
	if opts == nil || opts.Handler == nil || opts.Files.Socket == "" {
		return errors.New("worker.Serve needs a socket and a handler")
	}
	files := opts.Files
	if err := runDir(files.dir()); err != nil {
		return err
	}
	defer os.Remove(files.Starting())
	self, err := ownWorld()
	if err != nil {
		return err
	}
	lock, err := os.OpenFile(files.Lock(), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil // another warm worker serves this socket
	}
	// A lock file removed (by a sweep, see [sweep]) between opening and
	// locking it no longer keeps another warm worker from this socket.
	if !stillNamed(lock, files.Lock()) {
		return nil
	}
	// The lock file goes with the worker: a worker started meanwhile that
	// locks the removed file only ends up replacing this one's socket,
	// which makes this one exit.
	defer os.Remove(files.Lock())
	_ = os.Remove(files.Socket) // a socket left by one that was killed
	ln, err := listenUnix(files.Socket)
	if err != nil {
		return err
	}
	if err := os.Chmod(files.Socket, 0o600); err != nil {
		ln.Close()
		_ = os.Remove(files.Socket)
		return err
	}
	_ = os.WriteFile(files.PID(), fmt.Appendf(nil, "%d\n", os.Getpid()), 0o600)
	defer os.Remove(files.PID())
	_ = os.Remove(files.Starting())
	s := &server{key: opts.Key, world: self, handler: opts.Handler, calls: make(chan struct{}, 1), stop: make(chan struct{}, 1)}
	idle := opts.Idle
	if idle <= 0 {
		idle = DefaultIdle
	}
	sockInfo, _ := os.Stat(files.Socket)
	var exeInfo os.FileInfo
	if opts.Executable != "" {
		exeInfo, _ = os.Stat(opts.Executable)
	}
	accepting := make(chan struct{})
	go func() {
		defer close(accepting)
		s.accept(ctx, ln)
	}()
	timer := time.NewTimer(idle)
	watch := time.NewTicker(watchEvery)
	defer watch.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-s.stop:
			break loop
		case <-s.calls:
			timer.Reset(idle)
		case <-timer.C:
			if s.busy() {
				timer.Reset(idle)
				continue
			}
			break loop
		case <-watch.C:
			if fi, err := os.Stat(files.Socket); err != nil || sockInfo == nil || !os.SameFile(fi, sockInfo) {
				break loop
			}
			if exeInfo != nil {
				if fi, err := os.Stat(opts.Executable); err != nil || !os.SameFile(fi, exeInfo) || !fi.ModTime().Equal(exeInfo.ModTime()) || fi.Size() != exeInfo.Size() {
					break loop
				}
			}
		}
	}
	// Stop taking calls (and remove the socket, when it is still ours),
	// then let the ones under way finish.
	if fi, err := os.Lstat(files.Socket); err == nil && sockInfo != nil && os.SameFile(fi, sockInfo) {
		_ = os.Remove(files.Socket)
	}
	s.closing.Store(true)
	ln.Close()
	<-accepting // no call is added once the calls under way are waited for
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drain(opts)):
	}
	return nil
}

// server is a warm worker's state: the calls under way.
type server struct {
	key     string
	world   *World // nil where the system shows none, see [ownWorld]
	handler Handler
	closing atomic.Bool // the listener is closed: accepting ends
	wg      sync.WaitGroup
	mu      sync.Mutex
	n       int
	calls   chan struct{} // a call is served (resets the idle timer)
	stop    chan struct{} // a call retired the warm worker
}

// retire makes the warm worker stop taking calls and exit.
func (s *server) retire() {
	select {
	case s.stop <- struct{}{}:
	default:
	}
}

func (s *server) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n > 0
}

func (s *server) accept(ctx context.Context, ln *os.File) {
	for {
		c, err := acceptUnix(ln)
		if err != nil {
			if s.closing.Load() {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		s.mu.Lock()
		s.n++
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer func() {
				s.mu.Lock()
				s.n--
				s.mu.Unlock()
				s.wg.Done()
			}()
			s.serveConn(ctx, c)
		}()
	}
}

// listenUnix listens on a Unix socket at path, as a file in the
// runtime's poller (so that its calls have deadlines) rather than with
// package net, which the front binaries that link this package would
// then pay for at every start.
func listenUnix(path string) (*os.File, error) {
	syscall.ForkLock.RLock() // no child inherits it between the two calls
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("setnonblock", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "bind", Path: path, Err: err}
	}
	if err := syscall.Listen(fd, syscall.SOMAXCONN); err != nil {
		syscall.Close(fd)
		_ = os.Remove(path)
		return nil, os.NewSyscallError("listen", err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// acceptUnix waits for the next connection on the listening socket ln and
// returns it as a file in the runtime's poller, close-on-exec. It fails
// once ln is closed.
func acceptUnix(ln *os.File) (*os.File, error) {
	raw, err := ln.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var aerr error
	err = raw.Read(func(fd uintptr) bool {
		syscall.ForkLock.RLock()
		nfd, _, aerr = syscall.Accept(int(fd))
		if aerr == nil {
			syscall.CloseOnExec(nfd)
		}
		syscall.ForkLock.RUnlock()
		return aerr != syscall.EAGAIN && aerr != syscall.EWOULDBLOCK
	})
	if err == nil {
		err = aerr
	}
	if err != nil {
		if nfd >= 0 && aerr == nil {
			syscall.Close(nfd)
		}
		return nil, err
	}
	if err := syscall.SetNonblock(nfd, true); err != nil {
		syscall.Close(nfd)
		return nil, err
	}
	return os.NewFile(uintptr(nfd), "warm worker call"), nil
}

// serveConn answers one front's call: it checks the caller, reads its
// request and hands it to the handler, which sends the budget once it
// knows it ([Call.SetBudget]); then it sends the answer, and runs what
// the answer leaves for after it ([Answer].After).
func (s *server) serveConn(ctx context.Context, c *os.File) {
	defer c.Close()
	defer func() { _ = recover() }() // the front steps aside on its own
	// Who called is checked before anything of the call is read: a
	// caller of another user or world is refused, and its front runs the
	// worker itself, in its own world.
	foreign := s.refusal(c)
	_ = c.SetReadDeadline(time.Now().Add(requestWait))
	var req Request
	if err := ReadFrame(c, &req); err != nil {
		return
	}
	refuse := func(why string) {
		_ = c.SetWriteDeadline(time.Now().Add(requestWait))
		_ = WriteFrame(c, &Reply{Refused: why})
	}
	switch {
	case foreign != "":
		refuse(foreign)
		return
	case req.Version != Version || req.Key != s.key:
		refuse("another worker")
		return
	case !sameProcessEnv(req.Env):
		// The key names the process environment, but a caller can forge
		// it: what this process reads for itself must be the caller's.
		refuse("another process environment")
		return
	}
	now := time.Now()
	if now.Sub(time.Unix(0, req.Sent)) > FirstWait {
		return // the front has given up on this call and answered it otherwise
	}
	start := time.Unix(0, req.Start)
	if start.After(now) {
		start = now
	}
	call := &Call{Hook: req.Hook, Payload: req.Payload, Env: req.Env, Cwd: req.Cwd, Start: start, World: s.world}
	call.budget = func(budget time.Duration) error {
		// A call admitted, not one refused, keeps the warm worker from
		// idling out: one that only refuses (its directory was replaced
		// under the same path, say) exits, and the next call starts one
		// that serves.
		select {
		case s.calls <- struct{}{}:
		default:
		}
		_ = c.SetWriteDeadline(start.Add(budget + 2*time.Second))
		return WriteFrame(c, &Reply{Budget: budget})
	}
	a := s.handler.ServeCall(ctx, call)
	if a.After != nil {
		defer a.After() // the decision log, once the call is answered
	}
	if a.Retire {
		defer s.retire()
	}
	if !call.budgetSent {
		if a.Refused == "" {
			a.Refused = "no answer"
		}
		refuse(a.Refused)
		return
	}
	_ = WriteFrame(c, &Reply{Final: true, Stdout: a.Stdout, Stderr: a.Stderr, Exit: a.Exit})
}

// refusal returns why the warm worker refuses the caller at the other end
// of c, or "" when it serves it: a caller of another user, or (on Linux)
// one whose namespaces, root or working directory differ from the
// worker's ([callerRefusal]). Elsewhere the socket's private directory is
// the guard.
func (s *server) refusal(c *os.File) string {
	raw, err := c.SyscallConn()
	if err != nil {
		return err.Error()
	}
	why := "the caller is unknown"
	if err := raw.Control(func(fd uintptr) { why = callerRefusal(int(fd), s.world) }); err != nil {
		return err.Error()
	}
	return why
}

// sameProcessEnv reports whether env gives every variable of
// [ProcessEnv] the value this process has (unset counts as empty, as
// in the key of [SocketFor]): the PATH a fetch.pdftotext program is
// found on, the TMPDIR, HOME and proxies a call is resolved with, are
// then the caller's.
func sameProcessEnv(env []string) bool {
	e := EnvList(env)
	for _, k := range ProcessEnv {
		theirs, _ := e(k)
		if theirs != os.Getenv(k) {
			return false
		}
	}
	return true
}

// Start starts a warm worker for the calls of the worker binary worker
// in cwd with the environment env, in the background, unless one is
// running or starting, or [MaxWorkers] are. The warm worker is run as
// "worker serve --idle IDLE SOCKET KEY" in a session of its own, with its
// standard streams on the null device, only the process environment
// ([ProcessEnv] and the XDG directories) and no other descriptor this
// process opened, so that nothing waits for it. Counting the warm workers
// and starting one happen under one lock ([Layout.StartLock]), so that
// calls starting at once cannot together start more. It returns at once,
// or after [startLockWait] when another start holds the lock.
func Start(worker, cwd string, env []string, idle time.Duration) error {
	files, key, err := SocketFor(worker, cwd, EnvList(env))
	if err != nil {
		return err
	}
	layout := Layout{Dir: files.dir()}
	if err := runDir(layout.Dir); err != nil {
		return err
	}
	unlock, err := lockStarts(layout)
	if err != nil {
		return err
	}
	defer unlock()
	if running(files.Lock()) {
		return nil
	}
	marker := files.Starting()
	if fi, err := os.Lstat(marker); err == nil && time.Since(fi.ModTime()) < startingFresh {
		return nil // another call is starting it
	}
	if n := sweep(layout); n >= MaxWorkers {
		return fmt.Errorf("%d warm workers are running already", n)
	}
	_ = os.Remove(marker)
	f, err := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	cmd := exec.Command(worker, "serve", "--idle", idle.String(), files.Socket, key)
	cmd.Dir = cwd
	// Only what the process itself reads: each call brings its own
	// environment, keys included.
	cmd.Env = processEnv(env)
	// Stdin, Stdout and Stderr stay nil: the null device. Descriptors this
	// process inherited without close-on-exec would pass on too; the
	// worker binary marks them close-on-exec at its start, and the warm
	// worker closes any left (see hookenv.InheritNothing and
	// hookenv.CloseInherited).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_ = os.Remove(marker)
		return err
	}
	return cmd.Process.Release()
}

// startLockWait bounds the wait for another call's start of a warm worker
// (a fork and exec, a few milliseconds): the worker that waits has
// answered its call already, but its caller waits for it to exit.
const startLockWait = time.Second

// lockStarts takes the lock under which warm workers are counted and
// started in the layout's directory ([Layout.StartLock]), waiting up to [startLockWait], and returns its release.
// The lock file goes with the release, while it is held: whoever locked
// it meanwhile finds it no longer named ([stillNamed]) and locks the next
// one, so that run/ holds only the files of warm workers.
func lockStarts(layout Layout) (func(), error) {
	path := layout.StartLock()
	deadline := time.Now().Add(startLockWait)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, err
		}
		for {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if err == nil || (!errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR)) || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		switch {
		case err == nil && stillNamed(f, path):
			return func() {
				_ = os.Remove(path)
				f.Close() // closing releases the lock
			}, nil
		case err == nil:
			f.Close() // released and removed by its holder meanwhile
			if time.Now().After(deadline) {
				return nil, errors.New("another call is starting a warm worker")
			}
			continue
		case errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR):
			f.Close()
			return nil, errors.New("another call is starting a warm worker")
		default:
			f.Close()
			return nil, err
		}
	}
}

// stillNamed reports whether the open file f is still the file at path
// (not removed or replaced since it was opened).
func stillNamed(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// runDir makes sure the warm workers' directory dir exists and is private
// to the user ([PrivateDir]).
func runDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if !PrivateDir(dir) {
		return fmt.Errorf("%s is not a private directory of this user's", dir)
	}
	return nil
}

// running reports whether a warm worker holds the lock file at path.
func running(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// sweep removes what warm workers that were killed left in the layout's
// directory: the socket, pid and lock files of workers whose lock no one
// holds, and markers of starts that never finished. It returns how many
// warm workers run or are starting (a fresh marker). It is called under
// the start lock ([lockStarts]); a lock file is removed while sweep holds
// it, so that a warm worker that opened it meanwhile sees it gone and
// exits ([stillNamed]).
func sweep(layout Layout) (live int) {
	seen := map[string]bool{}
	// Markers first: a starting worker locks its lock file before it
	// removes its marker, so one that moves from the one to the other
	// while sweep looks is seen in either. Looked at the other way round,
	// it could be in neither, and one more would start.
	for _, w := range layout.Starting() {
		if fi, err := os.Lstat(w.Starting()); err == nil && time.Since(fi.ModTime()) > startingFresh {
			_ = os.Remove(w.Starting())
		} else if err == nil {
			seen[w.Socket] = true
		}
	}
	for _, w := range layout.Locked() {
		f, err := os.OpenFile(w.Lock(), os.O_RDWR|syscall.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			seen[w.Socket] = true
			continue
		}
		if stillNamed(f, w.Lock()) {
			for _, p := range []string{w.Socket, w.PID(), w.Lock()} {
				_ = os.Remove(p)
			}
		}
		f.Close()
	}
	return len(seen)
}

// processEnv keeps of env what a warm worker's process reads for itself
// ([ProcessEnv] and the XDG directories).
func processEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "XDG_") || slices.Contains(ProcessEnv, k) {
			out = append(out, kv)
		}
	}
	return out
}
