// Package e2e drives the real Claude Code CLI against a fake Anthropic
// Messages API on 127.0.0.1, so that tests can assert what the model would
// receive after webgate's hooks have run.
//
// The suite is test code only: its fakes, drivers and builders are in
// _test.go files, so nothing outside its tests links them.
//
// # Running
//
// The tests need the CLI's native binary. .ci/install-claude.sh installs the
// pinned version from the npm registry into a cache directory and prints the
// binary's path:
//
//	export WEBGATE_CLAUDE_BIN="$(.ci/install-claude.sh)"
//	go test -race ./cmd/e2e/...
//
// Without WEBGATE_CLAUDE_BIN the tests look in the script's default
// directory ($HOME/.cache/webgate-e2e/claude). When no binary is found the
// CLI tests are skipped, except under CI=true, where they fail.
//
// # The fake model
//
// [NewFakeAPI] starts a [FakeAPI] answering POST /v1/messages with the
// Messages API event stream. Each request of the agent loop (one that
// offers the model tools) consumes the next scripted [Turn]: [CallTool]
// makes the model call a tool, [Say] makes it answer and stop. The CLI's
// other model calls are recognised and answered without consuming turns:
// the native WebSearch tool's own call (it carries a web_search_* server
// tool) gets a server_tool_use, a web_search_tool_result built from
// [FakeAPI.SearchHits] and a text; WebFetch's apply-prompt call (no tools,
// "Web page content:") gets [FakeAPI.FetchAnswer]; any other call without
// tools gets a short text. count_tokens is answered, every other path gets
// 404. Every request is recorded; [FakeAPI.ToolResult] returns the
// tool_result that answered a scripted tool call, with its is_error flag,
// its body without the CLI's own <system-reminder> additions, and the
// reminders (hook additional context) that came with it.
//
// # Running the CLI
//
// [RunClaude] runs the binary once in print mode with stream-json output
// and hook events, in a clean environment: only the variables it sets plus
// [Options.Env], a fresh HOME with [Options.Settings] as the user settings
// file, a dummy API key, telemetry and non-essential traffic off, and
// HTTP_PROXY/HTTPS_PROXY pointing at a [RefusingProxy] on 127.0.0.1, so any
// attempt to reach another host is refused and reported in
// [Result.ProxyAttempts]. Every run is bounded by [Options.Timeout] and its
// whole process group is killed when the time runs out.
//
// # Adding a scenario
//
// Build the hook with a [Builder] (the tests' TestMain keeps one), script
// the model, install the hook in a [Settings] value and assert on the
// recorded requests:
//
//	hook := bins.Build(t, "github.com/webgate-dev/webgate/cmd/websearch")
//	api := NewFakeAPI(t,
//		CallTool("WebSearch", map[string]any{"query": "golang"}),
//		Say("done"))
//	settings := new(Settings).AddHook("PreToolUse", "WebSearch", ExecHook(hook))
//	res := RunClaude(t, api, Options{Settings: settings, Env: providerEnv})
//	got := api.ToolResult(t, 0) // got.IsError, got.Body(), got.Reminders()
//
// MCP tools use [Options.MCPServers] with [MCPToolName] in
// [Options.AllowedTools]; plugins use [WritePlugin] and [Options.PluginDirs];
// a native WebFetch needs a [PageServer], SkipWebFetchPreflight and the
// server's [PageServer.Env].
//
// # The other agent CLIs
//
// Copilot CLI, Gemini CLI and Codex CLI are installed by
// .ci/install-clis.sh (pinned versions, cached under
// $HOME/.cache/webgate-e2e); [AgentCLI.Binary] runs it when
// WEBGATE_COPILOT_BIN, WEBGATE_GEMINI_BIN or WEBGATE_CODEX_BIN is unset,
// and skips (or, under CI=true, fails) when it cannot. [RunCLI] runs one
// isolated, as [RunClaude] does, and [RunWebgate] runs `webgate install`
// into the same HOME first. Copilot CLI talks to the [FakeAPI] as a custom
// Anthropic provider; Codex to a [FakeResponses] (the OpenAI Responses
// API); Gemini CLI to a [FakeGemini].
package e2e
