//go:build unix

package sqlitestore_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/driver"
	"github.com/webgate-dev/webgate/store/sqlitestore"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// quick bounds a call that must fail fast; it is a hang detector, far
// above the milliseconds these calls take.
const quick = 5 * time.Second

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// rawDB opens the file with plain database/sql, as another program would.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestFilesAreCreatedPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	path := filepath.Join(dir, "store.db")
	s := store.New(open(t, sqlitestore.Config{Path: path}), nil)
	if err := s.Set(ctxFor(t, quick), "k", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s has mode %o, want 600", filepath.Base(p), m)
		}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o700 {
		t.Errorf("directory has mode %o, want 700", m)
	}
}

func TestDatabaseIsInWALModeWithAVersionedSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := open(t, sqlitestore.Config{Path: path})
	if s.Path() != path {
		t.Fatalf("Path() = %q", s.Path())
	}
	s.Close()
	open(t, sqlitestore.Config{Path: path}).Close() // reopening migrates nothing
	db := rawDB(t, path)
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v", mode, err)
	}
	var n, v int
	if err := db.QueryRow("SELECT count(*), max(version) FROM schema_migrations").Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	if n != 1 || v != 1 {
		t.Fatalf("schema_migrations has %d rows, newest %d; want 1, 1", n, v)
	}
	// A database written by a later release is refused, not misread.
	if _, err := db.Exec("INSERT INTO schema_migrations VALUES (99, 'future', 0)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := sqlitestore.Open(ctxFor(t, quick), &sqlitestore.Config{Path: path})
	if !errors.Is(err, driver.ErrUnavailable) || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer schema: %v, want ErrUnavailable", err)
	}
}

func TestAdversarialGarbageFileFailsFastAsCorrupt(t *testing.T) {
	garbage := bytes.Repeat([]byte("not a database \x00\xff\xfe"), 4096)
	withHeader := append([]byte("SQLite format 3\x00"), garbage...)
	for name, content := range map[string][]byte{"garbage": garbage, "garbage after a valid header": withHeader, "one byte": {'x'}} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			s, err := storeurl.Open(ctxFor(t, quick), "sqlite://"+path, nil)
			if err == nil {
				// SQLite may accept a damaged file until it reads the
				// damage: then the first call must fail as corrupt.
				_, err = s.Get(ctxFor(t, quick), "k")
				s.Close()
			}
			if !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("garbage file: %v, want ErrCorrupt", err)
			}
			// Far under SQLite's busy timeout (30 s), with room for a
			// busy machine.
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("garbage file took %v to fail", d)
			}
			t.Logf("after %v: %v", time.Since(start), err)
			var se *store.Error
			if !errors.As(err, &se) || se.Driver != "sqlite" {
				t.Fatalf("error %T %v is not a *store.Error from sqlite", err, err)
			}
		})
	}
}

func TestAdversarialPathsThatAreNotRegularFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.db")
	open(t, sqlitestore.Config{Path: target}).Close()
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"symlink": link, "FIFO": fifo, "directory": dir, "device": "/dev/null"} {
		start := time.Now()
		_, err := sqlitestore.Open(ctxFor(t, quick), &sqlitestore.Config{Path: path})
		if !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %v", name, d)
		}
	}
	if _, err := sqlitestore.Open(ctxFor(t, quick), &sqlitestore.Config{Path: "/proc/no-such-dir/store.db"}); !errors.Is(err, driver.ErrUnavailable) {
		t.Errorf("uncreatable directory: %v, want ErrUnavailable", err)
	}
}

func TestWriterHeldLockFailsWithinTheDeadline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := store.New(open(t, sqlitestore.Config{Path: path}), nil)
	if err := s.Set(ctxFor(t, quick), "k", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	// Another program holds the write lock.
	db := rawDB(t, path)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")

	const deadline = 150 * time.Millisecond
	start := time.Now()
	err = s.Set(ctxFor(t, deadline), "k", []byte("new"), 0)
	elapsed := time.Since(start)
	if !errors.Is(err, store.ErrBusy) || !store.Failed(err) {
		t.Fatalf("write under a held lock: %v, want ErrBusy", err)
	}
	if elapsed > deadline+500*time.Millisecond {
		t.Fatalf("write under a held lock returned after %v, deadline %v", elapsed, deadline)
	}
	t.Logf("after %v: %v", elapsed, err)
	// Readers are not blocked by a writer in WAL mode.
	if e, err := s.Get(ctxFor(t, deadline), "k"); err != nil || string(e.Value) != "v" {
		t.Fatalf("read under a held write lock: %q, %v", e.Value, err)
	}
}

func TestAdversarialExclusivelyLockedFileFailsOpenWithinTheDeadline(t *testing.T) {
	// A database in rollback-journal mode, exclusively locked by another
	// program: not even a read can proceed.
	path := filepath.Join(t.TempDir(), "store.db")
	db := rawDB(t, path)
	if _, err := db.Exec("PRAGMA journal_mode = DELETE; CREATE TABLE other (x); PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; INSERT INTO other VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	const deadline = 150 * time.Millisecond
	start := time.Now()
	_, err := storeurl.Open(ctxFor(t, deadline), "sqlite://"+path, nil)
	elapsed := time.Since(start)
	if !errors.Is(err, store.ErrBusy) && !errors.Is(err, store.ErrTimeout) {
		t.Fatalf("Open of a locked file: %v, want ErrBusy or ErrTimeout", err)
	}
	if elapsed > deadline+500*time.Millisecond {
		t.Fatalf("Open of a locked file returned after %v, deadline %v", elapsed, deadline)
	}
	t.Logf("after %v: %v", elapsed, err)
}

func TestSizeCapFailsWritesWithErrFullAndClearFreesSpace(t *testing.T) {
	s := store.New(open(t, sqlitestore.Config{MaxBytes: 256 << 10}), nil)
	ctx := ctxFor(t, 20*time.Second)
	value := bytes.Repeat([]byte{0xa5}, 16<<10)
	var err error
	n := 0
	for ; n < 100; n++ {
		if err = s.Set(ctx, fmt.Sprintf("cache/%d", n), value, 0); err != nil {
			break
		}
	}
	if !errors.Is(err, store.ErrFull) {
		t.Fatalf("after %d writes of 16 KiB into 256 KiB: %v, want ErrFull", n, err)
	}
	if _, err := s.Get(ctx, "cache/0"); err != nil {
		t.Fatalf("read from a full store: %v", err)
	}
	if _, err := s.Clear(ctx, "cache/"); err != nil {
		t.Fatalf("Clear of a full store: %v", err)
	}
	if err := s.Set(ctx, "cache/again", value, 0); err != nil {
		t.Fatalf("write after Clear: %v", err)
	}
}

func TestReopenedStoreKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	ctx := ctxFor(t, 10*time.Second)
	s, err := storeurl.Open(ctx, "", &store.Options{DefaultPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if s.Driver() != "sqlite" {
		t.Fatalf("Driver() = %q", s.Driver())
	}
	if err := s.Set(ctx, "k", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Incr(ctx, "c", 7, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "log", []byte("r"), store.Retention{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = storeurl.Open(ctx, "sqlite://"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e, err := s.Get(ctx, "k")
	cs, err2 := s.Counters(ctx, "")
	recs, err3 := s.List(ctx, "log", store.ListQuery{})
	if err != nil || err2 != nil || err3 != nil || string(e.Value) != "v" || cs["c"] != 7 || len(recs) != 1 {
		t.Fatalf("after reopening: %q %v %v %v %v %v", e.Value, cs, recs, err, err2, err3)
	}
}
