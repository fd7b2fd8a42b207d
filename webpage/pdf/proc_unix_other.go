//go:build unix && !linux

package pdf

import "syscall"

// parentDeath does nothing here: only Linux kills a child when its parent
// dies.
func parentDeath(*syscall.SysProcAttr) {}
