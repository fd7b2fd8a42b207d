//go:build unix && !linux

package browser

import "syscall"

// setDeathSignal does nothing on this system, which has no parent-death
// signal; the process group is killed on every exit path instead.
func setDeathSignal(*syscall.SysProcAttr) {}
