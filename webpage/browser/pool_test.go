package browser

import (
	"context"
	"errors"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cookiePage sets a cookie with a script and shows the cookies it found
// before.
const cookiePage = `<!doctype html><html><head><title>Cookies</title></head><body><main id="m">loading</main>
<script>
  const before = document.cookie || "none";
  document.cookie = "seen=yes; path=/";
  localStorage.setItem("seen", "yes");
  document.getElementById("m").textContent = "cookies before: " + before + "; storage before: " + (localStorage.getItem("prior") || "none");
  localStorage.setItem("prior", "set");
</script></body></html>`

// pooledRender renders with the pool and returns the page and the
// browser's process group (0 when the render reused a browser).
func pooledRender(t *testing.T, rawURL string, cfg Config) (*Page, error, int) {
	t.Helper()
	var pgid int
	testHookStarted = func(p int, _ string) { pgid = p }
	defer func() { testHookStarted = nil }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := Render(ctx, rawURL, &cfg)
	return p, err, pgid
}

func TestPool_ReusesOneBrowserWithAFreshProfileEachTime(t *testing.T) {
	needBrowser(t)
	srv := serve(t, map[string]string{"/": cookiePage}, nil)
	pool := NewPool(time.Minute)
	cfg := testConfig()
	cfg.Pool = pool

	p1, err, pgid := pooledRender(t, srv.URL+"/", cfg)
	if err != nil {
		t.Fatalf("first render: %v", err)
	}
	if pgid <= 1 {
		t.Fatal("the first render started no browser")
	}
	if !strings.Contains(p1.HTML, "cookies before: none; storage before: none") {
		t.Errorf("first render: %q", p1.HTML)
	}
	if pool.Len() != 1 || len(groupProcs(pgid)) == 0 {
		t.Fatalf("the browser did not go back to the pool (%d kept, %d processes)", pool.Len(), len(groupProcs(pgid)))
	}
	p2, err, again := pooledRender(t, srv.URL+"/", cfg)
	if err != nil {
		t.Fatalf("second render: %v", err)
	}
	if again != 0 {
		t.Errorf("the second render started browser %d instead of reusing %d", again, pgid)
	}
	// The second render sees nothing the first left: no cookie, no storage.
	if !strings.Contains(p2.HTML, "cookies before: none; storage before: none") {
		t.Errorf("second render saw the first one's state: %q", p2.HTML)
	}

	dir := ""
	if w := pool.take(poolKey(mustFind(t), cfg.withDefaults())); w != nil {
		dir = w.dir
		pool.give(w, true)
	}
	pool.Close()
	waitNoGroup(t, pgid)
	if dir == "" {
		t.Fatal("no pooled browser to check")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pooled browser's profile %s was not removed", dir)
	}
	if left := procsUsing(filepath.Join(dir, "profile")); len(left) > 0 {
		t.Errorf("processes of the pooled browser's profile still run: %v", left)
	}
}

func TestPool_EachRenderKeepsItsOwnAddressRule(t *testing.T) {
	needBrowser(t)
	// The page loads an image from canary.test, which resolves to ::1.
	port, accepted := canary(t)
	page := `<!doctype html><html><body><main>pixel page with enough text to count as shown</main><img src="http://canary.test:` + strconv.Itoa(port) + `/p.png"></body></html>`
	srv := serve(t, map[string]string{"/": page}, nil)
	pool := NewPool(time.Minute)
	defer pool.Close()
	cfg := testConfig()
	cfg.Pool = pool
	if _, err, _ := pooledRender(t, srv.URL+"/", cfg); err != nil {
		t.Fatalf("first render: %v", err)
	}
	first := accepted.Load()
	// The same browser, now with a rule that refuses ::1: the image's
	// connection is refused before it is made.
	strict := cfg
	strict.CheckAddress = only127
	p, err, pgid := pooledRender(t, srv.URL+"/", strict)
	if err != nil {
		t.Fatalf("second render: %v", err)
	}
	if pgid != 0 {
		t.Error("the second render did not reuse the browser")
	}
	if accepted.Load() != first {
		t.Errorf("the canary was reached under the strict rule (%d connections, was %d)", accepted.Load(), first)
	}
	if len(refused(p.Decisions, "canary.test")) == 0 {
		t.Errorf("no refusal recorded for canary.test: %v", p.Decisions)
	}
}

func TestPool_ABrowserThatDiesIsNotReused(t *testing.T) {
	needBrowser(t)
	srv := serve(t, map[string]string{"/": `<!doctype html><html><body><p>a page with some text in it</p></body></html>`}, nil)
	pool := NewPool(time.Minute)
	defer pool.Close()
	cfg := testConfig()
	cfg.Pool = pool
	_, err, pgid := pooledRender(t, srv.URL+"/", cfg)
	if err != nil || pgid <= 1 {
		t.Fatalf("first render: %v (group %d)", err, pgid)
	}
	_ = killGroup(pgid)
	waitNoGroup(t, pgid)
	p, err, again := pooledRender(t, srv.URL+"/", cfg)
	if err != nil || !strings.Contains(p.HTML, "some text") {
		t.Fatalf("render after the browser died: %v", err)
	}
	if again <= 1 || again == pgid {
		t.Errorf("no new browser after the pooled one died (group %d, was %d)", again, pgid)
	}
}

func TestPool_IdleBrowsersAreKilled(t *testing.T) {
	needBrowser(t)
	srv := serve(t, map[string]string{"/": `<!doctype html><html><body><p>a page with some text in it</p></body></html>`}, nil)
	pool := NewPool(300 * time.Millisecond)
	defer pool.Close()
	cfg := testConfig()
	cfg.Pool = pool
	_, err, pgid := pooledRender(t, srv.URL+"/", cfg)
	if err != nil || pgid <= 1 {
		t.Fatalf("render: %v (group %d)", err, pgid)
	}
	waitNoGroup(t, pgid)
	if pool.Len() != 0 {
		t.Errorf("%d browsers still pooled after the idle time", pool.Len())
	}
}

func TestPool_AFailedRenderRetiresTheBrowser(t *testing.T) {
	needBrowser(t)
	pool := NewPool(time.Minute)
	defer pool.Close()
	cfg := testConfig()
	cfg.Pool = pool
	cfg.Timeout = 2 * time.Second
	// A render whose budget runs out mid-way does not give its browser back.
	hang := serve(t, nil, func(mux *http.ServeMux) {
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	})
	_, err, pgid := pooledRender(t, hang.URL+"/", cfg)
	if err == nil {
		t.Fatal("a page that never answers rendered")
	}
	if pool.Len() != 0 {
		t.Errorf("the browser of a failed render went back to the pool")
	}
	if pgid > 1 {
		waitNoGroup(t, pgid)
	}
}

func mustFind(t *testing.T) string {
	exe, err := Find("")
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// waitNoGroup waits up to 10 s for process group pgid to be gone.
func waitNoGroup(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(groupProcs(pgid)) > 0 {
		if time.Now().After(deadline) {
			t.Errorf("processes of group %d still run: %v", pgid, groupProcs(pgid))
			_ = killGroup(pgid)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestProxy_ARenderOverClosesItsConnectionsAndItsRuleGoes drives the proxy
// as a pool does between renders: after the render, its tunnel is closed,
// and the next request is refused under the waiting rule and recorded in
// neither render's log.
func TestProxy_ARenderOverClosesItsConnectionsAndItsRuleGoes(t *testing.T) {
	srv := serve(t, map[string]string{"/": "ok"}, nil)
	first := &decisionLog{start: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	px, err := startProxy(ctx, testRule, testLookup, first)
	if err != nil {
		t.Fatal(err)
	}
	defer px.close()
	// A tunnel of the first render, open when it ends.
	conn, err := net.Dial("tcp", px.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	if _, err := conn.Write([]byte("CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64)
	if n, err := conn.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "200") {
		t.Fatalf("CONNECT: %q, %v", buf[:n], err)
	}
	// The render is over: the waiting rule first, then its connections go.
	idle := &decisionLog{start: time.Now()}
	px.serve(context.Background(), refuseAll, refuseLookup, idle)
	px.drop()
	var ne net.Error
	if _, err := conn.Read(buf); err == nil || (errors.As(err, &ne) && ne.Timeout()) {
		t.Errorf("the first render's tunnel is still open (%v)", err)
	}
	before, _ := first.snapshot()
	proxyURL, _ := neturl.Parse("http://" + px.addr())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := client.Get(srv.URL + "/")
	if err == nil {
		if resp.StatusCode < 400 {
			t.Errorf("a request between renders = %d, want a refusal", resp.StatusCode)
		}
		_ = resp.Body.Close()
	}
	if after, _ := first.snapshot(); len(after) != len(before) {
		t.Errorf("the first render's log grew after it ended: %v", after[len(before):])
	}
	if d, _ := idle.snapshot(); len(d) == 0 || d[len(d)-1].Allowed {
		t.Errorf("the waiting rule did not refuse: %v", d)
	}
}
