package hooks_test

import (
	"strings"
	"testing"
	"time"
)

// wantContext checks a PostToolUseFailure answer carrying additional
// context with every string of contains.
func wantContext(t *testing.T, r result, contains ...string) output {
	t.Helper()
	o := decode(t, r)
	if o.HookSpecificOutput == nil || o.HookSpecificOutput.HookEventName != "PostToolUseFailure" || o.HookSpecificOutput.AdditionalContext == "" || o.HookSpecificOutput.PermissionDecision != "" {
		t.Fatalf("want PostToolUseFailure additionalContext, got:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	for _, c := range contains {
		if !strings.Contains(o.HookSpecificOutput.AdditionalContext, c) {
			t.Errorf("context lacks %q:\n%s", c, o.HookSpecificOutput.AdditionalContext)
		}
	}
	return o
}

func TestProcess_WebFetchFailureAddsTheReadablePageWithoutAnyKey(t *testing.T) {
	f := newProviderFake(t, nil)
	base := pages(t)
	page := base + "/readable/blog-article.html"
	for _, p := range []string{"claude-webfetch-postfailure.json", "claude-webfetch-postfailure-tls.json"} {
		r := runBinary(t, "webfetch", payload(t, p, page), fetchEnv(f, t))
		o := wantContext(t, r,
			"the native WebFetch tool failed, so webgate read the page itself (converted from the page's HTML)",
			"Title: Measuring the ice on the mill river | Field Notes",
			"URL: "+page,
			"## What the town decided",
			"Original error from WebFetch: ")
		if o.SystemMessage != "webgate: WebFetch failed; added the page's content (converted from the page's HTML)" {
			t.Errorf("%s: systemMessage = %q", p, o.SystemMessage)
		}
	}
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-postfailure.json", page), fetchEnv(f, t))
	wantContext(t, r, "Original error from WebFetch: Unable to verify if domain 127.0.0.1 is safe to fetch.")
}

func TestProcess_WebFetchFailureExtractsAppShells(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "ok"})
	base := pages(t)
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-postfailure.json", base+"/browser-render-required/react-cra-empty-root.html"), fetchEnv(f, t, "wsapi"))
	wantContext(t, r, "read the page itself (extracted via websearchapi)", "WSAPI-EXTRACT-MARKER", "Request: What does the page say about deadlines?", "Original error from WebFetch: Unable to verify")
	if f.Hits("wsapi") != 1 {
		t.Errorf("extraction hits = %d, want 1", f.Hits("wsapi"))
	}
}

func TestProcess_WebFetchFailurePassesThroughSilentlyWhenThePageCannotBeRead(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "auth"})
	base := pages(t)
	cases := []struct {
		name, payload, url string
		env                []string
		stderr             string
	}{
		{"refused address", "claude-webfetch-postfailure.json", base + "/readable/docs-page.html", f.env(t, "wsapi"), "loopback address"},
		{"metadata address", "claude-webfetch-postfailure.json", "http://169.254.169.254/latest/meta-data/", fetchEnv(f, t, "wsapi"), "cloud metadata endpoint"},
		{"app shell without keys", "claude-webfetch-postfailure.json", base + "/browser-render-required/angular-app-root.html", fetchEnv(f, t), "no extraction provider has an API key"},
		{"failed extraction", "claude-webfetch-postfailure.json", base + "/browser-render-required/angular-app-root.html", fetchEnv(f, t, "wsapi"), "websearchapi (auth-failed)"},
		{"interrupted", "claude-webfetch-postfailure-interrupt.json", base + "/readable/docs-page.html", fetchEnv(f, t), "interrupted"},
		{"slow page", "claude-webfetch-postfailure.json", base + "/slow", append(fetchEnv(f, t), "WEBGATE_HOOKS_WEBFETCH_BUDGET=3s"), "could not be read directly (timed out)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runBinary(t, "webfetch", payload(t, c.payload, c.url), c.env)
			wantNothing(t, r)
			if !strings.Contains(r.stderr, c.stderr) || !strings.Contains(r.stderr, "passing through") {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, r.stderr)
			}
			if r.elapsed > 6*time.Second {
				t.Errorf("the hook took %v", r.elapsed)
			}
		})
	}
}

func TestProcess_WebFetchFailureIsNotAnsweredForCopilot(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "ok"})
	base := pages(t)
	r := runBinary(t, "webfetch", payload(t, "copilot-webfetch-postfailure.json", base+"/readable/docs-page.html"), fetchEnv(f, t, "wsapi"))
	wantNothing(t, r)
	if r.stderr != "" || f.Hits("wsapi") != 0 {
		t.Errorf("stderr %q, extraction hits %d", r.stderr, f.Hits("wsapi"))
	}
}

func TestProcess_WebSearchIgnoresAFailedWebFetch(t *testing.T) {
	f := newProviderFake(t, map[string]string{"tavily": "ok"})
	r := runBinary(t, "websearch", payload(t, "claude-webfetch-postfailure.json", "https://example.com/"), f.env(t, "tavily"))
	wantNothing(t, r)
	if r.stderr != "" || f.Hits("tavily") != 0 {
		t.Errorf("stderr %q, hits %d", r.stderr, f.Hits("tavily"))
	}
}
