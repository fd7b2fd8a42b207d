// Package memory is what webgate remembers across calls and processes:
// the health of each provider and key, a cache of search results and page
// reads, usage and monthly budgets, and a log of the hooks' decisions. It
// keeps all of it in a [store.Store] (SQLite under the state directory by
// default, Redis for several machines), so that every hook process, the
// CLI and the MCP server share one memory.
//
// # Health
//
// Every attempt a backend makes with a key is reported through the key
// source [Memory.Keys] wraps around the provider's pool: an auth failure
// parks the key until its value changes (keys are named by a keyed
// fingerprint, so a new value is a new key) or for [HealthConfig.AuthPark];
// a quota failure parks it for [HealthConfig.QuotaPark]; a rate-limited
// key cools down for the provider's Retry-After, or
// [HealthConfig.RateLimitCooldown]. Parked keys are not offered; the
// others keep the pool's order. Repeated transient failures of a provider
// open its circuit breaker for [HealthConfig.BreakerCooldown]; then one
// call is let through as a probe, which closes the breaker when it
// succeeds and opens it again when it fails.
//
// [Memory.Searcher] and [Memory.Extractor] guard a provider: one whose keys
// are all parked, whose breaker is open or whose monthly budget is spent
// fails at once with a [*provider.Error] that says why and until when, so
// the policies move on to the next provider without a request.
//
// # Cache
//
// [Memory.CacheSearcher] caches a search policy's results by normalised
// query, filters and provider set for [CacheConfig.SearchTTL]; results with
// failed providers are kept for a sixth of it. [PageCache] caches page reads
// by URL and reading path for [CacheConfig.FetchTTL]. Failures are never
// cached, nor a page that was only partly read. An answer from the cache
// says when it was fetched (provider.Results.Cached, webpage.Result.Cached).
//
// # Usage, budgets and the decision log
//
// Each provider call adds to per-day counters (requests, results, failures
// by kind, latency, and the credits, cost and tokens a backend reports in
// [provider.Usage]) read back by [Memory.Usage]; a monthly budget of
// requests per provider warns once at 80 % ([Memory.Notices]) and skips the
// provider at 100 %. [Memory.Record] appends a hook decision to the decision
// log, with queries and URLs kept in full, hashed or not at all, and passed
// through a redaction filter for secret-like values first.
//
// # Failing open
//
// Memory is an optimisation: every store call is bounded by
// [Options.OpTimeout] (50 ms by default) and the caller's deadline, and a
// store that fails is left alone for [StoreRetry] after each failure (the
// rest of a hook's call; a long-lived Memory, such as the MCP server's,
// then tries it again); [Memory.Problem] reports the first failure and
// [Memory.Skipped] why (a timeout or a failure). A nil *Memory remembers
// nothing and changes nothing.
//
// # Writes after the answer
//
// After [Memory.DeferWrites] the writes that can wait (the decision log,
// usage of providers without a budget, key and provider health, the
// cache) are kept until [Memory.Flush], which a hook calls once it has
// answered, under a bound of its own: they no longer hold up the answer,
// and a store that was only slow on the way to it still gets them.
// [Memory.CountCall] counts each hook call and why it went on without the
// store, when it did; [Memory.StoreCalls] reads the counts back.
//
// The package never reads the environment: frontends map their settings
// onto [Options].
package memory
