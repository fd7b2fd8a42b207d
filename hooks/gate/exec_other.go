//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package gate

// execWorker is not available here; the worker runs as a child.
func execWorker(worker, hook string, data []byte, env []string) error { return errTooLargeForExec }
