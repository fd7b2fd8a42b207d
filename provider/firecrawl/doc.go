// Package firecrawl is the webgate backend for the Firecrawl v2 API
// (https://api.firecrawl.dev, or a self-hosted instance). [New] returns a
// [Client] that is both a [provider.Searcher] (POST /v2/search) and a
// [provider.Extractor] (POST /v2/scrape). Keys are sent as
// "Authorization: Bearer"; retries, key rotation and Retry-After are those
// of [provider.HTTP]. The package never reads the environment, and no
// error it returns contains a key.
//
// Requests follow Firecrawl's official v2 OpenAPI document: formats and
// sources are sent in their object form ({"type":"markdown"}).
//
// # What Search sends
//
//   - Query.Text becomes "query"; an empty text, or one longer than
//     Firecrawl's 500 characters, is a [provider.KindBadRequest] error sent
//     before any request.
//   - Query.MaxResults becomes "limit", capped at 100; 0 means
//     Config.MaxResults (default 10).
//   - "sources" is always [{"type":"web"}].
//   - Query.IncludeDomains becomes "includeDomains" and ExcludeDomains
//     "excludeDomains", each entry reduced to a host name. Firecrawl
//     accepts only one of the two lists: when both are set, includeDomains
//     is sent and results on an excluded domain (or a subdomain of one) are
//     dropped from the answer, so fewer results than asked for may come
//     back.
//   - Query.TimeRange becomes "tbs": qdr:d, qdr:w, qdr:m or qdr:y. An
//     unknown range is a [provider.KindBadRequest] error.
//   - Query.Country becomes "country", upper-cased ("uk" → "GB"); a value
//     that is not two ASCII letters is a [provider.KindBadRequest] error.
//   - With Config.ScrapeResults, "scrapeOptions" asks for every result's
//     page as Markdown, which becomes Result.Content (extra credits).
//
// Each web result becomes a [provider.Result]: URL (url, else the
// metadata's url or sourceURL), Title (title, else the metadata's title,
// else the URL), Snippet (description) and Content (markdown, capped at
// Config.MaxCharacters). Results without a URL are dropped.
// Results.RequestID is the search's id.
//
// # What Extract sends
//
// Extract sends {"url", "formats":[{"type":"markdown"}], "onlyMainContent"}
// (true unless Config.OnlyMainContent says otherwise), plus "timeout",
// "maxAge" and "proxy" when Config sets them. Page.Content is the
// Markdown, capped at Config.MaxCharacters; Page.Title is the page's
// metadata title (the first one when Firecrawl sends a list), else its
// og:title, else the first Markdown heading. ExtractRequest.URL must be an
// absolute http(s) URL.
//
// Firecrawl answers 200 even when the target page failed. A scrape whose
// metadata.statusCode is 400 or more, or whose metadata.error is set
// without a successful statusCode, or which returns no Markdown, is a
// [provider.KindUnsupported] error quoting the site's status and
// Firecrawl's message; so is a 200 with "success": false (a DNS failure of
// the target, for one).
//
// # What it cannot honour
//
//   - Query.Language: Firecrawl's search has no language parameter. It is
//     ignored.
//   - Query.Topic: only web results are asked for and read, so the news
//     and finance topics run a web search.
//   - IncludeDomains and ExcludeDomains together (see above).
//   - Firecrawl returns no relevance score, publication date or generated
//     answer for web results: Result.Score is 1/rank in Firecrawl's order,
//     Result.Published is zero and Results.Answer empty.
//   - ExtractRequest.Format text: Firecrawl has no plain-text format, so
//     the Markdown is returned, labelled [provider.Markdown] (Markdown reads
//     as text). Any other format is a [provider.KindBadRequest] error.
//   - ExtractRequest.Query is not sent: Firecrawl would answer it with
//     query-relevant highlights rather than the page, which is what Extract
//     returns.
//
// [Client.Ignores] names the query filters among these that a query sets
// (language, topic), and each search's Results.Ignored says so.
//
// # Errors
//
// Firecrawl's error body is {"success":false,"error":"…"}, with a "code"
// on some errors. A code Firecrawl documents or uses decides the kind
// whatever the status: BAD_REQUEST and other request errors are
// bad-request; UNKNOWN_ERROR, SCRAPE_TIMEOUT and Firecrawl's own proxy
// failures transient; CONCURRENCY_QUEUE_TIMEOUT (the plan's concurrent
// browsers are all busy) rate-limited; and, for an extraction, the codes
// that say the page cannot be read (SCRAPE_ALL_ENGINES_FAILED,
// SCRAPE_SITE_ERROR, SCRAPE_SSL_ERROR, SCRAPE_DNS_RESOLUTION_ERROR,
// SCRAPE_UNSUPPORTED_FILE_ERROR, UNSUPPORTED_SITE, …) unsupported. Without
// such a code the status decides:
//
//	400, 404, 409   bad-request
//	401             auth
//	402             quota (insufficient credits)
//	403             unsupported for extract (Firecrawl no longer supports
//	                the site); auth for search
//	408, 5xx        transient (501: unknown)
//	429             rate-limited
//
// A 200 with "success": false is unsupported for extract and unknown for
// search, unless its code says otherwise. The message is the body's
// "error" (or "message") with the key scrubbed; [provider.Error].Tag is
// the code.
//
// A 429 waits for its Retry-After header when it has one. Firecrawl's
// documented 429 has none: its wait is written in the message ("… please
// retry after 15s, resets at …"), and some answers carry a
// "retry_after_seconds" field. Without a usable header,
// [provider.Error].RetryAfter is that field, else the seconds in the
// message; the wait is read from the text, the kind never is.
//
// # Usage
//
// A search's "creditsUsed" and a scrape's "metadata.creditsUsed" become
// Results.Usage and Page.Usage ([provider.Usage].Credits); an answer
// without the figure leaves Usage nil. The scrape's figure is not in
// Firecrawl's OpenAPI document, but its answers carry it.
//
// # Self-hosted instances
//
// Set Config.BaseURL to the instance's root ("http://localhost:3002"); a
// trailing /v2 is accepted. An instance that runs without authentication
// ignores the key, but one must still be configured: requests without a
// key are not sent.
//
// # Wire details assumed
//
// When "limit" exceeds the credits left, Firecrawl may lower it instead of
// failing, so a search can return fewer results on a nearly spent plan.
// Error codes other than BAD_REQUEST, SCRAPE_TIMEOUT and UNKNOWN_ERROR, and
// the retry_after_seconds field, come from Firecrawl's source rather than
// its OpenAPI document.
package firecrawl
