// Package policy combines search and extraction providers into one
// [provider.Searcher] or [provider.Extractor]. Policies work only against
// the provider interfaces and error kinds; they never look at a backend's
// wire format or error text. A policy is itself a Searcher or Extractor and
// a [provider.Namer], so policies compose: a [Fallback] may hold a
// [Parallel], and so on.
//
// # Search policies
//
// [Parallel] (mode "parallel", the default) queries every provider at once
// and returns one list merged by reciprocal rank fusion: a result at rank r
// (from 1) of a provider's list scores 1/(60 + r), and a result's score is
// the sum over the lists that hold it. Results are deduplicated by
// [NormalizeURL], which ignores case, default ports, trailing slashes,
// fragments, "www." and tracking parameters such as utm_* and gclid; each
// merged result keeps the URL and title of its best-ranked occurrence, the
// longest snippet and content, and every provider that returned it
// (Result.Providers). Equal scores are ordered by best rank, then by
// provider order. Each provider has its own deadline inside the budget; at
// that deadline Parallel answers with what is ready and reports the others
// as timed out. The merged list holds at most the query's MaxResults, else
// [DefaultMaxResults], lowered to [SearchConfig.MaxResults] when set.
//
// [Fallback] (mode "fallback") tries the providers in order and returns the
// first success, reporting the failures before it in Results.Failures. It
// moves on after a failure of any kind and stops when the caller cancels. A
// hedge delay ([SearchConfig.Hedge]) starts the next provider early when
// the running one is slow; the first success wins and the others are
// canceled. An empty answer is a success, but by default Fallback keeps it
// aside and tries the next provider, returning it only when nobody finds
// anything ([SearchConfig.AcceptEmpty] makes the first empty answer final).
//
// Mode "single" uses only the first provider, with Fallback's budget,
// domain enforcement and tracing. [NewSearch] builds any mode; [ParseMode]
// reads a mode name from configuration.
//
// Both search policies pass the caller's include and exclude domains to
// every provider and enforce them again on what comes back
// ([FilterDomains]), so a provider that ignores a filter cannot leak
// results.
//
// # Extraction
//
// [Extraction] tries extractors in order and returns the first page with
// content; a page whose content is blank is a failure of kind unsupported.
// With a primary ([ExtractConfig.Primary]) the primary goes first; without
// one the first extractor is picked at random for each call, to spread
// credit use, and the others follow in their order.
//
// # Deadlines
//
// Every policy has an overall budget ([DefaultBudget] for a search,
// [DefaultExtractBudget] for an extraction, unless configured,
// shortened by a deadline on the caller's context), and every provider
// attempt has its own deadline inside it. A policy never waits for a
// provider beyond that deadline, even one that ignores its context: it
// reports the provider as timed out ([provider.Failure].TimedOut, kind
// transient) and answers. By default [Parallel] gives every provider the budget less a
// small margin, and [Fallback] and [Extraction] give each attempt an even
// share of what is left of the budget among the providers not yet tried.
//
// # Failures
//
// When some providers fail and others succeed, the failures come back in
// Results.Failures, each with its kind. When every provider fails, the
// error is an [*AllFailedError] listing every provider's failure;
// [provider.KindOf] of it is the common kind when all agree, otherwise the
// most actionable one present (transient, then rate-limited, quota, auth,
// bad-request, unsupported, unknown). When the caller's context is
// canceled, a policy returns at once with an error of kind canceled. A
// provider that panics is recovered and reported with kind unknown.
//
// # Configuration and tracing
//
// Constructors take a config struct ([SearchConfig], [ExtractConfig]); nil
// or zero fields mean the defaults, and the caller's struct is never
// modified. [DefaultSearchMode] is the default mode. Which providers take
// part, and in which order, is the caller's choice (package config builds
// them from the configuration).
//
// An [Observer] in the config receives a [Trace] of every call — which
// providers were tried, each attempt's kind and latency — so that a
// frontend can print it in debug mode. Policies print nothing themselves,
// never read the environment, and never put API keys in errors or traces.
package policy
