package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/internal/textfmt"
)

// AnswerStyle is how webgate answers a native web tool in Claude Code
// (hooks.answer).
type AnswerStyle string

// The answer styles.
const (
	// AnswerDeny denies the native call on PreToolUse with webgate's
	// answer as the reason. It works where the native tool fails (custom
	// endpoints, Bedrock, Vertex), but Claude Code shows the answer to the
	// model as a hook error ("PreToolUse:WebSearch hook error: …").
	AnswerDeny AnswerStyle = "deny"
	// AnswerReplace prepares the answer on PreToolUse, lets the native
	// tool run (permissionDecision "allow", so that no permission prompt
	// or `claude -p` refusal stands in the way), and replaces its output on PostToolUse
	// (updatedToolOutput, in the tool's own output shape), so that the
	// model receives a plain, non-error result. When the native tool
	// fails, PostToolUseFailure adds the prepared answer after the error.
	// It needs [Answers] to carry the answer from one event to the next;
	// without them, or when the user's deny or ask rule stops the native
	// tool ([StoppingRule]), the hook denies.
	AnswerReplace AnswerStyle = "replace"
)

// Answers keeps an answer prepared on PreToolUse for the PostToolUse or
// PostToolUseFailure of the same call, which another hook process
// handles. Package memory provides one over webgate's store.
type Answers interface {
	// Keep stores the answer of the call with the given ID.
	Keep(ctx context.Context, callID string, answer []byte) error
	// Take returns the answer of the call and forgets it.
	Take(ctx context.Context, callID string) ([]byte, bool)
}

// kept is an answer prepared on PreToolUse.
type kept struct {
	// Tool is the tool the answer is for.
	Tool string `json:"tool"`
	// Query is the search query, or URL the fetched page.
	Query string `json:"query,omitempty"`
	URL   string `json:"url,omitempty"`
	// Text is the answer as the model reads it.
	Text string `json:"text"`
	// Summary is the notice for the user.
	Summary string `json:"summary,omitempty"`
	// Took is how long the providers took.
	Took time.Duration `json:"took"`
}

// callID names a call across its events: the session and the tool use.
func callID(in *Input) string { return in.SessionID + "/" + in.ToolUseID }

// replacing reports whether the call is answered by replacing the native
// tool's output: Claude Code, the replace style, a tool use ID to match
// the events with, and somewhere to keep the answer.
func replacing(in *Input, s Settings, a Answers) bool {
	return in != nil && in.Runtime == ClaudeCode && s.Answer == AnswerReplace && a != nil && in.ToolUseID != ""
}

// WantsAnswer reports whether the hook acts on in because it prepared an
// answer for it: PostToolUse and PostToolUseFailure of a native web tool
// in Claude Code under [AnswerReplace]. fetch selects the web fetch tools,
// else the web search tools.
func WantsAnswer(in *Input, s Settings, fetch bool) bool {
	if in == nil || in.Runtime != ClaudeCode || s.Answer != AnswerReplace || in.ToolUseID == "" {
		return false
	}
	if in.Event != PostToolUse && in.Event != PostToolUseFailure {
		return false
	}
	tools := s.Tools.withDefaults()
	if fetch {
		return matchName(tools.WebFetch, in.ToolName)
	}
	return matchName(tools.WebSearch, in.ToolName)
}

// keepAnswer turns a PreToolUse denial d into an allow that keeps d's
// reason for the call's PostToolUse: the hook lets the native tool run
// (so that `claude -p` without an allow rule does not refuse it) and
// replaces its output. When the answer cannot be kept, or one of the
// user's deny or ask rules stops the native call (a hook's allow
// overrides neither), it returns d unchanged: the call is denied as in
// [AnswerDeny], with the answer as the reason.
func keepAnswer(ctx context.Context, in *Input, s Settings, a Answers, d Decision, k kept) Decision {
	if d.Action != Deny {
		return d
	}
	if r, ok := StoppingRule(ClaudeSettingsFiles(claudeConfigDir(in, s), claudeProjectDir(in, s)), in.ToolName, k.URL); ok {
		d.Diagnostics = append(d.Diagnostics, fmt.Sprintf("%s stops the native %s, which a hook cannot allow; denying with the answer instead of replacing the output", r, in.ToolName))
		return d
	}
	k.Text = d.Reason
	if d.Context != "" {
		k.Text += "\n\n" + d.Context
	}
	k.Summary = d.SystemMessage
	b, err := json.Marshal(k)
	if err == nil {
		err = a.Keep(ctx, callID(in), b)
	}
	if err != nil {
		d.Diagnostics = append(d.Diagnostics, "could not keep the answer for PostToolUse ("+err.Error()+"); denying instead")
		return d
	}
	return Decision{Action: Allow, Diagnostics: append(d.Diagnostics, "answer kept for PostToolUse: the native "+in.ToolName+" is allowed to run, then its output is replaced")}
}

// replaceNote completes the reason of a PreToolUse plan that answers the
// call under [AnswerReplace], and sets p.Replaces when the hook is to
// allow the native call and replace its output; where a user rule stops
// the native tool it says the hook denies with the answer instead. It
// returns "" when the call is not answered by replacing. url is the
// fetched page, for WebFetch's domain rules.
func (p *Plan) replaceNote(s Settings, a Answers, url string) string {
	in := p.in
	if !replacing(in, s, a) || in.Event != PreToolUse {
		return ""
	}
	if r, ok := StoppingRule(ClaudeSettingsFiles(claudeConfigDir(in, s), claudeProjectDir(in, s)), in.ToolName, url); ok {
		return fmt.Sprintf("; hooks.answer is replace, but %s stops the native %s, so the hook denies with the answer", r, in.ToolName)
	}
	p.Replaces = true
	return "; hooks.answer is replace: the hook allows the native " + in.ToolName + " and replaces its output with the answer (it denies with it when the answer cannot be kept)"
}

// claudeConfigDir returns the user's Claude Code settings directory:
// s.ClaudeConfigDir when set, else the one the payload's transcript lives
// in (<config dir>/projects/<project>/<session>.jsonl), else "".
func claudeConfigDir(in *Input, s Settings) string {
	if s.ClaudeConfigDir != "" {
		return s.ClaudeConfigDir
	}
	p := in.TranscriptPath
	if !filepath.IsAbs(p) || filepath.Ext(p) != ".jsonl" {
		return ""
	}
	projects := filepath.Dir(filepath.Dir(filepath.Clean(p)))
	if filepath.Base(projects) != "projects" {
		return ""
	}
	return filepath.Dir(projects)
}

// claudeProjectDir returns the project root whose .claude settings apply
// to the session: s.ClaudeProjectDir when set, else the payload's cwd.
func claudeProjectDir(in *Input, s Settings) string {
	if s.ClaudeProjectDir != "" {
		return s.ClaudeProjectDir
	}
	return in.Cwd
}

// takeAnswer returns the answer kept for in's call, if any.
func takeAnswer(ctx context.Context, in *Input, a Answers) (kept, bool) {
	var k kept
	b, ok := a.Take(ctx, callID(in))
	if !ok || json.Unmarshal(b, &k) != nil || k.Text == "" || k.Tool != in.ToolName {
		return kept{}, false
	}
	return k, true
}

// answerKept answers PostToolUse or PostToolUseFailure of a call with the
// answer kept on PreToolUse: the native output replaced by it, in the
// tool's own shape (fetch: WebFetch's, else WebSearch's), or the answer
// added after the tool's error. Without a kept answer it passes.
func answerKept(ctx context.Context, in *Input, s Settings, a Answers, fetch bool) Decision {
	k, ok := takeAnswer(ctx, in, a)
	if !ok {
		return passWith("no answer was kept for this call; the native " + in.ToolName + " output stands")
	}
	text := textfmt.Scrub(sanitize.Agent(k.Text), s.Secrets...)
	max := s.maxChars()
	var d Decision
	if in.Event == PostToolUseFailure {
		intro := fmt.Sprintf("webgate fallback: the %s tool failed; here is the answer webgate prepared for the call.", in.ToolName)
		d = Decision{Action: AddContext, Context: afterError(in, max, func(room int) string { return cutText(intro+"\n\n"+text, room) })}
	} else {
		var v any
		if fetch {
			// WebFetch's output: the model reads result.
			v = struct {
				Bytes      int    `json:"bytes"`
				Code       int    `json:"code"`
				CodeText   string `json:"codeText"`
				Result     string `json:"result"`
				DurationMs int64  `json:"durationMs"`
				URL        string `json:"url"`
			}{len(text), 200, "OK", cutText(text, max), k.Took.Milliseconds(), k.URL}
		} else {
			// WebSearch's output: string results are read as text.
			v = struct {
				Query           string   `json:"query"`
				Results         []string `json:"results"`
				DurationSeconds float64  `json:"durationSeconds"`
			}{k.Query, []string{cutText(text, max)}, k.Took.Seconds()}
		}
		b, err := json.Marshal(v)
		if err != nil {
			return passWith("could not encode the answer: " + err.Error())
		}
		d = Decision{Action: ReplaceToolOutput, ToolOutput: b}
	}
	if s.SystemMessage && k.Summary != "" {
		d.SystemMessage = k.Summary
	}
	d.Diagnostics = []string{"answered with the answer kept on PreToolUse"}
	return redactDecision(d, s.Secrets)
}
