package config

import (
	"path/filepath"
	"strings"
)

// StoreFile is the name of the SQLite store in the state directory.
const StoreFile = "webgate.db"

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
