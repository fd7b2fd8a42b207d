package store

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/webgate-dev/webgate/store/driver"
	"github.com/webgate-dev/webgate/store/memstore"
	"github.com/webgate-dev/webgate/store/redisstore"
	"github.com/webgate-dev/webgate/store/sqlitestore"
)

type (
	// SQLiteConfig configures the SQLite backend; see package sqlitestore.
	SQLiteConfig = sqlitestore.Config
	// RedisConfig configures the Redis backend; see package redisstore.
	RedisConfig = redisstore.Config
)

// Open opens the store rawURL names:
//
//	""                     SQLite at opts.DefaultPath (the frontend's default)
//	"off"                  a store that remembers nothing (see below)
//	"memory:"              in this process's memory (package memstore)
//	"sqlite:///abs/path"   SQLite at /abs/path (package sqlitestore);
//	                       a bare absolute path means the same
//	"redis://host:port/db" a Redis server (package redisstore)
//	"rediss://…"           a Redis server over TLS
//
// The "off" store finds nothing, accepts and drops every write, returns a
// counter's delta as its value and keeps no log records, so that code
// using it behaves as on its first call, without special cases.
//
// Open honours ctx's deadline (and opts.OpenTimeout when ctx has none): a
// file that is corrupt or locked, or a server that is down or slow, fails
// promptly with an [*Error] wrapping [ErrCorrupt], [ErrBusy],
// [ErrTimeout] or [ErrUnavailable]; a malformed URL fails with
// [ErrInvalid]. Errors never contain a password from the URL.
func Open(ctx context.Context, rawURL string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if ctx == nil {
		ctx = context.Background()
	}
	timeout := o.OpenTimeout
	if timeout <= 0 {
		timeout = DefaultOpenTimeout
	}
	ctx, cancel := withTimeout(ctx, timeout)
	defer cancel()

	kind, target, err := ParseURL(rawURL, o.DefaultPath)
	if err != nil {
		return nil, &Error{Op: "open", Driver: kind, Err: err}
	}
	var d driver.Store
	switch kind {
	case "off":
		d = &off{}
	case "memory":
		d = memstore.New(nil)
	case "sqlite":
		var cfg sqlitestore.Config
		if o.SQLite != nil {
			cfg = *o.SQLite
		}
		cfg.Path = target
		d, err = sqlitestore.Open(ctx, &cfg)
	case "redis":
		var cfg redisstore.Config
		if o.Redis != nil {
			cfg = *o.Redis
		}
		cfg.URL = target
		if cfg.CallTimeout == 0 {
			cfg.CallTimeout = o.Timeout
			if cfg.CallTimeout <= 0 {
				cfg.CallTimeout = DefaultTimeout
			}
		}
		if cfg.OpenTimeout == 0 {
			cfg.OpenTimeout = timeout
		}
		d, err = redisstore.Open(ctx, &cfg)
	}
	if err != nil {
		return nil, &Error{Op: "open", Driver: kind, Err: classify(ctx, err)}
	}
	return New(d, &o), nil
}

// ParseURL returns the backend a store URL names ("off", "memory",
// "sqlite" or "redis") and its target: the SQLite file (defaultPath for
// the URL ""), or the Redis URL itself. A URL [Open] would refuse is an
// error wrapping [ErrInvalid]; kind is still set when the scheme was
// recognised. Frontends use it to show where the store is without opening
// it.
func ParseURL(rawURL, defaultPath string) (kind, target string, err error) {
	switch {
	case rawURL == "":
		if defaultPath == "" {
			return "sqlite", "", fmt.Errorf("%w: no store URL and no default path", ErrInvalid)
		}
		return "sqlite", defaultPath, nil
	case rawURL == "off":
		return "off", "", nil
	case rawURL == "memory:" || rawURL == "memory://":
		return "memory", "", nil
	case filepath.IsAbs(rawURL):
		return "sqlite", rawURL, nil
	}
	scheme, _, ok := strings.Cut(rawURL, ":")
	if !ok {
		return "", "", fmt.Errorf("%w: store URL must be off, memory:, sqlite:///path, redis:// or rediss://", ErrInvalid)
	}
	switch strings.ToLower(scheme) {
	case "redis", "rediss":
		return "redis", rawURL, nil
	case "sqlite":
		u, err := url.Parse(rawURL)
		if err != nil {
			return "sqlite", "", fmt.Errorf("%w: malformed sqlite URL", ErrInvalid)
		}
		p := u.Path
		if runtime.GOOS == "windows" && len(p) > 2 && p[0] == '/' && p[2] == ':' {
			p = p[1:] // sqlite:///C:/path
		}
		switch {
		case u.Host != "" && u.Host != "localhost", u.Opaque != "", !filepath.IsAbs(filepath.FromSlash(p)):
			return "sqlite", "", fmt.Errorf("%w: sqlite URL needs an absolute path: sqlite:///abs/path", ErrInvalid)
		case u.RawQuery != "" || u.Fragment != "":
			return "sqlite", "", fmt.Errorf("%w: sqlite URL takes no options", ErrInvalid)
		}
		return "sqlite", filepath.FromSlash(p), nil
	}
	return "", "", fmt.Errorf("%w: unknown store URL scheme (want off, memory:, sqlite:///path, redis:// or rediss://)", ErrInvalid)
}
