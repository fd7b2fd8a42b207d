// Package webtools is what webgate's MCP server and its search and fetch
// commands share: one web search and one page read, built from the same
// pieces the hooks use (the search policy and the page reader that
// assemble.Build returns), returning typed results with a text
// rendering for agents and terminals.
//
// # Search
//
// [Tools.Search] runs a query through the configured search policy (any
// provider.Searcher) and notes the local documentation indexes the query
// matches ([routing.DocsRouter]); unlike the hooks, it never refuses to
// search, since a caller of a tool has no way to insist.
//
// # Fetch
//
// [Tools.Fetch] answers from a matching tool route first
// ([routing.ToolRouter]). Otherwise it reads the page with the one page
// reader every frontend of webgate uses ([webpage.Reader]): the
// SSRF-protected probe, the classifier, Markdown conversion of pages
// readable as served, the local tiers (a template-heavy page's structure,
// the data an app shell embeds) and the extraction policy, in the reader's
// order. When nothing could read the page, its own text is returned with a
// note if there is enough of it. [FetchResult.Text] fits long content to a
// size with [webpage.FitContent], keeping the parts most relevant to the
// prompt.
//
// # Paging
//
// A long document can also be read in order, one page at a time:
// [FetchResult.Page] keeps the part of the content from an offset, at
// most a number of characters long ([webpage.CutWindow]; characters are
// counted as agents count them, in UTF-16 code units), and the result
// says the whole length, the range kept and the next offset
// (TotalChars, Offset, NextOffset; "[Characters 8000–16000 of 52311;
// next: offset=16000.]" in the text). A page is cut positionally, never by
// relevance. Every page of a document is cut from the same read: the page
// reader's cache (package memory) answers the reads after the first.
//
// # Filters providers ignore
//
// [SearchResult.Ignored] lists, for each provider that answered, the
// filters of the request it could not apply (time_range, topic, country,
// language), as the search policy reports them (provider.Results.Ignored);
// the text says so in one line ("Filters not applied: ignored by exa:
// topic.").
//
// # Errors
//
// Failures are [*Error] values with a [Reason] (bad input, not configured,
// provider failed, page unavailable) that frontends map to exit codes or
// tool errors. A provider failure's [Error.Class] is the overall
// user-facing class (auth-failed, credit-or-quota-failed, rate-limited,
// transient-provider-failed, unknown), which the frontend states once; the
// message names each failed provider with its own class and never contains
// an API key. [Failure.LegacyClass] gives the older name of a class for
// scripts written against it (rate-limited was reported as
// credit-or-quota-failed). [Tools.Secrets] are scrubbed from every message
// and content as a last line of defence.
//
// # Deadlines
//
// Every search and every fetch has a deadline ([Tools.SearchTimeout],
// [Tools.FetchTimeout]; 25s and 30s by default), which reaches every
// provider request: a provider asking for a wait that does not fit is
// reported at once by its class. Past the deadline the call returns within
// half a second, even if a provider ignores its context, with an [*Error]
// whose TimedOut is set.
//
// # Text from the web
//
// Results hold text under the terminal rule of package sanitize: escape
// sequences, control, bidirectional and tag characters are removed from
// titles, snippets, content, notes and error messages, and a search hit
// whose URL is not an http or https link is dropped. Frontends that hand
// the text to an agent apply the agent rule on top of it (the MCP server
// does); the command line prints it as is.
//
// This package never reads the environment or files: the frontends load
// the configuration and hand over built values.
package webtools
