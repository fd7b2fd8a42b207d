package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"modernc.org/sqlite"

	"github.com/webgate-dev/webgate/store/driver"
)

// SQLite's primary result codes this package tells apart.
const (
	codeBusy      = 5
	codeLocked    = 6
	codeInterrupt = 9
	codeCorrupt   = 11
	codeFull      = 13
	codeNotADB    = 26
)

func sqliteCode(err error) (int, bool) {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff, true
	}
	return 0, false
}

func isBusy(err error) bool {
	c, ok := sqliteCode(err)
	return ok && (c == codeBusy || c == codeLocked)
}

// classify wraps err in the sentinel that describes it, from SQLite's
// result code and the state of ctx.
func classify(ctx context.Context, err error) error {
	if err == nil || errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if driver.Classified(err) {
		return err
	}
	ctxErr := ctx.Err()
	if errors.Is(ctxErr, context.Canceled) || (ctxErr == nil && errors.Is(err, context.Canceled)) {
		return driver.Wrap(context.Canceled, err)
	}
	code, isSQLite := sqliteCode(err)
	switch {
	case isSQLite && (code == codeBusy || code == codeLocked):
		if ctxErr != nil {
			// The deadline ended the wait for another process's lock.
			return driver.Wrap(driver.ErrBusy, driver.Wrap(context.DeadlineExceeded, err))
		}
		return driver.Wrap(driver.ErrBusy, err)
	case isSQLite && code == codeFull:
		return driver.Wrap(driver.ErrFull, err)
	case isSQLite && (code == codeCorrupt || code == codeNotADB):
		return driver.Wrap(driver.ErrCorrupt, err)
	case ctxErr != nil || errors.Is(err, context.DeadlineExceeded) || (isSQLite && code == codeInterrupt):
		return driver.Wrap(driver.ErrTimeout, err)
	}
	// Everything else, a closed connection or transaction included.
	return driver.Wrap(driver.ErrUnavailable, err)
}

// lockTimeout reports a wait for the write lock that ctx ended: ErrBusy
// (also wrapping context.DeadlineExceeded) for a deadline.
func lockTimeout(ctx context.Context, err error) error {
	switch {
	case !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return classify(ctx, err)
	case errors.Is(err, context.DeadlineExceeded):
		return driver.Wrap(driver.ErrBusy, err)
	}
	return driver.Wrap(driver.ErrBusy, driver.Wrap(context.DeadlineExceeded, err))
}
