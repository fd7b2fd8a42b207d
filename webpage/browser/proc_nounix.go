//go:build !unix

package browser

import (
	"os"
	"os/exec"
)

// prepareCmd makes the cancellation of the command kill the browser. This
// system has no process groups: helper processes that outlive the browser
// are not tracked.
func prepareCmd(cmd *exec.Cmd) {
	cmd.Cancel = func() error {
		return cmd.Process.Kill()
	}
}

// killGroup kills the process pgid.
func killGroup(pgid int) error {
	killPID(pgid)
	return nil
}

// killPID kills one process.
func killPID(pid int) {
	if pid <= 1 {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
