//go:build unix

package browser

import (
	"errors"
	"os/exec"
	"syscall"
)

// prepareCmd starts the browser in a process group of its own, so that the
// browser, its helpers and any wrapper script around it can be killed
// together, and makes the cancellation of the command kill that group.
func prepareCmd(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = new(syscall.SysProcAttr)
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		return killGroup(cmd.Process.Pid)
	}
}

// killGroup sends SIGKILL to the process group pgid. It refuses the
// special values 0 and 1 (the caller's own group, and every process), so a
// bad pid can never kill more than the browser.
func killGroup(pgid int) error {
	if pgid <= 1 {
		return nil
	}
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// killPID sends SIGKILL to one process.
func killPID(pid int) {
	if pid > 1 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
