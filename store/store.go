package store

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/store/driver"
)

// Defaults of [Options].
const (
	// DefaultTimeout bounds a call whose context has no earlier deadline.
	DefaultTimeout = time.Second
	// DefaultOpenTimeout bounds [OpenWith] when its context has no earlier
	// deadline: opening pays for what a call does not (a SQLite file's
	// schema check, a Redis dial and TLS handshake), and a loaded machine
	// stretches it to hundreds of milliseconds.
	DefaultOpenTimeout = time.Second
	// DefaultMaxValueBytes is the largest value or log record accepted.
	DefaultMaxValueBytes = 1 << 20
	// MaxKeyBytes is the longest key, counter name, log name or prefix.
	MaxKeyBytes = 1024
)

// The retention [Store.Append] applies when it is given the zero
// [Retention], so that no log grows without bound.
const (
	DefaultMaxRecords = 10000
	DefaultMaxAge     = 30 * 24 * time.Hour
)

// The data types a [Store] exchanges; see package driver for the details
// of each.
type (
	// Entry is a live value with its version and expiry.
	Entry = driver.Entry
	// Bound limits how many values may live under a key prefix.
	Bound = driver.Bound
	// Retention bounds a log by record count and age.
	Retention = driver.Retention
	// Record is one log record.
	Record = driver.Record
	// ListQuery selects log records.
	ListQuery = driver.ListQuery
	// UpdateFunc computes a new value from the current one.
	UpdateFunc = driver.UpdateFunc
)

// Options configures a [Store]. The zero value is valid; a nil *Options
// means the zero value.
type Options struct {
	// Timeout bounds each call whose context has no earlier deadline;
	// default [DefaultTimeout]. Callers on a latency budget, such as
	// hooks, pass a context with a tighter deadline.
	Timeout time.Duration `koanf:"timeout"`
	// OpenTimeout bounds [OpenWith] (a SQLite file opened and its schema
	// checked, a Redis server dialled, its TLS handshake and first round
	// trip) when its context has no earlier deadline; default
	// [DefaultOpenTimeout]. It is apart from Timeout because opening costs
	// more than a call, and a bound fit for calls fails opening on a busy
	// machine.
	OpenTimeout time.Duration `koanf:"open_timeout"`
	// MaxValueBytes is the largest value or log record accepted; default
	// [DefaultMaxValueBytes]. Larger ones fail with [ErrInvalid].
	MaxValueBytes int `koanf:"max_value_bytes"`
	// Bounds limit the number of values under key prefixes (the result
	// cache, for instance). A write is bounded by the Bound with the
	// longest Prefix its key starts with; bounds with MaxEntries ≤ 0 are
	// ignored. Together with MaxValueBytes they bound the space the
	// values under a prefix take.
	Bounds []Bound `koanf:"bounds"`

	// DefaultPath is the SQLite file [OpenWith] uses for the URL "". Only
	// OpenWith reads it; the library never chooses a path itself.
	DefaultPath string `koanf:"-"`
}

// Store is the memory webgate keeps across calls and processes: values
// with versions and expiry, counters, and append-only logs, kept by a
// backend (package driver). It validates every call, bounds it with a
// deadline, classifies every failure (see [Error]) and turns a backend's
// panic into an error. It is safe for concurrent use.
//
// A nil *Store behaves as a closed one: every call returns an error
// wrapping [ErrClosed].
type Store struct {
	d        driver.Store
	upd      driver.Updater
	name     string
	timeout  time.Duration
	maxValue int
	bounds   []Bound // longest prefix first
	closed   atomic.Bool
}

// New returns a Store over the backend d. Most callers open one by URL
// (package storeurl). A nil
// d gives a closed store.
func New(d driver.Store, opts *Options) *Store {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Store{d: d, name: "unnamed", timeout: o.Timeout, maxValue: o.MaxValueBytes}
	if d == nil {
		s.d = &off{}
		s.closed.Store(true)
	}
	if n, ok := d.(driver.Namer); ok {
		s.name = n.Name()
	}
	if u, ok := d.(driver.Updater); ok {
		s.upd = u
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.maxValue <= 0 {
		s.maxValue = DefaultMaxValueBytes
	}
	for _, b := range o.Bounds {
		if b.MaxEntries > 0 {
			s.bounds = append(s.bounds, b)
		}
	}
	sort.SliceStable(s.bounds, func(i, j int) bool { return len(s.bounds[i].Prefix) > len(s.bounds[j].Prefix) })
	return s
}

// Driver returns the backend's name: "sqlite", "redis", "memory" or "off".
func (s *Store) Driver() string {
	if s == nil {
		return "none"
	}
	return s.name
}

// Get returns the live value at key, or an error wrapping [ErrNotFound].
func (s *Store) Get(ctx context.Context, key string) (Entry, error) {
	var e Entry
	err := s.call(ctx, "get", func(ctx context.Context) error {
		if err := checkKey("key", key); err != nil {
			return err
		}
		var err error
		e, err = s.d.Get(ctx, key)
		return err
	})
	return e, err
}

// Set writes value at key. A ttl of 0 or less keeps it until it is
// deleted or evicted by a [Bound].
func (s *Store) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return s.call(ctx, "set", func(ctx context.Context) error {
		if err := s.checkWrite(key, value); err != nil {
			return err
		}
		_, err := s.d.Put(ctx, key, value, driver.AnyVersion, s.writeOptions(key, ttl))
		return err
	})
}

// CompareAndSwap writes value at key only if the live value has the given
// version (from [Entry].Version), or, with version 0, only if there is no
// live value; otherwise it returns an error wrapping [ErrConflict]. It
// returns the new version.
func (s *Store) CompareAndSwap(ctx context.Context, key string, version int64, value []byte, ttl time.Duration) (int64, error) {
	var v int64
	err := s.call(ctx, "compare-and-swap", func(ctx context.Context) error {
		if err := s.checkWrite(key, value); err != nil {
			return err
		}
		if version < 0 {
			return fmt.Errorf("%w: negative version", ErrInvalid)
		}
		var err error
		v, err = s.d.Put(ctx, key, value, version, s.writeOptions(key, ttl))
		return err
	})
	return v, err
}

// Delete removes the value at key; a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	return s.call(ctx, "delete", func(ctx context.Context) error {
		if err := checkKey("key", key); err != nil {
			return err
		}
		return s.d.Delete(ctx, key)
	})
}

// Update atomically replaces the value at key with what fn returns and
// returns the new value: fn receives the live value (found is false, and
// cur nil, when there is none), and no other write to key, from any
// goroutine or process, lands between that read and the write. fn may be
// called more than once, so it must have no side effects and must not
// call the store; an error from fn aborts the update, writes nothing, and
// is returned as is. ttl applies to the value written.
func (s *Store) Update(ctx context.Context, key string, ttl time.Duration, fn UpdateFunc) ([]byte, error) {
	var out []byte
	var fnErr error
	var inFn bool
	userFn := func(cur []byte, found bool) ([]byte, error) {
		inFn = true
		next, err := fn(cur, found)
		inFn = false
		if err != nil {
			fnErr = err
			return nil, err
		}
		if len(next) > s.maxValue {
			return nil, fmt.Errorf("%w: value of %d bytes exceeds %d", ErrInvalid, len(next), s.maxValue)
		}
		return next, nil
	}
	err := s.callFn(ctx, "update", &inFn, func(ctx context.Context) error {
		if err := checkKey("key", key); err != nil {
			return err
		}
		if fn == nil {
			return fmt.Errorf("%w: nil update function", ErrInvalid)
		}
		opts := s.writeOptions(key, ttl)
		if s.upd != nil {
			e, err := s.upd.Update(ctx, key, opts, userFn)
			out = e.Value
			return err
		}
		var err error
		out, err = s.casLoop(ctx, key, opts, userFn)
		return err
	})
	if fnErr != nil && errors.Is(err, fnErr) {
		return nil, fnErr
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// casLoop updates with Get and a conditional Put until the Put wins.
func (s *Store) casLoop(ctx context.Context, key string, opts driver.WriteOptions, fn UpdateFunc) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		e, err := s.d.Get(ctx, key)
		found := err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		next, err := fn(e.Value, found)
		if err != nil {
			return nil, err
		}
		if next == nil {
			next = []byte{}
		}
		if _, err = s.d.Put(ctx, key, next, e.Version, opts); err == nil {
			return next, nil
		} else if !errors.Is(err, ErrConflict) {
			return nil, err
		}
		// Lost the race: back off a little, with jitter so that the
		// losers do not collide again in lockstep.
		wait := time.Duration(rand.Int64N(int64(min(time.Millisecond<<min(attempt, 6), 50*time.Millisecond)) + 1))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// Incr adds delta (which may be negative) to the named counter and
// returns its new value. A missing or expired counter starts at 0; a
// positive ttl is given to a counter that has no expiry yet, so a
// per-day counter created with a ttl disappears on its own. Counters and
// values are separate: Get never sees a counter.
func (s *Store) Incr(ctx context.Context, name string, delta int64, ttl time.Duration) (int64, error) {
	var n int64
	err := s.call(ctx, "incr", func(ctx context.Context) error {
		if err := checkKey("counter name", name); err != nil {
			return err
		}
		out, err := s.d.Incr(ctx, []driver.Delta{{Name: name, N: delta}}, ttl)
		if err == nil && len(out) == 1 {
			n = out[0]
		}
		return err
	})
	return n, err
}

// IncrMany applies several increments atomically, as [Store.Incr] does
// one, and returns the new values by name. Recording one call's usage
// (requests, results, latency, cost) is one IncrMany.
func (s *Store) IncrMany(ctx context.Context, deltas map[string]int64, ttl time.Duration) (map[string]int64, error) {
	var res map[string]int64
	err := s.call(ctx, "incr", func(ctx context.Context) error {
		names := make([]string, 0, len(deltas))
		for name := range deltas {
			if err := checkKey("counter name", name); err != nil {
				return err
			}
			names = append(names, name)
		}
		slices.Sort(names) // a stable order keeps backends' locking orderly
		ds := make([]driver.Delta, len(names))
		for i, name := range names {
			ds[i] = driver.Delta{Name: name, N: deltas[name]}
		}
		res = make(map[string]int64, len(names))
		if len(ds) == 0 {
			return nil
		}
		out, err := s.d.Incr(ctx, ds, ttl)
		if err != nil {
			return err
		}
		for i, name := range names {
			if i < len(out) {
				res[name] = out[i]
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Counters returns every live counter whose name starts with prefix.
func (s *Store) Counters(ctx context.Context, prefix string) (map[string]int64, error) {
	res, err := withPrefix(s, ctx, "counters", prefix, driver.Store.Counters)
	if res == nil && err == nil {
		res = map[string]int64{}
	}
	return res, err
}

// Append adds a record to the named log and then trims the log to keep;
// the zero Retention means [DefaultMaxRecords] and [DefaultMaxAge].
func (s *Store) Append(ctx context.Context, log string, data []byte, keep Retention) (Record, error) {
	var r Record
	err := s.call(ctx, "append", func(ctx context.Context) error {
		if err := checkKey("log name", log); err != nil {
			return err
		}
		if len(data) > s.maxValue {
			return fmt.Errorf("%w: record of %d bytes exceeds %d", ErrInvalid, len(data), s.maxValue)
		}
		if keep.MaxRecords <= 0 && keep.MaxAge <= 0 {
			keep = Retention{MaxRecords: DefaultMaxRecords, MaxAge: DefaultMaxAge}
		}
		if data == nil {
			data = []byte{}
		}
		var err error
		r, err = s.d.Append(ctx, log, data, keep)
		return err
	})
	return r, err
}

// List returns the records of the named log that q selects, oldest first:
// ListQuery{Limit: 20} is the newest 20, ListQuery{After: id} what came
// after a record already seen.
func (s *Store) List(ctx context.Context, log string, q ListQuery) ([]Record, error) {
	var out []Record
	err := s.call(ctx, "list", func(ctx context.Context) error {
		if err := checkKey("log name", log); err != nil {
			return err
		}
		var err error
		out, err = s.d.List(ctx, log, q)
		return err
	})
	return out, err
}

// Follow yields the records appended to the named log after the record
// with ID after, as they arrive, polling every interval (500ms when 0 or
// less), until ctx is done or the consumer stops. A failed poll yields the
// error (with a zero Record) and, if the consumer goes on, polling
// continues; a closed store ends the sequence after yielding the error.
// Pass the ID of the newest record already shown, or 0 for everything
// kept.
func (s *Store) Follow(ctx context.Context, log string, after int64, interval time.Duration) iter.Seq2[Record, error] {
	if interval <= 0 {
		interval = 500 * time.Millisecond
	}
	return func(yield func(Record, error) bool) {
		t := time.NewTimer(0)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			recs, err := s.List(ctx, log, ListQuery{After: after})
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				if !yield(Record{}, err) || errors.Is(err, ErrClosed) || errors.Is(err, ErrInvalid) {
					return
				}
			}
			for _, r := range recs {
				if r.ID > after {
					after = r.ID
				}
				if !yield(r, nil) {
					return
				}
			}
			t.Reset(interval)
		}
	}
}

// Clear removes every value, counter and log whose key or name starts
// with prefix, and returns how many it removed; the prefix "" clears the
// whole store (`webgate cache clear` clears the cache's prefix). On Redis
// the removal is not atomic: writes made while Clear runs may survive it.
func (s *Store) Clear(ctx context.Context, prefix string) (int, error) {
	return withPrefix(s, ctx, "clear", prefix, driver.Store.Clear)
}

// Close releases the store. Later calls return an error wrapping
// [ErrClosed]; closing again returns nil.
func (s *Store) Close() (err error) {
	if s == nil || !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Op: "close", Driver: s.name, Err: driver.Wrap(ErrUnavailable, fmt.Errorf("backend panicked: %v", r))}
		}
	}()
	if err := s.d.Close(); err != nil {
		return &Error{Op: "close", Driver: s.name, Err: classify(context.Background(), err)}
	}
	return nil
}

// writeOptions returns the options of a write at key.
func (s *Store) writeOptions(key string, ttl time.Duration) driver.WriteOptions {
	o := driver.WriteOptions{TTL: max(ttl, 0)}
	for i := range s.bounds {
		if strings.HasPrefix(key, s.bounds[i].Prefix) {
			b := s.bounds[i]
			o.Bound = &b
			break
		}
	}
	return o
}

func (s *Store) checkWrite(key string, value []byte) error {
	if err := checkKey("key", key); err != nil {
		return err
	}
	if len(value) > s.maxValue {
		return fmt.Errorf("%w: value of %d bytes exceeds %d", ErrInvalid, len(value), s.maxValue)
	}
	return nil
}

// call runs f with the call's deadline, and classifies what it returns.
func (s *Store) call(ctx context.Context, op string, f func(context.Context) error) error {
	return s.callFn(ctx, op, nil, f)
}

// callFn is call for operations that run a caller's function: a panic
// inside it (inFn set) is the caller's and is not swallowed.
func (s *Store) callFn(ctx context.Context, op string, inFn *bool, f func(context.Context) error) (err error) {
	if s == nil {
		return &Error{Op: op, Driver: "none", Err: ErrClosed}
	}
	if s.closed.Load() {
		return &Error{Op: op, Driver: s.name, Err: ErrClosed}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return &Error{Op: op, Driver: s.name, Err: classify(ctx, err)}
	}
	ctx, cancel := withTimeout(ctx, s.timeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			if inFn != nil && *inFn {
				panic(r)
			}
			err = &Error{Op: op, Driver: s.name, Err: driver.Wrap(ErrUnavailable, fmt.Errorf("backend panicked: %v", r))}
		}
	}()
	if err := f(ctx); err != nil {
		return &Error{Op: op, Driver: s.name, Err: classify(ctx, err)}
	}
	return nil
}

// withTimeout bounds ctx by timeout unless its own deadline is earlier.
func withTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= timeout {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, timeout)
}

// checkKey enforces the key rules: 1 to MaxKeyBytes bytes of UTF-8
// without control characters.
func checkKey(what, key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty %s", ErrInvalid, what)
	}
	return checkPrefix(key)
}

// withPrefix runs op, the driver's method do over the keys that start
// with prefix, as a call of s ([Store.call]) once prefix is checked.
func withPrefix[T any](s *Store, ctx context.Context, op, prefix string, do func(driver.Store, context.Context, string) (T, error)) (T, error) {
	var res T
	err := s.call(ctx, op, func(ctx context.Context) error {
		if err := checkPrefix(prefix); err != nil {
			return err
		}
		var err error
		res, err = do(s.d, ctx, prefix)
		return err
	})
	return res, err
}

func checkPrefix(p string) error {
	if len(p) > MaxKeyBytes {
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalid, MaxKeyBytes)
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("%w: not UTF-8", ErrInvalid)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return fmt.Errorf("%w: control character in key", ErrInvalid)
		}
	}
	return nil
}
