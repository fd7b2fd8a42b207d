package e2e

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real-CLI checks of Gemini CLI. First, `webgate install --target
// gemini-cli` writes hooks the CLI accepts and runs for google_web_search
// and web_fetch: the hook binaries installed are recording stand-ins, each
// saving the payload it gets and answering nothing, so the native tool
// runs, and a hook the user had before (AfterTool, kept by install)
// records what the tools returned. The payloads are kept in
// testdata/gemini (the hooks package's tests decode them); rewrite them
// with
//
//	go test ./cmd/e2e -run TestGemini -update-gemini-recordings
//
// Then the real hooks, installed the same way, answer both tools: the
// model receives webgate's results in place of the native tools'.

var updateRecordings = flag.Bool("update-gemini-recordings", false, "rewrite testdata/gemini with the hook payloads Gemini CLI sends")

// recordingHook is a hook that saves its stdin as NAME-N.json in dir.
const recordingHook = `#!/bin/sh
n=$(ls "%[1]s" | wc -l)
cat > "%[1]s/$(basename "$0")-$n.json"
`

// recordingBinDir returns a directory holding recording stand-ins for
// websearch and webfetch, the webgate-hook worker `webgate install`
// looks for next to them, and an "aftertool" recorder; and the directory
// they record into.
func recordingBinDir(t *testing.T) (bin, records string) {
	t.Helper()
	bin, records = t.TempDir(), t.TempDir()
	script := strings.ReplaceAll(recordingHook, "%[1]s", records)
	for _, name := range []string{"websearch", "webfetch", "webgate-hook", "aftertool"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, records
}

// hookPayload is the part of a Gemini CLI hook payload the test checks.
type hookPayload struct {
	SessionID      string         `json:"session_id"`
	TranscriptPath string         `json:"transcript_path"`
	Cwd            string         `json:"cwd"`
	HookEventName  string         `json:"hook_event_name"`
	Timestamp      string         `json:"timestamp"`
	ToolName       string         `json:"tool_name"`
	ToolInput      map[string]any `json:"tool_input"`
	ToolResponse   map[string]any `json:"tool_response"`
}

func TestGemini_InstalledHooksAreAcceptedAndRunForTheWebTools(t *testing.T) {
	gemini := GeminiCLI.Binary(t)
	webgate := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webgate")
	binDir, records := recordingBinDir(t)
	// web_fetch's prompt holds the URL; Gemini CLI refuses hosts it cannot
	// resolve to a public address, so the native tool fails here, after
	// the hooks ran.
	api := NewFakeGemini(t,
		CallTool("google_web_search", map[string]any{"query": "gemini e2e query"}),
		CallTool("web_fetch", map[string]any{"prompt": "Summarize https://docs.example/gemini-page"}),
		Say("GEMINI-DONE"),
	)
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settingsPath := filepath.Join(home, ".gemini", "settings.json")
	before := `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"disableAutoUpdate": true},
  "privacy": {"usageStatisticsEnabled": false},
  "hooks": {
    "AfterTool": [
      {"matcher": "^(google_web_search|web_fetch)$", "hooks": [{"type": "command", "command": "` + filepath.Join(binDir, "aftertool") + `"}]}
    ]
  }
}
`
	writeFile(t, settingsPath, []byte(before))

	out := RunWebgate(t, webgate, home, nil, "install", "--target", "gemini-cli", "--bin-dir", binDir)
	if !strings.Contains(out, "hooks registered") {
		t.Fatalf("install output:\n%s", out)
	}
	settings, _ := os.ReadFile(settingsPath)
	for _, want := range []string{`"matcher": "^google_web_search$"`, `"matcher": "^web_fetch$"`, `"command": "` + filepath.Join(binDir, "websearch") + `"`, `"timeout": 30000`, "aftertool"} {
		if !bytes.Contains(settings, []byte(want)) {
			t.Errorf("settings.json after install lacks %s:\n%s", want, settings)
		}
	}

	res := RunCLI(t, CLIRun{
		Bin:  gemini,
		Args: []string{"-p", "Search the web, then read the page.", "--yolo", "-o", "json", "-m", "gemini-2.5-flash"},
		Home: home, Dir: project,
		Env: map[string]string{
			"GOOGLE_GEMINI_BASE_URL":     api.URL,
			"GEMINI_API_KEY":             "gemini-e2e-dummy-key",
			"GEMINI_CLI_TRUST_WORKSPACE": "true",
		},
		// Node starts slowly on a busy machine; a run takes 10-30 s.
		Timeout: 150 * time.Second,
	})

	if res.ExitCode != 0 {
		t.Fatalf("gemini exit code = %d, want 0", res.ExitCode)
	}
	if strings.Contains(res.Stderr, "Invalid configuration") || strings.Contains(res.Stderr, "Invalid hook") {
		t.Errorf("gemini rejected the settings webgate wrote:\n%s", res.Stderr)
	}
	var final struct {
		Response string `json:"response"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(res.Stdout)), &final); err != nil || final.Response != "GEMINI-DONE" {
		t.Errorf("final response = %q (%v), want GEMINI-DONE", final.Response, err)
	}
	for _, a := range res.ProxyAttempts {
		t.Errorf("gemini tried to leave the machine: %q", a)
	}

	recorded := map[string][]byte{}
	entries, _ := os.ReadDir(records)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(records, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var p hookPayload
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("%s: %v\n%s", e.Name(), err, b)
		}
		name := strings.ToLower(p.HookEventName) + "-" + p.ToolName
		bin, _, _ := strings.Cut(e.Name(), "-")
		if want := map[string]string{"websearch": "beforetool-google_web_search", "webfetch": "beforetool-web_fetch"}[bin]; want != "" && name != want {
			t.Errorf("the %s hook got the payload of %s", bin, name)
		}
		if p.SessionID == "" || p.Cwd != project || p.Timestamp == "" || !strings.HasPrefix(p.TranscriptPath, home) {
			t.Errorf("%s: common fields = %+v", name, p)
		}
		recorded[name] = b
	}
	for _, tc := range []struct{ name, key, want string }{
		{"beforetool-google_web_search", "query", "gemini e2e query"},
		{"beforetool-web_fetch", "prompt", "Summarize https://docs.example/gemini-page"},
		{"aftertool-google_web_search", "query", "gemini e2e query"},
		{"aftertool-web_fetch", "prompt", "Summarize https://docs.example/gemini-page"},
	} {
		b, ok := recorded[tc.name]
		if !ok {
			t.Errorf("no %s payload was recorded (got %d payloads); the installed hooks did not run", tc.name, len(recorded))
			continue
		}
		var p hookPayload
		_ = json.Unmarshal(b, &p)
		if p.ToolInput[tc.key] != tc.want {
			t.Errorf("%s tool_input = %v, want %s %q", tc.name, p.ToolInput, tc.key, tc.want)
		}
		if *updateRecordings {
			saveRecording(t, tc.name, b, home, project)
		}
	}
	// What the model received: the native tools' own results, since the
	// stand-ins answered nothing.
	resp := api.FunctionResponses()
	if len(resp) != 2 {
		t.Fatalf("function responses = %d, want 2", len(resp))
	}
	search, _ := json.Marshal(resp[0].FunctionResponse.Response)
	fetch, _ := json.Marshal(resp[1].FunctionResponse.Response)
	t.Logf("model received for google_web_search: %s", search)
	t.Logf("model received for web_fetch: %s", fetch)
	if !strings.Contains(string(search), api.SearchText) {
		t.Errorf("google_web_search response = %s, want the native result", search)
	}
}

// saveRecording writes a payload into testdata/gemini, indented, with the
// test's temporary paths replaced by <HOME> and <PROJECT>.
func saveRecording(t *testing.T, name string, b []byte, home, project string) {
	t.Helper()
	b = bytes.ReplaceAll(b, []byte(project), []byte("<PROJECT>"))
	b = bytes.ReplaceAll(b, []byte(home), []byte("<HOME>"))
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	writeFile(t, filepath.Join("testdata", "gemini", name+".json"), out.Bytes())
	t.Logf("wrote testdata/gemini/%s.json", name)
}

// TestGemini_InstalledHooksAnswerTheWebToolsWithProviderResults runs
// Gemini CLI with the hooks `webgate install --target gemini-cli`
// registers: google_web_search is answered with the providers' results
// and web_fetch of an app shell with the extracted page, each as the
// BeforeTool deny the model reads after "Tool execution blocked: ", and
// neither native tool runs.
func TestGemini_InstalledHooksAnswerTheWebToolsWithProviderResults(t *testing.T) {
	gemini := GeminiCLI.Binary(t)
	webgate := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webgate")
	binDir := t.TempDir()
	for name, pkg := range map[string]string{"websearch": hookPkgPrefix + "websearch", "webfetch": hookPkgPrefix + "webfetch"} {
		if err := os.Symlink(bins.Build(t, pkg), filepath.Join(binDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	// The fronts run the worker built next to them; install checks it is
	// there too.
	if err := os.Symlink(filepath.Join(bins.Dir, workerName()), filepath.Join(binDir, workerName())); err != nil {
		t.Fatal(err)
	}
	providers := newFakeProviders(t)
	page := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, appShell)
	}))
	t.Cleanup(page.Close)
	appURL := page.URL + "/app"
	api := NewFakeGemini(t,
		CallTool("google_web_search", map[string]any{"query": "gemini answered query"}),
		CallTool("web_fetch", map[string]any{"prompt": "Summarize " + appURL + " and say when the deadline is"}),
		Say("GEMINI-DONE"),
	)
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), []byte(`{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"disableAutoUpdate": true},
  "privacy": {"usageStatisticsEnabled": false}
}
`))
	if out := RunWebgate(t, webgate, home, nil, "install", "--target", "gemini-cli", "--bin-dir", binDir); !strings.Contains(out, "hooks registered") {
		t.Fatalf("install output:\n%s", out)
	}

	env := providers.env(map[string]string{"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE": "1"})
	env["GOOGLE_GEMINI_BASE_URL"] = api.URL
	env["GEMINI_API_KEY"] = "gemini-e2e-dummy-key"
	env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	res := RunCLI(t, CLIRun{
		Bin:  gemini,
		Args: []string{"-p", "Search the web, then read the page.", "--yolo", "-o", "json", "-m", "gemini-2.5-flash"},
		Home: home, Dir: project, Env: env,
		Timeout: 150 * time.Second,
	})

	if res.ExitCode != 0 {
		t.Fatalf("gemini exit code = %d, want 0", res.ExitCode)
	}
	var final struct {
		Response string `json:"response"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(res.Stdout)), &final); err != nil || final.Response != "GEMINI-DONE" {
		t.Errorf("final response = %q (%v), want GEMINI-DONE", final.Response, err)
	}
	for _, a := range res.ProxyAttempts {
		t.Errorf("gemini or a hook tried to leave the machine: %q", a)
	}
	if n, m := len(api.RequestsOf("google_search")), len(api.RequestsOf("url_context")); n+m != 0 {
		t.Errorf("the native tools ran: %d google_search and %d url_context request(s)", n, m)
	}
	var sent strings.Builder
	for _, r := range api.Requests() {
		sent.Write(r.Body)
	}
	for _, k := range []string{hookTavilyKey, hookWSAPIKey} {
		if strings.Contains(res.Stdout+res.Stderr+sent.String(), k) {
			t.Errorf("a provider key reached the CLI's output or the model")
		}
	}
	paths := strings.Join(providers.Paths(), " ")
	if !strings.Contains(paths, "/tavily/search") || !strings.Contains(paths, "/wsapi/scrape") {
		t.Errorf("provider requests = %q, want a Tavily search and a WebSearchAPI.ai extraction", paths)
	}

	resp := api.FunctionResponses()
	if len(resp) != 2 {
		t.Fatalf("function responses = %d, want 2", len(resp))
	}
	const blocked = "Tool execution blocked: "
	for i, tc := range []struct {
		tool string
		want []string
	}{
		{"google_web_search", []string{
			`Web search results for query "gemini answered query", from provider-backed search via webgate`,
			"HOOK-RESULT-ONE for gemini answered query", "https://docs.example/one", "HOOK-RESULT-TWO", "REMINDER: cite the sources",
		}},
		{"web_fetch", []string{
			"Content of " + appURL + ", extracted by webgate via websearchapi",
			"Title: Rendered app", "Request: Summarize and say when the deadline is", "EXTRACTED-APP-CONTENT: the app's deadline is Friday.",
		}},
	} {
		p := resp[i].FunctionResponse
		text, _ := p.Response["error"].(string)
		t.Logf("model received for %s:\n%s", tc.tool, text)
		if p.Name != tc.tool || !strings.HasPrefix(text, blocked+"webgate answered this "+tc.tool+" call in place of the native tool; this is its answer, not a failure.\n\n") {
			t.Errorf("%s: functionResponse %s = %v, want webgate's answer", tc.tool, p.Name, p.Response)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the model's functionResponse lacks %q:\n%s", tc.tool, w, text)
			}
		}
	}
}
