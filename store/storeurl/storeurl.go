// Package storeurl opens the store a URL names with the backend the URL
// picks, and is the one package that links them all:
//
//	""                     SQLite at opts.DefaultPath (the frontend's default)
//	"off"                  a store that remembers nothing
//	"memory:"              in this process's memory (package memstore)
//	"sqlite:///abs/path"   SQLite at /abs/path (package sqlitestore);
//	                       a bare absolute path means the same
//	"redis://host:port/db" a Redis server (package redisstore)
//	"rediss://…"           a Redis server over TLS
//
// Package store itself is the interface and its wrapper, and links none
// of the backends, so that reading a setting or using a [store.Store]
// does not link SQLite or Redis; only a program that opens a store by
// URL does.
package storeurl

import (
	"context"
	"fmt"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/driver"
	"github.com/webgate-dev/webgate/store/memstore"
	"github.com/webgate-dev/webgate/store/redisstore"
	"github.com/webgate-dev/webgate/store/sqlitestore"
)

// Open opens the store rawURL names (see the package documentation) with
// opts; a nil opts means defaults. It is [store.OpenWith] over webgate's
// backends: it honours ctx's deadline (and opts.OpenTimeout when ctx has
// none), fails promptly with a [*store.Error] wrapping [store.ErrCorrupt],
// [store.ErrBusy], [store.ErrTimeout] or [store.ErrUnavailable] when a
// file is corrupt or locked or a server is down or slow, and with
// [store.ErrInvalid] for a malformed URL. Errors never contain a password
// from the URL.
func Open(ctx context.Context, rawURL string, opts *store.Options) (*store.Store, error) {
	return store.OpenWith(ctx, rawURL, opts, Backend)
}

// Backend opens webgate's backend of kind at target: it is the
// [store.Backend] [Open] uses. A Redis server's calls are bounded by
// opts.Timeout and its dial by opts.OpenTimeout.
func Backend(ctx context.Context, kind, target string, opts *store.Options) (driver.Store, error) {
	var o store.Options
	if opts != nil {
		o = *opts
	}
	switch kind {
	case "memory":
		return memstore.New(nil), nil
	case "sqlite":
		return sqlitestore.Open(ctx, &sqlitestore.Config{Path: target})
	case "redis":
		return redisstore.Open(ctx, &redisstore.Config{URL: target, CallTimeout: o.Timeout, OpenTimeout: o.OpenTimeout})
	}
	return nil, fmt.Errorf("%w: unknown store backend %q", driver.ErrInvalid, kind)
}
