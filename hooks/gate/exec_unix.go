//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package gate

import (
	"os"
	"syscall"
)

// pipeCapacity is how much a pipe holds without a reader on every
// supported system; larger payloads are handed over by a child process.
const pipeCapacity = 16 << 10

// execWorker replaces the front with the worker, the payload on its
// standard input: one process start instead of two. It returns only when
// that is not possible (payload too large for a pipe, or exec failing), and
// then the caller runs the worker as a child.
func execWorker(worker, hook string, data []byte, env []string) error {
	if len(data) > pipeCapacity {
		return errTooLargeForExec
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		r.Close()
		w.Close()
		return err
	}
	w.Close()
	// The saved standard input is close-on-exec: the worker must not
	// inherit it (nor the warm worker it may start, which would hold the
	// caller's stdin for its whole life).
	syscall.ForkLock.RLock()
	saved, err := syscall.Dup(0)
	if err == nil {
		syscall.CloseOnExec(saved)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		r.Close()
		return err
	}
	if err := dupStdin(int(r.Fd())); err != nil {
		r.Close()
		syscall.Close(saved)
		return err
	}
	err = syscall.Exec(worker, []string{worker, hook}, env)
	// Exec failed: put the original standard input back.
	_ = dupStdin(saved)
	syscall.Close(saved)
	r.Close()
	return err
}
