// Package brave is the webgate backend for the Brave Search API
// (https://api.search.brave.com). [New] returns a [Client] that is a
// [provider.Searcher] over GET /res/v1/web/search. Keys are sent in the
// X-Subscription-Token header; retries, key rotation and Retry-After are
// those of [provider.HTTP]. Brave has no page-reading endpoint, so the
// client is not a [provider.Extractor]. The package never reads the
// environment, and no error it returns contains a key.
//
// # What Search sends
//
// Every search sends q, count, result_filter=web (only the web vertical is
// read) and text_decorations=false (plain snippets without highlight
// markup). The [provider.Query] fields map as follows.
//
//   - Text becomes q; an empty text is a [provider.KindBadRequest] error
//     sent before any request.
//   - MaxResults becomes count, capped at 20; 0 means Config.MaxResults
//     (default 10). Brave may return fewer.
//   - IncludeDomains and ExcludeDomains, which Brave has no parameter for,
//     become operators appended to q: "site:a OR site:b" and "-site:c".
//     Because Brave does not document how it groups OR with the rest of
//     the query, the answer is also filtered: a result whose host is not
//     an included domain (or a subdomain of one), or is an excluded one, is
//     dropped, so a filtered search may return fewer results than asked
//     for. When the operators would push q past Brave's limits (400
//     characters, 50 words), q is sent without them and only the answer is
//     filtered.
//   - TimeRange becomes freshness: pd, pw, pm (31 days) or py. An unknown
//     range is a [provider.KindBadRequest] error.
//   - Country becomes country, upper-cased ("de" → "DE", "uk" → "GB"; see
//     [CountryCode]). It biases results; it does not restrict them.
//   - Language becomes search_lang, mapped onto Brave's codes ("ja" → "jp",
//     "zh-TW" → "zh-hant", "pt" → "pt-br"; see [SearchLang]).
//
// Config.SafeSearch is sent as safesearch and Config.ExtraSnippets as
// extra_snippets=true.
//
// # What it cannot honour
//
//   - A country or a language Brave does not list ([Countries],
//     [SearchLangs]) is not sent; the search runs without that preference.
//   - Query.Topic: only the web vertical is read, so the news and finance
//     topics run a web search.
//   - A domain filter cannot be sent as a parameter; see above for how it
//     is approximated in q and enforced on the answer.
//   - Brave returns no relevance score and no generated answer:
//     Result.Score is 1/rank in Brave's order and Results.Answer is empty.
//   - Brave returns no page text: Result.Content holds the extra snippets
//     when Config.ExtraSnippets is set, and is empty otherwise.
//   - Result.Published comes from page_age, or from age when that is a
//     date; a relative age ("2 days ago") leaves it zero.
//
// [Client.Ignores] names the filters a query sets that are not applied
// (such a country, language or topic), and each search's Results.Ignored
// says so.
//
// Titles and descriptions are HTML-unescaped (Brave sends entities such as
// &#x27;) and stripped of <strong> markup. A result without a URL is
// dropped; one without a title is titled by its URL.
//
// # Errors
//
// Brave's error body is {"type":"ErrorResponse","error":{"id","status",
// "code","detail","meta"}}; a list under "errors", as the reference's
// examples print it, is read too. The code decides the kind whatever the
// status, since Brave answers a bad key with 422 and both rate limiting
// and an exhausted quota with 429:
//
//	SUBSCRIPTION_TOKEN_INVALID   auth (a missing or invalid key; HTTP 422)
//	SUBSCRIPTION_NOT_FOUND       auth (no subscription for the key; HTTP 404)
//	OPTION_NOT_IN_PLAN           auth (the key's plan lacks an option)
//	RATE_LIMITED                 rate-limited (HTTP 429)
//	QUOTA_LIMITED                quota (HTTP 429: the plan's quota is spent)
//	CREDIT_EXHAUSTED             quota
//
// Without one of these codes the status decides, as [provider.StatusKind]
// does: 401 and 403 auth, 402 quota, 429 rate-limited, 408 and 5xx
// transient (501 unknown), other 4xx (422 parameter validation among them)
// bad-request.
// A 2xx body that is an error envelope is a failure classified by its code
// (unknown without one). The message is the error's detail and
// [provider.Error].Tag its code; [provider.Error].RequestID is the error's
// id.
//
// A rate-limited answer waits for its Retry-After header when it has one.
// Brave documents none; instead every answer carries X-RateLimit-Limit,
// X-RateLimit-Remaining, X-RateLimit-Reset and X-RateLimit-Policy, each
// with one comma-separated value per window ("1, 15000": per second, per
// month). Without a Retry-After, [provider.Error].RetryAfter is the reset
// of the shortest window whose remaining count is 0 (a limit of 0 means
// unlimited). A monthly window that is spent therefore ends the request at
// once instead of being retried ([provider.HTTPConfig].MaxRetryAfter).
//
// # Wire details assumed
//
// The OPTION_NOT_IN_PLAN and CREDIT_EXHAUSTED codes, and the code of a 422
// parameter-validation error, are not confirmed by Brave's reference; they
// are handled defensively. The country and search_lang lists are those of
// Brave's own MCP server.
package brave
