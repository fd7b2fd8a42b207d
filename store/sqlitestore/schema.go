package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/webgate-dev/webgate/store/driver"
)

// migration is one step of the schema's history. Migrations are applied
// in order, each once, and never edited after release: a change is a new
// migration.
type migration struct {
	version int64
	name    string
	stmts   []string
}

var migrations = []migration{
	{1, "initial", []string{
		// Values: k is the key, ver the store-wide write number (which
		// also orders eviction), exp the expiry in Unix milliseconds (0:
		// never).
		`CREATE TABLE kv (
			k TEXT PRIMARY KEY NOT NULL,
			v BLOB NOT NULL,
			ver INTEGER NOT NULL,
			exp INTEGER NOT NULL DEFAULT 0
		)`,
		`CREATE INDEX kv_exp ON kv (exp) WHERE exp > 0`,
		`CREATE TABLE counters (
			k TEXT PRIMARY KEY NOT NULL,
			n INTEGER NOT NULL,
			exp INTEGER NOT NULL DEFAULT 0
		)`,
		`CREATE INDEX counters_exp ON counters (exp) WHERE exp > 0`,
		// AUTOINCREMENT: record IDs are never reused, so a follower's
		// cursor stays valid after records are dropped.
		`CREATE TABLE logs (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			name TEXT NOT NULL,
			ts INTEGER NOT NULL,
			data BLOB NOT NULL
		)`,
		`CREATE INDEX logs_name_id ON logs (name, id)`,
		`CREATE INDEX logs_name_ts ON logs (name, ts)`,
		// How many records each log holds, so that trimming a log to its
		// retention costs the same however long it is.
		`CREATE TABLE log_counts (name TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL)`,
		`CREATE TABLE seq (name TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL)`,
		`INSERT INTO seq (name, n) VALUES ('version', 0)`,
	}},
}

// schemaVersion is the version this build writes.
func schemaVersion() int64 { return migrations[len(migrations)-1].version }

// migrate brings the schema up to date. The common case, a database at
// the current version, costs two reads and takes no write lock.
func migrate(ctx context.Context, conn *sql.Conn, now int64) error {
	v, err := appliedVersion(ctx, conn)
	if err != nil {
		return err
	}
	if v == schemaVersion() {
		return nil
	}
	if v > schemaVersion() {
		return fmt.Errorf("%w: database schema version %d is newer than this build's %d", driver.ErrUnavailable, v, schemaVersion())
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY NOT NULL,
		name TEXT NOT NULL,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return err
	}
	// Another process may have migrated while this one waited for the
	// write lock.
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v); err != nil {
		return err
	}
	for _, m := range migrations {
		if m.version <= v {
			continue
		}
		for _, q := range m.stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", m.version, m.name, now); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// appliedVersion returns the newest migration applied, 0 for a new
// database.
func appliedVersion(ctx context.Context, conn *sql.Conn) (int64, error) {
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").Scan(&n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	var v int64
	err := conn.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v)
	return v, err
}
