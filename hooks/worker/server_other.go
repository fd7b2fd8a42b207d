//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package worker

import (
	"context"
	"errors"
	"time"
)

// ServeOptions configure [Serve].
type ServeOptions struct {
	Files      Files
	Key        string
	Handler    Handler
	Idle       time.Duration
	Executable string
	Drain      time.Duration
}

// DefaultDrain is how long a warm worker waits for the calls under way
// when it exits.
const DefaultDrain = 30 * time.Second

// MaxWorkers is how many warm workers may run for one user at once.
const MaxWorkers = 8

// Serve fails: the warm worker is for Unix systems.
func Serve(context.Context, *ServeOptions) error {
	return errors.New("the warm worker needs a Unix system")
}

// Start does nothing: the warm worker is for Unix systems.
func Start(worker, cwd string, env []string, idle time.Duration) error { return nil }
