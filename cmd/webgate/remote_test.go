package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/gateway"
	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
)

const remoteKey = "tvly-REMOTE-SECRET-5a7c"

// remoteFixture is a gateway on 127.0.0.1 over a fake Tavily, and the
// environments of a local webgate (the key) and of a remote one (the
// gateway's URL and a token, no key).
type remoteFixture struct {
	fake          *fakeweb.Tavily
	gw            string
	secret        string
	local, remote hostEnv
	pages         string
	keyHeaders    *atomic.Int64
}

func newRemoteFixture(t *testing.T, limits gateway.Limits, searchStatus int) *remoteFixture {
	t.Helper()
	f := &remoteFixture{fake: &fakeweb.Tavily{Key: remoteKey, SearchStatus: searchStatus, Hits: []fakeweb.Hit{{Title: "Go contexts", URL: "https://go.dev/blog/context", Content: "Cancellation and deadlines."}}}, keyHeaders: &atomic.Int64{}}
	tavily := f.fake.Start(t)
	f.pages = fakeweb.Pages(t)
	gwHome := t.TempDir()
	gwHost := hostEnv{Env: append(fakeweb.Env(gwHome, tavily, remoteKey), "WEBGATE_STORE=sqlite://"+filepath.Join(gwHome, "gw.db")), Home: gwHome, WorkDir: gwHome}
	tools, cfg, _ := loadTools(gwHost, overrides{})
	st, err := storeurl.Open(context.Background(), cfg.Store.URL, &store.Options{Timeout: 10 * time.Second, OpenTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tokens := &gateway.Tokens{Store: st}
	_, f.secret, err = tokens.Create(context.Background(), gateway.NewToken{Owner: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	warm := hookenv.NewWarm()
	t.Cleanup(warm.Close)
	h := gateway.New(gateway.Options{Tools: tools, Tokens: tokens, Limiter: &gateway.Limiter{Store: st, Token: limits}, AllowPrivate: []string{"127.0.0.1"},
		Hooks: warm, HookEnv: gwHost.Env, HookCwd: gwHome})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, remoteKey) || strings.EqualFold(k, "X-Api-Key") {
					f.keyHeaders.Add(1)
				}
			}
		}
		h.ServeHTTP(w, r)
	}))
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	f.gw = srv.URL
	localHome := t.TempDir()
	f.local = hostEnv{Env: fakeweb.Env(localHome, tavily, remoteKey), Home: localHome, WorkDir: localHome}
	remoteHome := t.TempDir()
	f.remote = hostEnv{Env: []string{"HOME=" + remoteHome, "WEBGATE_GATEWAY_URL=" + f.gw, "WEBGATE_GATEWAY_TOKEN=" + f.secret}, Home: remoteHome, WorkDir: remoteHome}
	return f
}

type cliRun struct {
	code           int
	stdout, stderr string
}

func search(h hostEnv, args ...string) cliRun {
	var out, errb bytes.Buffer
	code := runSearch(context.Background(), h, args, nil, &out, &errb)
	return cliRun{code, out.String(), errb.String()}
}

func fetch(h hostEnv, args ...string) cliRun {
	var out, errb bytes.Buffer
	code := runFetch(context.Background(), h, args, nil, &out, &errb)
	return cliRun{code, out.String(), errb.String()}
}

// uncached drops the moment a cached answer was read (each side has its
// own cache, so each reads the page once, at its own moment).
func uncached(s string) string {
	return regexp.MustCompile(`"cached_at": "[^"]*"`).ReplaceAllString(s, `"cached_at": "…"`)
}

// webgate search and fetch with WEBGATE_GATEWAY_URL and a token print
// what the local commands print, text and --json, and send no key.
func TestRemote_SearchAndFetchPrintWhatTheLocalCommandsPrint(t *testing.T) {
	f := newRemoteFixture(t, gateway.Limits{}, 0)
	page := f.pages + "/readable/docs-page.html"
	for _, args := range [][]string{{"go", "contexts"}, {"--json", "go", "contexts"}, {"--json", "-n", "1", "--allow", "go.dev", "go"}} {
		local, remote := search(f.local, args...), search(f.remote, args...)
		if local.code != 0 || remote.code != local.code || uncached(remote.stdout) != uncached(local.stdout) {
			t.Errorf("search %v: local %d\n%s%s\nremote %d\n%s%s", args, local.code, local.stdout, local.stderr, remote.code, remote.stdout, remote.stderr)
		}
	}
	for _, args := range [][]string{{page}, {"--json", page}, {"--json", "--offset", "100", "--max-chars", "300", page}, {"--max-chars", "400", "--prompt", "install", page}} {
		local, remote := fetch(f.local, args...), fetch(f.remote, args...)
		if local.code != 0 || remote.code != local.code || uncached(remote.stdout) != uncached(local.stdout) {
			t.Errorf("fetch %v: local %d\n%s%s\nremote %d\n%s%s", args, local.code, local.stdout, local.stderr, remote.code, remote.stdout, remote.stderr)
		}
	}
	// A provider's failure reads as it does locally.
	local, remote := fetch(f.local, "--json", f.pages+"/missing"), fetch(f.remote, "--json", f.pages+"/missing")
	if remote.code != local.code || remote.stdout != local.stdout {
		t.Errorf("a missing page: local %d %s remote %d %s", local.code, local.stdout, remote.code, remote.stdout)
	}
	if n := f.keyHeaders.Load(); n != 0 {
		t.Errorf("%d requests to the gateway carried a provider key", n)
	}
	if r := search(f.remote, "--provider", "tavily", "go"); r.code != exitUsage {
		t.Errorf("--provider in remote mode: %d %s", r.code, r.stderr)
	}
}

// A gateway that is down, slow, refuses the token or a limit gives a
// clear message and exit 6, within the deadline, and never shows the
// token.
func TestRemote_GatewayFailuresAreClear(t *testing.T) {
	f := newRemoteFixture(t, gateway.Limits{RequestsPerDay: 1}, 0)
	if r := search(f.remote, "go"); r.code != 0 {
		t.Fatalf("first search: %d %s", r.code, r.stderr)
	}
	r := search(f.remote, "--json", "go")
	if r.code != exitGateway || !strings.Contains(r.stderr, "refused the call") || !strings.Contains(r.stderr, "retry after") || !strings.Contains(r.stdout, `"reason": "rate-limited"`) {
		t.Errorf("over the limit: %d %s %s", r.code, r.stdout, r.stderr)
	}
	bad := f.remote
	bad.Env = []string{"HOME=" + bad.Home, "WEBGATE_GATEWAY_URL=" + f.gw, "WEBGATE_GATEWAY_TOKEN=wg_NOTAREALTOKEN0000"}
	if r := search(bad, "go"); r.code != exitGateway || !strings.Contains(r.stderr, "refused the token") {
		t.Errorf("a wrong token: %d %s", r.code, r.stderr)
	}
	// Down: a port nothing listens on.
	downURL := "http://" + fakeweb.RefusedAddr(t)
	down := f.remote
	down.Env = []string{"HOME=" + down.Home, "WEBGATE_GATEWAY_URL=" + downURL, "WEBGATE_GATEWAY_TOKEN=" + f.secret}
	if r := fetch(down, "https://go.dev/"); r.code != exitGateway || !strings.Contains(r.stderr, "not reachable") {
		t.Errorf("down: %d %s", r.code, r.stderr)
	}
	// Slow: accepts, never answers.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // so that the server sees the client go
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	sl := f.remote
	sl.Env = []string{"HOME=" + sl.Home, "WEBGATE_GATEWAY_URL=" + slow.URL, "WEBGATE_GATEWAY_TOKEN=" + f.secret}
	start := time.Now()
	r = search(sl, "--timeout", "1s", "go")
	if r.code != exitGateway || !strings.Contains(r.stderr, "did not answer within 3s") || time.Since(start) > 20*time.Second {
		t.Errorf("slow: %d %s after %v", r.code, r.stderr, time.Since(start))
	}
	for _, run := range []cliRun{r, search(bad, "go")} {
		if strings.Contains(run.stderr+run.stdout, f.secret) || strings.Contains(run.stderr+run.stdout, "wg_NOTAREAL") {
			t.Errorf("a token was printed: %s %s", run.stdout, run.stderr)
		}
	}
	noToken := f.remote
	noToken.Env = []string{"HOME=" + noToken.Home, "WEBGATE_GATEWAY_URL=" + f.gw}
	if r := search(noToken, "go"); r.code != exitUsage || !strings.Contains(r.stderr, "WEBGATE_GATEWAY_TOKEN") {
		t.Errorf("no token: %d %s", r.code, r.stderr)
	}
}

// When every provider fails, the remote command fails as the local one
// does: the same exit code and the same --json error, failed providers
// and classes included.
func TestRemote_ProviderFailuresReadAsLocally(t *testing.T) {
	f := newRemoteFixture(t, gateway.Limits{}, 432)
	for _, args := range [][]string{{"--json", "go"}, {"go"}} {
		local, remote := search(f.local, args...), search(f.remote, args...)
		if local.code != exitProvider || remote.code != local.code || remote.stdout != local.stdout || remote.stderr != local.stderr {
			t.Errorf("search %v: local %d\n%s%s\nremote %d\n%s%s", args, local.code, local.stdout, local.stderr, remote.code, remote.stdout, remote.stderr)
		}
	}
}

// A gateway's answer printed with --json gets the rule a local search's
// or read's result gets: no escape, control or bidirectional character
// reaches the terminal, a hit that is not a web link is left out, and the
// token is never printed.
func TestRemote_JSONAnswerIsSanitisedAsLocally(t *testing.T) {
	const hostile = "\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil"
	const token = "wg_REMOTE_TOKEN_0123456789"
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/search":
			_, _ = io.WriteString(w, `{"query":"go`+jsonEscape(hostile)+`","provider":"tav`+jsonEscape(hostile)+`","results":[`+
				`{"title":"T`+jsonEscape(hostile)+`","url":"https://go.dev/`+jsonEscape(hostile)+`","snippet":"S`+jsonEscape(hostile)+` `+token+`","providers":["p`+jsonEscape(hostile)+`"]},`+
				`{"title":"ok","url":"https://go.dev/ok","snippet":"fine"},`+
				`{"title":"js","url":"javascript:alert(1)","snippet":"x"}],`+
				`"failed_providers":[{"provider":"e`+jsonEscape(hostile)+`","class":"c`+jsonEscape(hostile)+`","cause":"`+jsonEscape(hostile)+`"}],`+
				`"local_docs":[{"description":"d`+jsonEscape(hostile)+`","mcp_tool":"m","path":"/p"}],"ignored":{"x`+jsonEscape(hostile)+`":["f`+jsonEscape(hostile)+`"]}}`)
		case "/v1/fetch":
			_, _ = io.WriteString(w, `{"url":"https://go.dev/`+jsonEscape(hostile)+`","final_url":"https://go.dev/`+jsonEscape(hostile)+`","title":"T`+jsonEscape(hostile)+`",`+
				`"byline":"B`+jsonEscape(hostile)+`","site_name":"S`+jsonEscape(hostile)+`","path":"p`+jsonEscape(hostile)+`","route":"r`+jsonEscape(hostile)+`","provider":"p`+jsonEscape(hostile)+`",`+
				`"note":"N`+jsonEscape(hostile)+`","why":"W`+jsonEscape(hostile)+`","content_type":"text/html`+jsonEscape(hostile)+`","content":"C`+jsonEscape(hostile)+` `+token+`"}`)
		}
	}))
	t.Cleanup(gw.Close)
	home := t.TempDir()
	h := hostEnv{Env: []string{"HOME=" + home, "WEBGATE_GATEWAY_URL=" + gw.URL, "WEBGATE_GATEWAY_TOKEN=" + token}, Home: home, WorkDir: home}
	for _, r := range []cliRun{search(h, "--json", "go"), fetch(h, "--json", "https://go.dev/")} {
		if r.code != 0 {
			t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
		}
		out := r.stdout + r.stderr
		for _, bad := range []string{"\u001b", `\u001b`, "\u0007", `\u0007`, "\u009b", `\u009b`, "\u202e", `\u202e`, "javascript:", token} {
			if strings.Contains(out, bad) {
				t.Errorf("the output holds %q:\n%s", bad, out)
			}
		}
	}
	if r := search(h, "--json", "go"); !strings.Contains(r.stdout, "https://go.dev/ok") {
		t.Errorf("the clean hit is missing:\n%s", r.stdout)
	}
}

// jsonEscape returns s as the inside of a JSON string.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// A plain-http gateway off loopback is used with a warning on stderr: the
// token would cross the network in clear. https and loopback get none.
// (target decides before any call: nothing is dialled here.)
func TestRemote_WarnsOfAPlainHTTPGatewayOffLoopback(t *testing.T) {
	home := t.TempDir()
	for base, warn := range map[string]bool{"http://gw.example.com:8787": true, "https://gw.example.com": false, "http://127.0.0.1:8787": false} {
		h := hostEnv{Env: []string{"HOME=" + home, "WEBGATE_GATEWAY_URL=" + base, "WEBGATE_GATEWAY_TOKEN=wg_tok0123456789"}, Home: home, WorkDir: home}
		var errb bytes.Buffer
		gw, ok := target(h, &errb, "search", nil, nil, "search", false, "")
		if !ok || gw == nil {
			t.Fatalf("%s: not used: %s", base, errb.String())
		}
		if got := strings.Contains(errb.String(), "warning: the gateway at "+base+" is plain http"); got != warn || strings.Contains(errb.String(), "wg_tok") {
			t.Errorf("%s: stderr %q, want a warning %v", base, errb.String(), warn)
		}
	}
}
