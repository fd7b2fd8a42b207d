//go:build !unix

package e2e

import "os/exec"

// setProcessGroup leaves cmd as it is where process groups are not
// available; cancelling kills the CLI process only.
func setProcessGroup(cmd *exec.Cmd) {}
