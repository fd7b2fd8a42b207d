package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/routing"
)

var (
	readableHTML = fixtureText("readable", "blog-article.html")
	appShellHTML = fixtureText("browser-render-required", "react-cra-empty-root.html")
)

func fixtureText(parts ...string) string {
	b, err := os.ReadFile(fixture(parts...))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// fakePage serves html on loopback and returns its URL.
func fakePage(t *testing.T, html string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(html))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/page"
}

func TestExplain_QueryMatchingADocsRouteIsDeniedWithoutCallingProviders(t *testing.T) {
	h := newTestHost(t).withKey().withRoutes()
	code, out, _ := h.run("", "explain", "--query", "kubectl rollout restart")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^call\s+claude-code PreToolUse WebSearch$`)
	line(t, out, `^hook\s+websearch$`)
	line(t, out, `^docs routes\s+matched Kubernetes documentation: MCP tool mcp__docsearch__search, path /srv/docs/kubernetes$`)
	line(t, out, `^escape hatch\s+not released: the denial would be remembered in `)
	line(t, out, `^providers\s+none called \(a route answers\)$`)
	line(t, out, `^decision\s+deny: docs route`)
	if entries, _ := os.ReadDir(filepath.Join(h.home, ".local", "state", "webgate")); len(entries) > 0 {
		t.Error("explain wrote routing state")
	}
}

func TestExplain_EscapeHatchIsReadWithoutBeingConsumed(t *testing.T) {
	h := newTestHost(t).withKey().withRoutes()
	store := &routing.StateStore{Dir: filepath.Join(h.dir, "state")}
	h.env["WEBGATE_STATE_DIR"] = store.Dir
	call := routing.Call{Query: "kubectl rollout restart"}
	if err := store.Remember("s-1", call); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		code, out, _ := h.run("", "explain", "--query", "kubectl rollout restart", "--session", "s-1")
		if code != exitOK {
			t.Fatalf("code %d\n%s", code, out)
		}
		line(t, out, `^escape hatch\s+an identical call was denied in session "s-1" within the last 5m0s: this retry would be released`)
		line(t, out, `^providers\s+would call tavily \(parallel\)$`)
		line(t, out, `^decision\s+deny: the native WebSearch is answered with results from tavily`)
	}
	if ok, _ := store.Release("s-1", call); !ok {
		t.Fatal("explain consumed the remembered denial")
	}
}

func TestExplain_URLMatchingAToolRoute(t *testing.T) {
	h := newTestHost(t).withKey().withRoutes()
	code, out, _ := h.run("", "explain", "--url", "https://github.com/golang/go/issues/1", "--prompt", "summary")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^tool routes\s+matched github \(WebFetch /\^https\?://github\\\.com//\): Use the gh CLI instead`)
	line(t, out, `^decision\s+deny: tool route github: Use the gh CLI instead: gh issue view / gh api$`)
}

func TestExplain_PlainQueryListsTheProvidersInOrder(t *testing.T) {
	h := newTestHost(t).withKey()
	h.env["WEBSEARCHAPI_API_KEY"] = "wsa-TESTSECRET-abcdef"
	h.env["WEBGATE_SEARCH_MODE"] = "fallback"
	h.env["WEBGATE_SEARCH_PRIMARY"] = "websearchapi"
	code, out, _ := h.run("", "explain", "--query", "go 1.26 release notes")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^tool routes\s+not applicable`)
	line(t, out, `^docs routes\s+none of 0 database\(s\) matched$`)
	line(t, out, `^providers\s+would call websearchapi, tavily \(fallback\)$`)
}

func TestExplain_QueryWithoutKeysPassesThrough(t *testing.T) {
	newTestHost(t)
	code, out, _ := runCLI(t, "", "explain", "--query", "anything at all")
	if code != exitOK {
		t.Fatalf("code %d", code)
	}
	line(t, out, `^providers\s+none: no provider of the order \(tavily, websearchapi, exa, brave, searxng\) has keys$`)
	line(t, out, `^decision\s+pass: no search provider has an API key$`)
}

func TestExplain_ClassifiesASavedPageOffline(t *testing.T) {
	h := newTestHost(t).withKey()
	code, out, _ := h.run("", "explain", "--url", "https://example.org/app", "--html", fixture("browser-render-required", "react-cra-empty-root.html"))
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^classifier\s+browser-render-required \(`)
	line(t, out, `^  signal\s+empty_mounts=`)
	line(t, out, `^decision\s+deny: the page is browser-render-required: answered with its content read by webgate locally or via tavily$`)
}

func TestExplain_URLWithoutThePageSaysWhatItDependsOn(t *testing.T) {
	h := newTestHost(t).withKey()
	code, out, _ := h.run("", "explain", "--url", "https://example.org/app")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^classifier\s+not classified: needs the page: use --html FILE, or --live to fetch it$`)
	line(t, out, `^decision\s+depends: a fetch-readable or non-HTML page passes through`)
}

func TestExplain_BashCommandAgainstBashRoutes(t *testing.T) {
	h := newTestHost(t).withRoutes()
	_, out, _ := h.run("", "explain", "--command", "curl -s https://api.github.com/repos/a/b")
	line(t, out, `^hook\s+tool routes \(Bash\)$`)
	line(t, out, `^decision\s+deny: tool route gh-api: Use gh api instead of curl$`)
	_, out, _ = h.run("", "explain", "--command", "ls -la")
	line(t, out, `^tool routes\s+none of 1 Bash route\(s\) matched$`)
	line(t, out, `^decision\s+pass: no Bash tool route matches the command$`)
}

func TestExplain_ReadsCopilotPayloadsFromStdin(t *testing.T) {
	h := newTestHost(t).withKey()
	payload := `{"toolName":"web_fetch","toolArgs":"{\"url\":\"https://example.org/\"}","sessionId":"c1"}`
	code, out, _ := h.run(payload, "explain", "-")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^call\s+copilot-cli PreToolUse web_fetch$`)
	line(t, out, `^hook\s+webfetch$`)
}

func TestExplain_ReadsAPayloadFileAndIgnoresOtherTools(t *testing.T) {
	h := newTestHost(t).withKey()
	file := h.write("payload.json", `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/x"}}`)
	code, out, _ := h.run("", "explain", file)
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^hook\s+none: webgate's hooks do not act on the tool Read for PreToolUse$`)
	line(t, out, `^decision\s+pass:`)
}

func TestExplain_JSONOutput(t *testing.T) {
	h := newTestHost(t).withKey().withRoutes()
	_, out, _ := h.run("", "explain", "--json", "--query", "kubernetes ingress")
	var ex struct {
		Decision string `json:"decision"`
		Docs     []struct {
			Path string `json:"path"`
		} `json:"docs_routes"`
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if ex.Decision != "deny" || len(ex.Docs) != 1 || ex.Docs[0].Path != "/srv/docs/kubernetes" {
		t.Fatalf("got %+v", ex)
	}
}

func TestExplain_LiveRunsTheRealHandler(t *testing.T) {
	srv := fakeTavily(t)
	h := newTestHost(t).withKey()
	h.env["TAVILY_BASE_URL"] = srv.URL
	code, out, _ := h.run("", "explain", "--live", "--query", "go context")
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^providers\s+calls tavily \(parallel\)$`)
	line(t, out, `^live run`)
	line(t, out, `"permissionDecision": "deny"`)
	if !strings.Contains(out, "https://go.dev/blog/context") {
		t.Errorf("the handler's results are missing:\n%s", out)
	}
}

func TestExplain_LiveProbesAndClassifiesThePage(t *testing.T) {
	srv := fakeTavily(t)
	h := newTestHost(t).withKey()
	h.env["TAVILY_BASE_URL"] = srv.URL
	h.env["WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE"] = "true"
	page := fakePage(t, appShellHTML)
	code, out, _ := h.run("", "explain", "--live", "--url", page)
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^classifier\s+browser-render-required \(.*page probed: HTTP 200`)
	line(t, out, `"permissionDecision": "deny"`)
	line(t, out, `The App`)
}

func TestExplain_UsageErrors(t *testing.T) {
	newTestHost(t)
	for _, args := range [][]string{
		{"explain"},
		{"explain", "--query", "a", "--url", "https://x.org"},
		{"explain", "--prompt", "p", "--query", "q"},
		{"explain", "a.json", "b.json"},
	} {
		if code, _, errOut := runCLI(t, "", args...); code != exitUsage || errOut == "" {
			t.Errorf("%v: code %d, stderr %q", args, code, errOut)
		}
	}
	if code, _, _ := runCLI(t, "not json", "explain", "-"); code != exitFail {
		t.Errorf("invalid payload: code %d", code)
	}
	if code, _, _ := runCLI(t, "", "explain", "--url", "https://x.org", "--html", "/nonexistent.html"); code != exitFail {
		t.Errorf("missing --html file: code %d", code)
	}
}

func TestExplain_HelpHasExamples(t *testing.T) {
	code, out, _ := runCLI(t, "", "help", "explain")
	if code != exitOK || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--html") {
		t.Fatalf("code %d\n%s", code, out)
	}
}

func TestExplain_AFailedWebFetchIsReadByTheHookWithoutRoutesOrKeys(t *testing.T) {
	h := newTestHost(t).withRoutes()
	file := h.write("failed.json", `{"hook_event_name":"PostToolUseFailure","tool_name":"WebFetch","tool_input":{"url":"https://github.com/a/b/issues/1","prompt":"p"},"error":"Unable to verify if domain github.com is safe to fetch."}`)
	code, out, _ := h.run("", "explain", file)
	if code != exitOK {
		t.Fatalf("code %d\n%s", code, out)
	}
	line(t, out, `^call\s+claude-code PostToolUseFailure WebFetch$`)
	line(t, out, `^hook\s+webfetch$`)
	line(t, out, `^decision\s+depends: the native tool failed, so the hook reads the page itself and adds it after the error: a fetch-readable page is converted from its HTML \(no provider needed\)`)
}

func TestExplain_AReplaceAnswerIsAnAllowUnlessAUserRuleStopsTheNativeTool(t *testing.T) {
	h := newTestHost(t).withKey()
	h.env["WEBGATE_HOOKS_ANSWER"] = "replace"
	_, out, _ := h.run("", "explain", "--query", "golang generics")
	line(t, out, `^decision\s+allow: the native WebSearch is answered with results from tavily \(parallel\); hooks\.answer is replace: the hook allows the native WebSearch and replaces its output with the answer`)

	h.write(filepath.Join(h.proj, ".claude", "settings.json"), `{"permissions":{"ask":["WebSearch"]}}`)
	_, out, _ = h.run("", "explain", "--query", "golang generics")
	line(t, out, `^decision\s+deny: .*; hooks\.answer is replace, but the ask rule "WebSearch" in \S+settings\.json stops the native WebSearch, so the hook denies with the answer$`)

	// Without a store there is nowhere to keep the answer: the hook denies.
	h.env["WEBGATE_STORE"] = "off"
	_, out, _ = h.run("", "explain", "--query", "golang generics")
	line(t, out, `^decision\s+deny: the native WebSearch is answered with results from tavily \(parallel\)$`)
}
