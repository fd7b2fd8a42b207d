// Package hooks implements the hook protocols of Claude Code, GitHub Copilot
// CLI and VS Code agent hooks for webgate's two hooks: web search and web
// fetch.
//
// # Protocol
//
// A hook process reads one JSON payload on stdin and answers with at most
// one JSON object on stdout. [ParseInput] decodes every runtime's shape
// leniently into an [Input]: Claude Code ("hook_event_name", "tool_name",
// "tool_input"; Copilot CLI's PascalCase-event payloads are the same shape),
// Copilot CLI's camelCase payloads ("toolName", "toolArgs" as a JSON string)
// and VS Code ("hookEventName", "sessionId"). A handler returns a
// [Decision], and [Decision.Write] renders it in the runtime's answer
// format: hookSpecificOutput with hookEventName for Claude Code and VS Code,
// a top-level permissionDecision for Copilot CLI.
//
// [Run] is the whole body of a hook binary: it reads stdin (capped at
// [DefaultMaxInputBytes], and not waiting forever for a stdin left open),
// calls a [Handler], writes the decision, sends
// diagnostics to stderr and always returns exit code 0. A hook never blocks
// by exit code and never breaks the agent: on empty or malformed input, an
// unhandled tool or event, missing keys, failing providers, a panic or an
// exhausted time budget it steps aside (no decision), so the runtime's
// native tool runs its normal course.
//
// # Handlers
//
// Each handler first plans, then acts. [PlanWebSearch] and [PlanWebFetch]
// compute a [Plan]: the call recognised, the steps consulted in order (tool
// routes, docs routes and their escape hatch, the providers, the page and
// its verdict), and the decision with the reason for it. They call no
// provider and write no state, so `webgate explain` and `webgate doctor`
// print the handlers' own plans. [HandleWebSearch] and [HandleWebFetch]
// compute the plan and carry it out, stepping aside when that fails.
//
// [HandleWebSearch] answers PreToolUse on the native web search tool by
// denying it with provider-backed results as the reason (which Claude Code
// hands to the model verbatim as the tool result), and adds a companion
// result block to an MCP search tool's output on PostToolUse (or fallback
// results on PostToolUseFailure).
//
// Under [AnswerReplace] (Claude Code), both handlers prepare the answer on
// PreToolUse, keep it ([Answers]) and allow the native call ([Allow]: no
// permission prompt, and no refusal in `claude -p` without an allow rule);
// on PostToolUse the answer replaces the native output. A deny or ask rule
// in the user's settings stops the native call whatever a hook says, so
// where one applies ([StoppingRule]) they deny with the answer instead.
//
// [HandleWebFetch] reads pages through package webpage only: the page
// reader ([webpage.Reader.Plan]) probes the page itself and classifies it;
// readable pages and other documents pass through to the native tool, and
// app shells, template-heavy pages and pages that refused the probe are
// answered with content extracted by the reader's extraction provider
// ([webpage.Reader.Extract]), keeping the parts most relevant to the fetch
// prompt when the content is too long ([webpage.FitContent]).
//
// When the native web fetch tool fails anyway (PostToolUseFailure: Claude
// Code's domain-safety preflight to api.anthropic.com, which ignores a
// custom ANTHROPIC_BASE_URL, or a TLS error), [HandleWebFetch] has the page
// reader read the page ([webpage.Reader.Execute]) and adds it as
// additional context, followed by the original error: readable HTML
// converted to Markdown (no provider needed), other pages read in the
// reader's order, and, when nothing else can read it, the page's own text
// if it has at least [webpage.MinFallbackChars] characters. Tool routes do
// not apply there, and when the page cannot be read it passes through
// silently, leaving the model the error. Copilot CLI cannot take that
// answer and gets none.
//
// # Routing
//
// Before any provider is called, and without provider keys, the handlers
// apply [Routes] (package routing): [HandleWebFetch] denies a WebFetch URL
// or a Bash command (PreToolUse on the shell tool, whatever its case) that
// matches a tool route with the route's message; [HandleWebSearch] denies a
// query that names a documented topic with a short reason and the MCP
// instructions as additional context, remembering the denial per session
// (payloads without a session id share [NoSessionID]) so that the identical
// retry within the escape window goes on to the providers or the native
// tool. When the denial cannot be recorded, it does not deny.
// [HandleSessionStart] gives the agent a one-line-per-route index.
//
// Handlers are plain functions over a context, an [Input] and an
// environment struct ([WebSearchEnv], [WebFetchEnv]) holding a
// provider.Searcher or a webpage.Reader and [Settings], so tests and other
// programs call them without a process. Their defaults (budgets, the
// reason cap, tool names) are those of package hooks/gate.
//
// # Safety
//
// Pages are probed by package webpage, which connects only to http and
// https URLs and checks every address it dials ([webpage.CheckAddress]):
// loopback, private, link-local, unique-local, CGNAT and cloud metadata
// addresses are refused unless webpage.ProbeConfig.AllowPrivate is set
// (metadata endpoints stay refused even then); a refusal that setting
// would lift ([PrivateOnly]) tells the user its name ([AllowPrivateHint]).
// Such a page is never sent to an extraction provider unless the provider
// is self-hosted (webpage.Reader.PrivateExtractor). Every network call runs
// inside the hook's time budget ([Settings.Budget]). Text from the web gets
// the rules of package internal/sanitize: the agent rule on everything the
// model receives, the terminal rule on messages and diagnostics. API keys
// listed in [Settings.Secrets] are scrubbed from every output and
// diagnostic.
//
// This package never reads environment variables, and no file but the
// Claude Code settings whose permission rules decide a replace answer
// ([ClaudeSettingsFiles]); the hook worker
// (cmd/webgate-hook, which the websearch and webfetch binaries run) loads
// the configuration with package cmd/internal/hookenv and hands it over as structs.
package hooks
