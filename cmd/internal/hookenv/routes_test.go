package hookenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/routing"
)

// A DocSearch hook's docsearch-config.json and a Tool Routing hook's
// tool-routes.json, as those hooks wrote them.
const (
	legacyDocs = `{"databases":[
  {"keywords":["terraform","hcl"],"path":"/idx/terraform","mcp_tool_name":"mcp__docsearch__search","description":"Terraform docs"},
  {"keywords":[],"path":"/idx/empty","mcp_tool_name":"mcp__docsearch__search","description":"no keywords"},
  {"keywords":["ansible"],"path":"/idx/ansible","description":"no tool"}
]}`
	legacyRoutes = `{"routes":{
  "github":{"pattern":"^https?://github\\.com/","message":"Use gh for GitHub."},
  "broken":{"pattern":"([unclosed","message":"never used"},
  "curl-bash":{"tool":"Bash","pattern":"\\bcurl\\b","message":"Use WebFetch, not curl."}
}}`
	inlineConfig = `
[[docs.databases]]
keywords = ["kubernetes"]
path = "/idx/k8s"
mcp_tool_name = "mcp__docsearch__search"
description = "Kubernetes documentation"

[[docs.databases]]
keywords = ["nomad"]
path = "/idx/nomad"
description = "missing its tool"

[[routes.tool_routes]]
name = "pypi"
pattern = "pypi\\.org"
message = "Use pip index versions."

[[routes.tool_routes]]
name = "bad"
pattern = "(?<lookbehind)"
message = "RE2 has no lookbehind."
`
)

// writeFiles writes name → content into a fresh directory and returns
// the directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func paths(dbs []routing.Database) string {
	var out []string
	for _, d := range dbs {
		out = append(out, d.Path)
	}
	return strings.Join(out, ",")
}

func names(rs []routing.ToolRoute) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Tool+":"+r.Name)
	}
	return strings.Join(out, ",")
}

func TestRoutes_LoadsInlineEntriesAndTheLegacyFilesNamedInTheEnvironment(t *testing.T) {
	dir := writeFiles(t, map[string]string{"docsearch-config.json": legacyDocs, "tool-routes.json": legacyRoutes, "config.toml": inlineConfig})
	cfg, err := config.Load(&config.LoadOptions{Env: []string{
		"WEBGATE_CONFIG=" + filepath.Join(dir, "config.toml"),
		"WEBGATE_DOCS_CONFIG=" + filepath.Join(dir, "docsearch-config.json"),
		"WEBGATE_TOOL_ROUTES=" + filepath.Join(dir, "tool-routes.json"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	docs, tools, warns := Routes(cfg)
	if got := paths(docs.Databases()); got != "/idx/k8s,/idx/terraform" {
		t.Errorf("databases = %s", got)
	}
	if got := names(tools.Routes()); got != "WebFetch:pypi,Bash:curl-bash,WebFetch:github" {
		t.Errorf("routes = %s", got)
	}
	var w []string
	for _, e := range warns {
		w = append(w, e.Error())
	}
	all := strings.Join(w, "\n")
	for _, want := range []string{"(/idx/nomad) dropped: missing or empty mcp_tool_name", "(/idx/empty) dropped: missing or empty keywords", "(/idx/ansible) dropped", "tool route bad skipped: pattern does not compile", "tool route broken skipped: pattern does not compile"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if len(warns) != 5 {
		t.Errorf("%d warnings, want 5:\n%s", len(warns), all)
	}
	if rt, ok := tools.Match(routing.ToolWebFetch, "https://github.com/x/y"); !ok || rt.Name != "github" {
		t.Errorf("legacy route does not match: %+v", rt)
	}
}

func TestRoutes_AnUnreadableOrMalformedFileLeavesTheOtherSourcesWorking(t *testing.T) {
	dir := writeFiles(t, map[string]string{"config.toml": inlineConfig, "bad.json": `{"databases": {`, "routes.json": `["not","an","object"]`})
	for name, tc := range map[string]struct {
		env  []string
		want []string
	}{
		"missing files": {[]string{"WEBGATE_DOCS_CONFIG=" + filepath.Join(dir, "nope.json"), "WEBGATE_TOOL_ROUTES=" + filepath.Join(dir, "nope2.json")},
			[]string{"docs.config (env WEBGATE_DOCS_CONFIG): " + filepath.Join(dir, "nope.json") + ": no such file or directory", "routes.config (env WEBGATE_TOOL_ROUTES): " + filepath.Join(dir, "nope2.json") + ": no such file or directory"}},
		"malformed files": {[]string{"WEBGATE_DOCS_CONFIG=" + filepath.Join(dir, "bad.json"), "WEBGATE_TOOL_ROUTES=" + filepath.Join(dir, "routes.json")},
			[]string{"not a docs configuration", "not a tool routes file"}},
		"a directory": {[]string{"WEBGATE_DOCS_CONFIG=" + dir}, []string{"docs.config (env WEBGATE_DOCS_CONFIG): " + dir + ": "}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := config.Load(&config.LoadOptions{Env: append(tc.env, "WEBGATE_CONFIG="+filepath.Join(dir, "config.toml"))})
			if err != nil {
				t.Fatal(err)
			}
			docs, tools, warns := Routes(cfg)
			if paths(docs.Databases()) != "/idx/k8s" || names(tools.Routes()) != "WebFetch:pypi" {
				t.Errorf("inline entries lost: %s / %s", paths(docs.Databases()), names(tools.Routes()))
			}
			var all []string
			for _, w := range warns {
				all = append(all, w.Error())
			}
			for _, want := range tc.want {
				if !strings.Contains(strings.Join(all, "\n"), want) {
					t.Errorf("warnings lack %q:\n%s", want, strings.Join(all, "\n"))
				}
			}
		})
	}
}

func TestRoutes_NothingConfiguredMeansEmptyRoutersAndNoWarnings(t *testing.T) {
	docs, tools, warns := Routes(nil)
	if docs == nil || tools == nil || len(docs.Databases()) != 0 || len(tools.Routes()) != 0 || len(warns) != 0 {
		t.Errorf("routes = %v, %v, %v", docs, tools, warns)
	}
}

// routedLoader loads a configuration with the legacy files, a state
// directory and extra variables.
func routedLoader(t *testing.T, extra ...string) (Loader, string) {
	t.Helper()
	dir := writeFiles(t, map[string]string{"docsearch-config.json": legacyDocs, "tool-routes.json": legacyRoutes})
	state := filepath.Join(dir, "state")
	env := append([]string{
		"WEBGATE_DOCS_CONFIG=" + filepath.Join(dir, "docsearch-config.json"),
		"WEBGATE_TOOL_ROUTES=" + filepath.Join(dir, "tool-routes.json"),
		"WEBGATE_STATE_DIR=" + state,
	}, extra...)
	return func() (*config.Config, error) { return config.Load(&config.LoadOptions{Env: env}) }, state
}

func parse(t *testing.T, payload string) *hooks.Input {
	t.Helper()
	in, err := hooks.ParseInput([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestWebSearchHandler_RoutesDocsQueriesWithoutProviderKeys(t *testing.T) {
	// The file state, which the hooks use when the store is off.
	load, state := routedLoader(t, "WEBGATE_STORE=off")
	h := WebSearchHandler(load)
	in := parse(t, `{"hook_event_name":"PreToolUse","session_id":"sess-1","tool_name":"WebSearch","tool_input":{"query":"terraform state mv"}}`)
	d := h(context.Background(), in)
	if d.Action != hooks.Deny || !strings.Contains(d.Reason, "mcp__docsearch__search") || !strings.Contains(d.Context, `path "/idx/terraform"`) {
		t.Fatalf("decision = %+v", d)
	}
	if _, err := os.Stat(filepath.Join(state, routing.SessionFile("sess-1"))); err != nil {
		t.Errorf("no state recorded: %v", err)
	}
	// Docs warnings are reported; tool-route warnings belong to the web
	// fetch hook.
	diag := strings.Join(d.Diagnostics, "\n")
	if !strings.Contains(diag, "routing: warning: docs database #2 (/idx/empty) dropped") || strings.Contains(diag, "tool route") {
		t.Errorf("diagnostics = %q", diag)
	}
	d = h(context.Background(), in)
	if d.Action != hooks.Pass || !strings.Contains(d.SystemMessage, "no search provider has an API key") {
		t.Errorf("identical retry without keys = %+v, want a step-aside to the native tool", d)
	}
}

func TestWebFetchHandler_AppliesToolRoutesToWebFetchAndBash(t *testing.T) {
	for _, debug := range []bool{false, true} {
		extra := []string{}
		if debug {
			extra = append(extra, "WEBGATE_DEBUG=1")
		}
		load, _ := routedLoader(t, extra...)
		h := WebFetchHandler(load)
		for _, tc := range []struct{ payload, message, value string }{
			{`{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://github.com/a/b","prompt":"p"}}`, "Use gh for GitHub.", "https://github.com/a/b"},
			{`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"curl -sL https://example.com"}}`, "Use WebFetch, not curl.", "curl -sL https://example.com"},
			{`{"sessionId":"c","toolName":"bash","toolArgs":"{\"command\":\"curl x\"}"}`, "Use WebFetch, not curl.", "curl x"},
		} {
			d := h(context.Background(), parse(t, tc.payload))
			if d.Action != hooks.Deny || !strings.HasPrefix(d.Reason, tc.message) {
				t.Errorf("debug %v: %s: decision = %+v", debug, tc.payload, d)
				continue
			}
			if debug != strings.Contains(d.Reason, "[webgate debug] route=") {
				t.Errorf("debug %v: reason = %q", debug, d.Reason)
			}
			if debug && !strings.Contains(d.Reason, `matched="`+tc.value+`"`) {
				t.Errorf("debug reason lacks the value: %q", d.Reason)
			}
			if !strings.Contains(strings.Join(d.Diagnostics, "\n"), "routing: warning: tool route broken skipped") {
				t.Errorf("diagnostics = %q", d.Diagnostics)
			}
		}
		d := h(context.Background(), parse(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`))
		if d.Action != hooks.Pass || d.SystemMessage != "" {
			t.Errorf("unrouted Bash = %+v", d)
		}
	}
}

func TestWebSearchHandler_SessionStartNeedsTheSwitch(t *testing.T) {
	in := parse(t, `{"session_id":"s","hook_event_name":"SessionStart","source":"startup"}`)
	load, _ := routedLoader(t)
	if d := WebSearchHandler(load)(context.Background(), in); d.Output(in) != nil || len(d.Diagnostics) != 0 {
		t.Errorf("switch off: %+v", d)
	}
	load, _ = routedLoader(t, "WEBGATE_HOOKS_SESSION_START=1")
	d := WebSearchHandler(load)(context.Background(), in)
	if d.Action != hooks.AddContext || len(strings.Split(d.Context, "\n")) != 5 {
		t.Fatalf("switch on: %+v", d)
	}
	for _, want := range []string{"- Terraform docs: MCP tool mcp__docsearch__search, path /idx/terraform; keywords: terraform, hcl", "- Bash curl-bash: Use WebFetch, not curl.", "- WebFetch github: Use gh for GitHub."} {
		if !strings.Contains(d.Context, want) {
			t.Errorf("index lacks %q:\n%s", want, d.Context)
		}
	}
	none := func() (*config.Config, error) {
		return config.Load(&config.LoadOptions{Env: []string{"WEBGATE_HOOKS_SESSION_START=true"}})
	}
	if d := WebSearchHandler(none)(context.Background(), in); d.Output(in) != nil {
		t.Errorf("no routes: %+v", d)
	}
}

func TestLoadCached_LoadsFromTheProcessEnvironmentWithTheCache(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, []byte("[[routes.tool_routes]]\nname = \"gh\"\npattern = \"github\\\\.com\"\nmessage = \"Use gh.\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", dir)
	t.Setenv("WEBGATE_CONFIG", file)
	t.Setenv("WEBGATE_STATE_DIR", filepath.Join(dir, "state"))
	for range 2 {
		cfg, err := LoadCached()
		if err != nil || len(cfg.Routes.ToolRoutes) != 1 {
			t.Fatalf("routes %+v, error %v", cfg.Routes.ToolRoutes, err)
		}
		if rt, ok := HookRoutes(cfg, false, true).Tools.Match(routing.ToolWebFetch, "https://github.com/a/b"); !ok || rt.Name != "gh" {
			t.Fatalf("match %+v %v", rt, ok)
		}
	}
}
