// Package routing decides, before any web provider is called, whether a
// tool call should go somewhere better.
//
// # Docs routes
//
// A [DocsRouter] sends documentation questions to local documentation
// indexes served over MCP. Each [Database] names keywords; a WebSearch whose
// query contains one of them as a whole word (case-insensitive; keywords
// such as "c++", ".net" or "gitlab-ci" match at their edges) is denied with
// instructions naming the MCP tool to call. So that the agent is never
// trapped, the denial is remembered per session in a [State] (files in a
// directory with [StateStore]; package memory keeps it in webgate's store):
// an identical retry (same query, same allowed and blocked domains as sets)
// within the escape window passes through and clears the memory.
//
// # Tool routes
//
// A [ToolRouter] holds named [ToolRoute] values, each a case-insensitive
// regular expression over a WebFetch URL or a Bash command and a message that
// tells the agent exactly what to call instead (for example `gh` for GitHub
// URLs). The first matching route wins. Each route may carry inline
// [RouteTest] cases; [ToolRouter.RunTests] checks them all. A pattern is
// compiled only once a value could match it (one that holds, in any case,
// every literal text the pattern requires), so a router of thousands of
// routes costs little to build and to consult.
//
// Both routers accept the older hooks' files unchanged: a DocSearch
// `docsearch-config.json` ([ParseDocsConfig]) and a Tool Routing
// `tool-routes.json` ([ParseToolRoutes]).
//
// Invalid entries (a database with no keywords, a route whose pattern does
// not compile) are dropped with a warning; the others keep working. The
// package reads only the files and the state directory it is given; it never
// reads the environment.
package routing
