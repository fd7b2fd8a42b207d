//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package worker

import (
	"context"
	"errors"
	"time"
)

// Serve fails: the warm worker is for Unix systems.
func Serve(context.Context, *ServeOptions) error {
	return errors.New("the warm worker needs a Unix system")
}

// Start does nothing: the warm worker is for Unix systems.
func Start(worker, cwd string, env []string, idle time.Duration) error { return nil }
