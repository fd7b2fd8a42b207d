//go:build linux

package sqlitestore_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webgate-dev/webgate/store/sqlitestore"
)

// handles counts this process's open descriptors of the file at path.
func handles(t *testing.T, path string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == path {
			n++
		}
	}
	return n
}

func TestOpenOpensEveryConnectionUnderItsOwnBound(t *testing.T) {
	// Opening a connection reads the file's header and schema and runs
	// the setup pragmas: part of opening the store, under its bound, not
	// of the first calls that run at once, under theirs.
	path := filepath.Join(t.TempDir(), "store.db")
	open(t, sqlitestore.Config{Path: path})
	if n := handles(t, path); n != 2 {
		t.Errorf("after Open, %d connections hold the file; want both of the store's", n)
	}
}
