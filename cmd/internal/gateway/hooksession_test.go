package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
)

// TestServer_HookKeptAnswersScopedPerToken: under hooks.answer=replace
// the answer a hook prepares on PreToolUse is kept for the call's
// PostToolUse, named by the session and tool use IDs the caller sends.
// Another token sending the same IDs, in any spelling of the session key,
// neither takes that answer nor plants one for the first token.
func TestServer_HookKeptAnswersScopedPerToken(t *testing.T) {
	tavily, _ := tavilyFake(t)
	st := openStore(t, "memory:")
	warm := hookenv.NewWarm()
	t.Cleanup(warm.Close)
	env := append(hookEnvFor(t, tavily), "WEBGATE_HOOKS_ANSWER=replace")
	f := newFixture(t, st, Options{Hooks: warm, HookEnv: env})
	_, other, err := f.tokens.Create(context.Background(), NewToken{Owner: "mallory"})
	if err != nil {
		t.Fatal(err)
	}
	pre := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"golang context deadlines"},"tool_use_id":"t1"}`
	post1 := func(session string) string {
		return `{` + session + `,"hook_event_name":"PostToolUse","tool_name":"WebSearch","tool_input":{"query":"golang context deadlines"},"tool_use_id":"t1","tool_response":{"results":["native"]}}`
	}
	resp, body := post(t, f.url+"/v1/hooks/websearch", f.secret, pre)
	if resp.StatusCode != 200 || !strings.Contains(body, "answer kept") && !strings.Contains(body, "allow") {
		t.Fatalf("PreToolUse: %d %s", resp.StatusCode, body)
	}
	for _, session := range []string{`"session_id":"s1"`, `"Session_ID":"s1"`, `"sessionId":"s1"`} {
		_, body := post(t, f.url+"/v1/hooks/websearch", other, post1(session))
		if strings.Contains(body, "Tavily") {
			t.Fatalf("another token (%s) took the first token's kept answer: %s", session, body)
		}
	}
	_, body = post(t, f.url+"/v1/hooks/websearch", f.secret, post1(`"session_id":"s1"`))
	if !strings.Contains(body, "Tavily") {
		t.Fatalf("the token that kept the answer did not get it: %s", body)
	}
}
