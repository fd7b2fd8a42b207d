//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package worker

// ownWorld returns nil: these systems have no namespaces to compare (the
// socket's private directory is the guard).
func ownWorld() (*World, error) { return nil, nil }

// callerRefusal returns "": the system does not say who connected; the
// socket's private directory is the guard.
func callerRefusal(fd int, self *World) string { return "" }
