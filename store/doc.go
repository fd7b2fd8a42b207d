// Package store is webgate's memory across calls and processes. Every hook
// process starts from nothing; a Store lets it know what earlier calls
// learned: which keys and providers are cooling down or parked, what a
// query returned a minute ago, how much was spent today, what was decided
// and why, and the state of the current session.
//
// # Model
//
// A [Store] holds three kinds of data, in separate spaces:
//
//   - values: bytes at a key, with a version and an optional TTL.
//     [Store.Get], [Store.Set], [Store.Delete]; [Store.CompareAndSwap]
//     writes only over the version read; [Store.Update] is an atomic
//     read-modify-write, safe across goroutines and processes (health
//     records, session state). A [Bound] in [Options] caps the number of
//     values under a prefix (the result cache) by evicting expired and
//     then least recently written values.
//   - counters: int64 sums with an optional TTL, for usage and budgets.
//     [Store.Incr], [Store.IncrMany] (one call's usage at once, atomically)
//     and [Store.Counters] by name prefix.
//   - logs: append-only records with bounded retention by count and age
//     (the decision log). [Store.Append], [Store.List] (the newest N,
//     since a time, after an ID) and [Store.Follow].
//
// [Store.Clear] removes all three under a prefix (`webgate cache clear`).
// Keys are UTF-8 without control characters, at most [MaxKeyBytes]; use
// "/"-separated namespaces such as "health/tavily/<fingerprint>",
// "cache/search/<hash>", "usage/2026-03-01/tavily/requests".
//
// # Backends
//
// Package storeurl opens a store by URL, with the backend the URL picks:
// "off", "memory:" (package memstore), "sqlite:///abs/path" or "" for the
// caller's default path (package sqlitestore, the embedded default: one
// file shared by all processes), "redis://host:port/db" or "rediss://…"
// (package redisstore, shared by machines). This package links none of
// them: [New] wraps any backend that implements the interfaces of package
// driver, and [OpenWith] opens a URL with the backends it is given;
// package storetest is the conformance suite all of them pass.
//
// # Failing open
//
// A Store is an optimisation, never a dependency: every call takes a
// context and honours its deadline (and [Options].Timeout when it has
// none), and fails promptly, without panicking, when the store is
// missing, corrupt, locked, full or unreachable. Errors are [*Error]
// values wrapping one sentinel ([ErrTimeout], [ErrBusy],
// [ErrUnavailable], [ErrCorrupt], [ErrFull], [ErrClosed], [ErrInvalid]);
// [Failed] tells such failures from the answers [ErrNotFound] and
// [ErrConflict]. A hook gives the store a few tens of milliseconds and
// carries on without it when [Failed] is true.
//
// # Secrets
//
// A store must never hold a secret: its file or server may be read by
// other users, backed up or shared. Callers store an API key's
// [Fingerprint], never the key, and pass queries, URLs and messages
// through webgate's redaction filter before they are stored or logged.
// This package does not inspect what it is given.
//
// The package never reads the environment: the frontends map their
// settings (WEBGATE_STORE, store.url) onto the opener's arguments.
package store
