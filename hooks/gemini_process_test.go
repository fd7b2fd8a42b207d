package hooks_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// geminiPayload returns a payload Gemini CLI sent to an installed hook (as
// the e2e test recorded it), with web_fetch's page replaced by url.
func geminiPayload(t *testing.T, name, url string) io.Reader {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "cmd", "e2e", "testdata", "gemini", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if url != "" {
		b = bytes.ReplaceAll(b, []byte("https://docs.example/gemini-page"), []byte(url))
	}
	return bytes.NewReader(b)
}

// geminiAnswer is Gemini CLI's answer format.
type geminiAnswer struct {
	Decision           string         `json:"decision"`
	Reason             string         `json:"reason"`
	SystemMessage      string         `json:"systemMessage"`
	HookSpecificOutput map[string]any `json:"hookSpecificOutput"`
}

func wantGeminiDeny(t *testing.T, r result, contains ...string) geminiAnswer {
	t.Helper()
	var a geminiAnswer
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil || a.Decision != "deny" || a.HookSpecificOutput != nil || strings.Contains(r.stdout, "permissionDecision") {
		t.Fatalf("want a top-level deny, got %q (%v)\nstderr:\n%s", r.stdout, err, r.stderr)
	}
	for _, c := range contains {
		if !strings.Contains(a.Reason, c) {
			t.Errorf("reason lacks %q:\n%s", c, a.Reason)
		}
	}
	return a
}

func TestProcess_GeminiGoogleWebSearchIsAnsweredWithProviderResults(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	r := runBinary(t, "websearch", geminiPayload(t, "beforetool-google_web_search", ""), f.env(t, "tavily"))
	a := wantGeminiDeny(t, r, "webgate answered this google_web_search call in place of the native tool", `Web search results for query "gemini e2e query"`, "Tavily: context package", "https://pkg.go.dev/context", "REMINDER")
	if !strings.HasPrefix(a.Reason, "webgate answered this google_web_search call") {
		t.Errorf("the reason does not open by saying the call was answered:\n%s", a.Reason)
	}
	if a.SystemMessage != "webgate: google_web_search answered with 2 result(s) via parallel(tavily)" {
		t.Errorf("systemMessage = %q", a.SystemMessage)
	}
	if f.Hits("tavily") != 1 {
		t.Errorf("tavily hits = %d, want 1", f.Hits("tavily"))
	}
}

func TestProcess_GeminiWebFetchReadsTheURLInThePrompt(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "ok"})
	base := pages(t)
	page := base + "/browser-render-required/react-cra-empty-root.html"
	r := runBinary(t, "webfetch", geminiPayload(t, "beforetool-web_fetch", page), fetchEnv(f, t, "wsapi"))
	wantGeminiDeny(t, r, "webgate answered this web_fetch call", "Content of "+page, "via websearchapi", "WSAPI-EXTRACT-MARKER", "Request: Summarize")
	// A readable page is left to the native tool.
	r = runBinary(t, "webfetch", geminiPayload(t, "beforetool-web_fetch", base+"/readable/blog-article.html"), fetchEnv(f, t, "wsapi"))
	wantNothing(t, r)
	if f.Hits("wsapi") != 1 {
		t.Errorf("extractions = %d, want 1", f.Hits("wsapi"))
	}
}

func TestProcess_GeminiFailsOpen(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "500"})
	// Every provider failing: the native tool runs, the user is told why.
	r := runBinary(t, "websearch", geminiPayload(t, "beforetool-google_web_search", ""), f.env(t, "tavily"))
	var a geminiAnswer
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil || a.Decision != "" || a.Reason != "" || !strings.HasPrefix(a.SystemMessage, "webgate: every search provider failed") {
		t.Errorf("stdout %q (%v), want a systemMessage only", r.stdout, err)
	}
	hits := f.Hits("tavily")
	// No keys and messages off: nothing on stdout, one line on stderr.
	r = runBinary(t, "websearch", geminiPayload(t, "beforetool-google_web_search", ""), append(f.env(t), "WEBGATE_HOOKS_SYSTEM_MESSAGE=false"))
	wantNothing(t, r)
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(r.stderr, "no search provider has an API key") {
		t.Errorf("stderr = %q, want one line saying why", r.stderr)
	}
	// A truncated payload, and tools the hooks do not handle: nothing at
	// all from the fronts.
	for _, c := range []struct{ hook, payload string }{
		{"websearch", `{"hook_event_name":"BeforeTool","tool_name":"google_web_search","tool_input":{"query":"q`},
		{"webfetch", `{"hook_event_name":"BeforeTool","tool_name":"web_fetch","tool_input":{`},
	} {
		r := runBinary(t, c.hook, strings.NewReader(c.payload), f.env(t, "tavily"))
		wantNothing(t, r)
		if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.HasPrefix(r.stderr, "webgate: ") {
			t.Errorf("%s: stderr = %q, want one line", c.hook, r.stderr)
		}
	}
	for _, c := range []struct{ hook, payload string }{
		{"websearch", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`},
		{"webfetch", `{"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"a"}}`},
		{"websearch", `{"hook_event_name":"AfterTool","tool_name":"google_web_search","tool_input":{"query":"q"},"tool_response":{"llmContent":"x"}}`},
	} {
		r := runBinary(t, c.hook, strings.NewReader(c.payload), f.env(t, "tavily"))
		if r.stdout != "" || r.stderr != "" {
			t.Errorf("%s %s: stdout %q stderr %q, want nothing", c.hook, c.payload, r.stdout, r.stderr)
		}
	}
	if f.Hits("tavily") != hits {
		t.Errorf("tavily hits = %d, want %d (the failing search only)", f.Hits("tavily"), hits)
	}
}
