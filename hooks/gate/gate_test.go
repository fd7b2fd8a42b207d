package gate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	savedRead, savedWait := readFile, configWait
	readFile = func(string, int64) ([]byte, error) {
		<-release
		close(finished)
		return nil, os.ErrNotExist
	}
	configWait = 50 * time.Millisecond
	t.Cleanup(func() {
		close(release)
		<-finished
		readFile, configWait = savedRead, savedWait
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
		{"routes:\n  tool_routes:\n    - tool: BASH\n", true},
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
		if got := bashRoutesMayExist(envOf(), []byte(c.file)); got != c.want {
			t.Errorf("%q: %v, want %v", c.file, got, c.want)
		}
	}
}
