package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// box is an in-memory Answers.
type box struct {
	mu   sync.Mutex
	m    map[string][]byte
	fail bool
}

func (b *box) Keep(_ context.Context, id string, a []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail {
		return errors.New("store down")
	}
	if b.m == nil {
		b.m = map[string][]byte{}
	}
	b.m[id] = a
	return nil
}

func (b *box) Take(_ context.Context, id string) ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.m[id]
	delete(b.m, id)
	return a, ok
}

func claudeEvent(t *testing.T, event, tool, input, extra string) *Input {
	t.Helper()
	in, err := ParseInput([]byte(`{"session_id":"sess","tool_use_id":"toolu_1","hook_event_name":"` + event + `","tool_name":"` + tool + `","tool_input":` + input + extra + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestReplace_SearchIsDoneOnPreToolUseAndReplacesTheNativeOutput(t *testing.T) {
	s := okSearcher(2)
	b := &box{}
	env := &WebSearchEnv{Searcher: s, Answers: b, Settings: Settings{Answer: AnswerReplace, SystemMessage: true}}
	pre := HandleWebSearch(context.Background(), claudeEvent(t, "PreToolUse", "WebSearch", `{"query":"go generics"}`, ""), env)
	var allow strings.Builder
	if err := pre.Write(&allow, claudeEvent(t, "PreToolUse", "WebSearch", `{}`, "")); err != nil {
		t.Fatal(err)
	}
	// The native call is allowed: without an allow rule `claude -p`
	// would refuse it, and the model would receive no answer at all.
	if pre.Action != Allow || strings.TrimSpace(allow.String()) != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` {
		t.Fatalf("PreToolUse under replace: %+v, output %s; want an allow", pre, allow.String())
	}
	if s.calls.Load() != 1 || len(b.m) != 1 {
		t.Fatalf("PreToolUse: %d searches, %d kept answers", s.calls.Load(), len(b.m))
	}
	post := claudeEvent(t, "PostToolUse", "WebSearch", `{"query":"go generics"}`, `,"tool_response":{"query":"go generics","results":[],"durationSeconds":1.2}`)
	d := HandleWebSearch(context.Background(), post, env)
	if d.Action != ReplaceToolOutput {
		t.Fatalf("PostToolUse: %+v", d)
	}
	if s.calls.Load() != 1 {
		t.Errorf("PostToolUse searched again")
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			UpdatedToolOutput struct {
				Query           string   `json:"query"`
				Results         []string `json:"results"`
				DurationSeconds *float64 `json:"durationSeconds"`
			} `json:"updatedToolOutput"`
		} `json:"hookSpecificOutput"`
		SystemMessage string `json:"systemMessage"`
	}
	var buf strings.Builder
	if err := d.Write(&buf, post); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(buf.String()), &out); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	u := out.HookSpecificOutput.UpdatedToolOutput
	if out.HookSpecificOutput.HookEventName != "PostToolUse" || u.Query != "go generics" || len(u.Results) != 1 || u.DurationSeconds == nil {
		t.Fatalf("output %s", buf.String())
	}
	if !strings.Contains(u.Results[0], "1. Result number 1") || !strings.Contains(u.Results[0], "https://example.com/r/2") {
		t.Errorf("replacement text:\n%s", u.Results[0])
	}
	if !strings.Contains(out.SystemMessage, "answered with 2 result(s)") {
		t.Errorf("systemMessage %q", out.SystemMessage)
	}
	// The answer is given once.
	if again := HandleWebSearch(context.Background(), post, env); again.Action != Pass {
		t.Errorf("a second PostToolUse replaced again: %+v", again)
	}
}

func TestReplace_WithoutSomewhereToKeepTheAnswerTheHookDenies(t *testing.T) {
	for name, b := range map[string]Answers{"no store": nil, "store down": &box{fail: true}} {
		env := &WebSearchEnv{Searcher: okSearcher(1), Answers: b, Settings: Settings{Answer: AnswerReplace}}
		d := HandleWebSearch(context.Background(), claudeEvent(t, "PreToolUse", "WebSearch", `{"query":"go generics"}`, ""), env)
		if d.Action != Deny {
			t.Errorf("%s: %+v, want a deny", name, d)
		}
	}
}

func TestReplace_NativeFailureGetsTheKeptAnswerAsContext(t *testing.T) {
	s := okSearcher(1)
	b := &box{}
	env := &WebSearchEnv{Searcher: s, Answers: b, Settings: Settings{Answer: AnswerReplace}}
	HandleWebSearch(context.Background(), claudeEvent(t, "PreToolUse", "WebSearch", `{"query":"go generics"}`, ""), env)
	fail := claudeEvent(t, "PostToolUseFailure", "WebSearch", `{"query":"go generics"}`, `,"error":"Web search failed: endpoint does not support server tools"`)
	d := HandleWebSearch(context.Background(), fail, env)
	if d.Action != AddContext || !strings.Contains(d.Context, "Result number 1") || !strings.Contains(d.Context, "endpoint does not support server tools") {
		t.Fatalf("PostToolUseFailure: %+v", d)
	}
}

func TestReplace_DenyStyleIgnoresTheNativeToolsPostToolUse(t *testing.T) {
	env := &WebSearchEnv{Searcher: okSearcher(1), Answers: &box{}}
	post := claudeEvent(t, "PostToolUse", "WebSearch", `{"query":"go generics"}`, `,"tool_response":{"query":"q","results":[],"durationSeconds":1}`)
	if WantsAnswer(post, env.Settings, false) {
		t.Error("WantsAnswer under deny")
	}
	if d := HandleWebSearch(context.Background(), post, env); d.Action != Pass || d.Output(post) != nil {
		t.Errorf("%+v", d)
	}
	if d := HandleWebSearch(context.Background(), claudeEvent(t, "PreToolUse", "WebSearch", `{"query":"go generics"}`, ""), env); d.Action != Deny {
		t.Errorf("deny style PreToolUse: %+v", d)
	}
}

func TestReplace_FetchOfAnAppShellReplacesWebFetchOutput(t *testing.T) {
	base := fixtureServer(t)
	b := &box{}
	env := fetchEnv(pageExtractor("App", "EXTRACTED app content"))
	env.Answers, env.Settings.Answer = b, AnswerReplace
	url := base + "/browser-render-required/react-cra-empty-root.html"
	pre := HandleWebFetch(context.Background(), claudeEvent(t, "PreToolUse", "WebFetch", `{"url":"`+url+`","prompt":"what is it"}`, ""), env)
	if pre.Action != Allow || len(b.m) != 1 {
		t.Fatalf("PreToolUse: %+v, %d kept", pre, len(b.m))
	}
	post := claudeEvent(t, "PostToolUse", "WebFetch", `{"url":"`+url+`","prompt":"what is it"}`, `,"tool_response":{"bytes":10,"code":200,"codeText":"OK","result":"boilerplate","durationMs":5,"url":"`+url+`"}`)
	d := HandleWebFetch(context.Background(), post, env)
	if d.Action != ReplaceToolOutput {
		t.Fatalf("PostToolUse: %+v", d)
	}
	var out struct {
		Bytes    int    `json:"bytes"`
		Code     int    `json:"code"`
		CodeText string `json:"codeText"`
		Result   string `json:"result"`
		URL      string `json:"url"`
	}
	if err := json.Unmarshal(d.ToolOutput, &out); err != nil {
		t.Fatal(err)
	}
	if out.Code != 200 || out.CodeText != "OK" || out.URL != url || !strings.Contains(out.Result, "EXTRACTED app content") || out.Bytes != len(out.Result) {
		t.Errorf("updatedToolOutput %+v", out)
	}
}

// writeClaudeSettings writes a Claude Code settings file with the given
// permission rules under dir/.claude (or dir itself when user is set).
func writeClaudeSettings(t *testing.T, dir string, user bool, perms string) {
	t.Helper()
	d := filepath.Join(dir, ".claude")
	if user {
		d = dir
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "settings.json"), []byte(`{"permissions":`+perms+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReplace_AUserDenyOrAskRuleGetsTheDenyAnswer(t *testing.T) {
	for name, tc := range map[string]struct {
		user  bool
		perms string
	}{
		"project deny": {false, `{"deny":["WebSearch"]}`},
		"user ask":     {true, `{"ask":["WebSearch"],"allow":["Bash"]}`},
		"any spec":     {false, `{"deny":["WebSearch(*)"]}`},
	} {
		t.Run(name, func(t *testing.T) {
			project, home := t.TempDir(), t.TempDir()
			if tc.user {
				writeClaudeSettings(t, home, true, tc.perms)
			} else {
				writeClaudeSettings(t, project, false, tc.perms)
			}
			b := &box{}
			// The user's settings directory is the one the transcript
			// lives in.
			transcript := filepath.Join(home, "projects", "-proj", "sess.jsonl")
			env := &WebSearchEnv{Searcher: okSearcher(1), Answers: b, Settings: Settings{Answer: AnswerReplace}}
			in := claudeEvent(t, "PreToolUse", "WebSearch", `{"query":"go generics"}`, `,"cwd":`+strconv.Quote(project)+`,"transcript_path":`+strconv.Quote(transcript))
			d := HandleWebSearch(context.Background(), in, env)
			// A hook's allow does not override the rule: the native call
			// would be refused and the answer lost, so the hook denies
			// with it.
			if d.Action != Deny || !strings.Contains(d.Reason, "Result number 1") || len(b.m) != 0 {
				t.Fatalf("%+v (kept %d), want a deny with the results", d, len(b.m))
			}
			if !strings.Contains(strings.Join(d.Diagnostics, "\n"), "settings.json stops the native WebSearch") {
				t.Errorf("diagnostics do not name the rule: %q", d.Diagnostics)
			}
		})
	}
}

// After the agent changes directory the payload's cwd is no longer the
// project root: the project's rules are read from the root the session
// names (CLAUDE_PROJECT_DIR, Settings.ClaudeProjectDir), and a user
// settings directory given in Settings counts without a transcript.
func TestReplace_TheProjectRootsAndTheConfigDirectorysRulesCountFromASubdirectory(t *testing.T) {
	for name, user := range map[string]bool{"project ask rule": false, "user ask rule": true} {
		t.Run(name, func(t *testing.T) {
			project, config := t.TempDir(), t.TempDir()
			sub := filepath.Join(project, "cmd", "tool")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			if user {
				writeClaudeSettings(t, config, true, `{"ask":["WebSearch"]}`)
			} else {
				writeClaudeSettings(t, project, false, `{"ask":["WebSearch"]}`)
			}
			b := &box{}
			env := &WebSearchEnv{Searcher: okSearcher(1), Answers: b, Settings: Settings{Answer: AnswerReplace, ClaudeProjectDir: project, ClaudeConfigDir: config}}
			in := claudeEvent(t, "PreToolUse", "WebSearch", `{"query":"go generics"}`, `,"cwd":`+strconv.Quote(sub))
			if d := HandleWebSearch(context.Background(), in, env); d.Action != Deny || len(b.m) != 0 {
				t.Fatalf("%+v (kept %d), want a deny with the results", d, len(b.m))
			}
		})
	}
}

func TestReplace_RulesForOtherToolsOrDomainsStillAllow(t *testing.T) {
	project := t.TempDir()
	writeClaudeSettings(t, project, false, `{"deny":["WebFetch(domain:other.example)","Bash(curl:*)","WebSearchX"],"ask":["WebFetch(domain:*.internal.example)"]}`)
	in := claudeEvent(t, "PreToolUse", "WebSearch", `{"query":"go generics"}`, `,"cwd":`+strconv.Quote(project))
	env := &WebSearchEnv{Searcher: okSearcher(1), Answers: &box{}, Settings: Settings{Answer: AnswerReplace}}
	if d := HandleWebSearch(context.Background(), in, env); d.Action != Allow {
		t.Fatalf("%+v, want an allow", d)
	}
	files := ClaudeSettingsFiles("", project)
	for u, stops := range map[string]bool{
		"https://other.example/a":       true,
		"https://docs.example/a":        false,
		"https://a.internal.example/x":  true,
		"https://internal.example/x":    true,
		"https://notinternal.example/x": false,
	} {
		if _, got := StoppingRule(files, "WebFetch", u); got != stops {
			t.Errorf("StoppingRule(WebFetch, %s) = %v, want %v", u, got, stops)
		}
	}
}

func TestAllow_IsClaudeCodesPreToolUseOnly(t *testing.T) {
	d := Decision{Action: Allow}
	for _, raw := range []string{
		`{"hook_event_name":"PostToolUse","tool_name":"WebSearch","tool_input":{}}`,
		`{"toolName":"web_fetch","toolArgs":"{}","sessionId":"s"}`,
		`{"hook_event_name":"BeforeTool","tool_name":"google_web_search","tool_input":{}}`,
	} {
		in, err := ParseInput([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if out := d.Output(in); out != nil {
			t.Errorf("%s: output %+v, want none", raw, out)
		}
	}
}

func TestReplace_ThePlanSaysTheHookAllows(t *testing.T) {
	in := claudeEvent(t, "PreToolUse", "WebSearch", `{"query":"go generics"}`, "")
	p := PlanWebSearch(context.Background(), in, &WebSearchEnv{Searcher: okSearcher(1), Answers: &box{}, Settings: Settings{Answer: AnswerReplace}})
	if !p.Replaces || !strings.Contains(p.Why, "the hook allows the native WebSearch") {
		t.Errorf("plan %+v: want it to say the hook allows the call", p)
	}
	// Nowhere to keep the answer: a deny, as the handler does.
	p = PlanWebSearch(context.Background(), in, &WebSearchEnv{Searcher: okSearcher(1), Settings: Settings{Answer: AnswerReplace}})
	if p.Replaces || p.Decision.Action() != Deny {
		t.Errorf("plan without answers %+v: want a deny", p)
	}
}
