//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package hookenv

import (
	"context"
	"errors"
	"os"
	"time"
)

// WarmOptions configure [Serve].
type WarmOptions struct {
	Socket, Key string
	Idle        time.Duration
	Executable  string
}

// Serve fails: the warm worker is for Unix systems.
func Serve(context.Context, WarmOptions) error {
	return errors.New("the warm worker needs a Unix system")
}

// StartWarm does nothing: the warm worker is for Unix systems.
func StartWarm(worker, cwd string, env []string, idle time.Duration) error { return nil }

func linked(os.FileInfo) bool { return true }

// InheritNothing does nothing here.
func InheritNothing() {}

// CloseInherited does nothing here.
func CloseInherited() {}
