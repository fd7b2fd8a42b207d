//go:build unix

package pdf

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the program in its own process group, so that it and
// anything it starts can be killed together.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	parentDeath(cmd.SysProcAttr)
}

// killGroup kills the program's process group.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
