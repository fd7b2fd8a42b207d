// Package driver defines what a storage backend implements to be used
// through package store.
//
// Most code should use package store: its [github.com/webgate-dev/webgate/store.Store]
// validates keys and values, bounds every call by a deadline, classifies
// errors and never lets a backend's panic escape. Backends implement the
// small [Store] interface here and, when they can do better than the
// generic compare-and-swap loop, the optional [Updater]. The optional
// [Namer] gives a backend a short name for errors and diagnostics.
//
// # Contract
//
// Every method takes a context first, never stores it, and returns
// promptly once it is done: with an error wrapping [ErrTimeout] when its
// deadline passed, or wrapping context.Canceled when it was canceled.
// Methods are safe for concurrent use, from several goroutines and, for
// backends that share data between processes, from several processes.
// After Close, every method returns an error wrapping [ErrClosed].
//
// Failures wrap exactly one of the sentinel errors below, so that callers
// act on errors.Is and never on message text. Error messages never contain
// stored values.
//
// Keys, counter names, log names and prefixes are non-empty UTF-8 strings
// without control characters (package store checks this before calling a
// backend; a prefix may be empty, meaning everything). Values, counters
// and logs live in three separate spaces: a counter named k and a value at
// key k are different things.
package driver

import (
	"context"
	"errors"
	"time"
)

// Sentinel errors. Every failure a backend returns wraps one of them.
var (
	// ErrNotFound: there is no live value at the key. Not a failure: a miss.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: a conditional write found another version than the one
	// it expected.
	ErrConflict = errors.New("store: version conflict")
	// ErrInvalid: the call itself is wrong (an empty or malformed key, a
	// value over the size limit, an unusable URL or path).
	ErrInvalid = errors.New("store: invalid argument")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store: closed")
	// ErrTimeout: the call's deadline passed before it completed.
	ErrTimeout = errors.New("store: timed out")
	// ErrBusy: the store's write lock stayed taken, by another process or
	// by this one's other writers, past the call's deadline. Such an error
	// also wraps context.DeadlineExceeded.
	ErrBusy = errors.New("store: busy")
	// ErrUnavailable: the store cannot be reached or used (a server that is
	// down or refuses the credentials, a file that cannot be created or
	// opened, an I/O error).
	ErrUnavailable = errors.New("store: unavailable")
	// ErrCorrupt: the stored data is not what the backend wrote (a file that
	// is not a database, a damaged page).
	ErrCorrupt = errors.New("store: corrupt")
	// ErrFull: the store has no room for the write (a full disk, the
	// configured size cap, a server out of memory).
	ErrFull = errors.New("store: full")
)

// Sentinels lists every sentinel error, in a stable order.
var Sentinels = []error{ErrNotFound, ErrConflict, ErrInvalid, ErrClosed, ErrTimeout, ErrBusy, ErrUnavailable, ErrCorrupt, ErrFull}

// Classified reports whether err already wraps one of the [Sentinels], so
// that a backend's classification leaves it as it is.
func Classified(err error) bool {
	for _, s := range Sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// AnyVersion, as the ifVersion argument of [Store.Put], makes the write
// unconditional.
const AnyVersion int64 = -1

// Entry is a live value with its version and expiry.
type Entry struct {
	// Value is the stored bytes; the caller owns the slice.
	Value []byte
	// Version identifies the write that produced Value. Versions are
	// positive, increase with every write to the store, and are never
	// reused, not even after the value expired or was deleted.
	Version int64
	// Expires is when the value expires; the zero time means never.
	Expires time.Time
}

// Bound limits how many values may live under a key prefix. A write under
// the prefix that would exceed MaxEntries first removes expired values
// there, then the values written longest ago, so that at most MaxEntries
// remain, the one just written included.
type Bound struct {
	Prefix     string `koanf:"prefix"`
	MaxEntries int    `koanf:"max_entries"`
}

// WriteOptions are the settings of one value write.
type WriteOptions struct {
	// TTL is how long the value lives; 0 or less means until deleted.
	TTL time.Duration
	// Bound, when not nil, is enforced after the write.
	Bound *Bound
}

// Delta is one counter increment.
type Delta struct {
	Name string
	N    int64
}

// Retention bounds a log. Zero fields impose no limit of their own.
type Retention struct {
	// MaxRecords keeps at most this many records, the newest.
	MaxRecords int `koanf:"max_records"`
	// MaxAge drops records older than this.
	MaxAge time.Duration `koanf:"max_age"`
}

// Record is one log record.
type Record struct {
	// ID orders the records of a log: IDs are positive, increase with
	// every append and are never reused, even after the log was cleared.
	// They need not be consecutive.
	ID int64
	// Time is when the record was appended, by the appender's clock.
	Time time.Time
	// Data is the record's payload; the caller owns the slice.
	Data []byte
}

// ListQuery selects log records.
type ListQuery struct {
	// After keeps records whose ID is greater than After.
	After int64
	// Since keeps records appended at or after Since; the zero time keeps
	// all.
	Since time.Time
	// Limit, when positive, keeps only the newest Limit of the records
	// the other fields select.
	Limit int
}

// UpdateFunc computes a new value from the current one. found is false
// when there is no live value (cur is then nil). A non-nil error aborts
// the update without writing, and the backend returns that error as is.
type UpdateFunc func(cur []byte, found bool) ([]byte, error)

// Store is a storage backend: a key-value space with versions and
// expiry, a counter space and an append-only log space.
type Store interface {
	// Get returns the live value at key, or an error wrapping ErrNotFound.
	Get(ctx context.Context, key string) (Entry, error)
	// Put writes value at key and returns the new version. With ifVersion
	// AnyVersion the write is unconditional; with 0 it happens only when
	// there is no live value; with a positive ifVersion only when the live
	// value has that version. Otherwise it writes nothing and returns an
	// error wrapping ErrConflict.
	Put(ctx context.Context, key string, value []byte, ifVersion int64, opts WriteOptions) (int64, error)
	// Delete removes the value at key. Deleting a missing key is not an
	// error.
	Delete(ctx context.Context, key string) error
	// Incr adds each delta to its counter, atomically as a whole, and
	// returns the new values in the same order. A missing or expired
	// counter starts at 0. A positive ttl is given to counters that have
	// no expiry yet (in practice, those the call creates); counters never
	// get a later expiry from a later increment.
	Incr(ctx context.Context, deltas []Delta, ttl time.Duration) ([]int64, error)
	// Counters returns every live counter whose name starts with prefix.
	Counters(ctx context.Context, prefix string) (map[string]int64, error)
	// Append adds a record to the named log, then drops the records keep
	// no longer allows, and returns the new record.
	Append(ctx context.Context, log string, data []byte, keep Retention) (Record, error)
	// List returns the records q selects, oldest first. A missing log has
	// no records.
	List(ctx context.Context, log string, q ListQuery) ([]Record, error)
	// Clear removes every value, counter and log whose key or name starts
	// with prefix ("" removes everything), and returns how many values,
	// counters and logs it removed.
	Clear(ctx context.Context, prefix string) (int, error)
	// Close releases the backend's resources. Calling it again returns nil.
	Close() error
}

// Updater is implemented by backends that run a read-modify-write as one
// transaction. Without it, package store updates with Get and a
// conditional Put, retried on conflict.
type Updater interface {
	// Update reads the live value at key, calls fn with it and writes what
	// fn returns, atomically: no other write to key happens in between. fn
	// may be called more than once; it must not call the store.
	Update(ctx context.Context, key string, opts WriteOptions, fn UpdateFunc) (Entry, error)
}

// Namer is implemented by backends with a short stable name ("sqlite",
// "redis"), used in errors and diagnostics.
type Namer interface {
	Name() string
}

// Wrap returns an error that wraps both sentinel and cause and reads
// "sentinel: cause". A nil cause returns sentinel itself.
func Wrap(sentinel, cause error) error {
	if cause == nil {
		return sentinel
	}
	return &wrapped{sentinel, cause}
}

type wrapped struct{ sentinel, cause error }

func (e *wrapped) Error() string   { return e.sentinel.Error() + ": " + e.cause.Error() }
func (e *wrapped) Unwrap() []error { return []error{e.sentinel, e.cause} }
