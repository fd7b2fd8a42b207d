//go:build !unix

package pdf

import "os/exec"

// ownGroup does nothing on systems without process groups.
func ownGroup(*exec.Cmd) {}

// killGroup kills the program.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
