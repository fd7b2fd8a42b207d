//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hookenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/gate"
)

// WarmOptions configure [Serve].
type WarmOptions struct {
	// Socket is the socket's path and Key the key every request must
	// carry, both as [gate.WarmSocket] gives them.
	Socket, Key string
	// Idle is how long to wait for a call before exiting; 0 means
	// [gate.DefaultWorkerIdle].
	Idle time.Duration
	// Executable is the worker binary; Serve exits when it changes (a new
	// build has a new socket). Empty means no such check.
	Executable string
}

// startingFresh is how long a marker that a warm worker is starting keeps
// others from starting one too.
const startingFresh = 10 * time.Second

// watchEvery is how often a warm worker checks that its socket and its
// binary are still the ones it started with.
const watchEvery = 2 * time.Second

// requestWait bounds reading a request once a front has connected.
const requestWait = 2 * time.Second

// Serve runs a warm worker: it answers hook calls sent by the fronts
// ([gate.WarmRequest]) on opts.Socket until it has had no call for
// opts.Idle, its socket is removed or replaced, its binary changes, a
// call's configuration sets hooks.worker = off, or ctx ends. Each call is
// answered as the worker process would answer it: the configuration is
// loaded from the call's environment, and the budget counts from the
// front's start. A caller of another user or, on Linux, of another world
// ([gate.World]: namespaces, root, working directory) or with another
// process environment ([gate.ProcessEnv]) is refused, and its front runs
// the worker itself. Only one warm worker serves a socket (a lock file
// beside it); Serve returns nil at once when another does. The socket's
// directory must be private to the user ([gate.PrivateDir]).
func Serve(ctx context.Context, opts WarmOptions) error {
	if err := runDir(filepath.Dir(opts.Socket)); err != nil {
		return err
	}
	defer os.Remove(opts.Socket + ".starting")
	self, err := ownWorld()
	if err != nil {
		return err
	}
	lock, err := os.OpenFile(opts.Socket+".lock", os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil // another warm worker serves this socket
	}
	// A lock file removed (by a sweep, see [sweep]) between opening and
	// locking it no longer keeps another warm worker from this socket.
	if !stillNamed(lock, opts.Socket+".lock") {
		return nil
	}
	// The lock file goes with the worker: a worker started meanwhile that
	// locks the removed file only ends up replacing this one's socket,
	// which makes this one exit.
	defer os.Remove(opts.Socket + ".lock")
	_ = os.Remove(opts.Socket) // a socket left by one that was killed
	ln, err := net.Listen("unix", opts.Socket)
	if err != nil {
		return err
	}
	if err := os.Chmod(opts.Socket, 0o600); err != nil {
		ln.Close()
		return err
	}
	_ = os.WriteFile(opts.Socket+".pid", fmt.Appendf(nil, "%d\n", os.Getpid()), 0o600)
	defer os.Remove(opts.Socket + ".pid")
	_ = os.Remove(opts.Socket + ".starting")
	s := &warmServer{key: opts.Key, world: self, calls: make(chan struct{}, 1), stop: make(chan struct{}, 1), kept: newWarmKept()}
	defer s.kept.close()
	idle := opts.Idle
	if idle <= 0 {
		idle = gate.DefaultWorkerIdle
	}
	sockInfo, _ := os.Stat(opts.Socket)
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
			if fi, err := os.Stat(opts.Socket); err != nil || sockInfo == nil || !os.SameFile(fi, sockInfo) {
				break loop
			}
			if exeInfo != nil {
				if fi, err := os.Stat(opts.Executable); err != nil || !os.SameFile(fi, exeInfo) || !fi.ModTime().Equal(exeInfo.ModTime()) || fi.Size() != exeInfo.Size() {
					break loop
				}
			}
		}
	}
	// Stop taking calls (which removes the socket, when it is still
	// ours), then let the ones under way finish.
	if fi, err := os.Stat(opts.Socket); err == nil && sockInfo != nil && !os.SameFile(fi, sockInfo) {
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
	}
	ln.Close()
	<-accepting // no call is added once the calls under way are waited for
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainWait):
	}
	return nil
}

// warmServer is a warm worker's state: the calls under way.
type warmServer struct {
	key   string
	world *gate.World // nil where the system shows none, see [ownWorld]
	kept  *warmKept
	wg    sync.WaitGroup
	mu    sync.Mutex
	n     int
	calls chan struct{} // a call is served (resets the idle timer)
	stop  chan struct{} // a call retired the warm worker
}

// retire makes the warm worker stop taking calls and exit.
func (s *warmServer) retire() {
	select {
	case s.stop <- struct{}{}:
	default:
	}
}

func (s *warmServer) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n > 0
}

func (s *warmServer) accept(ctx context.Context, ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
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

// serveConn answers one front's call: the budget once the configuration
// is loaded, then what the worker would have written.
func (s *warmServer) serveConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	defer func() { _ = recover() }() // the front steps aside on its own
	// Who called is checked before anything of the call is read: a
	// caller of another user or world is refused, and its front runs the
	// worker itself, in its own world.
	foreign := s.refusal(c)
	_ = c.SetReadDeadline(time.Now().Add(requestWait))
	var req gate.WarmRequest
	if err := gate.ReadFrame(c, &req); err != nil {
		return
	}
	refuse := func(why string) {
		_ = c.SetWriteDeadline(time.Now().Add(requestWait))
		_ = gate.WriteFrame(c, &gate.WarmReply{Refused: why})
	}
	var body hookBody
	var kind hookKind
	switch {
	case foreign != "":
		refuse(foreign)
		return
	case req.Version != gate.WarmVersion || req.Key != s.key:
		refuse("another worker")
		return
	case !sameProcessEnv(req.Env):
		// The key names the process environment, but a caller can forge
		// it: what this process reads for itself must be the caller's.
		refuse("another process environment")
		return
	case req.Hook == gate.WebSearch:
		body, kind = webSearchBody(s.kept), searchHook
	case req.Hook == gate.WebFetch:
		body, kind = webFetchBody(s.kept), fetchHook
	default:
		refuse("unknown hook")
		return
	}
	// A call served, not one refused, keeps the warm worker from idling
	// out: one that only refuses (its directory was replaced under the
	// same path, say) exits, and the next call starts one that serves.
	select {
	case s.calls <- struct{}{}:
	default:
	}
	now := time.Now()
	start := time.Unix(0, req.Start)
	if now.Sub(time.Unix(0, req.Sent)) > gate.WarmFirstWait {
		return // the front has given up on this call and answered it otherwise
	}
	if start.After(now) {
		start = now
	}
	load := func() (*config.Config, error) {
		home, _ := gate.EnvList(req.Env)("HOME")
		return config.Load(&config.LoadOptions{Env: req.Env, HomeDir: home, Cache: true})
	}
	l, budget, stepAside := kind.load(ctx, load, start)
	_ = c.SetWriteDeadline(start.Add(budget + 2*time.Second))
	if err := gate.WriteFrame(c, &gate.WarmReply{Budget: budget}); err != nil {
		return
	}
	h := func(context.Context, *hooks.Input) hooks.Decision { return *stepAside }
	if stepAside == nil {
		// The configuration is loaded once, above, for the budget the
		// front waits by and for the call.
		h = func(ctx context.Context, in *hooks.Input) hooks.Decision {
			return kind.within(ctx, start, budget, func(ctx context.Context) hooks.Decision { return body(ctx, in, l.cfg, l.err) })
		}
	}
	actx, after := withAfter(ctx)
	defer after.run() // the decision log, once the call is answered
	var out, errs bytes.Buffer
	hooks.Run(hooks.WithStart(actx, start), bytes.NewReader(req.Payload), &out, &errs, h)
	_ = gate.WriteFrame(c, &gate.WarmReply{Final: true, Stdout: out.Bytes(), Stderr: errs.Bytes()})
	switch {
	case stepAside == nil && l.cfg.WorkerOff():
		s.retire() // the call's configuration turns the warm worker off
	case time.Since(start) > budget+guardSlack:
		// The call was given up at its budget while something in it went
		// on (a worker process would have exited): this one exits too,
		// once the other calls are over, rather than keep what is left.
		s.retire()
	}
}

// refusal returns why the warm worker refuses the caller at the other end
// of c, or "" when it serves it: a caller of another user, or (on Linux)
// one whose namespaces, root or working directory differ from the
// worker's ([callerRefusal]). Elsewhere the socket's private directory is
// the guard.
func (s *warmServer) refusal(c net.Conn) string {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return "not a Unix socket"
	}
	raw, err := uc.SyscallConn()
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
// [gate.ProcessEnv] the value this process has (unset counts as empty, as
// in the key of [gate.WarmSocket]): the PATH a fetch.pdftotext program is
// found on, the TMPDIR, HOME and proxies a call is resolved with, are
// then the caller's.
func sameProcessEnv(env []string) bool {
	e := gate.EnvList(env)
	for _, k := range gate.ProcessEnv {
		theirs, _ := e(k)
		if theirs != os.Getenv(k) {
			return false
		}
	}
	return true
}

// StartWarm starts a warm worker for the calls of worker in cwd with the
// environment env, in the background, unless one is running or starting,
// or [maxWarm] are. The worker is run as "worker serve --idle IDLE SOCKET
// KEY" in a session of its own, with its standard streams on the null
// device and no other descriptor, so that nothing waits for it. Counting
// the warm workers and starting one happen under one lock (start.lock in
// the socket's directory), so that calls starting at once cannot together
// start more. It returns at once, or after [startLockWait] when another
// start holds the lock.
func StartWarm(worker, cwd string, env []string, idle time.Duration) error {
	socket, key, err := gate.WarmSocket(worker, cwd, gate.EnvList(env))
	if err != nil {
		return err
	}
	dir := filepath.Dir(socket)
	if err := runDir(dir); err != nil {
		return err
	}
	unlock, err := lockStarts(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if running(socket + ".lock") {
		return nil
	}
	marker := socket + ".starting"
	if fi, err := os.Lstat(marker); err == nil && time.Since(fi.ModTime()) < startingFresh {
		return nil // another call is starting it
	}
	if n := sweep(dir); n >= maxWarm {
		return fmt.Errorf("%d warm workers are running already", n)
	}
	_ = os.Remove(marker)
	f, err := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	cmd := exec.Command(worker, "serve", "--idle", idle.String(), socket, key)
	cmd.Dir = cwd
	// Only what the process itself reads: each call brings its own
	// environment, keys included.
	cmd.Env = processEnv(env)
	// Stdin, Stdout and Stderr stay nil: the null device. Descriptors this
	// process inherited without close-on-exec would pass on too; the
	// worker marks them at its start ([InheritNothing]) and the warm
	// worker closes any left ([CloseInherited]).
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
// started in dir, waiting up to [startLockWait], and returns its release.
// The lock file goes with the release, while it is held: whoever locked
// it meanwhile finds it no longer named ([stillNamed]) and locks the next
// one, so that run/ holds only the files of warm workers.
func lockStarts(dir string) (func(), error) {
	path := filepath.Join(dir, "start.lock")
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
// to the user ([gate.PrivateDir]).
func runDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if !gate.PrivateDir(dir) {
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

// maxWarm is how many warm workers may run for one user at once (one per
// working directory, worker binary and process environment).
const maxWarm = 8

// sweep removes what warm workers that were killed left in dir: the
// socket, pid and lock files of workers whose lock no one holds, and
// markers of starts that never finished. It returns how many warm
// workers run or are starting (a fresh marker). It is called under the
// start lock ([lockStarts]); a lock file is removed while sweep holds it,
// so that a warm worker that opened it meanwhile sees it gone and exits
// ([stillNamed]).
func sweep(dir string) (live int) {
	seen := map[string]bool{}
	// Markers first: a starting worker locks its lock file before it
	// removes its marker, so one that moves from the one to the other
	// while sweep looks is seen in either. Looked at the other way round,
	// it could be in neither, and one more would start.
	markers, _ := filepath.Glob(filepath.Join(dir, "*.sock.starting"))
	for _, m := range markers {
		if fi, err := os.Lstat(m); err == nil && time.Since(fi.ModTime()) > startingFresh {
			_ = os.Remove(m)
		} else if err == nil {
			seen[strings.TrimSuffix(m, ".starting")] = true
		}
	}
	locks, _ := filepath.Glob(filepath.Join(dir, "*.sock.lock"))
	for _, l := range locks {
		base := strings.TrimSuffix(l, ".lock")
		f, err := os.OpenFile(l, os.O_RDWR|syscall.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			seen[base] = true
			continue
		}
		if stillNamed(f, l) {
			for _, p := range []string{base, base + ".pid", l} {
				_ = os.Remove(p)
			}
		}
		f.Close()
	}
	return len(seen)
}

// processEnv keeps of env what a warm worker's process reads for itself
// ([gate.ProcessEnv] and the XDG directories).
func processEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "XDG_") || slices.Contains(gate.ProcessEnv, k) {
			out = append(out, kv)
		}
	}
	return out
}

// linked reports whether a file still has a name (it was not removed).
func linked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink > 0
}
