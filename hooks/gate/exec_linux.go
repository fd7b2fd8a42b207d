//go:build linux

package gate

import "syscall"

// dupStdin makes fd the process's standard input.
func dupStdin(fd int) error { return syscall.Dup3(fd, 0, 0) }
