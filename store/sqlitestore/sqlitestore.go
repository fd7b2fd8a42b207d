// Package sqlitestore is the embedded store backend: one SQLite file,
// shared safely by every process that opens it, through the pure-Go
// modernc.org/sqlite (binaries stay free of cgo).
//
// Use it through package store: the URL sqlite:///abs/path (or the
// default path a frontend passes for the URL "") with storeurl.Open, or
// store.New(sqlitestore.Open(ctx, cfg)).
//
// # Durability and concurrency
//
// The file is in WAL mode with synchronous=NORMAL: a process killed at any
// point, even mid-write, leaves a database that the next process opens and
// recovers; a power loss may lose the last writes but not the file. Many
// processes may read and write at once. Writes take SQLite's write lock
// with BEGIN IMMEDIATE; a process that finds it taken waits, for no longer
// than its context allows (SQLite's busy handler, which modernc.org/sqlite
// ends when the context is done), and retries, so contention shows up as
// latency, and as an error wrapping ErrBusy only once the caller's deadline
// has passed. Inside one process, writers queue on a lock that honours
// their contexts before touching SQLite.
//
// # Files
//
// The database file is created with mode 0600 (SQLite gives its -wal and
// -shm files the same mode) in a directory created with mode 0700 when
// missing. A path that is a symbolic link, or not a regular file, is
// refused. A file that is not a SQLite database is reported as corrupt
// before SQLite reads it. [Config].MaxBytes caps the file's size: a write
// past it fails with an error wrapping ErrFull, as on a full disk.
//
// # Schema
//
// The schema is versioned: the table schema_migrations records each
// migration applied. Opening a database at the current version costs two
// small reads; an older one is migrated in one transaction; a newer one
// (written by a later release) is refused with ErrUnavailable.
package sqlitestore

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"

	"github.com/webgate-dev/webgate/store/driver"
)

// DefaultMaxBytes is the default cap on the database file's size.
const DefaultMaxBytes = 256 << 20

// Config configures a [Store].
type Config struct {
	// Path is the database file. Required.
	Path string `koanf:"path"`
	// MaxBytes caps the size of the database file; a write that would
	// grow it further fails with ErrFull. 0 means [DefaultMaxBytes]; a
	// negative value means no cap.
	MaxBytes int64 `koanf:"max_bytes"`
	// Now is the clock for expiry and log timestamps; nil means time.Now.
	Now func() time.Time `koanf:"-"`
}

// Store is the SQLite backend. It is safe for concurrent use by several
// goroutines and several processes.
type Store struct {
	db     *sql.DB
	path   string
	now    func() time.Time
	wmu    chan struct{}
	closed atomic.Bool
}

var (
	_ driver.Store   = (*Store)(nil)
	_ driver.Updater = (*Store)(nil)
	_ driver.Namer   = (*Store)(nil)
)

// busyTimeoutMS is how long SQLite's busy handler waits for a lock at
// most; the caller's context ends the wait sooner.
const busyTimeoutMS = 30000

// pageSize is SQLite's default page size, used to turn MaxBytes into a
// page count.
const pageSize = 4096

// Open opens, and creates when missing, the database at cfg.Path, and
// brings its schema up to date. It honours ctx's deadline: a file locked
// by another process for longer fails with an error wrapping ErrBusy or
// ErrTimeout, a file that is not a database with one wrapping ErrCorrupt.
func Open(ctx context.Context, cfg *Config) (*Store, error) {
	if cfg == nil || cfg.Path == "" {
		return nil, fmt.Errorf("%w: sqlite: no database path", driver.ErrInvalid)
	}
	if err := ctx.Err(); err != nil {
		return nil, classify(ctx, err)
	}
	path, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, driver.Wrap(driver.ErrInvalid, err)
	}
	if err := prepareFile(path); err != nil {
		return nil, err
	}
	maxBytes := cfg.MaxBytes
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	// Every per-connection pragma but busy_timeout may read the file
	// (synchronous and cache_size load the schema), and a read can wait
	// for a lock: they run under the caller's context, see connector.
	setup := []string{
		"PRAGMA synchronous = NORMAL",
		"PRAGMA journal_size_limit = 4194304",
		"PRAGMA cache_size = -2048",
		"PRAGMA temp_store = MEMORY",
		"PRAGMA trusted_schema = OFF",
	}
	if maxBytes > 0 {
		setup = append(setup, "PRAGMA max_page_count = "+strconv.FormatInt(max(maxBytes/pageSize, 16), 10))
	}
	base, err := sqlite.NewConnector(dsn(path))
	if err != nil {
		return nil, driver.Wrap(driver.ErrInvalid, err)
	}
	db := sql.OpenDB(&connector{Connector: base, setup: setup})
	// Two connections: a read can proceed while the writer (one at a time
	// per process, see wmu) holds the other.
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	s := &Store{db: db, path: path, now: time.Now, wmu: make(chan struct{}, 1)}
	if cfg.Now != nil {
		s.now = cfg.Now
	}
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, classify(ctx, err)
	}
	return s, nil
}

// dsn returns the modernc.org/sqlite data source name for path. The
// driver applies DSN pragmas with no context, so the DSN sets only
// busy_timeout, which does no I/O; the others run under the caller's
// context (connector).
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(busyTimeoutMS)+")")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	return u.String()
}

// connector runs per-connection setup statements under the context of
// the call that needs the connection.
type connector struct {
	sqldriver.Connector
	setup []string
}

func (c *connector) Connect(ctx context.Context) (sqldriver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(sqldriver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, errors.New("sqlite connection cannot execute statements")
	}
	for _, q := range c.setup {
		if _, err := ex.ExecContext(ctx, q, nil); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// prepareFile makes sure path is a regular file that is empty or a SQLite
// database, creating it (mode 0600, in a directory of mode 0700) when
// missing, without ever opening a FIFO or a device.
func prepareFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return driver.Wrap(driver.ErrUnavailable, err)
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f.Close()
		}
		if errors.Is(err, fs.ErrExist) {
			return prepareFile(path)
		}
		return driver.Wrap(driver.ErrUnavailable, err)
	case err != nil:
		return driver.Wrap(driver.ErrUnavailable, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symbolic link", driver.ErrInvalid, path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file", driver.ErrInvalid, path)
	case fi.Size() == 0:
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return driver.Wrap(driver.ErrUnavailable, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return driver.Wrap(driver.ErrUnavailable, err)
	}
	if string(head) != sqliteMagic {
		return fmt.Errorf("%w: %s is not a SQLite database", driver.ErrCorrupt, path)
	}
	return nil
}

// maxConns is how many connections a Store keeps open.
const maxConns = 2

// init switches a new database to WAL mode and migrates its schema, and
// opens every connection the store keeps: opening one (the file's header
// and schema read, the setup pragmas) is part of opening the store, under
// its bound, not of the first calls that run at once, under theirs.
func (s *Store) init(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		// auto_vacuum takes effect only before the first table exists; it
		// lets Clear give freed pages back to the file system.
		if _, err := conn.ExecContext(ctx, "PRAGMA auto_vacuum = INCREMENTAL"); err != nil {
			return err
		}
		if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
			return err
		}
	}
	if err := migrate(ctx, conn, s.now().UnixMilli()); err != nil {
		return err
	}
	for range maxConns - 1 {
		more, err := s.db.Conn(ctx)
		if err != nil {
			return err
		}
		defer more.Close()
	}
	return nil
}

// Name returns "sqlite".
func (s *Store) Name() string { return "sqlite" }

// Path returns the database file's absolute path.
func (s *Store) Path() string { return s.path }

func (s *Store) check(ctx context.Context) error {
	if s.closed.Load() {
		return driver.ErrClosed
	}
	return ctx.Err()
}

// fnError marks an error returned by a caller's UpdateFunc, which is
// passed through unclassified and never retried.
type fnError struct{ err error }

func (e *fnError) Error() string { return e.err.Error() }

// write runs f in a write transaction, queued behind this process's
// other writers and retried while SQLite reports the database busy, until
// ctx is done.
func (s *Store) write(ctx context.Context, f func(tx *sql.Tx, now int64) error) error {
	if err := s.check(ctx); err != nil {
		return classify(ctx, err)
	}
	select {
	case s.wmu <- struct{}{}:
	case <-ctx.Done():
		return lockTimeout(ctx, ctx.Err())
	}
	defer func() { <-s.wmu }()
	err := retry(ctx, func() error {
		if s.closed.Load() {
			return driver.ErrClosed
		}
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			if ctx.Err() != nil {
				// BEGIN IMMEDIATE waits for the write lock.
				return lockTimeout(ctx, err)
			}
			return err
		}
		defer tx.Rollback()
		if err := f(tx, s.now().UnixMilli()); err != nil {
			return err
		}
		return tx.Commit()
	})
	var fe *fnError
	if errors.As(err, &fe) {
		return fe
	}
	return classify(ctx, err)
}

// read runs f, retried while SQLite reports the database busy.
func (s *Store) read(ctx context.Context, f func() error) error {
	if err := s.check(ctx); err != nil {
		return classify(ctx, err)
	}
	return classify(ctx, retry(ctx, f))
}

// retry calls f again, after a short random pause, while it fails
// because the database is busy (beyond what SQLite's busy handler waits
// for, such as a stale snapshot) and ctx allows, for at most the busy
// timeout when ctx has no deadline.
func retry(ctx context.Context, f func() error) error {
	giveUp := time.Now().Add(busyTimeoutMS * time.Millisecond)
	for {
		err := f()
		if err == nil || !isBusy(err) || ctx.Err() != nil || time.Now().After(giveUp) {
			return err
		}
		t := time.NewTimer(time.Duration(1+rand.IntN(4)) * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

func expiry(now int64, ttl time.Duration) int64 {
	if ttl <= 0 {
		return 0
	}
	return now + max(ttl.Milliseconds(), 1)
}

func expiresAt(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// prefixRange returns the key range [lo, hi) of the keys starting with
// prefix: valid UTF-8 never contains the byte 0xff, so every such key is
// below prefix+"\xff" and every other key is outside the range.
func prefixRange(prefix string) (lo, hi string) { return prefix, prefix + "\xff" }

// Get implements [driver.Store].
func (s *Store) Get(ctx context.Context, key string) (driver.Entry, error) {
	var e driver.Entry
	var exp int64
	err := s.read(ctx, func() error {
		return s.db.QueryRowContext(ctx, "SELECT v, ver, exp FROM kv WHERE k = ? AND (exp = 0 OR exp > ?)", key, s.now().UnixMilli()).Scan(&e.Value, &e.Version, &exp)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return driver.Entry{}, driver.ErrNotFound
	}
	if err != nil {
		return driver.Entry{}, err
	}
	if e.Value == nil {
		e.Value = []byte{}
	}
	e.Expires = expiresAt(exp)
	return e, nil
}

// Put implements [driver.Store].
func (s *Store) Put(ctx context.Context, key string, value []byte, ifVersion int64, opts driver.WriteOptions) (int64, error) {
	var ver int64
	err := s.write(ctx, func(tx *sql.Tx, now int64) error {
		if ifVersion != driver.AnyVersion {
			var have int64
			err := tx.QueryRowContext(ctx, "SELECT ver FROM kv WHERE k = ? AND (exp = 0 OR exp > ?)", key, now).Scan(&have)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if have != ifVersion {
				return driver.ErrConflict
			}
		}
		var err error
		ver, err = s.put(ctx, tx, key, value, opts, now)
		return err
	})
	return ver, err
}

// put writes one value inside tx and enforces the bound.
func (s *Store) put(ctx context.Context, tx *sql.Tx, key string, value []byte, opts driver.WriteOptions, now int64) (int64, error) {
	if value == nil {
		value = []byte{}
	}
	var ver int64
	if err := tx.QueryRowContext(ctx, "UPDATE seq SET n = n + 1 WHERE name = 'version' RETURNING n").Scan(&ver); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO kv (k, v, ver, exp) VALUES (?, ?, ?, ?)
		ON CONFLICT (k) DO UPDATE SET v = excluded.v, ver = excluded.ver, exp = excluded.exp`,
		key, value, ver, expiry(now, opts.TTL)); err != nil {
		return 0, err
	}
	if b := opts.Bound; b != nil && b.MaxEntries > 0 {
		if err := trim(ctx, tx, b, now); err != nil {
			return 0, err
		}
	}
	return ver, purge(ctx, tx, now)
}

// trim enforces b inside tx: expired values first, then the oldest
// writes.
func trim(ctx context.Context, tx *sql.Tx, b *driver.Bound, now int64) error {
	lo, hi := prefixRange(b.Prefix)
	var n int64
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM kv WHERE k >= ? AND k < ?", lo, hi).Scan(&n); err != nil {
		return err
	}
	if n <= int64(b.MaxEntries) {
		return nil
	}
	res, err := tx.ExecContext(ctx, "DELETE FROM kv WHERE k >= ? AND k < ? AND exp > 0 AND exp <= ?", lo, hi, now)
	if err != nil {
		return err
	}
	gone, _ := res.RowsAffected()
	if n -= gone; n <= int64(b.MaxEntries) {
		return nil
	}
	_, err = tx.ExecContext(ctx, "DELETE FROM kv WHERE k IN (SELECT k FROM kv WHERE k >= ? AND k < ? ORDER BY ver LIMIT ?)", lo, hi, n-int64(b.MaxEntries))
	return err
}

// purgeOneIn is the chance (1 in purgeOneIn) that a write also removes
// some expired rows, which keeps the file from filling with them at the
// cost of a little work spread over the writes.
const purgeOneIn = 32

func purge(ctx context.Context, tx *sql.Tx, now int64) error {
	if rand.IntN(purgeOneIn) != 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM kv WHERE k IN (SELECT k FROM kv WHERE exp > 0 AND exp <= ? LIMIT 256)", now); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM counters WHERE k IN (SELECT k FROM counters WHERE exp > 0 AND exp <= ? LIMIT 256)", now)
	return err
}

// Update implements [driver.Updater]: fn runs inside the write
// transaction, so no other process can write in between.
func (s *Store) Update(ctx context.Context, key string, opts driver.WriteOptions, fn driver.UpdateFunc) (driver.Entry, error) {
	var e driver.Entry
	err := s.write(ctx, func(tx *sql.Tx, now int64) error {
		var cur []byte
		err := tx.QueryRowContext(ctx, "SELECT v FROM kv WHERE k = ? AND (exp = 0 OR exp > ?)", key, now).Scan(&cur)
		found := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if found && cur == nil {
			cur = []byte{}
		}
		next, err := fn(cur, found)
		if err != nil {
			return &fnError{err}
		}
		ver, err := s.put(ctx, tx, key, next, opts, now)
		if err != nil {
			return err
		}
		e = driver.Entry{Value: slices.Clone(next), Version: ver, Expires: expiresAt(expiry(now, opts.TTL))}
		if e.Value == nil {
			e.Value = []byte{}
		}
		return nil
	})
	var fe *fnError
	if errors.As(err, &fe) {
		return driver.Entry{}, fe.err
	}
	return e, err
}

// Delete implements [driver.Store].
func (s *Store) Delete(ctx context.Context, key string) error {
	return s.write(ctx, func(tx *sql.Tx, now int64) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM kv WHERE k = ?", key)
		return err
	})
}

// Incr implements [driver.Store].
func (s *Store) Incr(ctx context.Context, deltas []driver.Delta, ttl time.Duration) ([]int64, error) {
	out := make([]int64, len(deltas))
	err := s.write(ctx, func(tx *sql.Tx, now int64) error {
		exp := expiry(now, ttl)
		for i, d := range deltas {
			err := tx.QueryRowContext(ctx, `INSERT INTO counters (k, n, exp) VALUES (?1, ?2, ?3)
				ON CONFLICT (k) DO UPDATE SET
					n = CASE WHEN exp > 0 AND exp <= ?4 THEN excluded.n ELSE n + excluded.n END,
					exp = CASE WHEN exp = 0 OR exp <= ?4 THEN excluded.exp ELSE exp END
				RETURNING n`, d.Name, d.N, exp, now).Scan(&out[i])
			if err != nil {
				return err
			}
		}
		return purge(ctx, tx, now)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Counters implements [driver.Store].
func (s *Store) Counters(ctx context.Context, prefix string) (map[string]int64, error) {
	var out map[string]int64
	err := s.read(ctx, func() error {
		out = map[string]int64{}
		lo, hi := prefixRange(prefix)
		rows, err := s.db.QueryContext(ctx, "SELECT k, n FROM counters WHERE k >= ? AND k < ? AND (exp = 0 OR exp > ?)", lo, hi, s.now().UnixMilli())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var n int64
			if err := rows.Scan(&k, &n); err != nil {
				return err
			}
			out[k] = n
		}
		return rows.Err()
	})
	return out, err
}

// Append implements [driver.Store].
func (s *Store) Append(ctx context.Context, log string, data []byte, keep driver.Retention) (driver.Record, error) {
	var r driver.Record
	if data == nil {
		data = []byte{}
	}
	err := s.write(ctx, func(tx *sql.Tx, now int64) error {
		if err := tx.QueryRowContext(ctx, "INSERT INTO logs (name, ts, data) VALUES (?, ?, ?) RETURNING id", log, now, data).Scan(&r.ID); err != nil {
			return err
		}
		r.Time = time.UnixMilli(now)
		var n int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO log_counts (name, n) VALUES (?, 1)
			ON CONFLICT (name) DO UPDATE SET n = n + 1 RETURNING n`, log).Scan(&n); err != nil {
			return err
		}
		var drop int64
		if keep.MaxAge > 0 {
			res, err := tx.ExecContext(ctx, "DELETE FROM logs WHERE name = ? AND ts < ?", log, now-keep.MaxAge.Milliseconds())
			if err != nil {
				return err
			}
			gone, _ := res.RowsAffected()
			n -= gone
			drop += gone
		}
		if keep.MaxRecords > 0 && n > int64(keep.MaxRecords) {
			extra := n - int64(keep.MaxRecords)
			if _, err := tx.ExecContext(ctx, "DELETE FROM logs WHERE id IN (SELECT id FROM logs WHERE name = ? ORDER BY id LIMIT ?)", log, extra); err != nil {
				return err
			}
			drop += extra
		}
		if drop > 0 {
			if _, err := tx.ExecContext(ctx, "UPDATE log_counts SET n = n - ? WHERE name = ?", drop, log); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return driver.Record{}, err
	}
	r.Data = slices.Clone(data)
	return r, nil
}

// List implements [driver.Store].
func (s *Store) List(ctx context.Context, log string, q driver.ListQuery) ([]driver.Record, error) {
	var out []driver.Record
	err := s.read(ctx, func() error {
		out = nil
		limit := -1
		if q.Limit > 0 {
			limit = q.Limit
		}
		var since int64
		if !q.Since.IsZero() {
			since = q.Since.UnixMilli()
		}
		rows, err := s.db.QueryContext(ctx, "SELECT id, ts, data FROM logs WHERE name = ? AND id > ? AND ts >= ? ORDER BY id DESC LIMIT ?", log, q.After, since, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r driver.Record
			var ts int64
			if err := rows.Scan(&r.ID, &ts, &r.Data); err != nil {
				return err
			}
			if r.Data == nil {
				r.Data = []byte{}
			}
			r.Time = time.UnixMilli(ts)
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}

// Clear implements [driver.Store]. It then returns the freed pages to the
// file system, as far as its context allows.
func (s *Store) Clear(ctx context.Context, prefix string) (int, error) {
	var total int
	lo, hi := prefixRange(prefix)
	err := s.write(ctx, func(tx *sql.Tx, now int64) error {
		total = 0
		for _, q := range []string{
			"SELECT count(*) FROM kv WHERE k >= ?1 AND k < ?2 AND (exp = 0 OR exp > ?3)",
			"SELECT count(*) FROM counters WHERE k >= ?1 AND k < ?2 AND (exp = 0 OR exp > ?3)",
			"SELECT count(*) FROM log_counts WHERE name >= ?1 AND name < ?2 AND n > 0 AND ?3 = ?3",
		} {
			var n int
			if err := tx.QueryRowContext(ctx, q, lo, hi, now).Scan(&n); err != nil {
				return err
			}
			total += n
		}
		for _, q := range []string{
			"DELETE FROM kv WHERE k >= ? AND k < ?",
			"DELETE FROM counters WHERE k >= ? AND k < ?",
			"DELETE FROM logs WHERE name >= ? AND name < ?",
			"DELETE FROM log_counts WHERE name >= ? AND name < ?",
		} {
			if _, err := tx.ExecContext(ctx, q, lo, hi); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	_ = s.write(ctx, func(tx *sql.Tx, now int64) error {
		_, err := tx.ExecContext(ctx, "PRAGMA incremental_vacuum")
		return err
	})
	return total, nil
}

// Close implements [driver.Store].
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	if err := s.db.Close(); err != nil {
		return classify(context.Background(), err)
	}
	return nil
}
