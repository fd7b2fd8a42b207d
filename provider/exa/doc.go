// Package exa is the webgate backend for the Exa search API
// (https://api.exa.ai). Its [Client] is a [provider.Searcher] (POST /search)
// and a [provider.Extractor] (POST /contents), built with [New] from a
// [provider.KeySource] and a [Config]. Keys are sent in the x-api-key
// header; retries, key rotation and Retry-After are those of
// [provider.HTTP].
//
// This package never reads the environment; all of its inputs are
// arguments and [Config] fields.
//
// # Search
//
// The [provider.Query] fields map onto the /search body as follows.
//
//   - Text → query (required; blank text is a [provider.KindBadRequest]
//     error and no request is sent).
//   - MaxResults → numResults, clamped to 1..100; 0 means
//     [Config.NumResults] (default 10).
//   - IncludeDomains, ExcludeDomains → includeDomains, excludeDomains.
//   - TimeRange → startPublishedDate, computed as now minus the range
//     (ISO 8601, UTC, millisecond precision). Exa filters on its estimate of
//     the publication date; pages without one may be dropped. An unknown
//     range is a [provider.KindBadRequest] error.
//   - Country → userLocation, upper-cased ("de" → "DE"). It biases results
//     towards the country; it does not restrict them. A value that is not
//     two ASCII letters is a [provider.KindBadRequest] error.
//   - Topic news → category "news", in place of [Config.Category]; the
//     general topic leaves the configured category. The finance topic is
//     not honoured: Exa's nearest category, "financial report", holds
//     filings and earnings reports rather than finance news and market
//     pages, so the search runs without a topic.
//   - Language is not honoured: Exa has no language parameter. It is
//     ignored, as a preference the service cannot express.
//
// [Client.Ignores] names the filters a query sets that are not honoured
// (language, the finance topic), and each search's Results.Ignored says
// so.
//
// Every search sends contents explicitly, so cost and size never depend on
// the service's defaults: {"text":{"maxCharacters":N}} with N =
// [Config.SearchMaxCharacters], plus "highlights":true when
// [Config.Highlights] is set, and maxAgeHours / livecrawlTimeout when
// configured. Type and category come from [Config] (the category from the
// query's topic, for news).
//
// Each hit becomes a [provider.Result]: Title, URL (url, or else id),
// Content (the page text), Snippet (the first highlight, else the summary,
// else the first 300 characters of the text), Published (publishedDate;
// zero when null or unparseable) and Score (null is 0). Hits with neither
// url nor id are dropped. The synthesized output of deep searches
// (output.content, a string or an object rendered as compact JSON) becomes
// [provider.Results].Answer. The request id comes from the body's requestId
// or else the x-request-id header.
//
// # Extract
//
// Extract sends {"urls":["<url>"],"text":{"maxCharacters":N}} to /contents with
// N = [Config.ExtractMaxCharacters] (default and maximum 10000, Exa's
// limit), plus maxAgeHours / livecrawlTimeout when configured. Exa returns
// the page's main content as Markdown (its contents reference: text is
// "formatted as markdown", navigation and pop-ups removed), so
// [provider.Page].Format is [provider.Markdown]. A request for
// [provider.Text] gets the same Markdown, labelled as such, since Markdown
// reads as plain text; any other format is a [provider.KindBadRequest]
// error. [provider.ExtractRequest].Query is not sent: Exa would answer it
// with highlights (ranked fragments, billed separately) rather than the
// page, which is what Extract returns.
//
// A 200 answer can still report that the URL failed: the statuses[] entry
// for the URL (matched by id, or the only entry) with status "error" is a
// failure classified by its error tag: CRAWL_TIMEOUT and
// CRAWL_LIVECRAWL_TIMEOUT are [provider.KindTransient] (a later attempt may
// succeed); CRAWL_NOT_FOUND, UNSUPPORTED_URL, SOURCE_NOT_AVAILABLE,
// CRAWL_UNKNOWN_ERROR and unknown tags are [provider.KindUnsupported] (Exa
// cannot read the page; another extractor may). The target site's
// httpStatusCode is quoted in the message. A response with no result, or a
// result with empty text, is [provider.KindUnsupported] too.
//
// # Errors
//
// Exa's error body is {"requestId","error","tag"}. The HTTP status decides
// the kind, as [provider.StatusKind] does, and the tag refines it only where
// Exa's documentation gives it another meaning:
//
//   - 400 (INVALID_REQUEST_BODY, INVALID_URLS, …) → bad-request; on /contents,
//     NO_CONTENT_FOUND → unsupported.
//   - 401 INVALID_API_KEY → auth.
//   - 402 NO_MORE_CREDITS, API_KEY_BUDGET_EXCEEDED, TEAM_BUDGET_EXCEEDED →
//     quota.
//   - 403 FEATURE_DISABLED, INSUFFICIENT_SCOPE and unknown tags → auth (the
//     key or its plan lacks a permission, another key may have it);
//     PROHIBITED_CONTENT → unsupported.
//   - 404 NOT_FOUND → bad-request.
//   - 422 FETCH_DOCUMENT_ERROR → unsupported; other 422s → bad-request.
//   - 429 RATE_LIMIT_EXCEEDED → rate-limited.
//   - 500, 502, 503 SERVICE_OVERLOADED, 504 → transient.
//   - 501 UNABLE_TO_GENERATE_RESPONSE → unknown.
//
// An unknown tag is a generic error of its status. A 2xx body that carries
// a tag or a non-empty error field is a failure classified by the tag alone
// (unknown when the tag is missing or unknown). A 2xx body that is not a
// JSON object is [provider.KindUnknown]. Error messages come from the
// error field, with the key scrubbed; [provider.Error].Tag holds the tag.
//
// # Wire details assumed
//
// The published OpenAPI (1.2.0) and the newer 2.0.0 documentation disagree
// or are silent on several points; the client is written to work with
// either:
//
//   - The resolved search type is read from searchType (OpenAPI) or
//     resolvedSearchType (Python SDK); it is decoded but not exposed.
//   - costDollars is decoded in both shapes (the newer
//     {total, search, contents} and the older
//     {total, breakDown, perRequestPrices, perPagePrices}) and never fails a
//     response. Its total becomes Results.Usage or Page.Usage
//     ([provider.Usage].CostUSD); an answer without a costDollars object
//     leaves Usage nil, and the breakdown is not exposed.
//   - publishedDate, author and score may be null; a leaf field of an
//     unexpected type (text or highlights echoed as a bool or an object, a
//     score sent as a string) decodes to its zero value instead of failing
//     the response.
//   - The text Exa returns is Markdown: its contents reference says so,
//     while the OpenAPI only calls it "the full content text".
//   - text.maxCharacters is capped at 10000 on /contents, as the 2.0.0
//     documentation states; the 1.2.0 OpenAPI gives no maximum.
//   - The search types "deep-lite", "keyword" and "hybrid" are accepted by
//     [New] although the 1.2.0 OpenAPI enum lists only auto, neural, fast,
//     deep, deep-reasoning and instant.
//   - The pairing of 403 and 422 with their tags comes from Exa's error-code
//     descriptions, not from the OpenAPI. Whether a 429 carries Retry-After
//     is undocumented; it is honoured when present.
package exa
