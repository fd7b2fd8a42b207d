// Package gateway is webgate's team gateway: one server, run as one or
// several replicas over a shared store, that holds the providers' keys and
// answers every agent of a team with bearer tokens instead of keys.
//
// Its pieces work over a [store.Store], so they hold on one machine with
// SQLite and across replicas with Redis:
//
//   - [Tokens]: bearer tokens (prefix "wg_", a random 256-bit secret shown
//     once), kept as the SHA-256 of the secret with an owner, a label, a
//     team, an expiry and a revocation; verified in constant time, the
//     same way for unknown and wrong secrets; a token read is trusted for
//     a second ([DefaultTokenCacheFor]), the bound on a revocation.
//   - [Limiter]: per-token request rates and per-token and per-team
//     budgets (requests and provider credits per day and month), reserved
//     atomically before any provider is asked and settled after, so
//     parallel agents cannot overshoot them.
//   - [Audit]: a hash-chained log of every call (token, tool, decision,
//     providers, credits; the query and URL hashed under a key kept in
//     the store unless configured otherwise, in clear then with their
//     secrets redacted) whose head moves by compare-and-swap, so replicas
//     extend one chain, once per batch of entries, written as one record;
//     [Audit.Verify] finds entries edited, removed or reordered, or lost
//     with a replica killed between moving the head and writing them.
//   - [Server]: the HTTP handler of `webgate serve`: bearer auth on every
//     endpoint but /healthz and /readyz, the JSON API (/v1/search,
//     /v1/fetch), the MCP tools over streamable HTTP (stateless, so any
//     replica answers any request; each tool call is admitted by the
//     MCP server's own dispatch, so no envelope runs one unadmitted),
//     the hook endpoints, Prometheus /metrics and JSON logs. Private
//     addresses are read only for the hosts allowed, checked on every
//     hop before connecting.
//     The reservation is its one store write before a call's answer; the
//     settlement and the audit entry are written after it, in batches of
//     a few milliseconds' calls ([Server.Close] writes what is left at
//     shutdown; a replica killed loses what was queued).
//   - [ReadUsage]: each token's calls, credits and cache hits per day,
//     for `webgate stats`.
//
// The package never reads the environment or files: the command builds
// the tools (package webtools, over assemble.Build) and the store and
// hands them over.
package gateway
