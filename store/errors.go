package store

import (
	"context"
	"errors"
	"strings"

	"github.com/webgate-dev/webgate/store/driver"
)

// The errors a [Store] returns wrap exactly one of these sentinels (or
// context.Canceled, when the caller canceled), so callers decide with
// errors.Is. Every error except ErrNotFound and ErrConflict means the store
// could not serve the call; a caller that treats the store as an
// optimisation carries on without it.
var (
	// ErrNotFound: there is no live value at the key.
	ErrNotFound = driver.ErrNotFound
	// ErrConflict: [Store.CompareAndSwap] found another version.
	ErrConflict = driver.ErrConflict
	// ErrInvalid: a malformed key, a value over the size limit, a bad URL
	// or path.
	ErrInvalid = driver.ErrInvalid
	// ErrClosed: the store was closed (or is a nil *Store).
	ErrClosed = driver.ErrClosed
	// ErrTimeout: the call's deadline passed.
	ErrTimeout = driver.ErrTimeout
	// ErrBusy: the store's write lock stayed taken past the deadline.
	ErrBusy = driver.ErrBusy
	// ErrUnavailable: the store cannot be reached or used.
	ErrUnavailable = driver.ErrUnavailable
	// ErrCorrupt: the store's data is damaged or is not a store.
	ErrCorrupt = driver.ErrCorrupt
	// ErrFull: no room for the write.
	ErrFull = driver.ErrFull
)

// Error is the error every [Store] method returns. It names the
// operation and the backend; its message never contains a stored value.
type Error struct {
	// Op is the operation: "open", "get", "set", "update", "incr",
	// "append", "list", "clear", …
	Op string
	// Driver is the backend's name: "sqlite", "redis", "memory", "off".
	Driver string
	// Err wraps one of the sentinel errors, or context.Canceled.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("store")
	if e.Driver != "" {
		b.WriteString(" ")
		b.WriteString(e.Driver)
	}
	if e.Op != "" {
		b.WriteString(" ")
		b.WriteString(e.Op)
	}
	b.WriteString(": ")
	if e.Err == nil {
		b.WriteString("unknown error")
	} else {
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "store: "))
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Failed reports whether err means the store could not serve the call:
// true for every non-nil error except ErrNotFound and ErrConflict, which
// are answers. A caller that uses the store as an optimisation proceeds
// without it when Failed is true.
func Failed(err error) bool {
	return err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrConflict)
}

// classify makes sure err wraps a sentinel, using what ctx says about the
// call when the backend did not classify it.
func classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if driver.Classified(err) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return driver.Wrap(driver.ErrTimeout, err)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return driver.Wrap(context.Canceled, err)
	}
	return driver.Wrap(driver.ErrUnavailable, err)
}
