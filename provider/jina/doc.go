// Package jina is the webgate backend for Jina AI's Reader and Search: a
// [provider.Extractor] over Jina Reader (https://r.jina.ai) and a
// [provider.Searcher] over Jina Search (https://s.jina.ai), built with
// [New] from a [provider.KeySource] and a [Config]. Keys are sent as
// "Authorization: Bearer"; retries, key rotation and Retry-After are those
// of [provider.HTTP]. The package never reads the environment.
//
// # Keys
//
// The reader works without a key, at Jina's anonymous limits (about 20
// requests a minute per address, no proxies, some domains refused), and
// with a key at the key's. Extract sends a key whenever the key source has
// one; with keys configured it never falls back to anonymous reading, so
// that a revoked or exhausted pool is reported as such. Search requires a
// key: with none, it fails with [provider.KindAuth] without a request.
//
// # What Extract sends
//
// POST / on the reader with the JSON body {"url": ExtractRequest.URL} (an
// absolute http or https URL; anything else is a [provider.KindBadRequest]
// error sent before any request), "Accept: application/json", and the
// options as headers:
//
//   - X-Respond-With: the format. ExtractRequest.Format empty means
//     [Config.ReturnFormat] (default "content": the main content, found by
//     a readability pass, as Markdown); "markdown" asks for "markdown"
//     when that is configured and "content" otherwise; "text" and "html"
//     ask for those. Page.Format is "markdown" for content and markdown.
//   - X-Engine, X-Timeout (whole seconds), X-Target-Selector,
//     X-Remove-Selector, X-Wait-For-Selector, X-Retain-Images, X-No-Cache,
//     X-Max-Tokens and X-Token-Budget, from [Config], each only when set.
//
// The target URL travels in the body rather than in the path, so URLs with
// a query or a fragment need no escaping. ExtractRequest.Query cannot be
// honoured: the reader has no way to select the parts of a page by a
// query, so the whole page (or Config.TargetSelector's part) is returned.
//
// The page is data.content (data.text, data.html for those formats), with
// data.title and data.url (the request's URL when missing). A reader
// answer in its text layout ("Title:", "URL Source:", "Warning:",
// "Markdown Content:") instead of JSON is read too.
//
// # What Search sends
//
// GET /?q=…&count=… on the search endpoint, with "Accept:
// application/json" and, unless [Config.IncludeContent] is set,
// "X-Respond-With: no-content" (titles, URLs and descriptions only,
// without reading every result page).
//
//   - Query.Text becomes q (trimmed; empty is a bad request sent before
//     any request).
//   - Query.MaxResults becomes count, clamped to 1..20; 0 means
//     [Config.MaxResults] (default 10). Jina charges at least 10,000
//     tokens per search whatever the count.
//   - Query.IncludeDomains become repeated site parameters, which Jina
//     joins as "site:a OR site:b".
//   - Query.ExcludeDomains are appended to q as "-site:c", since Jina has
//     no exclusion parameter; its search engine honours the operator.
//   - Query.Country becomes gl, lower case (two letters).
//   - Query.Language becomes hl: the primary language in lower case
//     ("en-US" sends "en"), except zh-cn, zh-tw, pt-br, pt-pt and es-419,
//     which Jina lists with their region.
//
// Query.TimeRange cannot be honoured: Jina Search has no date parameter.
// It is ignored, and results of any date come back. Neither can
// Query.Topic: Jina Search has no news or finance vertical, so those
// topics run a general search. [Client.Ignores] names these filters when
// a query sets them, and each search's Results.Ignored says so.
//
// Each hit becomes a [provider.Result]: "url" (hits without one are
// dropped), "title", "description" as Snippet, "content" as Content (only
// with IncludeContent), and "date" as Published (ISO 8601, "Mar 5, 2024"
// or "3 days ago"; zero when absent or unparseable). Jina sends no score:
// Result.Score is 1/rank.
//
// # Usage
//
// The tokens Jina charged become Page.Usage and Results.Usage
// ([provider.Usage].Tokens): for a page, data.usage.tokens, else
// meta.usage.tokens, else (text layout) the X-Usage-Tokens header; for a
// search, meta.usage.tokens, else the sum of the hits' usage.tokens. An
// answer without a whole, non-negative count leaves Usage nil.
//
// # Failures
//
// The HTTP status decides the kind; Jina's error class name, which becomes
// [provider.Error].Tag, refines it only for 409 and 422. The envelope's
// "message" becomes the message, scrubbed of the key.
//
//	400 ParamValidationError          bad-request
//	401 AuthenticationRequiredError,
//	    AuthenticationFailedError     auth
//	402 InsufficientBalanceError,
//	    InsufficientCreditsError,
//	    TierFeatureConstraintError    quota
//	403 AbuseAlleviationError, …      auth (anonymous access to a domain
//	                                  refused; a key may be let in)
//	409 BudgetExceededError           extract: unsupported; search:
//	                                  bad-request
//	409 LockConflictError             transient
//	413, 422, 451                     extract: unsupported (the page is too
//	                                  large, has no content, or is refused);
//	                                  search: bad-request
//	422 AssertionFailureError         search: an empty result, not a
//	                                  failure ("No search results available")
//	422 DownstreamServiceFailureError,
//	    ExternalServiceFailureError   transient (Jina's upstream failed)
//	429 RateLimitTriggeredError       rate-limited, waiting for Retry-After,
//	                                  or else the body's retryAfter
//	                                  (seconds) or retryAfterDate
//	5xx                               transient (501: unknown)
//
// A 200 answer can still fail:
//
//   - An error envelope delivered with 200 (a "name" ending in "Error", or
//     a "code" of 400 or more, or a five-digit "status" such as 40203) is
//     classified by that code as above.
//   - A reader answer whose data.warning has a line "Target URL returned
//     error <status>…" (the target page answered 4xx or 5xx) or "This page
//     maybe requiring CAPTCHA…" is [provider.KindUnsupported], whatever
//     content came with it: the content is the error or challenge page,
//     not the page asked for. Other warnings ("not yet fully loaded",
//     hidden iframes or shadow DOM, a cached snapshot) leave the page a
//     success.
//   - A reader answer with no data or empty content is
//     [provider.KindUnsupported].
//   - A body that is not a JSON object, or whose data has the wrong type,
//     is [provider.KindUnknown].
//
// # Choices made where Jina is ambiguous
//
//   - Warnings are free text. Only the two forms above are read as the
//     target failing; they are the ones Jina's formatter writes when the
//     target answered an error status or a CAPTCHA.
//   - Jina's reference lists SecurityCompromiseError (45102) under 403,
//     while its code gives it HTTP 451: the HTTP status decides, so it is
//     auth under 403 and unsupported (extract) under 451.
//   - Reader options are sent as headers, which Jina reads for POST as for
//     GET, not as body fields.
//   - Every 422 AssertionFailureError from search is an empty result,
//     including "No content available for query", which Jina sends when
//     it found hits but could read none of their pages (IncludeContent).
package jina
