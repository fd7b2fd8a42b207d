// Package providertest is the conformance suite every webgate backend runs.
//
// A backend's test describes its wire format in a [Wire] — how to build the
// backend against a base URL, what its provider answers in each situation,
// and how to check what the backend sends — and calls [Run]:
//
//	func TestConformance(t *testing.T) {
//		spec, err := providertest.LoadOpenAPI("testdata/openapi.json")
//		if err != nil {
//			t.Fatal(err)
//		}
//		providertest.Run(t, providertest.Wire{
//			Name:           "tavily",
//			NewSearcher:    newSearcher,
//			SearchPath:     "/search",
//			ValidateSearch: spec.RequestValidator("POST", "/search"),
//			// …
//		})
//	}
//
// # Cases
//
// Run starts a fake provider on 127.0.0.1 for each case, builds the backend
// with [HTTPConfig] (3 attempts, 1–5ms backoff) and asserts the error kind
// ([provider.KindOf]), the number of requests the fake received (and that
// [provider.Error].Attempts agrees), a time bound, and that no API key
// appears in the error (see [CheckNoSecrets]). For search, and for extract
// when the Wire has an extractor:
//
//   - success: every result has a title and a URL and names the backend;
//     the request passes the Wire's validators and carries the key;
//   - empty results (search): no error, zero results;
//   - a query that sets every [provider.Query] field (search): a valid
//     request, or a KindUnsupported/KindBadRequest error sent before any
//     request;
//   - every Fault of the Wire, with exactly one attempt for kinds that are
//     not retryable;
//   - 429 with Retry-After in seconds, then success after the wait;
//   - 429 with Retry-After as an HTTP date, then success after the wait;
//   - 429 forever: KindRateLimited after every attempt;
//   - 429 asking for more than MaxRetryAfter, or past the caller's
//     deadline: KindRateLimited at once;
//   - HTTP 500, 502, 503 and 504: KindTransient after every attempt;
//   - connection refused: KindTransient;
//   - a server that hangs, or stalls mid-body, past the caller's deadline:
//     KindTransient shortly after the deadline;
//   - malformed JSON, and a body over MaxBodyBytes, in a 200 answer:
//     KindUnknown after one attempt; an endless body returns promptly;
//   - a URL the provider reports as failed (extract): KindUnsupported;
//   - a 200 answer carrying an error field (search): the Wire's kind;
//   - a pool whose first key is revoked: success with the second key;
//   - a pool whose first key is rate limited: success with the second key,
//     without waiting;
//   - a pool whose keys are all out of quota: KindQuota after one request
//     per key;
//   - no key configured: KindAuth without a request;
//   - a context canceled before the call: KindCanceled without a request;
//   - concurrent calls from several goroutines.
//
// # Keys
//
// The pool cases and the no-key case above are those of an operation that
// requires a key, the zero [KeyMode] of Wire.SearchKeys and
// Wire.ExtractKeys. An operation whose key is [KeyOptional] or that uses
// [KeyNone] must instead succeed with no key configured, with a request
// that carries no key. For [KeyNone] the pool cases are skipped, and every
// request the success cases check must carry no key, although the backend
// is built with a pool holding [Secrets].
//
// The error bodies the suite builds with the Wire's ErrorBody echo the
// request's API key, as some providers do, so a backend must scrub keys
// from provider messages ([provider.Message]).
//
// # Specs
//
// [OpenAPI] checks request and response bodies against a provider's
// published OpenAPI document, so a fake server's answers and a backend's
// requests cannot drift from the real wire format unnoticed.
//
// [Server] is the recording fake the suite uses; backend tests use it for
// their own provider-specific cases.
package providertest
