// Package searxng is the webgate backend for a SearXNG metasearch instance:
// a [provider.Searcher] over GET /search?format=json. SearXNG has no API
// keys: [New] takes the instance's base URL in [Config] (required; there is
// no default public instance) and sends no key. Retries and Retry-After are
// those of [provider.HTTP]. The package never reads the environment.
//
// The instance must serve JSON: its settings.yml has to list json under
// search.formats, which the shipped default does not, and most public
// instances do not either.
//
// # What Search sends
//
// One GET /search with the URL query parameters below; the request has
// no body and no key.
//
//   - q: Query.Text (trimmed; empty is a [provider.KindBadRequest] error
//     sent before any request), followed by the domain filters as search
//     operators: " site:a OR site:b" for IncludeDomains and " -site:c" for
//     each of ExcludeDomains. SearXNG has no domain parameter; the
//     operators work only with engines that understand them (Google, Bing,
//     DuckDuckGo, Brave and others), so Search also drops every result
//     whose host is not, or is not under, an included domain, or is under
//     an excluded one. Domains are lower-cased, and a scheme, a path and a
//     port are removed.
//   - format=json and pageno=1, always.
//   - time_range: Query.TimeRange ("day", "week", "month", "year"); any
//     other value is a bad request. Engines without time-range support
//     ignore it.
//   - language: Query.Language, with Query.Country as its region
//     ("en" and "us" give "en-US"; "auto" is passed as is). It must match
//     SearXNG's ^[a-z]{2,3}(-[a-zA-Z]{2})?$, or the search is a bad request
//     sent before any request. A region in Query.Language ("en-GB") is
//     kept unless Query.Country replaces it.
//   - categories, engines: [Config.Categories] and [Config.Engines],
//     comma-joined, when set. Query.Topic news sends categories=news in
//     place of Config.Categories (SearXNG's news category); the general
//     topic leaves the configured categories.
//   - safesearch: [Config.SafeSearch] (0, 1 or 2), when set.
//   - timeout_limit: [Config.TimeoutLimit] in seconds, when set.
//
// The query text is passed as is, so SearXNG's own syntax in it ("!ddg",
// ":fr") is interpreted by the instance; an external bang ("!!g") answers
// with a redirect, which is not followed and fails as
// [provider.KindUnknown].
//
// # What it cannot honour
//
//   - Query.MaxResults: SearXNG has no result-count parameter. Search
//     returns at most MaxResults of the one page the instance answers with
//     (0 means [Config.MaxResults], default 10); a page holds as many
//     results as its engines found, often 10 to 30, so fewer may come
//     back.
//   - Query.Country without Query.Language (or with the language
//     "auto"): SearXNG has no country parameter, only a region inside the
//     language, so a country alone is not sent.
//   - Query.Topic finance: SearXNG has no finance category, so the search
//     runs in the configured categories.
//   - The domain filters are honoured exactly on the results returned, but
//     only by filtering: when the engines ignore the site: operators,
//     filtering leaves fewer results.
//
// [Client.Ignores] names the filters a query sets that are not sent (such
// a country, the finance topic), and each search's Results.Ignored says
// so.
//
// # Results
//
// Each hit becomes a [provider.Result]: "url" (hits without one are
// dropped), "title", "content" as Snippet (it may be empty), "score"
// (SearXNG's Σ weight·occurrences/position over the engines that found
// the hit; results come ordered by it) and "publishedDate" (ISO 8601,
// usually without a zone and then read as UTC; "pubdate" when it is
// missing; zero when neither parses). Result.Content stays empty: SearXNG
// returns no page text. The first entry of "answers" (an object's
// "answer", or a string on older instances) becomes Results.Answer.
// "parsed_url", "engines", "positions", "infoboxes", "suggestions",
// "corrections" and "number_of_results" are not used.
//
// # Failures
//
//	403        bad-request: the instance does not serve JSON (see below)
//	400        bad-request ({"error":"No query"}, an invalid parameter)
//	429        rate-limited: the instance's limiter, plain text, no
//	           Retry-After ("Too Many Requests", "IP is on BLOCKLIST")
//	500        transient ({"error":"search error"})
//	other      as [provider.StatusKind]: 401 auth, 502–504 transient, …
//	3xx        unknown (redirects are not followed)
//
// SearXNG answers 403, with an HTML page, only when the requested format
// is not enabled. That is reported as [provider.KindBadRequest] with the
// message "the SearXNG instance does not serve JSON: enable the json
// format under search.formats in its settings.yml": it is a configuration
// error that no retry can fix, and it is not auth, because no key is
// involved and another key cannot help. A 403 from a proxy in front of the
// instance gets the same message.
//
// A 200 whose "results" is empty while "unresponsive_engines" is not is
// a failure of kind [provider.KindTransient], with the message "no
// results, and these engines failed: google (CAPTCHA), …": SearXNG
// answers so when every engine failed, which is not an empty result. Its
// retries are those of any transient failure; an engine SearXNG has
// suspended stays suspended for a while, so they may fail alike. A 200
// with results and some unresponsive engines is a success.
//
// SearXNG's limiter (server.limiter: true) answers 429 to programs: it
// wants text/html in Accept, an Accept-Language header, and allows few
// non-HTML requests per address and hour. This backend sends
// "Accept: application/json" and does not pretend to be a browser; an
// instance it uses should exempt the caller's address (pass_ip in
// limiter.toml) or run without the limiter.
//
// A 200 body that is not a JSON object (an HTML page, when base_url points
// elsewhere), or whose "results" is not a list, is [provider.KindUnknown].
//
// # Choices made where SearXNG is ambiguous
//
//   - Several included domains are joined with OR, without parentheses;
//     the engines that support site: give OR precedence over the implied
//     AND of the other words.
//   - The shape of "answers" is not fixed across versions: both objects
//     with "answer" and plain strings are read.
//   - A trailing "/search" in base_url is removed, since the base URL is
//     often copied from a search page.
package searxng
