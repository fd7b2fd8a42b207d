package pdf

import "syscall"

// parentDeath has the kernel kill the program if this process dies first.
func parentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
