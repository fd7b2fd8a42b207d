package assemble

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/safefile"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// saltFile is the default name of the fingerprint salt in the state
// directory.
const saltFile = "fingerprint-salt"

// OpenMemory opens the store c names (store.url; SQLite in
// the state directory by default) and returns the memory over it, with the
// cache, health, log and budget settings. Opening is bounded by
// store.open_timeout and ctx's deadline, each later store call by
// store.timeout. When
// the store is off, or cannot be opened, it returns a nil *Memory (which
// remembers nothing) and, for a store that failed, the error: callers go
// on without memory. The caller closes the Memory's store.
func OpenMemory(ctx context.Context, c *config.Config) (*memory.Memory, error) {
	return OpenMemoryWith(ctx, c, storeurl.Open)
}

// StoreOpener opens a store as [storeurl.Open] does.
type StoreOpener func(ctx context.Context, url string, opts *store.Options) (*store.Store, error)

// OpenMemoryWith is [OpenMemory] with the store opened by open: a
// long-running process may hand out a store it keeps open across calls
// (and then the caller does not close it).
func OpenMemoryWith(ctx context.Context, c *config.Config, open StoreOpener) (*memory.Memory, error) {
	if c.StoreOff() {
		return nil, nil
	}
	url := strings.TrimSpace(c.Store.URL)
	if url == "" && c.StorePath() == "" {
		return nil, errors.New("assemble: the store has no path: the state directory is unknown")
	}
	if url == "" {
		if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
			return nil, fmt.Errorf("assemble: store: %w", err)
		}
	}
	salt, err := salt(c)
	if err != nil {
		return nil, err
	}
	// The memory bounds each call on the way to an answer by store.timeout
	// itself (OpTimeout); the store's own bound is the longer one of the
	// writes made after the answer, which their context bounds by
	// store.open_timeout. With store.timeout there too, those writes
	// would fail on a busy machine as if they held the answer up.
	st, err := open(ctx, url, &store.Options{Timeout: max(c.Store.Timeout, c.Store.OpenTimeout), OpenTimeout: c.Store.OpenTimeout, DefaultPath: c.StorePath(), Bounds: c.Cache.Bounds()})
	if err != nil {
		return nil, err
	}
	budgets := map[string]int64{}
	for _, b := range c.Registry().All() {
		if a := c.ProviderAccess(b.Name); a != nil && a.Budget.Monthly > 0 {
			budgets[b.Name] = a.Budget.Monthly
		}
	}
	return memory.New(&memory.Options{
		Store: st, Salt: salt, Health: c.Health, Cache: c.Cache, Log: c.Log,
		Budgets: budgets, OpTimeout: c.Store.Timeout,
	}), nil
}

// salt reads the fingerprint salt, creating it (32 random bytes, mode
// 0600) when it is missing.
func salt(c *config.Config) ([]byte, error) {
	path := c.Store.SaltFile
	if path == "" {
		if c.StateDir == "" {
			return nil, nil
		}
		path = filepath.Join(c.StateDir, saltFile)
	}
	if b, err := safefile.ReadFile(path, 4096); err == nil && len(b) >= 16 {
		return b, nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("assemble: store: salt file: %w", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("assemble: store: salt file: %w", err)
	}
	// Written aside, then linked into place: a reader never sees a
	// partial salt, and of two processes creating it at once, one wins.
	f, err := os.CreateTemp(filepath.Dir(path), ".salt-*")
	if err != nil {
		return nil, fmt.Errorf("assemble: store: salt file: %w", err)
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Link(f.Name(), path)
	}
	if errors.Is(werr, os.ErrExist) {
		if b, err := safefile.ReadFile(path, 4096); err == nil && len(b) >= 16 {
			return b, nil
		}
		return nil, errors.New("assemble: store: the salt file is unreadable or too short")
	}
	if werr != nil {
		return nil, fmt.Errorf("assemble: store: salt file: %w", werr)
	}
	return b, nil
}
