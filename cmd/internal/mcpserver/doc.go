// Package mcpserver is webgate's MCP server, for agents without hooks: it
// offers two tools, web_search and web_fetch, backed by package webtools
// (the configured search policy, the page reader every frontend uses, and
// the docs and tool routes).
//
// web_search takes a query and optionally allowed_domains,
// blocked_domains, max_results, time_range (day, week, month or year) and
// topic (general, news or finance); its answer names the providers that
// could not apply a filter ("Filters not applied: ignored by exa:
// topic."). web_fetch takes a url and optionally a prompt, an offset and
// max_chars. Without an offset, a long page is cut to the parts most
// relevant to the prompt, within the server's cap ([Options.MaxChars]) or
// max_chars characters of the page's text; with an offset (0 for the
// beginning), the page is read in order: the answer holds at most
// max_chars characters of the page's text from the offset (by default,
// and at most, what fits in the cap), and ends with the range shown, the
// page's total length and the next offset ("[Characters 8000–16000 of
// 52311; next: offset=16000.]"). Characters are counted as JavaScript
// counts them (UTF-16 code units). Every page of one document is cut from
// the same read; with the page reader's cache, the pages after the first
// cost no new read.
//
// Both tools answer with text only, and declare no output schema: the
// clients tried (Claude Code, Codex) give the model a tool's structured
// content, as JSON, instead of its text when there is some.
//
// [New] builds an *mcp.Server from plain values; the webgate mcp command
// runs it over stdio. Every failure is a tool error (an isError result)
// whose text starts with the tool and one label: bad-input,
// not-configured, page-unavailable, or, when providers failed, their
// overall user-facing class (auth-failed, credit-or-quota-failed,
// rate-limited, transient-provider-failed, unknown), or timeout when the
// call ran out of time — "web_search failed (rate-limited): every provider
// failed: tavily. …". The class is said once: a provider that failed
// another way is named with its own ("tavily, exa (auth-failed)"). A
// handler never crashes the server and no output carries an API key.
//
// # Deadlines
//
// Each web_search call runs within the Tools' SearchTimeout and each
// web_fetch call, probe and extraction included, within its FetchTimeout
// (by default 25s and 30s, see package webtools); a client's cancellation
// ends the call at once. The deadline reaches every provider request, so a
// provider that answers 429 asking for a wait longer than half of the time
// left is reported as rate-limited at once rather than waited for.
//
// # Untrusted content
//
// Search results and page content come from third parties. Every result
// starts with a label saying so (sanitize.UntrustedNotice), and its text
// gets package sanitize's agent rule: escape sequences, control,
// bidirectional and tag characters removed, results without an http or
// https URL dropped, and tags that imitate the framing of an agent's
// runtime (such as a closing system-reminder tag) neutralised.
//
// The package never reads the environment or files.
package mcpserver
