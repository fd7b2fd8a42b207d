package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/cmd/internal/setup"
)

// testKey is the key every diagnostic test configures; it must never
// appear in any output.
const testKey = "tvly-TESTSECRET-0123456789"

// testHost is a throwaway machine: a home, a project, a directory holding
// fake hook binaries, and an environment, installed as currentHost for the
// test's duration.
type testHost struct {
	t                    *testing.T
	dir, home, proj, bin string
	env                  map[string]string
	websearch, webfetch  string
}

const versionScript = "#!/bin/sh\nif [ \"$1\" = --version ]; then echo \"$(basename \"$0\") v9.9.9\"; exit 0; fi\ncat >/dev/null\n"

func newTestHost(t *testing.T) *testHost {
	t.Helper()
	d := t.TempDir()
	h := &testHost{t: t, dir: d, home: filepath.Join(d, "home"), proj: filepath.Join(d, "proj"), bin: filepath.Join(d, "bin"),
		env: map[string]string{}}
	for _, p := range []string{h.home, h.proj, h.bin} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.websearch = filepath.Join(h.bin, "websearch")
	h.webfetch = filepath.Join(h.bin, "webfetch")
	for _, p := range []string{h.websearch, h.webfetch, filepath.Join(h.bin, "webgate-hook")} {
		if err := os.WriteFile(p, []byte(versionScript), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.env["HOME"] = h.home
	h.env["PATH"] = "/usr/bin:/bin"
	saved := currentHost
	currentHost = func() hostEnv {
		var env []string
		for k, v := range h.env {
			env = append(env, k+"="+v)
		}
		return hostEnv{Env: env, Home: h.home, WorkDir: h.proj, ExeDir: h.bin}
	}
	t.Cleanup(func() { currentHost = saved })
	return h
}

// withKey gives tavily a key.
func (h *testHost) withKey() *testHost {
	h.env["TAVILY_API_KEY"] = testKey
	return h
}

// register writes webgate's hooks into the Claude Code user settings.
func (h *testHost) register() *testHost {
	h.t.Helper()
	p, err := setup.PlanInstall(setup.Options{Target: setup.ClaudeCode, Scope: setup.User, Home: h.home, WebSearchBin: h.websearch, WebFetchBin: h.webfetch})
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := p.Apply(nil); err != nil {
		h.t.Fatal(err)
	}
	return h
}

func (h *testHost) userSettings() string { return filepath.Join(h.home, ".claude", "settings.json") }

func (h *testHost) write(path, text string) string {
	h.t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(h.dir, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return path
}

// run runs the CLI and checks that no key leaked into its output.
func (h *testHost) run(stdin string, args ...string) (int, string, string) {
	h.t.Helper()
	code, out, errOut := runCLI(h.t, stdin, args...)
	if strings.Contains(out, testKey) || strings.Contains(errOut, testKey) || strings.Contains(out, "TESTSECRET") {
		h.t.Fatalf("a key appeared in the output of %v:\nstdout:\n%s\nstderr:\n%s", args, out, errOut)
	}
	return code, out, errOut
}

// fakeTavily serves Tavily's /search and /extract on loopback. Its answers
// quote the Authorization header, so that a leak would show.
func fakeTavily(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		auth := r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/search":
			_ = json.NewEncoder(w).Encode(map[string]any{"query": "q", "results": []map[string]any{
				{"title": "Go Concurrency Patterns: Context", "url": "https://go.dev/blog/context", "content": "Cancellation with context. Sent with " + auth, "score": 0.9},
			}})
		case "/extract":
			_ = json.NewEncoder(w).Encode(map[string]any{"results": []map[string]any{
				{"url": "https://example.org/app", "raw_content": "# The App\n\nThis page explains the app in plenty of words. " + auth},
			}, "failed_results": []any{}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

const routesJSON = `{"routes":{"github":{"pattern":"^https?://github\\.com/","message":"Use the gh CLI instead: gh issue view / gh api",
 "tests":[{"input":"https://github.com/golang/go/issues/1","expect":"block","contains":"gh"},{"input":"https://example.com/","expect":"allow"}]}}}`

const configTOML = `
[[docs.databases]]
keywords = ["kubernetes", "kubectl"]
path = "/srv/docs/kubernetes"
mcp_tool_name = "mcp__docsearch__search"
description = "Kubernetes documentation"

[[routes.tool_routes]]
name = "gh-api"
tool = "Bash"
pattern = 'curl\s.*api\.github\.com'
message = "Use gh api instead of curl"
tests = [{input = "curl https://api.github.com/repos/a/b", expect = "block"}]
`

// withRoutes configures a docs database, a Bash route (config file) and a
// WebFetch route (WEBGATE_TOOL_ROUTES).
func (h *testHost) withRoutes() *testHost {
	h.env["WEBGATE_CONFIG"] = h.write("config.toml", configTOML)
	h.env["WEBGATE_TOOL_ROUTES"] = h.write("tool-routes.json", routesJSON)
	return h
}

func TestLoadRouteSet_ReadsInlineAndFileRoutesAndDropsInvalidOnes(t *testing.T) {
	h := newTestHost(t).withRoutes()
	h.write("tool-routes.json", `{"routes":{"ok":{"pattern":"a","message":"m"},"broken":{"pattern":"([","message":"m"}}}`)
	cfg, err := currentHost().loadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	rs := loadRouteSet(cfg)
	if rs.ConfiguredRoutes != 3 || len(rs.Tools.Routes()) != 2 || len(rs.Docs.Databases()) != 1 {
		t.Fatalf("routes %d/%d, databases %d", len(rs.Tools.Routes()), rs.ConfiguredRoutes, len(rs.Docs.Databases()))
	}
	if len(rs.Warnings) != 1 || !strings.Contains(rs.Warnings[0], "broken") {
		t.Fatalf("warnings %q", rs.Warnings)
	}
	if rs.Tools.Routes()[0].Name != "gh-api" {
		t.Errorf("inline routes should come first, got %s", rs.Tools.Routes()[0].Name)
	}
}

func TestLoadRouteSet_UnreadableFileIsAWarningNamingTheSetting(t *testing.T) {
	h := newTestHost(t)
	h.env["WEBGATE_TOOL_ROUTES"] = filepath.Join(h.dir, "missing.json")
	cfg, _ := currentHost().loadConfig("")
	rs := loadRouteSet(cfg)
	if len(rs.Warnings) != 1 || !strings.Contains(rs.Warnings[0], "routes.config (env WEBGATE_TOOL_ROUTES)") {
		t.Fatalf("warnings %q", rs.Warnings)
	}
}

func TestFindHook_PrefersTheDirectoryOfWebgateThenPath(t *testing.T) {
	h := newTestHost(t)
	other := filepath.Join(h.dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "webfetch"), []byte(versionScript), 0o755)
	os.Remove(h.webfetch)
	h.env["PATH"] = other
	host := currentHost()
	if b := host.findHook("websearch", ""); b.Path != h.websearch || b.Where != "next to webgate" {
		t.Errorf("websearch %+v", b)
	}
	if b := host.findHook("webfetch", ""); b.Path != filepath.Join(other, "webfetch") || b.Where != "on PATH" {
		t.Errorf("webfetch %+v", b)
	}
	if b := host.findHook("webfetch", h.bin); b.Path != "" {
		t.Errorf("--bin-dir should be the only place looked at, got %+v", b)
	}
}
