package hooks_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/webpage/browser"
)

// spaShell is a client-rendered page: an empty root that a module script
// fills in after the page loads.
const spaShell = `<!doctype html><html><head><meta charset="utf-8"><title>Deadlines</title>
<script type="module" src="/assets/app.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>`

// spaScript renders the page's content, after a short delay as an app that
// loads its data would.
var spaScript = fmt.Sprintf(`setTimeout(function () {
  var root = document.getElementById('root');
  root.innerHTML = '<main><h1>Project deadlines</h1>' + %q + '</main>';
}, 50);`, strings.Repeat("<p>RENDERED-MARKER: the report is due on Friday, and the review follows on Monday. Every team sends its part to the editor first.</p>", 6))

// TestProcess_WebFetchWithoutAnyKeyAnswersAnAppShellFromALocalBrowser
// runs the built webfetch hook with no provider key and the local browser
// found on PATH (as WEBGATE_BROWSER=auto does): the page's content exists
// only after its script runs, and the hook answers with the rendered text.
func TestProcess_WebFetchWithoutAnyKeyAnswersAnAppShellFromALocalBrowser(t *testing.T) {
	if _, err := browser.Find("auto"); err != nil {
		t.Skipf("no local browser: %v", err)
	}
	f := newProviderFake(t, nil)
	base := appShellServer(t)
	var env []string
	for _, e := range f.env(t) {
		if !strings.HasPrefix(e, "WEBGATE_BROWSER=") && !strings.HasPrefix(e, "PATH=") {
			env = append(env, e)
		}
	}
	env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin", "WEBGATE_BROWSER=auto", "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1", "WEBGATE_STORE=off")
	url := base + "/app"
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", url), env)
	wantDeny(t, r, "PreToolUse", "Content of "+url, "read by webgate (rendered in a browser)", "RENDERED-MARKER: the report is due on Friday", "Project deadlines")
	for _, p := range []string{"tavily", "exa", "wsapi"} {
		if n := f.Hits(p); n != 0 {
			t.Errorf("%d requests to %s, want none", n, p)
		}
	}
}

// appShellServer serves spaShell and its script.
func appShellServer(t testing.TB) string {
	srv := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/assets/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, spaScript)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, spaShell)
		}
	}))
	return srv.URL
}

// TestProcess_WebFetchAPageThatHoldsTheBrowserLeavesTheProviderTime runs
// the built webfetch hook with the local browser and an extraction
// provider on a hostile page: a million unclosed links, which keep the
// browser busy for as long as it is given. The render tier gets its share
// of the budget, not all of it, and the provider answers.
func TestProcess_WebFetchAPageThatHoldsTheBrowserLeavesTheProviderTime(t *testing.T) {
	if _, err := browser.Find("auto"); err != nil {
		t.Skipf("no local browser: %v", err)
	}
	f := newProviderFake(t, map[string]string{"wsapi": "ok"})
	page := "<!doctype html><html><head><title>Links</title></head><body>" + strings.Repeat("<a>", 1_000_000) + "</body></html>"
	srv := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	var env []string
	for _, e := range fetchEnv(f, t, "wsapi") {
		if !strings.HasPrefix(e, "WEBGATE_BROWSER=") && !strings.HasPrefix(e, "PATH=") {
			env = append(env, e)
		}
	}
	env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin", "WEBGATE_BROWSER=auto", "WEBGATE_HOOKS_WEBFETCH_BUDGET=12s")
	url := srv.URL + "/links"
	r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", url), env)
	wantDeny(t, r, "PreToolUse", "Content of "+url, "via websearchapi", "WSAPI-EXTRACT-MARKER")
	if n := f.Hits("wsapi"); n != 1 {
		t.Errorf("%d requests to the provider, want 1", n)
	}
	t.Logf("answered in %v of a 12s budget", r.elapsed.Round(100*time.Millisecond))
}
