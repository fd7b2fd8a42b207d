// Package websearchapi is the WebSearchAPI.ai backend: a [provider.Searcher]
// over POST /ai-search and a [provider.Extractor] over POST /scrape, both
// authenticated with "Authorization: Bearer <key>".
//
// Build a [Client] with [New] from a [provider.KeySource] and an optional
// [Config]; it classifies every failure into a [provider.Kind] and leaves
// retries, Retry-After and key rotation to [provider.HTTP]. The package
// never reads the environment; a key never appears in an error it returns.
//
// # Query fields
//
// Search honours every [provider.Query] field but Topic:
//
//   - Text is sent as "query" (trimmed; empty is a bad request).
//   - MaxResults is sent as "maxResults": 0 means Config.MaxResults
//     (default 5); values above 20, the API's maximum, are clamped to 20.
//     Extra hits beyond the number asked for are dropped.
//   - IncludeDomains and ExcludeDomains are sent as "includeDomains" and
//     "excludeDomains", with blanks, schemes and trailing slashes removed.
//   - TimeRange is sent as "timeframe" ("day", "week", "month", "year");
//     any other value is a bad request.
//   - Country is sent lower-case as "country"; it must be two letters.
//   - Language is sent as "language"; it must be two letters, and a
//     BCP 47 tag ("en-US") is cut to its primary language ("en").
//
// Query.Topic cannot be honoured: /ai-search has no news or finance
// vertical, so those topics run a general search. [Client.Ignores] says
// so when a query sets one, and so does each search's Results.Ignored.
//
// Search cannot express a date range other than those four, an exact
// phrase, or a file type: [provider.Query] has no such fields, and the
// community-reported "sortBy", "exactTerms" and "fileType" fields are not
// sent. Results.Answer is filled only when Config.IncludeAnswer is set;
// Result.Content only when Config.IncludeContent is set.
//
// Extract honours ExtractRequest.URL (an absolute http or https URL) and
// ExtractRequest.Format ("markdown", "text", and also "html"; empty means
// Config.ReturnFormat, default "markdown"). It cannot honour
// ExtractRequest.Query: /scrape has no way to rank or select the parts of
// a page by a query, so the whole page is returned.
//
// # Results
//
// Result.Snippet is the hit's "description", Result.Content its "content".
// Result.Score is the hit's "score" when present, otherwise 1/position
// (1, 0.5, 0.33, …), so it always falls as rank rises. Result.Published is
// parsed from "date" in any of many forms (RFC 3339, RFC 1123, "2024-03-05",
// "Mar 5, 2024", "3 days ago", Unix seconds); a date that cannot be parsed
// leaves it zero and is never an error.
//
// # Failures
//
// The kind of a failure comes from the HTTP status:
//
//	400        bad-request
//	401, 403   auth
//	402        quota
//	404, 410, 415, 422, 451
//	           bad-request for search; unsupported for extract (the
//	           statuses describe the target page)
//	408, 5xx   transient (501: unknown)
//	429        rate-limited
//
// A 429 is always rate-limited, even when its message speaks of a monthly
// quota: message text is never interpreted. Both kinds rotate to the next
// key and map to the same user-facing class, so the only cost of a quota
// reported as 429 is at most [provider.HTTPConfig.MaxAttempts] tries on the
// last key.
//
// A 200 is a failure when its body has a non-empty "error", "success":
// false, or a status-like "code" (or "status", "statusCode") outside 2xx;
// the kind is then that code's kind, and [provider.KindUnknown] when there
// is no code. A search body with no "organic" list but a "message" is a
// failure too. A scrape that returns no content is [provider.KindUnsupported].
// A body that is not a JSON object, or whose "organic" is not a list, is
// [provider.KindUnknown]. Error messages are the provider's "error"
// (a string, or an object's "message"), "message" or "detail", cut short
// and scrubbed of the key.
//
// # Wire details assumed
//
// Only the /ai-search endpoint, its Bearer header and the request fields
// query, maxResults, includeContent, country, language, timeframe,
// includeAnswer and safeSearch are published by the provider. Everything
// below is UNCONFIRMED, taken from independent client code that agrees on
// it, and decoded tolerantly for that reason:
//
//   - Request fields contentFormat (markdown|text|html), contentLength
//     (short|medium|long), includeDomains and excludeDomains, and
//     maxResults' range 1–20. includeContent is always sent, because the
//     API's default for it is not known; other optional fields are sent
//     only when set.
//   - The response shape {"searchParameters","organic":[{"title","url",
//     "description","content","position","score","date"}],"answer",
//     "responseTime"}. It resembles a Google SERP API's, so "link" and
//     "snippet" are read when "url" and "description" are missing;
//     "responseTime" is not used and may have any type; numbers written as
//     strings and nulls are accepted anywhere.
//   - POST /scrape with {"url"} and the output controls returnFormat,
//     engine (browser|direct|cf-browser-rendering), timeout (seconds),
//     targetSelector and removeSelector. Client code disagrees on whether
//     these travel in the body or as Jina-Reader-style headers, so both are
//     sent: X-Return-Format, X-Engine, X-Timeout, X-Target-Selector and
//     X-Remove-Selector carry the same values as the body.
//   - The scrape response {"code":200,"data":{"title","url","content"}},
//     with data.text as a fallback for data.content, the top level as a
//     fallback for a missing "data", and a string "data" taken as the
//     content. A "status" such as 20000 that is not an HTTP status is
//     ignored.
//   - Error bodies {"error":"…"}, {"message":"…"} or
//     {"error":{"message":"…"}}, and the status meanings in the table
//     above. No Retry-After header is documented; one is honoured if sent.
//   - The request id, if any, in an X-Request-Id header or a "requestId"
//     body field.
package websearchapi
