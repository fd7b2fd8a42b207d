//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hookenv

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// InheritNothing marks every descriptor above the standard streams that
// this process inherited close-on-exec, so that the programs it starts
// (the warm worker, the local browser, pdftotext) get none of them. The
// descriptors a hook's caller leaves open (the other end of a pipe it
// waits on, make's jobserver) then close when the hook exits, whatever
// it started. A hook worker calls it first thing.
func InheritNothing() {
	eachInherited(func(fd, flags int) { _, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC) })
}

// CloseInherited closes every descriptor above the standard streams that
// this process did not open itself. A warm worker calls it first thing
// (instead of [InheritNothing]), since it outlives the call that started
// it and must hold nothing its caller waits on.
func CloseInherited() {
	eachInherited(func(fd, _ int) { _ = unix.Close(fd) })
}

// eachInherited calls f with every descriptor above the standard streams
// that lacks close-on-exec, and its flags: one this process inherited, as
// Go opens every descriptor of its own close-on-exec.
func eachInherited(f func(fd, flags int)) {
	for _, fd := range openFDs() {
		if fd > 2 {
			if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
				f(fd, flags)
			}
		}
	}
}

// openFDs lists the process's open descriptors: from /proc/self/fd or
// /dev/fd where the system lists them, else every number below the
// descriptor limit (at most 4096).
func openFDs() []int {
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		ents, err := os.ReadDir(dir)
		if err != nil || len(ents) == 0 {
			continue
		}
		fds := make([]int, 0, len(ents))
		for _, e := range ents {
			if n, err := strconv.Atoi(e.Name()); err == nil {
				fds = append(fds, n)
			}
		}
		// The directory's own descriptor is listed too, closed by now:
		// F_GETFD fails on it.
		if len(fds) > 3 || dir == "/proc/self/fd" {
			return fds
		}
	}
	limit := 4096
	var rl unix.Rlimit
	// Cur is signed on some systems, unsigned on others.
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && int64(rl.Cur) > 0 && int64(rl.Cur) < int64(limit) {
		limit = int(rl.Cur)
	}
	fds := make([]int, limit)
	for i := range fds {
		fds[i] = i
	}
	return fds
}
