//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package gate

import "syscall"

// dupStdin makes fd the process's standard input.
func dupStdin(fd int) error { return syscall.Dup2(fd, 0) }
