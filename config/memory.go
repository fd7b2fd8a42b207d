package config

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/webgate-dev/webgate/internal/safefile"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/store"
)

// StoreFile is the name of the SQLite store in the state directory.
const StoreFile = "webgate.db"

// saltFile is the default name of the fingerprint salt in the state
// directory.
const saltFile = "fingerprint-salt"

// StorePath returns where the default SQLite store lives: [StoreFile] in
// the state directory; empty when the state directory is unknown.
func (c *Config) StorePath() string {
	if c.StateDir == "" {
		return ""
	}
	return filepath.Join(c.StateDir, StoreFile)
}

// StoreOff reports whether the store is turned off (store.url "off").
func (c *Config) StoreOff() bool { return strings.EqualFold(strings.TrimSpace(c.Store.URL), "off") }

// WorkerOff reports whether the warm worker is turned off (hooks.worker
// "off").
func (c *Config) WorkerOff() bool { return strings.EqualFold(strings.TrimSpace(c.Hooks.Worker), "off") }

// OpenMemory opens the store the configuration names (store.url; SQLite in
// the state directory by default) and returns the memory over it, with the
// cache, health, log and budget settings. Opening is bounded by
// store.open_timeout and ctx's deadline, each later store call by
// store.timeout. When
// the store is off, or cannot be opened, it returns a nil *Memory (which
// remembers nothing) and, for a store that failed, the error: callers go
// on without memory. The caller closes the Memory's store.
func (c *Config) OpenMemory(ctx context.Context) (*memory.Memory, error) {
	return c.OpenMemoryWith(ctx, store.Open)
}

// StoreOpener opens a store as [store.Open] does.
type StoreOpener func(ctx context.Context, url string, opts *store.Options) (*store.Store, error)

// OpenMemoryWith is [Config.OpenMemory] with the store opened by open: a
// long-running process may hand out a store it keeps open across calls
// (and then the caller does not close it).
func (c *Config) OpenMemoryWith(ctx context.Context, open StoreOpener) (*memory.Memory, error) {
	if c.StoreOff() {
		return nil, nil
	}
	url := strings.TrimSpace(c.Store.URL)
	if url == "" && c.StorePath() == "" {
		return nil, errors.New("config: the store has no path: the state directory is unknown")
	}
	if url == "" {
		if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
			return nil, fmt.Errorf("config: store: %w", err)
		}
	}
	salt, err := c.salt()
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
	for _, b := range c.registry().All() {
		if a := b.section(&c.Providers).access(); a.Budget.Monthly > 0 {
			budgets[b.Name] = a.Budget.Monthly
		}
	}
	return memory.New(memory.Options{
		Store: st, Salt: salt, Health: c.Health, Cache: c.Cache, Log: c.Log,
		Budgets: budgets, OpTimeout: c.Store.Timeout,
	}), nil
}

// salt reads the fingerprint salt, creating it (32 random bytes, mode
// 0600) when it is missing.
func (c *Config) salt() ([]byte, error) {
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
		return nil, fmt.Errorf("config: store: salt file: %w", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("config: store: salt file: %w", err)
	}
	// Written aside, then linked into place: a reader never sees a
	// partial salt, and of two processes creating it at once, one wins.
	f, err := os.CreateTemp(filepath.Dir(path), ".salt-*")
	if err != nil {
		return nil, fmt.Errorf("config: store: salt file: %w", err)
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
		return nil, errors.New("config: store: the salt file is unreadable or too short")
	}
	if werr != nil {
		return nil, fmt.Errorf("config: store: salt file: %w", werr)
	}
	return b, nil
}
