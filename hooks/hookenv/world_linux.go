//go:build linux

package hookenv

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/webgate-dev/webgate/hooks/gate"
)

// ownWorld returns the warm worker's own world.
func ownWorld() (*gate.World, error) {
	w, err := gate.ProcWorld("/proc/self")
	if err != nil {
		return nil, fmt.Errorf("the warm worker cannot tell its own namespaces: %w", err)
	}
	return &w, nil
}

// callerRefusal returns why the warm worker refuses the caller at the
// other end of the Unix socket fd, or "" when it serves it: the caller
// must run as this user (SO_PEERCRED) and live in the worker's world
// (self, see [gate.World]). The caller is the process that connected; the kernel names it
// by its pid, and its world is read from /proc/PID while a pidfd of that
// very process (SO_PEERPIDFD, Linux 6.5) shows it still running, so that
// a pid reused by another process between the connection and the check
// is not mistaken for the caller. Before Linux 6.5 the pidfd is opened by
// pid (pidfd_open, Linux 5.3), and before that the process's start time
// is compared before and after reading its world: there a caller that
// exits and whose pid is taken by a process of this world before the
// check is served (a pid cycled through the whole pid range in that
// moment). The kernel names a process, not the thread that connected, and
// /proc/PID shows its main thread: a thread that left the process's
// namespaces on its own shares the memory of one that did not, and so is
// no sandbox of its own.
func callerRefusal(fd int, self *gate.World) string {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return "the caller's credentials are unknown: " + err.Error()
	}
	if int(cred.Uid) != os.Getuid() {
		return "the caller runs as another user"
	}
	if cred.Pid <= 0 {
		// A caller in a PID namespace this one does not see.
		return "the caller's process is not visible here"
	}
	if self == nil {
		return "the warm worker's own namespaces are unknown"
	}
	pid := int(cred.Pid)
	dir := "/proc/" + strconv.Itoa(pid)
	alive, err := pinCaller(fd, pid)
	if err != nil {
		return "the caller cannot be pinned: " + err.Error()
	}
	defer alive.release()
	w, err := gate.ProcWorld(dir)
	if err != nil {
		return "the caller's namespaces cannot be read: " + err.Error()
	}
	if !alive.still() {
		return "the caller exited while it was checked"
	}
	if diff := self.Diff(w); diff != "" {
		return "the caller has another " + diff
	}
	return ""
}

// pinned tells whether the process a check started with is still the one
// that has its pid.
type pinned struct {
	pidfd int    // -1 without one
	dir   string // /proc/PID, for the start time
	start string // the start time, without a pidfd
}

// pinCaller pins the process that connected to the socket fd, whose pid
// is pid: by the pidfd the kernel gives of it, else by a pidfd opened by
// pid, else by its start time.
func pinCaller(fd, pid int) (pinned, error) {
	p := pinned{pidfd: -1, dir: "/proc/" + strconv.Itoa(pid)}
	pidfd, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PEERPIDFD)
	if err == nil {
		p.pidfd = pidfd
		return p, nil
	}
	if !errors.Is(err, unix.ENOPROTOOPT) && !errors.Is(err, unix.EINVAL) {
		return p, err // ESRCH: the caller is gone already
	}
	if pidfd, err = unix.PidfdOpen(pid, 0); err == nil {
		p.pidfd = pidfd
		return p, nil
	}
	if !errors.Is(err, unix.ENOSYS) {
		return p, err
	}
	if p.start, err = startTime(p.dir); err != nil {
		return p, err
	}
	return p, nil
}

// still reports whether the pinned process has not been reaped (a zombie
// still holds its pid, though its world can no longer be read).
func (p pinned) still() bool {
	if p.pidfd >= 0 {
		err := unix.PidfdSendSignal(p.pidfd, 0, nil, 0)
		return err == nil || errors.Is(err, unix.EPERM)
	}
	s, err := startTime(p.dir)
	return err == nil && s == p.start
}

func (p pinned) release() {
	if p.pidfd >= 0 {
		_ = unix.Close(p.pidfd)
	}
}

// startTime returns the start time field of /proc/PID/stat (in clock
// ticks since boot), which with the pid names one process.
func startTime(dir string) (string, error) {
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return "", err
	}
	// The fields after the command's closing parenthesis: state is the
	// first (field 3), the start time field 22.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", errors.New("unreadable stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", errors.New("unreadable stat")
	}
	return f[19], nil
}
