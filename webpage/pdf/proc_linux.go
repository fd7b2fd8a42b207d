package pdf

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// parentDeath has the kernel kill the program if this process dies first.
func parentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// memoryBounded reports whether [Options.MaxMemoryBytes] is enforced on
// this system.
const memoryBounded = true

// limitMemory caps the address space of the running process pid at n
// bytes (RLIMIT_AS, set with prlimit(2)): past it, its allocations fail
// and it ends. Processes it starts afterwards inherit the cap. A process
// that has already ended needs no cap.
func limitMemory(pid int, n int64) error {
	lim := unix.Rlimit{Cur: uint64(n), Max: uint64(n)}
	err := unix.Prlimit(pid, unix.RLIMIT_AS, &lim, nil)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}
