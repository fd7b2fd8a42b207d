// Package webtools is what webgate's MCP server and its search and fetch
// commands share: one web search and one page read, built from the same
// pieces the hooks use, returning typed results with a text rendering for
// agents and terminals.
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
// ([routing.ToolRouter]). Otherwise it reads the page itself with the hooks'
// SSRF-protected probe ([hooks.Probe]) and classifies its HTML (package
// classify). Fetch-readable pages are converted to Markdown here
// (package markdown); template-heavy and browser-render-required pages, and
// pages the probe could not read, go to the extraction policy. When
// extraction fails, the page's own text is returned with a note if there is
// enough of it.
//
// # Errors
//
// Failures are [*Error] values with a [Reason] (bad input, not configured,
// provider failed, page unavailable) that frontends map to exit codes or
// tool errors. Their messages name each failed provider's user-facing class
// (auth-failed, credit-or-quota-failed, transient-provider-failed, unknown)
// and never contain an API key; [Tools.Secrets] are scrubbed from every
// message and content as a last line of defence.
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
