// Package mcpserver is webgate's MCP server, for agents without hooks: it
// offers two tools, web_search and web_fetch, backed by package webtools
// (the configured search and extraction policies, the hooks' SSRF-protected
// probe, the page classifier and the docs and tool routes).
//
// [New] builds an *mcp.Server from plain values; the webgate mcp command
// runs it over stdio. Every failure is a tool error (an isError result)
// whose text names the failure: bad-input, not-configured,
// page-unavailable, or, when providers failed, their user-facing class
// (auth-failed, credit-or-quota-failed, transient-provider-failed,
// unknown). A handler never crashes the server and no output carries an
// API key.
//
// The package never reads the environment or files.
package mcpserver
