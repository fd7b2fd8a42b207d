// Package provider defines what a web search or page extraction backend is,
// how its failures are classified, and the shared machinery every backend
// uses to talk HTTP: API-key pools, retries and bounded response bodies.
//
// # Interfaces
//
// A backend implements [Searcher], [Extractor] or both. The optional [Namer]
// interface gives it a stable name for provenance and diagnostics. Policies
// (package policy) combine several backends and are themselves Searchers and
// Extractors, so they compose. The optional [Ignorer] interface says which
// filters of a query a backend cannot apply; backends also report them in
// [Results].Ignored, and policies merge them.
//
// # Errors
//
// Every failure a backend returns carries a [Kind] from a closed set:
// [KindAuth], [KindQuota], [KindRateLimited], [KindTransient],
// [KindBadRequest], [KindUnsupported], [KindCanceled] and [KindUnknown].
// Backends classify their own errors from the HTTP status and the provider's
// machine-readable body tags; callers act on [KindOf] and never on message
// text. [ClassOf] maps a kind to one of the four user-facing failure classes
// ("auth-failed", "credit-or-quota-failed", "transient-provider-failed",
// "unknown").
//
// # Keys and HTTP
//
// A [KeySource] hands out API keys for one request and is told the outcome of
// every attempt. [Pool] is the standard implementation, built from the key
// specification users already write (a key, an inline "k1|k2" pool, or a file
// of keys; see [ParseKeys]). [HTTP] performs one logical request with key
// rotation, kind-driven retries (go-retryablehttp), Retry-After handling, a
// deadline-aware backoff and a capped response body.
//
// Keys are secrets: [Key] prints as a redacted label, and no error, log line
// or trace produced by this package contains a key's value.
//
// This package never reads the environment or any global state; all of its
// inputs are arguments and configuration structs.
package provider
