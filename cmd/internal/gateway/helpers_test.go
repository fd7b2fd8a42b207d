package gateway

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/webgate-dev/webgate/internal/redistest"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// stores returns the backends the tests run on: SQLite in a temporary
// file and a private redis-server on 127.0.0.1.
func stores(t *testing.T) map[string]func(t *testing.T) *store.Store {
	return map[string]func(t *testing.T) *store.Store{
		"sqlite": func(t *testing.T) *store.Store {
			return openStore(t, "sqlite://"+filepath.Join(t.TempDir(), "gw.db"))
		},
		"redis": func(t *testing.T) *store.Store {
			return openStore(t, redistest.Start(t).URL)
		},
	}
}

func openStore(t testing.TB, url string) *store.Store {
	t.Helper()
	st, err := storeurl.Open(context.Background(), url, &store.Options{Timeout: 10e9, OpenTimeout: 10e9})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
