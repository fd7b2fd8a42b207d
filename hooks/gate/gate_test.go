package gate

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/webgate-dev/webgate/routing"
)

func envOf(kv ...string) Env {
	m := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestRelevant_PassesOnlyWhatTheHookMayHandle(t *testing.T) {
	home := t.TempDir()
	base := "HOME=" + home
	cases := []struct {
		hook, payload string
		env           []string
		want          bool
	}{
		{WebSearch, `{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"x"}}`, nil, true},
		{WebSearch, `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{}}`, nil, false},
		{WebSearch, `{"hook_event_name":"PreToolUse","tool_name":"WebFetch"}`, nil, false},
		{WebSearch, `{"hook_event_name":"PreToolUse","tool_name":"mcp__ccs-websearch__WebSearch"}`, nil, false},
		{WebSearch, `{"hook_event_name":"PostToolUse","tool_name":"mcp__ccs-websearch__WebSearch"}`, nil, true},
		{WebSearch, `{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__plugin_x_ccs-websearch__WebSearch"}`, nil, true},
		{WebSearch, `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`, nil, false},
		{WebSearch, `{"hook_event_name":"SessionStart","source":"startup"}`, nil, true},
		{WebSearch, `{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`, nil, false},
		{WebSearch, `{"hookEventName":"PreToolUse","tool_name":"editFiles"}`, nil, false},
		{WebSearch, `{"hookEventName":"PreToolUse","tool_name":"WebSearch"}`, nil, true},
		{WebSearch, `{"sessionId":"s","toolName":"bash","toolArgs":"{}"}`, nil, false},
		{WebSearch, `{"hook_event_name":"PreToolUse","tool_name":"web_search"}`, []string{"WEBGATE_HOOKS_WEBSEARCH_TOOL_NAMES=WebSearch,web_search"}, true},
		{WebSearch, `not json`, nil, true},
		// Gemini CLI: BeforeTool is PreToolUse, AfterTool PostToolUse (or
		// PostToolUseFailure when the tool's response holds an error).
		{WebSearch, `{"hook_event_name":"BeforeTool","tool_name":"google_web_search","tool_input":{"query":"q"}}`, nil, true},
		{WebSearch, `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`, nil, false},
		{WebSearch, `{"hook_event_name":"AfterTool","tool_name":"google_web_search","tool_response":{"llmContent":"x"}}`, nil, false},
		{WebSearch, `{"hook_event_name":"BeforeModel","llm_request":{}}`, nil, false},
		{WebFetch, `{"hook_event_name":"BeforeTool","tool_name":"web_fetch","tool_input":{"prompt":"Summarize https://x"}}`, nil, true},
		{WebFetch, `{"hook_event_name":"BeforeTool","tool_name":"google_web_search"}`, nil, false},
		{WebFetch, `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"curl x"}}`, nil, false},
		{WebFetch, `{"hook_event_name":"AfterTool","tool_name":"web_fetch","tool_response":{"llmContent":"page"}}`, nil, false},
		{WebFetch, `{"hook_event_name":"AfterTool","tool_name":"web_fetch","tool_response":{"llmContent":"Error","error":{"message":"blocked","type":"web_fetch_processing_error"}}}`, nil, true},
		{WebFetch, `{"hook_event_name":"AfterTool","tool_name":"web_fetch","tool_response":{"llmContent":"page","error":null}}`, nil, false},
		{WebFetch, `{"hook_event_name":"AfterTool","tool_name":"read_file","tool_response":{"error":{"message":"no"}}}`, nil, false},
		{WebFetch, `{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://x"}}`, nil, true},
		{WebFetch, `{"sessionId":"s","toolName":"web_fetch","toolArgs":"{\"url\":\"https://x\"}"}`, nil, true},
		{WebFetch, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, nil, false},
		{WebFetch, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, []string{"WEBGATE_TOOL_ROUTES=/etc/routes.json"}, true},
		{WebFetch, `{"sessionId":"s","toolName":"bash","toolArgs":"{}"}`, []string{"WEBGATE_TOOL_ROUTES=/r.json"}, true},
		{WebFetch, `{"hook_event_name":"PostToolUse","tool_name":"WebFetch"}`, nil, false},
		{WebFetch, `{"hook_event_name":"PostToolUseFailure","tool_name":"WebFetch","tool_input":{"url":"https://x"},"error":"Unable to verify if domain x is safe to fetch."}`, nil, true},
		{WebFetch, `{"hook_event_name":"PostToolUseFailure","tool_name":"Read","error":"boom"}`, nil, false},
		{WebFetch, `{"hook_event_name":"PostToolUseFailure","tool_name":"fetch_page","error":"boom"}`, []string{"WEBGATE_HOOKS_WEBFETCH_TOOL_NAMES=fetch_page"}, true},
		{WebSearch, `{"hook_event_name":"PostToolUseFailure","tool_name":"WebFetch","error":"boom"}`, nil, false},
		{WebFetch, `{"hook_event_name":"SessionStart"}`, nil, false},
		{WebFetch, `[]`, nil, true},
		// Not a hook payload at all: the worker explains.
		{WebSearch, `null`, nil, true},
		{WebSearch, `{}`, nil, true},
		{WebSearch, "\ufeff{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"WebSearch\"}", nil, true},
	}
	for _, c := range cases {
		env := envOf(append([]string{base}, c.env...)...)
		if got := Relevant(c.hook, []byte(c.payload), env); got != c.want {
			t.Errorf("%s %s %v: Relevant = %v, want %v", c.hook, c.payload, c.env, got, c.want)
		}
	}
}

func TestRelevant_AConfigFileWithCustomNamesOrRoutesSendsToolEventsToTheWorker(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "webgate")
	os.MkdirAll(dir, 0o755)
	bash := []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"curl x"}}`)
	other := []byte(`{"hook_event_name":"PreToolUse","tool_name":"my_search"}`)
	env := envOf("HOME=" + home)
	if Relevant(WebFetch, bash, env) || Relevant(WebSearch, other, env) {
		t.Fatal("relevant without a configuration file")
	}
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[[routes.tool_routes]]\nname='x'\ntool='WebFetch'\n"), 0o600)
	if Relevant(WebFetch, bash, env) {
		t.Error("Bash sent to the worker although the file routes WebFetch only")
	}
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[[routes.tool_routes]]\nname='x'\ntool='Bash'\n"), 0o600)
	if !Relevant(WebFetch, bash, env) {
		t.Error("Bash not sent to the worker although the file configures Bash routes")
	}
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[hooks.websearch]\ntool_names=['my_search']\n"), 0o600)
	if !Relevant(WebSearch, other, env) {
		t.Error("a custom tool name in the file was not sent to the worker")
	}
	named := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(named, []byte("routes:\n  config: /r.json\n"), 0o600)
	if !Relevant(WebFetch, bash, envOf("HOME="+home, "WEBGATE_CONFIG="+named)) {
		t.Error("WEBGATE_CONFIG not read")
	}
}

func TestMain_StepsAsideSilentlyForIgnoredEventsAndOversizedInput(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main(WebSearch, nil, strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Read"}`), &out, &errb, envOf("HOME="+t.TempDir()))
	if code != 0 || out.Len() != 0 || errb.Len() != 0 {
		t.Fatalf("code %d stdout %q stderr %q", code, out.String(), errb.String())
	}
	big := strings.NewReader(`{"x":"` + strings.Repeat("a", MaxInputBytes) + `"}`)
	code = Main(WebSearch, nil, big, &out, &errb, envOf())
	if code != 0 || out.Len() != 0 || !strings.Contains(errb.String(), "too large") {
		t.Fatalf("code %d stdout %q stderr %q", code, out.String(), errb.String())
	}
	if big.Len() != 0 {
		t.Error("oversized stdin not drained")
	}
}

func TestMain_SaysSoWhenTheWorkerIsMissing(t *testing.T) {
	var out, errb bytes.Buffer
	t.Setenv("PATH", t.TempDir())
	code := Main(WebSearch, nil, strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"q"}}`), &out, &errb, envOf("HOME="+t.TempDir()))
	if code != 0 || out.Len() != 0 || !strings.Contains(errb.String(), "webgate-hook") {
		t.Fatalf("code %d stdout %q stderr %q", code, out.String(), errb.String())
	}
}

func TestMain_HandsRelevantPayloadsToTheWorker(t *testing.T) {
	dir := t.TempDir()
	worker := filepath.Join(dir, "worker.sh")
	os.WriteFile(worker, []byte("#!/bin/sh\necho \"arg=$1\"\ncat\n"), 0o755)
	var out, errb bytes.Buffer
	in := `{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://x"}}`
	code := Main(WebFetch, nil, strings.NewReader(in), &out, &errb, envOf("HOME="+dir, WorkerEnv+"="+worker))
	if code != 0 || out.String() != "arg=webfetch\n"+in {
		t.Fatalf("code %d stdout %q stderr %q", code, out.String(), errb.String())
	}
}

func TestMain_PrintsItsVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main(WebFetch, []string{"--version"}, strings.NewReader(""), &out, &errb, envOf()); code != 0 {
		t.Fatal(code)
	}
	if !strings.HasPrefix(out.String(), "webfetch (webgate) ") {
		t.Fatalf("stdout %q", out.String())
	}
}

func TestRelevant_IgnoresARelativeXDGConfigHomeAsTheConfigPackageDoes(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "webgate")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[hooks.websearch]\ntool_names=['my_search']\n"), 0o600)
	other := []byte(`{"hook_event_name":"PreToolUse","tool_name":"my_search"}`)
	if !Relevant(WebSearch, other, envOf("HOME="+home, "XDG_CONFIG_HOME=relative/dir")) {
		t.Error("the file in ~/.config/webgate, which the worker reads, was not consulted")
	}
}

func TestRelevant_RunsTheWorkerWhenTheConfigurationFileStalls(t *testing.T) {
	release, finished := make(chan struct{}), make(chan struct{})
	savedScan, savedWait := scanFile, configWait
	scanFile = func(string) (configFacts, error) {
		<-release
		close(finished)
		return configFacts{}, os.ErrNotExist
	}
	configWait = 50 * time.Millisecond
	t.Cleanup(func() {
		close(release)
		<-finished
		scanFile, configWait = savedScan, savedWait
	})
	// A tool the hook ignores by default: only the configuration file could
	// make it relevant, and it cannot be read.
	env := envOf("WEBGATE_CONFIG=/stalled/config.toml", "HOME="+t.TempDir())
	if !Relevant(WebSearch, []byte(`{"hook_event_name":"PreToolUse","tool_name":"web_search"}`), env) {
		t.Error("a configuration file that could not be read in time made the front skip the worker")
	}
}

func TestBashRoutesMayExist_ErrsOnTheSideOfTheWorker(t *testing.T) {
	cases := []struct {
		file string
		want bool
	}{
		{"", false},
		{"debug = true\n", false},
		{"[[routes.tool_routes]]\ntool = \"WebFetch\"\npattern = \"^https://github\\\\.com/\"\nmessage = \"use gh\"\n", false},
		{"[hooks]\nstate_dir = \"~/.config/webgate/state\"\n", false},
		{"[providers.tavily]\nkeys = \"~/.config/keys.txt\"\n", false},
		{`{"routes":{"tool_routes":[{"tool":"WebFetch","pattern":"a\\\\.b"}]}}`, false},
		// A Bash route, however it is written.
		{"[[routes.tool_routes]]\ntool = \"Bash\"\n", true},
		{"routes:\n  tool_routes:\n    - tool: Bash\n", true},
		// The routing package takes "Bash" exactly: a route for "BASH" is
		// skipped (TestBashRoutesMayExist_TheRouterTakesBashExactly).
		{"routes:\n  tool_routes:\n    - tool: BASH\n", false},
		{`{"routes":{"tool_routes":[{"tool":"\u0042ash"}]}}`, true},
		{"routes:\n  tool_routes:\n    - tool: \"\\x42ash\"\n", true},
		{"[[routes.tool_routes]]\ntool = \"\"\"Ba\\\n  sh\"\"\"\n", true},
		{"[[routes.tool_routes]]\ntool = \"\"\"Ba\\  \r\n  sh\"\"\"\n", true},
		// A routes file, which the front does not read.
		{"[routes]\nconfig = \"/etc/routes.json\"\n", true},
		{"routes.config='/r.json'\n", true},
		{"routes:\n  config: /r.json\n", true},
		{`{"routes": {"config" : "/r.json"}}`, true},
		{"routes:\n  ? config\n  : /r.json\n", true},
		{"[docs]\nconfig = \"/d.json\"\n", true},
	}
	for _, c := range cases {
		facts, err := scanConfig(strings.NewReader(c.file))
		if got := bashRoutesMayExist(envOf(), facts); got != c.want || err != nil {
			t.Errorf("%q: %v (%v), want %v", c.file, got, err, c.want)
		}
	}
}

func TestBashRoutesMayExist_TheRouterTakesBashExactly(t *testing.T) {
	r, warns := routing.NewToolRouter([]routing.ToolRoute{{Tool: "BASH", Pattern: "x", Message: "m"}, {Tool: "bash", Pattern: "x", Message: "m"}})
	if len(warns) != 2 || len(r.Routes()) != 0 || toolBash != routing.ToolBash {
		t.Fatalf("the router takes another spelling of Bash (%v): the front must look for it too", warns)
	}
}

// TestScanConfig_ReadsInPiecesAsWhole checks that scanning a file in
// pieces finds what scanning it whole finds, wherever the pieces end.
func TestScanConfig_ReadsInPiecesAsWhole(t *testing.T) {
	// Mostly pieces that decide nothing alone, so that many files have
	// no Bash route and the end of a piece often falls in a look-ahead.
	quiet := []string{"a", "x", "/", ".", " ", " ", "\t", "\n", "\"", "'", "config", "config ", "config.toml", "~/.config/x", "Bas", "tool_names", "mcp_tool_names", "\\\\", "\\ x", "[routes]\n"}
	loud := []string{"Bash", "budget = \"2s\"\n", "budget: 3\n", "\"budget\" : 1.5,", "budget", "=", ":", "\\u0042", "\\ \n", "\\x", strings.Repeat(" ", 70), "config" + strings.Repeat(" ", 70) + "=", "\\" + strings.Repeat("\t", 70) + "\n"}
	rng := rand.New(rand.NewPCG(9, 10))
	var quietFiles int
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(150) {
			if rng.IntN(40) == 0 {
				b.WriteString(loud[rng.IntN(len(loud))])
			} else {
				b.WriteString(quiet[rng.IntN(len(quiet))])
			}
		}
		file := b.String()
		whole, _ := scanPieces(strings.NewReader(file), len(file)+1)
		if !whole.bashRoutes {
			quietFiles++
		}
		for _, size := range []int{64, 65, 77, 100, 128, 257} {
			got, err := scanPieces(iotest.OneByteReader(strings.NewReader(file)), size)
			// A piece may answer yes where the whole says no, but only
			// past a run of blanks longer than what pieces keep.
			if long := strings.Contains(file, strings.Repeat(" ", 40)); long && got.bashRoutes && !whole.bashRoutes {
				got.bashRoutes = false
			}
			// A budget set past such a run may be missed in pieces.
			if long := strings.Contains(file, strings.Repeat(" ", 40)); long && got.budget != whole.budget {
				got.budget = whole.budget
			}
			if err != nil || got != whole {
				t.Fatalf("%q in pieces of %d: %+v, whole: %+v", file, size, got, whole)
			}
		}
	}
	if quietFiles < 500 {
		t.Errorf("only %d files without Bash routes", quietFiles)
	}
}

// The front bounds its wait for stdin by the hook's budget: the
// environment's, else the shortest one the configuration file may set,
// else the default; a provider's monthly budget is no duration.
func TestHookBudget_FromTheEnvironmentElseTheFile(t *testing.T) {
	for _, c := range []struct {
		file string
		want time.Duration
	}{
		{"", 0},
		{"[hooks.websearch]\nbudget = \"2s\"\n", 2 * time.Second},
		{"[hooks.websearch]\nbudget='2s' # short\n", 2 * time.Second},
		{"hooks:\n  webfetch:\n    budget: 3s # short\n", 3 * time.Second},
		{`{"hooks":{"websearch":{"budget":"1.5s","tool_names":["x"]}}}`, 1500 * time.Millisecond},
		{"hooks.websearch.budget = 4\n", 4 * time.Second},
		{"[hooks.websearch]\nbudget = \"20s\"\n[hooks.webfetch]\nbudget = \"1m\"\n", 20 * time.Second},
		{"[providers.tavily.budget]\nmonthly = 100\n", 0},
		{"[providers.tavily]\nbudget = { monthly = 100 }\n", 0},
		{"[providers.jina]\ntoken_budget = 5000\n", 0},
		{"providers:\n  tavily:\n    budget:\n      monthly: 5\n", 0},
		{`{"providers":{"tavily":{"budget":{"monthly":5}}}}`, 0},
		{"[hooks.websearch]\nbudget = \"soon\"\n", 0},
		{"[hooks.websearch]\nbudget = \"-2s\"\n", 0},
	} {
		facts, err := scanConfig(strings.NewReader(c.file))
		if err != nil || facts.budget != c.want {
			t.Errorf("%q: budget %v (%v), want %v", c.file, facts.budget, err, c.want)
		}
	}
	if got := HookBudget(WebSearch, envOf(), 0); got != DefaultSearchBudget {
		t.Errorf("no budget set: %v", got)
	}
	if got := HookBudget(WebFetch, envOf(), 3*time.Second); got != 3*time.Second {
		t.Errorf("budget in the file: %v", got)
	}
	if got := HookBudget(WebFetch, envOf("WEBGATE_HOOKS_WEBFETCH_BUDGET=2"), 3*time.Second); got != 2*time.Second {
		t.Errorf("budget in the environment: %v", got)
	}
	if got := HookBudget(WebFetch, envOf("WEBGATE_HOOKS_WEBFETCH_BUDGET=40s"), 3*time.Second); got != 40*time.Second {
		t.Errorf("the environment wins over the file: %v", got)
	}
	if got := HookBudget(WebFetch, envOf("WEBGATE_HOOKS_WEBSEARCH_BUDGET=2s"), 0); got != DefaultFetchBudget {
		t.Errorf("the other hook's budget: %v", got)
	}
	// The wait is what is left of the budget, at most StdinWait.
	if w := StdinWaitWithin(time.Now(), time.Hour); w != StdinWait {
		t.Errorf("wait %v, want %v", w, StdinWait)
	}
	if w := StdinWaitWithin(time.Now().Add(-time.Minute), 30*time.Second); w != 0 {
		t.Errorf("wait past the budget %v, want 0", w)
	}
	if w := StdinWaitWithin(time.Now(), 2*time.Second); w <= 0 || w > 2*time.Second {
		t.Errorf("wait %v, want at most the 2s budget", w)
	}
}

// A configuration file that stalls holds the front no longer than the
// budget the environment sets (and the worker decides; here there is
// none to run, which the front says).
func TestMain_AStalledConfigurationFileDoesNotOutlastTheBudget(t *testing.T) {
	release, finished := make(chan struct{}), make(chan struct{})
	savedScan, savedWait := scanFile, configWait
	scanFile = func(string) (configFacts, error) {
		<-release
		close(finished)
		return configFacts{}, os.ErrNotExist
	}
	configWait = time.Hour
	t.Cleanup(func() {
		close(release)
		<-finished
		scanFile, configWait = savedScan, savedWait
	})
	env := envOf("WEBGATE_CONFIG=/stalled/config.toml", "HOME="+t.TempDir(), "WEBGATE_HOOKS_WEBSEARCH_BUDGET=50ms", WorkerEnv+"=/nonexistent/webgate-hook")
	done := make(chan string, 1)
	go func() {
		var out, errb bytes.Buffer
		Main(WebSearch, nil, strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"web_search"}`), &out, &errb, env)
		done <- out.String() + errb.String()
	}()
	select {
	case got := <-done:
		if !strings.Contains(got, "passing through") {
			t.Errorf("output %q", got)
		}
	case <-time.After(time.Minute): // a hang detector, not a timing check
		t.Fatal("the front waited for the stalled configuration file past its budget")
	}
}
