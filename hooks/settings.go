package hooks

import (
	"slices"
	"time"

	"github.com/webgate-dev/webgate/hooks/gate"
)

// Limits of [Settings]. The budgets' and the reason cap's defaults are
// those of package hooks/gate ([gate.DefaultSearchBudget],
// [gate.DefaultFetchBudget], [gate.DefaultMaxReasonChars]).
const (
	// MaxReasonCharsLimit is the largest accepted cap: Claude Code moves
	// hook output of 10,000 characters or more into a file.
	MaxReasonCharsLimit = 9500
	// DefaultMaxResults is how many search results a hook asks for.
	DefaultMaxResults = 8
)

// ToolNames are the tool names a hook acts on. A name may be a glob pattern
// (path.Match syntax: "*", "?", "[…]"), which is how plugin-bundled MCP
// servers ("mcp__plugin_<plugin>_<server>__WebSearch") are matched.
type ToolNames struct {
	// WebSearch are the native web search tools answered on PreToolUse.
	WebSearch []string `koanf:"websearch"`
	// WebFetch are the native web fetch tools answered on PreToolUse.
	WebFetch []string `koanf:"webfetch"`
	// MCPSearch are MCP search tools that get a companion result on
	// PostToolUse and a fallback on PostToolUseFailure; PreToolUse is
	// never touched.
	MCPSearch []string `koanf:"mcp_search"`
}

// DefaultToolNames returns the names used when a [ToolNames] list is
// empty, as package hooks/gate defines them ([gate.DefaultSearchTools],
// [gate.DefaultFetchTools], [gate.DefaultMCPTools]): Claude Code's
// WebSearch and WebFetch, Copilot CLI's web_fetch (Copilot has no web
// search tool), and the ccs-websearch MCP server's WebSearch tool, bare or
// bundled in a plugin.
func DefaultToolNames() ToolNames {
	return ToolNames{
		WebSearch: slices.Clone(gate.DefaultSearchTools),
		WebFetch:  slices.Clone(gate.DefaultFetchTools),
		MCPSearch: slices.Clone(gate.DefaultMCPTools),
	}
}

func (t ToolNames) withDefaults() ToolNames {
	d := DefaultToolNames()
	if len(t.WebSearch) == 0 {
		t.WebSearch = d.WebSearch
	}
	if len(t.WebFetch) == 0 {
		t.WebFetch = d.WebFetch
	}
	if len(t.MCPSearch) == 0 {
		t.MCPSearch = d.MCPSearch
	}
	return t
}

// matchName reports whether name equals one of the patterns or matches it
// as a glob; see [gate.MatchName].
func matchName(patterns []string, name string) bool { return gate.MatchName(patterns, name) }

// Settings are the hook settings shared by both hooks. The zero value means
// the defaults.
type Settings struct {
	// Debug adds a trace on stderr (configuration sources, providers tried,
	// kinds, latencies) and a short diagnostic footer to the answer.
	Debug bool `koanf:"debug"`
	// Budget bounds the whole hook, every network call included; when it
	// runs out the hook steps aside. Zero means the hook's default
	// ([gate.DefaultSearchBudget], [gate.DefaultFetchBudget]).
	Budget time.Duration `koanf:"budget"`
	// MaxReasonChars caps the text handed to the model, in UTF-16 code
	// units as the runtime counts them; zero means
	// [gate.DefaultMaxReasonChars], values above [MaxReasonCharsLimit] are
	// lowered to it.
	MaxReasonChars int `koanf:"max_reason_chars"`
	// SystemMessage adds a one-line systemMessage for the user (never sent
	// to the model) saying what the hook did: which provider answered, or,
	// when it stepped aside because of a problem (no keys, invalid
	// configuration, every provider failing, the budget running out), why.
	SystemMessage bool `koanf:"system_message"`
	// Tools are the tool names acted on.
	Tools ToolNames `koanf:"tools"`
	// Answer is how native web tools are answered in Claude Code; the
	// zero value means [AnswerDeny].
	Answer AnswerStyle `koanf:"answer"`
	// ClaudeConfigDir is the user's Claude Code settings directory
	// (~/.claude, or CLAUDE_CONFIG_DIR). Under [AnswerReplace] its
	// permission rules, with the managed policy's and the project's
	// ([Settings.ClaudeProjectDir]), decide whether the hook can let a native call run
	// ([StoppingRule]); empty means the directory the payload's
	// transcript lives in, if any.
	ClaudeConfigDir string `koanf:"-"`
	// ClaudeProjectDir is the project root of the Claude Code session
	// (CLAUDE_PROJECT_DIR), whose .claude settings hold the project's
	// permission rules; empty means the payload's cwd, which is the root
	// only until the agent changes directory.
	ClaudeProjectDir string `koanf:"-"`
	// Secrets are values (API keys) scrubbed from every output and
	// diagnostic as a last line of defence.
	Secrets []string `koanf:"-"`
	// Trace holds lines describing how the configuration was loaded,
	// printed to stderr in debug mode.
	Trace []string `koanf:"-"`
}

func (s Settings) maxChars() int {
	switch {
	case s.MaxReasonChars <= 0:
		return gate.DefaultMaxReasonChars
	case s.MaxReasonChars > MaxReasonCharsLimit:
		return MaxReasonCharsLimit
	}
	return s.MaxReasonChars
}

func (s Settings) budget(def time.Duration) time.Duration {
	if s.Budget > 0 {
		return s.Budget
	}
	return def
}
