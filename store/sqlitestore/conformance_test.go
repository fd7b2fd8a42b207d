package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/store/driver"
	"github.com/webgate-dev/webgate/store/sqlitestore"
	"github.com/webgate-dev/webgate/store/storetest"
)

func open(t testing.TB, cfg sqlitestore.Config) *sqlitestore.Store {
	t.Helper()
	if cfg.Path == "" {
		cfg.Path = filepath.Join(t.TempDir(), "store.db")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := sqlitestore.Open(ctx, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, now func() time.Time) driver.Store {
			return open(t, sqlitestore.Config{Now: now})
		},
	})
}

func BenchmarkStore(b *testing.B) {
	storetest.Benchmark(b, func(b *testing.B) driver.Store { return open(b, sqlitestore.Config{}) })
}
