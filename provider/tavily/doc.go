// Package tavily is the webgate backend for the Tavily search and extract
// API (https://api.tavily.com). [New] returns a [Client] that is both a
// [provider.Searcher] (POST /search) and a [provider.Extractor]
// (POST /extract). Keys are sent as "Authorization: Bearer"; the package
// never reads the environment.
//
// # What Search honours
//
//   - Query.Text becomes "query"; an empty text is a [provider.KindBadRequest]
//     error sent before any request.
//   - Query.MaxResults becomes "max_results", capped at 20; 0 means
//     Config.MaxResults (default 5).
//   - Query.IncludeDomains and ExcludeDomains become "include_domains" and
//     "exclude_domains".
//   - Query.TimeRange becomes "time_range" (day, week, month, year).
//   - Query.Topic becomes "topic" (general, news or finance); empty means
//     Config.Topic (default general). Another value is a
//     [provider.KindBadRequest] error sent before any request.
//   - Query.Country, an ISO 3166-1 alpha-2 code, becomes Tavily's full
//     lowercase country name ("us" → "united states", see [CountryName]).
//     Tavily applies a country only to the "general" topic, so the field is
//     not sent for the news and finance topics. Codes Tavily does not list
//     are dropped.
//   - Each result's "published_date", when Tavily sends one (mostly for the
//     news topic), becomes Result.Published; "content" becomes
//     Result.Snippet and "raw_content" (with Config.IncludeRawContent)
//     Result.Content.
//
// # What it cannot honour
//
//   - Query.Language: Tavily has no language filter or bias. The field is
//     ignored.
//   - Country with the news or finance topic, and a country Tavily does
//     not list (see above).
//
// [Client.Ignores] names these filters when a query sets them, and each
// search's Results.Ignored says so.
//
// # What Extract honours
//
// ExtractRequest.URL is sent as the single entry of "urls";
// ExtractRequest.Format as "format" (markdown or text). ExtractRequest.Query
// is sent as "query", with Config.ExtractChunks as "chunks_per_source", only
// when ExtractChunks is set: Tavily then returns just that many chunks of
// the page, those relevant to the query. By default the whole page comes
// back. Tavily returns no title: Page.Title is the
// page's first Markdown heading, or empty. A URL Tavily lists in
// "failed_results", or returns with no content, is a
// [provider.KindUnsupported] error.
//
// # Usage
//
// Every search and extraction sends "include_usage": true, and the
// answer's "usage.credits" becomes Results.Usage or Page.Usage
// ([provider.Usage].Credits): 1 or 2 credits a search by depth; an
// extraction is billed per five pages read, so one page often reports 0.
// An answer without a credits figure leaves Usage nil.
//
// # Errors
//
// Tavily's statuses map to kinds as follows: 400 bad request, 401 and 403
// auth, 429 rate limited (honouring the Retry-After header), 432 (plan or
// key limit) and 433 (pay-as-you-go limit) quota, 5xx transient. The
// message comes from the body's "detail.error", a plain "detail" string, or
// the keyless "error" envelope, with the API key scrubbed; "request_id" is
// kept when present. Responses are decoded tolerantly: null fields, numbers
// sent as strings and fields of an unexpected type read as empty values
// instead of failing the search.
package tavily
