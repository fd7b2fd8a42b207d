//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package hookenv

import "github.com/webgate-dev/webgate/hooks/gate"

// ownWorld returns nil: these systems have no namespaces to compare (the
// socket's private directory is the guard).
func ownWorld() (*gate.World, error) { return nil, nil }

// callerRefusal returns "": the system does not say who connected; the
// socket's private directory is the guard.
func callerRefusal(fd int, self *gate.World) string { return "" }
