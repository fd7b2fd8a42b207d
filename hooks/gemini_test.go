package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/internal/sanitize"
)

// geminiRecording reads a payload Gemini CLI sent to an installed hook,
// as the e2e test recorded it.
func geminiRecording(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "cmd", "e2e", "testdata", "gemini", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseInput_ReadsGeminiCLIRecordedPayloads(t *testing.T) {
	tests := []struct {
		name       string
		event      Event
		tool       string
		query, url string
		prompt     string
		err        string
	}{
		// FetchArgs reads a "query" as the prompt, whatever the tool.
		{name: "beforetool-google_web_search", event: PreToolUse, tool: "google_web_search", query: "gemini e2e query", prompt: "gemini e2e query"},
		{name: "beforetool-web_fetch", event: PreToolUse, tool: "web_fetch", url: "https://docs.example/gemini-page", prompt: "Summarize"},
		{name: "aftertool-google_web_search", event: PostToolUse, tool: "google_web_search", query: "gemini e2e query", prompt: "gemini e2e query"},
		{name: "aftertool-web_fetch", event: PostToolUseFailure, tool: "web_fetch", url: "https://docs.example/gemini-page", prompt: "Summarize",
			err: "All requested URLs were skipped: [Blocked Host] https://docs.example/gemini-page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := ParseInput(geminiRecording(t, tt.name))
			if err != nil {
				t.Fatal(err)
			}
			if in.Runtime != GeminiCLI || in.Event != tt.event || in.ToolName != tt.tool {
				t.Errorf("runtime %q event %q tool %q, want %q %q %q", in.Runtime, in.Event, in.ToolName, GeminiCLI, tt.event, tt.tool)
			}
			if in.SessionID != "66e9c02e-2c8e-4854-89e7-762141b9b102" || in.Cwd != "<PROJECT>" {
				t.Errorf("session %q cwd %q", in.SessionID, in.Cwd)
			}
			if q := in.SearchArgs().Query; q != tt.query {
				t.Errorf("query = %q, want %q", q, tt.query)
			}
			if a := in.FetchArgs(); a.URL != tt.url || a.Prompt != tt.prompt {
				t.Errorf("fetch args = %+v, want URL %q prompt %q", a, tt.url, tt.prompt)
			}
			if in.Error != tt.err {
				t.Errorf("error = %q, want %q", in.Error, tt.err)
			}
		})
	}
}

func TestParseInput_KeepsEventsSharedWithClaudeCodeAsClaudeCode(t *testing.T) {
	// Gemini CLI's SessionStart looks like Claude Code's and takes the same
	// answer (hookSpecificOutput.additionalContext).
	in, err := ParseInput([]byte(`{"session_id":"s","hook_event_name":"SessionStart","timestamp":"2026-01-01T00:00:00Z","source":"startup"}`))
	if err != nil || in.Runtime != ClaudeCode || in.Event != SessionStart {
		t.Fatalf("%+v %v", in, err)
	}
	in, _ = ParseInput([]byte(`{"session_id":"s","hook_event_name":"BeforeModel","llm_request":{}}`))
	if in.Runtime != GeminiCLI || in.Event != "BeforeModel" {
		t.Errorf("BeforeModel: runtime %q event %q", in.Runtime, in.Event)
	}
}

func TestGeminiFetchArgs_SplitsThePromptIntoTheFirstURLAndTheRest(t *testing.T) {
	tests := []struct{ prompt, url, rest string }{
		{"Summarize https://docs.example/gemini-page", "https://docs.example/gemini-page", "Summarize"},
		{"What does https://a.example/x?y=1#z say about deadlines?", "https://a.example/x?y=1#z", "What does say about deadlines?"},
		{"Read (https://a.example/page), then answer.", "https://a.example/page", "Read then answer."},
		{"See https://en.wikipedia.org/wiki/Go_(language).", "https://en.wikipedia.org/wiki/Go_(language)", "See"},
		{"Compare HTTP://A.example/1 and https://b.example/2", "HTTP://A.example/1", "Compare and https://b.example/2"},
		{"\"https://a.example/q\"\n\tsummarise   it", "https://a.example/q", "summarise it"},
		// Not a web URL, or not one that may be shown: skipped.
		{"Read ftp://files.example/a and https://ok.example/", "https://ok.example/", "Read ftp://files.example/a and"},
		{"Read javascript://x%0aalert(1) now", "", "Read javascript://x%0aalert(1) now"},
		{"Read https://user:pw@evil.example/ or https://good.example/", "https://good.example/", "Read https://user:pw@evil.example/ or"},
		{"Read https:// or http:///path", "", "Read https:// or http:///path"},
		{"Read https://a.example/\u202eevil", "", "Read https://a.example/\u202eevil"},
		{"no url here", "", "no url here"},
		{"", "", ""},
	}
	for _, tt := range tests {
		got := geminiFetchArgs(tt.prompt)
		if got.URL != tt.url || got.Prompt != tt.rest {
			t.Errorf("%q: URL %q prompt %q, want %q %q", tt.prompt, got.URL, got.Prompt, tt.url, tt.rest)
		}
	}
}

func TestFetchArgs_PrefersAGeminiURLFieldAndReadsThePromptOnlyFromGemini(t *testing.T) {
	// Gemini CLI's direct web fetch takes {url}.
	in, _ := ParseInput([]byte(`{"hook_event_name":"BeforeTool","tool_name":"web_fetch","tool_input":{"url":"https://direct.example/"}}`))
	if a := in.FetchArgs(); a.URL != "https://direct.example/" || a.Prompt != "" {
		t.Errorf("direct: %+v", a)
	}
	// Another runtime's prompt is a prompt, never a URL.
	in, _ = ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"prompt":"Summarize https://a.example/"}}`))
	if a := in.FetchArgs(); a.URL != "" || a.Prompt != "Summarize https://a.example/" {
		t.Errorf("claude: %+v", a)
	}
}

func TestDecisionWrite_RendersGeminiCLIAnswers(t *testing.T) {
	before := &Input{Runtime: GeminiCLI, Event: PreToolUse, ToolName: "google_web_search"}
	lead := "webgate answered this google_web_search call in place of the native tool; this is its answer, not a failure.\n\n"
	tests := []struct {
		name string
		d    Decision
		in   *Input
		want any
	}{
		{"deny is a top-level decision whose reason reads as an answer", Decision{Action: Deny, Reason: "Web search results <b>"}, before,
			map[string]any{"decision": "deny", "reason": lead + "Web search results <b>"}},
		{"deny context follows the reason", Decision{Action: Deny, Reason: "R", Context: "C", SystemMessage: "webgate: m"}, before,
			map[string]any{"decision": "deny", "reason": lead + "R\n\nC", "systemMessage": "webgate: m"}},
		{"context after the tool", Decision{Action: AddContext, Context: "C"}, &Input{Runtime: GeminiCLI, Event: PostToolUseFailure, ToolName: "web_fetch"},
			map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "AfterTool", "additionalContext": "C"}}},
		{"context after a successful tool", Decision{Action: AddContext, Context: "C"}, &Input{Runtime: GeminiCLI, Event: PostToolUse},
			map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "AfterTool", "additionalContext": "C"}}},
		{"pass with system message", Decision{SystemMessage: "webgate: no keys"}, before, map[string]any{"systemMessage": "webgate: no keys"}},
		{"pass writes nothing", Decision{}, before, nil},
		{"context before the tool is dropped", Decision{Action: AddContext, Context: "C"}, before, nil},
		{"deny after the tool is dropped", Decision{Action: Deny, Reason: "R"}, &Input{Runtime: GeminiCLI, Event: PostToolUse}, nil},
		{"mcp replacement is dropped", Decision{Action: ReplaceMCPOutput, MCPOutput: []json.RawMessage{json.RawMessage(`{"type":"text","text":"a"}`)}}, &Input{Runtime: GeminiCLI, Event: PostToolUse}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decisionJSON(t, tt.d, tt.in)
			if tt.want == nil {
				if got != "" {
					t.Errorf("got %s, want nothing", got)
				}
				return
			}
			var v any
			if err := json.Unmarshal([]byte(got), &v); err != nil || strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "}\n") {
				t.Fatalf("not one JSON object and a newline: %q (%v)", got, err)
			}
			w, _ := json.Marshal(tt.want)
			g, _ := json.Marshal(v)
			if !bytes.Equal(g, w) {
				t.Errorf("got  %s\nwant %s", g, w)
			}
			if strings.Contains(got, "permissionDecision") {
				t.Errorf("a Claude Code field, which Gemini CLI does not read: %s", got)
			}
		})
	}
}

func TestHandleWebSearch_AnswersGeminiCLIsGoogleWebSearch(t *testing.T) {
	in, err := ParseInput(geminiRecording(t, "beforetool-google_web_search"))
	if err != nil {
		t.Fatal(err)
	}
	s := okSearcher(2)
	d := HandleWebSearch(context.Background(), in, &WebSearchEnv{Searcher: s})
	if d.Action != Deny || s.calls.Load() != 1 || s.last.Load().Text != "gemini e2e query" {
		t.Fatalf("decision %+v, searches %d", d, s.calls.Load())
	}
	var out struct {
		Decision, Reason string
	}
	if err := json.Unmarshal([]byte(decisionJSON(t, d, in)), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"webgate answered this google_web_search call", `Web search results for query "gemini e2e query"`, "Result number 1", "https://example.com/r/2", "REMINDER"} {
		if out.Decision != "deny" || !strings.Contains(out.Reason, want) {
			t.Errorf("decision %q, reason lacks %q:\n%s", out.Decision, want, out.Reason)
		}
	}
	// The tool names Gemini CLI uses are among the defaults, here and in
	// the fronts.
	if !matchName(DefaultToolNames().WebSearch, "google_web_search") || !matchName(DefaultToolNames().WebFetch, "web_fetch") {
		t.Errorf("default tool names %+v lack Gemini CLI's", DefaultToolNames())
	}
	// AfterTool on the native search is not the hook's: nothing to add.
	after, _ := ParseInput(geminiRecording(t, "aftertool-google_web_search"))
	if d := HandleWebSearch(context.Background(), after, &WebSearchEnv{Searcher: s}); d.Action != Pass || s.calls.Load() != 1 {
		t.Errorf("AfterTool: decision %+v, searches %d", d, s.calls.Load())
	}
}

func TestHandleWebFetch_ReadsTheURLOutOfGeminiCLIsPrompt(t *testing.T) {
	base := fixtureServer(t)
	page := base + "/browser-render-required/react-cra-empty-root.html"
	payload := bytes.ReplaceAll(geminiRecording(t, "beforetool-web_fetch"), []byte("https://docs.example/gemini-page"), []byte(page))
	in, err := ParseInput(payload)
	if err != nil {
		t.Fatal(err)
	}
	x := pageExtractor("Extracted Title", "# Heading\n\nThe extracted body.")
	d := HandleWebFetch(context.Background(), in, fetchEnv(x))
	if d.Action != Deny {
		t.Fatalf("decision = %+v", d)
	}
	if req := x.last.Load(); req.URL != page || req.Query != "Summarize" {
		t.Errorf("extraction request = %+v, want the URL from the prompt and the rest as the query", req)
	}
	out := decisionJSON(t, d, in)
	for _, want := range []string{`"decision":"deny"`, "webgate answered this web_fetch call", "Content of " + page, "Request: Summarize", "The extracted body."} {
		if !strings.Contains(out, want) {
			t.Errorf("answer lacks %q:\n%s", want, out)
		}
	}
}

func TestGateRelevant_SendsGeminiCLIsWebToolsToTheWorker(t *testing.T) {
	env := func(k string) (string, bool) {
		if k == "HOME" {
			return t.TempDir(), true
		}
		return "", false
	}
	for _, c := range []struct {
		hook, name string
		want       bool
	}{
		{gate.WebSearch, "beforetool-google_web_search", true},
		{gate.WebFetch, "beforetool-web_fetch", true},
		{gate.WebSearch, "beforetool-web_fetch", false},
		{gate.WebFetch, "beforetool-google_web_search", false},
		// The native search ran and succeeded: nothing for either hook.
		{gate.WebSearch, "aftertool-google_web_search", false},
		// The native fetch failed: the web fetch hook reads the page.
		{gate.WebFetch, "aftertool-web_fetch", true},
	} {
		if got := gate.Relevant(c.hook, geminiRecording(t, c.name), env); got != c.want {
			t.Errorf("%s %s: Relevant = %v, want %v", c.hook, c.name, got, c.want)
		}
		// The worker agrees with the front.
		in, _ := ParseInput(geminiRecording(t, c.name))
		wants := WantsWebSearch(in, ToolNames{})
		if c.hook == gate.WebFetch {
			wants = WantsWebFetch(in, ToolNames{})
		}
		if wants != c.want {
			t.Errorf("%s %s: the handler wants it = %v, the front %v", c.hook, c.name, wants, c.want)
		}
	}
}

func FuzzGeminiFetchArgs(f *testing.F) {
	for _, s := range []string{"Summarize https://docs.example/gemini-page", "(https://a.example/x).", "ftp://x https://y", "https://u:p@x/ http://[::1]:80/a", "\u202ehttps://a\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		a := geminiFetchArgs(prompt)
		if a.URL != "" {
			scheme, _, _ := strings.Cut(a.URL, "://")
			if sanitize.URL(a.URL) != a.URL || !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") || !strings.Contains(prompt, a.URL) {
				t.Errorf("%q: URL %q may not be shown or is not in the prompt", prompt, a.URL)
			}
		}
		if strings.ContainsAny(a.Prompt, "\n\t\r") || a.Prompt != strings.TrimSpace(a.Prompt) {
			t.Errorf("%q: prompt %q is not one trimmed line", prompt, a.Prompt)
		}
	})
}
