//go:build linux

package worker

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// The system calls and the socket option the caller check uses that the
// syscall package does not name. The system call numbers are the same on
// every architecture Go supports on Linux, after the base of the MIPS
// ABIs (4000 for o32, 5000 for n64), which syscall.SYS_READ shows (it is
// 0 or a small number elsewhere); SO_PEERPIDFD is 77 on all of them.
const (
	sysBase            = syscall.SYS_READ / 1000 * 1000
	sysPidfdSendSignal = sysBase + 424
	sysPidfdOpen       = sysBase + 434
	soPeerPidfd        = 77
)

// pidfdOpen opens a pidfd of process pid (pidfd_open, Linux 5.3).
func pidfdOpen(pid int) (int, error) {
	fd, _, errno := syscall.Syscall(uintptr(sysPidfdOpen), uintptr(pid), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// pidfdSignal sends signal sig to the process of pidfd
// (pidfd_send_signal, Linux 5.1); 0 checks that it can be signalled.
func pidfdSignal(pidfd int, sig syscall.Signal) error {
	_, _, errno := syscall.Syscall6(uintptr(sysPidfdSendSignal), uintptr(pidfd), uintptr(sig), 0, 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// peerPidfd returns a pidfd of the process at the other end of the Unix
// socket fd (SO_PEERPIDFD, Linux 6.5).
func peerPidfd(fd int) (int, error) {
	return syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, soPeerPidfd)
}

// ownWorld returns the warm worker's own world.
func ownWorld() (*World, error) {
	w, err := ProcWorld("/proc/self")
	if err != nil {
		return nil, fmt.Errorf("the warm worker cannot tell its own namespaces: %w", err)
	}
	return &w, nil
}

// callerRefusal returns why the warm worker refuses the caller at the
// other end of the Unix socket fd, or "" when it serves it: the caller
// must run as this user (SO_PEERCRED) and live in the worker's world
// (self, see [World]). The caller is the process that connected; the kernel names it
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
func callerRefusal(fd int, self *World) string {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
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
	w, err := ProcWorld(dir)
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
	pidfd, err := peerPidfd(fd)
	if err == nil {
		p.pidfd = pidfd
		return p, nil
	}
	if !errors.Is(err, syscall.ENOPROTOOPT) && !errors.Is(err, syscall.EINVAL) {
		return p, err // ESRCH: the caller is gone already
	}
	if pidfd, err = pidfdOpen(pid); err == nil {
		p.pidfd = pidfd
		return p, nil
	}
	if !errors.Is(err, syscall.ENOSYS) {
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
		err := pidfdSignal(p.pidfd, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	s, err := startTime(p.dir)
	return err == nil && s == p.start
}

func (p pinned) release() {
	if p.pidfd >= 0 {
		_ = syscall.Close(p.pidfd)
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
