package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The real-CLI scenario of Codex CLI: `webgate install --target codex`
// registers webgate's MCP server in CODEX_HOME/config.toml, and `codex
// exec` against a fake Responses API calls its web_search tool.

// codexConfig is a Codex config.toml that sends the model requests to
// api. A comment and a table below it check that install keeps them.
func codexConfig(api *FakeResponses) string {
	return fmt.Sprintf(`# e2e: the model is a fake on 127.0.0.1
model = "gpt-e2e"
model_provider = "fake"
approval_policy = "never"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"

[history]
persistence = "none" # kept by install

[analytics]
enabled = false

[features]
# Offline: no plugin or app sync with OpenAI's and GitHub's servers.
plugins = false
remote_plugin = false
apps = false
`, api.URL)
}

// webgateConfig writes webgate's own configuration file under home: an
// MCP server started by Codex gets HOME but not the test's environment.
func webgateConfig(t *testing.T, home string, p *fakeProviders) {
	t.Helper()
	writeFile(t, filepath.Join(home, ".config", "webgate", "config.toml"), []byte(fmt.Sprintf(`[search]
providers = ["tavily"]

[extract]
providers = ["websearchapi"]

[providers.tavily]
keys = %q
base_url = %q

[providers.websearchapi]
keys = %q
base_url = %q
`, hookTavilyKey, p.URL+"/tavily", hookWSAPIKey, p.URL+"/wsapi")))
}

func TestCodex_InstalledMCPServerAnswersTheModelsWebSearch(t *testing.T) {
	codex := CodexCLI.Binary(t)
	webgate := bins.Build(t, "github.com/webgate-dev/webgate/cmd/webgate")
	providers := newFakeProviders(t)
	api := NewFakeResponses(t,
		CallTool("mcp__webgate__web_search", map[string]any{"query": "codex e2e query", "max_results": 2}),
		Say("CODEX-DONE"),
	)
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	codexHome := filepath.Join(home, ".codex")
	for _, d := range []string{home, project, codexHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	configPath := filepath.Join(codexHome, "config.toml")
	before := codexConfig(api)
	writeFile(t, configPath, []byte(before))
	webgateConfig(t, home, providers)

	out := RunWebgate(t, webgate, home, map[string]string{"CODEX_HOME": codexHome}, "install", "--target", "codex")
	if !strings.Contains(out, "MCP server registered") {
		t.Fatalf("install output:\n%s", out)
	}
	after, _ := os.ReadFile(configPath)
	wantTable := "[mcp_servers.webgate]\ncommand = " + fmt.Sprintf("%q", webgate) + "\nargs = [\"mcp\"]\n"
	if !strings.HasPrefix(string(after), before) || !strings.HasSuffix(string(after), "\n"+wantTable) {
		t.Fatalf("config.toml after install:\n%s\nwant the file as it was, a blank line, then:\n%s", after, wantTable)
	}

	res := RunCLI(t, CLIRun{
		Bin: codex,
		Args: []string{"exec", "--strict-config", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
			"--json", "Search the web for codex e2e query."},
		Home: home, Dir: project,
		Env: map[string]string{"CODEX_HOME": codexHome, "FAKE_OPENAI_API_KEY": "sk-e2e-dummy", "RUST_LOG": "warn"},
	})

	if res.ExitCode != 0 {
		t.Fatalf("codex exit code = %d, want 0", res.ExitCode)
	}
	assertNoLeaks(t, res, hookTavilyKey, hookWSAPIKey)
	tools := api.ToolNames(t)
	if !containsString(tools, "mcp__webgate/web_search") || !containsString(tools, "mcp__webgate/web_fetch") {
		t.Errorf("tools offered to the model = %q, want webgate's web_search and web_fetch in the mcp__webgate namespace", tools)
	}
	got := api.ToolOutput(t, 0)
	text := got.OutputText()
	// Codex puts its own "Wall time: …\nOutput:" part before the server's.
	_, server, _ := strings.Cut(text, "Output:\n")
	first, _, _ := strings.Cut(server, "\n")
	t.Logf("model received (function_call_output, no error field; first line of webgate's text): %q", first)
	if !strings.HasPrefix(text, "Wall time: ") || !strings.Contains(server, "Web search results for") {
		t.Errorf("function_call_output = %s, want Codex's wall-time part, then webgate's text", got.Output)
	}
	for _, want := range []string{
		`Web search results for "codex e2e query"`,
		"HOOK-RESULT-ONE for codex e2e query",
		"https://docs.example/one",
		"HOOK-RESULT-TWO",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("function_call_output lacks %q:\n%s", want, text)
		}
	}
	if p := providers.Paths(); len(p) != 1 || p[0] != "/tavily/search" {
		t.Errorf("provider requests = %q, want one Tavily search", p)
	}
	if !strings.Contains(res.Stdout, "CODEX-DONE") {
		t.Errorf("codex output lacks the model's final answer:\n%s", tail(res.Stdout, 2000))
	}
	for _, a := range res.ProxyAttempts {
		t.Errorf("codex tried to leave the machine: %q", a)
	}
}

// assertNoLeaks fails the test when one of secrets appears in a CLI's
// output.
func assertNoLeaks(t *testing.T, res *CLIResult, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(res.Stdout, s) || strings.Contains(res.Stderr, s) {
			t.Errorf("a provider key appeared in the CLI's output")
		}
	}
}
