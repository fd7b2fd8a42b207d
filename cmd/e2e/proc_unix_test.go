//go:build unix

package e2e

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs cmd in its own process group and makes cancelling
// kill the whole group, so hook and MCP server processes die with the CLI.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
