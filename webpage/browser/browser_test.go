package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	neturl "net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/webpage"

	"golang.org/x/net/websocket"
)

var (
	loopback4 = netip.MustParseAddr("127.0.0.1")
	loopback6 = netip.IPv6Loopback()
)

// testRule is the address rule of the tests: it allows only 127.0.0.1 and
// ::1, so no test can reach anything but this machine's loopback.
func testRule(a netip.Addr) error {
	if a = a.WithZone(""); a == loopback4 || a == loopback6 {
		return nil
	}
	return fmt.Errorf("%s is not 127.0.0.1 or ::1", a)
}

// testNames is the tests' resolver: a name not listed does not resolve, so
// no test ever asks real DNS.
var testNames = map[string][]netip.Addr{
	"localhost":     {loopback4, loopback6},
	"rebind.test":   {netip.MustParseAddr("10.0.0.1")},
	"metadata.test": {netip.MustParseAddr("169.254.169.254")},
	"canary.test":   {loopback6},
}

func testLookup(_ context.Context, host string) ([]netip.Addr, error) {
	if a, ok := testNames[strings.TrimSuffix(strings.ToLower(host), ".")]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host (test resolver)", Name: host, IsNotFound: true}
}

func testConfig() Config {
	return Config{
		CheckAddress:      testRule,
		LookupIP:          testLookup,
		Timeout:           25 * time.Second,
		NavigationTimeout: 10 * time.Second,
		SettleTimeout:     3 * time.Second,
		QuietWindow:       300 * time.Millisecond,
	}
}

// needBrowser skips the test when no browser is installed, unless CI is
// set, where a missing browser fails the test.
func needBrowser(t testing.TB) {
	t.Helper()
	if _, err := Find(""); err != nil {
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			t.Fatalf("CI is set and no browser was found: %v", err)
		}
		t.Skipf("no browser found, skipping (install chromium-headless-shell or chromium): %v", err)
	}
}

// serve starts a loopback server for the tests' pages.
func serve(t testing.TB, pages map[string]string, extra func(mux *http.ServeMux)) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for path, body := range pages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			if path == "/" && r.URL.Path != "/" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(body))
		})
	}
	if extra != nil {
		extra(mux)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// render runs Render and checks what every render must leave behind:
// no process of the browser's group or profile, no temporary directory,
// and no allowed decision for an address other than loopback.
func render(t *testing.T, ctx context.Context, rawURL string, cfg Config) (*Page, error, time.Duration) {
	t.Helper()
	var pgid int
	var dir string
	testHookStarted = func(p int, d string) { pgid, dir = p, d }
	defer func() { testHookStarted = nil }()
	start := time.Now()
	p, err := Render(ctx, rawURL, &cfg)
	elapsed := time.Since(start)
	if pgid > 1 {
		if left := groupProcs(pgid); len(left) > 0 {
			t.Errorf("%d processes of the browser's group %d are still running: %v", len(left), pgid, left)
			_ = killGroup(pgid)
		}
	}
	if dir != "" {
		if left := procsUsing(filepath.Join(dir, "profile")); len(left) > 0 {
			t.Errorf("processes of the browser's profile are still running: %v", left)
		}
		if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("the temporary directory %s was not removed (%v)", dir, serr)
		}
	}
	var decisions []Decision
	if p != nil {
		decisions = p.Decisions
	}
	var e *Error
	if errors.As(err, &e) {
		decisions = e.Decisions
	}
	for _, d := range decisions {
		if d.Allowed && d.Addr != loopback4 && d.Addr != loopback6 {
			t.Errorf("allowed a non-loopback destination: %v", d)
		}
		if d.Allowed && d.Stage != StageConnect {
			t.Errorf("an allowed decision outside the connect stage: %v", d)
		}
	}
	if t.Failed() || testing.Verbose() {
		if p != nil {
			t.Logf("page %s settled=%s timings=%+v peak=%d MiB stopped=%v", p.FinalURL, p.Settled, p.Timings, p.PeakMemoryBytes>>20, p.ScriptsStopped)
		}
		if err != nil {
			t.Logf("error after %v: %v", elapsed, err)
		}
		for _, d := range decisions {
			t.Logf("  %v", d)
		}
	}
	return p, err, elapsed
}

// refused returns the refusals of decisions for host.
func refused(decisions []Decision, host string) []Decision {
	var out []Decision
	for _, d := range decisions {
		if !d.Allowed && strings.EqualFold(strings.Trim(d.Host, "[]"), host) {
			out = append(out, d)
		}
	}
	return out
}

func decisionsOf(p *Page, err error) []Decision {
	if p != nil {
		return p.Decisions
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Decisions
	}
	return nil
}

func TestFind(t *testing.T) {
	if _, err := Find("off"); KindOf(err) != KindDisabled || !errors.Is(err, ErrDisabled) {
		t.Errorf(`Find("off") = %v, want a disabled error`, err)
	}
	if _, err := Find("OFF"); KindOf(err) != KindDisabled {
		t.Errorf(`Find("OFF") = %v, want a disabled error`, err)
	}
	if _, err := Find(filepath.Join(t.TempDir(), "no-such-browser")); KindOf(err) != KindNotFound || !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(missing) = %v, want a not-found error", err)
	}
	if _, err := Find(t.TempDir()); KindOf(err) != KindNotFound {
		t.Errorf("Find(directory) = %v, want a not-found error", err)
	}
	plain := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(plain, []byte("not a program"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(plain); KindOf(err) != KindNotFound {
		t.Errorf("Find(not executable) = %v, want a not-found error", err)
	}
	if p, err := Find("auto"); err == nil {
		if st, serr := os.Stat(p); serr != nil || st.IsDir() {
			t.Errorf(`Find("auto") = %q, which is not a file`, p)
		}
	} else if KindOf(err) != KindNotFound {
		t.Errorf(`Find("auto") = %v, want a path or a not-found error`, err)
	}
}

// TestRenderRefusedEarly covers what Render refuses before any browser
// starts: it needs no browser.
func TestRenderRefusedEarly(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		url  string
		cfg  func(*Config)
		kind Kind
		is   error
	}{
		{"no address rule", "http://127.0.0.1/", func(c *Config) { c.CheckAddress = nil }, KindBadURL, ErrNoAddressRule},
		{"file URL", "file:///etc/passwd", nil, KindBadURL, nil},
		{"credentials", "http://user:pw@127.0.0.1/", nil, KindBadURL, nil},
		{"metadata literal", "http://169.254.169.254/latest/meta-data/", nil, KindBlocked, ErrBlocked},
		{"mapped metadata", "http://[::ffff:169.254.169.254]/", nil, KindBlocked, ErrBlocked},
		{"hex private", "http://0x0a000001/", nil, KindBlocked, ErrBlocked},
		{"disabled", "http://127.0.0.1/", func(c *Config) { c.Path = "off" }, KindDisabled, ErrDisabled},
		{"browser missing", "http://127.0.0.1/", func(c *Config) { c.Path = "/nonexistent/chromium" }, KindNotFound, ErrNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			start := time.Now()
			p, err := Render(ctx, tc.url, &cfg)
			if p != nil || KindOf(err) != tc.kind {
				t.Fatalf("Render = %v, %v; want kind %s", p, err, tc.kind)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
			if el := time.Since(start); el > time.Second {
				t.Errorf("took %v to refuse", el)
			}
			if tc.kind == KindBlocked {
				var e *Error
				errors.As(err, &e)
				if len(e.Decisions) != 1 || e.Decisions[0].Stage != StageLiteral || e.Decisions[0].Allowed {
					t.Errorf("decisions = %v, want one literal refusal", e.Decisions)
				}
			}
		})
	}
}

func TestHostAddr(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1":          "127.0.0.1",
		"[::1]":              "::1",
		"::ffff:0:a9fe:a9fe": "::ffff:0:a9fe:a9fe",
		"0x7f000001":         "127.0.0.1",
		"2130706433":         "127.0.0.1",
		"0177.0.0.1":         "127.0.0.1",
		"127.1":              "127.0.0.1",
		"10.0.0.1.":          "10.0.0.1",
		"169.254.43518":      "169.254.169.254",
		"example.com":        "",
		"localhost":          "",
		"1.2.3.4.5":          "",
		"256.0.0.1":          "",
		"0x":                 "0.0.0.0", // an empty hex part is 0, as the URL Standard reads it
	}
	for host, want := range cases {
		a, ok := webpage.HostAddr(host)
		got := ""
		if ok {
			got = a.String()
		}
		if got != want {
			t.Errorf("hostAddr(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestCheckNavigation(t *testing.T) {
	r := &run{cfg: testConfig()}
	cases := map[string]Stage{
		"http://127.0.0.1:8080/page":   "",
		"https://localhost/page":       "",
		"ws://127.0.0.1/socket":        "",
		"data:text/html,<p>hi</p>":     "",
		"blob:http://127.0.0.1/uuid":   "",
		"about:blank":                  "",
		"file:///etc/passwd":           StageURL,
		"chrome://settings/":           StageURL,
		"ftp://127.0.0.1/":             StageURL,
		"filesystem:http://127.0.0.1/": StageURL,
		"view-source:http://a.test/":   StageURL,
		"http://user:pw@127.0.0.1/":    StageURL,
		"http://10.0.0.1/":             StageLiteral,
		"http://[fd00:ec2::254]/":      StageLiteral,
		"http://0x7f000002/":           StageLiteral,
		"%zz":                          StageURL,
	}
	for raw, want := range cases {
		d, refused := r.checkNavigation(raw)
		switch {
		case want == "" && refused:
			t.Errorf("%s refused: %v", raw, d)
		case want != "" && (!refused || d.Stage != want || !errors.Is(d.Err, ErrBlocked)):
			t.Errorf("%s = %v (refused %v), want a %s refusal", raw, d, refused, want)
		}
	}
}

// canary listens on [::1] and counts the connections it accepts; the
// tests that use it refuse ::1, so it must count none.
func canary(t *testing.T) (port int, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	accepted = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port, accepted
}

// only127 refuses everything but 127.0.0.1, so that a canary on ::1 can
// prove a refused address was never connected to.
func only127(a netip.Addr) error {
	if a.WithZone("") == loopback4 {
		return nil
	}
	return fmt.Errorf("%s is not 127.0.0.1", a)
}

// TestProxy drives the proxy with Go's own client: no browser needed.
func TestProxy(t *testing.T) {
	port, accepted := canary(t)
	srv := serve(t, map[string]string{"/": "ok"}, nil)
	dl := &decisionLog{start: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	px, err := startProxy(ctx, only127, testLookup, dl)
	if err != nil {
		t.Fatal(err)
	}
	defer px.close()
	proxyURL, _ := neturl.Parse("http://" + px.addr())
	client := &http.Client{
		Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), DisableKeepAlives: true},
		Timeout:   5 * time.Second,
	}
	get := func(u string) (int, error) {
		resp, err := client.Get(u)
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := get(srv.URL + "/"); err != nil || code != 200 {
		t.Errorf("GET the loopback server = %d, %v; want 200", code, err)
	}
	for _, u := range []string{
		"http://10.0.0.1/",
		"http://169.254.169.254/latest/meta-data/",
		"http://[::ffff:0:a9fe:a9fe]/",
		"http://example.invalid/",
		"http://rebind.test/",
		fmt.Sprintf("http://[::1]:%d/", port),
		fmt.Sprintf("http://canary.test:%d/", port),
		fmt.Sprintf("https://canary.test:%d/", port),
		"https://10.0.0.1/",
		"http://" + px.addr() + "/",
	} {
		if code, err := get(u); err == nil && code < 400 {
			t.Errorf("GET %s through the proxy = %d; want a refusal", u, code)
		}
	}
	// A request to the proxy itself, not in proxy form.
	if resp, err := http.Get("http://" + px.addr() + "/"); err == nil {
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("a direct request to the proxy = %d, want 400", resp.StatusCode)
		}
		_ = resp.Body.Close()
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the canary on ::1 accepted %d connections; refused addresses must get none", n)
	}
	decisions, _ := dl.snapshot()
	for _, d := range decisions {
		t.Logf("%v", d)
	}
	want := map[string]Stage{
		"10.0.0.1":           StageLiteral,
		"169.254.169.254":    StageLiteral,
		"::ffff:0:a9fe:a9fe": StageLiteral,
		"example.invalid":    StageLookup,
		"rebind.test":        StageConnect,
		"::1":                StageLiteral,
		"canary.test":        StageConnect,
		"127.0.0.1":          StageConnect, // the proxy itself
	}
	for host, stage := range want {
		found := false
		for _, d := range refused(decisions, host) {
			found = found || d.Stage == stage
		}
		if !found {
			t.Errorf("no %s refusal for %s", stage, host)
		}
	}
	for _, d := range refused(decisions, "canary.test") {
		if d.Stage == StageConnect && d.Addr != loopback6 {
			t.Errorf("canary.test refused on %v, want ::1", d.Addr)
		}
	}
}

const spaFetch = `<!doctype html><html><head><title>loading</title></head>
<body><div id="app"></div>
<script>
fetch('/api/items').then(r => r.json()).then(d => {
  document.title = 'Rendered items';
  document.getElementById('app').innerHTML =
    '<h1>Items</h1><ul>' + d.items.map(i => '<li>' + i + '</li>').join('') + '</ul>';
});
</script></body></html>`

const spaXHR = `<!doctype html><html><head><title>xhr</title></head>
<body><div id="app"></div>
<script>
const x = new XMLHttpRequest();
x.open('GET', '/api/items');
x.onload = () => {
  const d = JSON.parse(x.responseText);
  setTimeout(() => {
    document.getElementById('app').textContent = 'Delayed: ' + d.items.join(', ');
  }, 700);
};
x.send();
</script></body></html>`

const spaRouter = `<!doctype html><html><head><title>router</title></head>
<body><nav></nav><main id="view"></main>
<script>
const routes = {'/app/article/42': 'The answer is forty-two.'};
function show() {
  document.getElementById('view').textContent = routes[location.pathname] || 'not found';
}
history.pushState({}, '', '/app/article/42');
setTimeout(show, 100);
</script></body></html>`

func TestRenderSPA(t *testing.T) {
	needBrowser(t)
	srv := serve(t, map[string]string{"/": spaFetch, "/xhr": spaXHR, "/app/": spaRouter}, func(mux *http.ServeMux) {
		mux.HandleFunc("/api/items", func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(400 * time.Millisecond)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"items":["alpha","beta","gamma"]}`))
		})
	})
	cases := []struct {
		name, path, want, title, final string
	}{
		{"fetch", "/", "<li>beta</li>", "Rendered items", "/"},
		{"xhr then setTimeout", "/xhr", "Delayed: alpha, beta, gamma", "xhr", "/xhr"},
		{"pushState routing", "/app/", "The answer is forty-two.", "router", "/app/article/42"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err, _ := render(t, context.Background(), srv.URL+tc.path, testConfig())
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if !strings.Contains(p.HTML, tc.want) {
				t.Errorf("HTML lacks %q:\n%s", tc.want, p.HTML)
			}
			if p.Title != tc.title {
				t.Errorf("Title = %q, want %q", p.Title, tc.title)
			}
			if p.FinalURL != srv.URL+tc.final {
				t.Errorf("FinalURL = %q, want %q", p.FinalURL, srv.URL+tc.final)
			}
			if p.Status != 200 || p.Settled == SettleTimeout || p.Truncated {
				t.Errorf("Status %d, Settled %s, Truncated %v", p.Status, p.Settled, p.Truncated)
			}
			if !strings.HasPrefix(p.HTML, "<!DOCTYPE html><html>") {
				t.Errorf("HTML does not start with the doctype: %.60q", p.HTML)
			}
			if len(p.Navigations) != 1 {
				t.Errorf("Navigations = %v, want one", p.Navigations)
			}
		})
	}
}

// ssrfPage reaches for refused destinations in every way a page can.
const ssrfPage = `<!doctype html><html><head><title>ssrf</title>
<link rel="prefetch" href="http://10.0.0.2/prefetch">
<link rel="stylesheet" href="http://10.0.0.9/style.css">
<script src="http://169.254.169.254/latest/meta-data/script.js"></script>
</head><body><p id="text"></p>
<img src="http://10.0.0.1/img.png">
<iframe src="http://[::ffff:0:a9fe:a9fe]/frame"></iframe>
<iframe src="https://10.0.0.3/frame"></iframe>
<iframe src="/inner"></iframe>
<script>
fetch('http://example.invalid/fetch').catch(() => {});
fetch('http://rebind.test:8080/fetch').catch(() => {});
fetch('https://metadata.test/latest/').catch(() => {});
try { new WebSocket('ws://10.0.0.4/ws'); } catch (e) {}
try { new WebSocket('wss://example.invalid/ws'); } catch (e) {}
try { new EventSource('http://10.0.0.6/events'); } catch (e) {}
navigator.sendBeacon && navigator.sendBeacon('http://10.0.0.7/beacon', 'x');
const x = new XMLHttpRequest(); x.open('GET', 'http://0x0a000005/xhr'); x.send();
// The text comes last, so that the page settles after every attempt.
setTimeout(() => { document.getElementById('text').textContent = "The page's own text."; }, 1000);
</script></body></html>`

const ssrfInner = `<!doctype html><html><body><p>inner frame</p>
<script>fetch('http://10.0.0.8/from-frame').catch(() => {});</script></body></html>`

// udpCanary listens for UDP on 127.0.0.1 and counts the packets it gets.
func udpCanary(t *testing.T) (port int, packets *atomic.Int64) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	packets = new(atomic.Int64)
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			packets.Add(1)
		}
	}()
	return pc.LocalAddr().(*net.UDPAddr).Port, packets
}

// udpScript aims WebRTC (STUN, TURN, host candidates) and WebTransport
// (HTTP/3) at a UDP port; none of it may leave the browser, since UDP
// cannot go through the proxy.
const udpScript = `<script>
try {
  const rtc = new RTCPeerConnection({iceServers: [
    {urls: 'stun:127.0.0.1:UDPPORT'},
    {urls: 'turn:127.0.0.1:UDPPORT?transport=udp', username: 'u', credential: 'p'},
  ]});
  rtc.createDataChannel('x');
  rtc.createOffer().then(o => rtc.setLocalDescription(o));
} catch (e) {}
try { new WebTransport('https://127.0.0.1:UDPPORT/wt').ready.catch(() => {}); } catch (e) {}
</script>`

func TestRenderSSRF(t *testing.T) {
	needBrowser(t)
	udpPort, packets := udpCanary(t)
	page := strings.Replace(ssrfPage, "</body>", strings.ReplaceAll(udpScript, "UDPPORT", strconv.Itoa(udpPort))+"</body>", 1)
	srv := serve(t, map[string]string{"/": page, "/inner": ssrfInner}, nil)
	p, err, _ := render(t, context.Background(), srv.URL+"/", testConfig())
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if n := packets.Load(); n != 0 {
		t.Errorf("the UDP canary received %d packets", n)
	}
	if !strings.Contains(p.HTML, "The page's own text.") {
		t.Errorf("the page's text is missing")
	}
	want := map[string]Stage{
		"10.0.0.1":           StageLiteral, // img
		"10.0.0.2":           StageLiteral, // prefetch
		"10.0.0.9":           StageLiteral, // stylesheet
		"169.254.169.254":    StageLiteral, // script
		"::ffff:0:a9fe:a9fe": StageLiteral, // iframe, IPv6 spelling of the metadata address
		"10.0.0.3":           StageLiteral, // https iframe
		"10.0.0.4":           StageLiteral, // websocket
		"10.0.0.5":           StageLiteral, // XHR to a hexadecimal address
		"10.0.0.6":           StageLiteral, // EventSource
		"10.0.0.7":           StageLiteral, // beacon
		"10.0.0.8":           StageLiteral, // fetch from an allowed frame
		"example.invalid":    StageLookup,  // fetch and wss, never on real DNS
		"rebind.test":        StageConnect, // a name that resolves to 10.0.0.1
		"metadata.test":      StageConnect, // https to a name that resolves to the metadata address
	}
	for host, stage := range want {
		got := refused(p.Decisions, host)
		if len(got) == 0 {
			t.Errorf("no refusal recorded for %s", host)
			continue
		}
		for _, d := range got {
			if d.Stage != stage {
				t.Errorf("%s refused at %s, want %s: %v", host, d.Stage, stage, d)
			}
			if d.Err == nil || !errors.Is(d.Err, ErrBlocked) {
				t.Errorf("refusal without ErrBlocked: %v", d)
			}
		}
	}
	for _, d := range refused(p.Decisions, "rebind.test") {
		if d.Addr != netip.MustParseAddr("10.0.0.1") {
			t.Errorf("rebind.test refused on %v, want 10.0.0.1", d.Addr)
		}
	}
}

// TestRenderRefusedGetNoPacket proves that refused destinations are never
// connected to: a canary on ::1 must see no connection while the page
// reaches for it by address and by name, under a rule that allows
// 127.0.0.1 only.
func TestRenderRefusedGetNoPacket(t *testing.T) {
	needBrowser(t)
	port, accepted := canary(t)
	page := strings.NewReplacer("PORT", strconv.Itoa(port)).Replace(`<!doctype html><html><body><p>canary page</p>
<img src="http://[::1]:PORT/img.png"><img src="http://canary.test:PORT/img.png">
<iframe src="http://canary.test:PORT/frame"></iframe>
<script>
fetch('http://[::1]:PORT/fetch').catch(() => {});
fetch('http://canary.test:PORT/fetch').catch(() => {});
fetch('https://canary.test:PORT/fetch').catch(() => {});
try { new WebSocket('ws://canary.test:PORT/ws'); } catch (e) {}
setTimeout(() => { location.href = 'http://canary.test:PORT/away'; }, 0);
</script></body></html>`)
	srv := serve(t, map[string]string{"/": page}, nil)
	cfg := testConfig()
	cfg.CheckAddress = only127
	p, err, _ := render(t, context.Background(), srv.URL+"/", cfg)
	if KindOf(err) != KindBlocked {
		t.Errorf("Render = %v, %v; want a blocked error for the navigation away", p, err)
	}
	decisions := decisionsOf(p, err)
	if len(refused(decisions, "::1")) == 0 || len(refused(decisions, "canary.test")) == 0 {
		t.Errorf("refusals missing: %v", decisions)
	}
	for _, d := range refused(decisions, "canary.test") {
		if d.Stage != StageConnect || d.Addr != loopback6 {
			t.Errorf("canary.test refused at %s on %v, want connect on ::1", d.Stage, d.Addr)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the canary accepted %d connections; a refused address must get none", n)
	}
}

func TestRenderNavigations(t *testing.T) {
	needBrowser(t)
	srv := serve(t, map[string]string{
		"/literal": `<!doctype html><p>leaving</p><script>setTimeout(() => { location.href = 'http://169.254.169.254/latest/meta-data/'; }, 0);</script>`,
		"/name":    `<!doctype html><p>leaving</p><script>setTimeout(() => { location.href = 'http://metadata.test/latest/meta-data/'; }, 0);</script>`,
		"/loop":    `<!doctype html><p>again</p><script>const n = +(new URLSearchParams(location.search).get('n') || 0); location.replace('/loop?n=' + (n + 1));</script>`,
		"/target":  `<!doctype html><title>target</title><p>arrived after redirects</p>`,
		"/hop":     `<!doctype html><p>hop</p><script>location.href = '/target';</script>`,
	}, func(mux *http.ServeMux) {
		mux.HandleFunc("/redirect/", func(w http.ResponseWriter, r *http.Request) {
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/redirect/"))
			if n <= 0 {
				http.Redirect(w, r, "/hop", http.StatusFound)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n-1), http.StatusFound)
		})
	})
	t.Run("to a refused address", func(t *testing.T) {
		p, err, _ := render(t, context.Background(), srv.URL+"/literal", testConfig())
		if KindOf(err) != KindBlocked || p != nil {
			t.Fatalf("Render = %v, %v; want a blocked error", p, err)
		}
		if len(refused(decisionsOf(p, err), "169.254.169.254")) == 0 {
			t.Errorf("no refusal recorded for 169.254.169.254")
		}
	})
	t.Run("to a name of a refused address", func(t *testing.T) {
		p, err, _ := render(t, context.Background(), srv.URL+"/name", testConfig())
		if KindOf(err) != KindBlocked || p != nil {
			t.Fatalf("Render = %v, %v; want a blocked error", p, err)
		}
		got := refused(decisionsOf(p, err), "metadata.test")
		if len(got) == 0 || got[0].Stage != StageConnect {
			t.Errorf("metadata.test refusals = %v, want one at connect", got)
		}
	})
	t.Run("host down", func(t *testing.T) {
		down := "http://" + fakeweb.RefusedAddr(t) + "/"
		p, err, _ := render(t, context.Background(), down, testConfig())
		if KindOf(err) != KindNavigation || p != nil {
			t.Fatalf("Render = %v, %v; want a navigation error", p, err)
		}
	})
	t.Run("endless", func(t *testing.T) {
		p, err, _ := render(t, context.Background(), srv.URL+"/loop", testConfig())
		if KindOf(err) != KindNavigation || !errors.Is(err, ErrTooManyNavigations) {
			t.Fatalf("Render = %v, %v; want too many navigations", p, err)
		}
	})
	t.Run("redirects then script", func(t *testing.T) {
		p, err, _ := render(t, context.Background(), srv.URL+"/redirect/2", testConfig())
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		if p.FinalURL != srv.URL+"/target" || !strings.Contains(p.HTML, "arrived after redirects") {
			t.Errorf("FinalURL %q, HTML %q", p.FinalURL, p.HTML)
		}
		if len(p.Navigations) != 2 {
			t.Errorf("Navigations = %v, want /hop and /target", p.Navigations)
		}
	})
}

func TestRenderHostile(t *testing.T) {
	needBrowser(t)
	var popupHits, pollHits atomic.Int64
	srv := serve(t, map[string]string{
		"/endless": `<!doctype html><title>loop</title><p>before the loop</p><script>while (true) {}</script><p>after the loop</p>`,
		"/dialogs": `<!doctype html><title>dialogs</title><div id="out"></div>
<script>
alert('hello');
const c = confirm('sure?');
const p = prompt('name?', 'x');
const w = window.open('/popup', '_blank', 'width=100');
window.onbeforeunload = e => { e.preventDefault(); return 'stay'; };
const a = document.createElement('a');
a.href = '/file.bin'; a.download = 'file.bin';
document.body.appendChild(a);
a.click();
document.getElementById('out').textContent = 'after dialogs: confirm=' + c + ' prompt=' + p + ' popup=' + w;
</script>`,
		"/poll-static": `<!doctype html><title>poll</title><p>static text</p>
<script>
setInterval(() => fetch('/poll').catch(() => {}), 50);
const ws = new WebSocket('ws://' + location.host + '/ws');
</script>`,
		"/poll-ticking": `<!doctype html><title>tick</title><p id="t">tick</p>
<script>
let n = 0;
setInterval(() => { fetch('/poll').catch(() => {}); document.getElementById('t').textContent = 'tick ' + n++; }, 50);
</script>`,
		"/huge": `<!doctype html><title>huge</title><div id="out"></div>
<script>
// 50,000 paragraphs of 1,000 characters: a 50 MB DOM, hidden so that
// the browser spends no time laying it out.
const text = 'é'.repeat(1000), out = document.getElementById('out'), frag = document.createDocumentFragment();
for (let i = 0; i < 50000; i++) { const p = document.createElement('p'); p.textContent = text; frag.appendChild(p); }
out.style.display = 'none';
out.appendChild(frag);
</script>`,
		"/memory": `<!doctype html><title>memory</title>
<script>
// 2 GB of buffers the page touches, outside the JavaScript heap.
const keep = [];
for (let i = 0; i < 64; i++) { const b = new Uint8Array(32 << 20); b.fill(7); keep.push(b); }
</script><p>grown</p>`,
	}, func(mux *http.ServeMux) {
		mux.HandleFunc("/popup", func(w http.ResponseWriter, r *http.Request) {
			popupHits.Add(1)
			_, _ = w.Write([]byte("popup"))
		})
		mux.HandleFunc("/poll", func(w http.ResponseWriter, r *http.Request) {
			pollHits.Add(1)
			_, _ = w.Write([]byte("{}"))
		})
		mux.HandleFunc("/file.bin", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Disposition", `attachment; filename="file.bin"`)
			_, _ = w.Write(make([]byte, 4096))
		})
		mux.Handle("/ws", websocket.Handler(func(c *websocket.Conn) {
			buf := make([]byte, 64)
			for {
				if _, err := c.Read(buf); err != nil {
					return
				}
			}
		}))
	})

	t.Run("endless script", func(t *testing.T) {
		defer func(d time.Duration) { scriptHang = d }(scriptHang)
		scriptHang = 2 * time.Second
		cfg := testConfig()
		p, err, elapsed := render(t, context.Background(), srv.URL+"/endless", cfg)
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		if !p.ScriptsStopped || !strings.Contains(p.HTML, "before the loop") {
			t.Errorf("ScriptsStopped %v, HTML %q", p.ScriptsStopped, p.HTML)
		}
		if elapsed > cfg.Timeout {
			t.Errorf("took %v, over the %v budget", elapsed, cfg.Timeout)
		}
	})
	t.Run("dialogs, popup and download", func(t *testing.T) {
		p, err, _ := render(t, context.Background(), srv.URL+"/dialogs", testConfig())
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		if !strings.Contains(p.HTML, "after dialogs: confirm=false prompt=null popup=null") {
			t.Errorf("the script did not run past its dialogs:\n%s", p.HTML)
		}
		if strings.Join(p.Dialogs, ",") != "alert,confirm,prompt" {
			t.Errorf("Dialogs = %v", p.Dialogs)
		}
		if n := popupHits.Load(); n != 0 || len(p.Popups) != 0 {
			t.Errorf("the popup was loaded %d times (Popups %v)", n, p.Popups)
		}
		if len(p.Downloads) != 1 || !strings.HasSuffix(p.Downloads[0], "/file.bin") {
			t.Errorf("Downloads = %v, want the denied file.bin", p.Downloads)
		}
	})
	t.Run("never idle", func(t *testing.T) {
		cfg := testConfig()
		// A window far longer than the pages' 50 ms ticks, so that a
		// loaded machine's late timers do not look like idleness.
		cfg.QuietWindow = time.Second
		p, err, elapsed := render(t, context.Background(), srv.URL+"/poll-static", cfg)
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		// Its network is never idle; its DOM is quiet, which settles it
		// unless a loaded machine makes the polls look slow.
		if p.Settled == SettleNetworkIdle || !strings.Contains(p.HTML, "static text") {
			t.Errorf("Settled = %s, want %s (or %s)", p.Settled, SettleDOMQuiet, SettleTimeout)
		}
		if elapsed > cfg.Timeout {
			t.Errorf("took %v, over the %v budget", elapsed, cfg.Timeout)
		}
		pollHits.Store(0)
		cfg.SettleTimeout = 1500 * time.Millisecond
		p, err, elapsed = render(t, context.Background(), srv.URL+"/poll-ticking", cfg)
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		if p.Settled != SettleTimeout || !strings.Contains(p.HTML, "tick ") {
			t.Errorf("Settled = %s, want %s", p.Settled, SettleTimeout)
		}
		if p.Timings.Settle > cfg.SettleTimeout+time.Second || elapsed > cfg.Timeout {
			t.Errorf("settled in %v (limit %v), total %v", p.Timings.Settle, cfg.SettleTimeout, elapsed)
		}
		if pollHits.Load() == 0 {
			t.Errorf("the page never polled")
		}
	})
	t.Run("huge DOM", func(t *testing.T) {
		cfg := testConfig()
		cfg.MaxDOMBytes = 1 << 20
		p, err, elapsed := render(t, context.Background(), srv.URL+"/huge", cfg)
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		if !p.Truncated || int64(len(p.HTML)) > cfg.MaxDOMBytes || int64(len(p.HTML)) < cfg.MaxDOMBytes-4 || !utf8.ValidString(p.HTML) {
			t.Errorf("Truncated %v, %d bytes (cap %d), valid UTF-8 %v", p.Truncated, len(p.HTML), cfg.MaxDOMBytes, utf8.ValidString(p.HTML))
		}
		if elapsed > cfg.Timeout {
			t.Errorf("took %v, over the %v budget", elapsed, cfg.Timeout)
		}
	})
	t.Run("memory cap", func(t *testing.T) {
		if !memoryWatched {
			t.Skip("memory is not watched on this system")
		}
		// Only the memory cap may stop this page, however slow the
		// machine.
		defer func(d time.Duration) { scriptHang = d }(scriptHang)
		scriptHang = time.Minute
		cfg := testConfig()
		cfg.MaxMemoryBytes = 400 << 20
		p, err, elapsed := render(t, context.Background(), srv.URL+"/memory", cfg)
		if KindOf(err) != KindMemory || !errors.Is(err, ErrMemoryLimit) {
			t.Fatalf("Render = %v, %v; want a memory-limit error", p, err)
		}
		if elapsed > cfg.Timeout {
			t.Errorf("took %v, over the %v budget", elapsed, cfg.Timeout)
		}
	})
}

// busyPage never settles: its DOM changes and it polls the server every
// 50ms.
const busyPage = `<!doctype html><title>busy</title><p id="t">tick</p>
<script>
let n = 0;
setInterval(() => { fetch('/poll').catch(() => {}); document.getElementById('t').textContent = 'tick ' + n++; }, 50);
</script>`

func serveBusy(t *testing.T) *httptest.Server {
	return serve(t, map[string]string{"/": busyPage}, func(mux *http.ServeMux) {
		mux.HandleFunc("/poll", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("{}")) })
	})
}

func TestRenderKilled(t *testing.T) {
	needBrowser(t)
	srv := serveBusy(t)
	cfg := testConfig()
	cfg.SettleTimeout = 15 * time.Second
	var pgid atomic.Int64
	hook := func(p int, _ string) {
		pgid.Store(int64(p))
		go func() {
			time.Sleep(time.Second)
			_ = killGroup(p)
		}()
	}
	testHookStarted = hook
	start := time.Now()
	p, err := Render(context.Background(), srv.URL+"/", &cfg)
	elapsed := time.Since(start)
	testHookStarted = nil
	if KindOf(err) != KindCrashed || !errors.Is(err, ErrCrashed) {
		t.Fatalf("Render = %v, %v; want a crashed error", p, err)
	}
	if elapsed > 10*time.Second {
		t.Errorf("took %v to notice the browser died", elapsed)
	}
	if left := groupProcs(int(pgid.Load())); len(left) > 0 {
		t.Errorf("processes of group %d left: %v", pgid.Load(), left)
	}
}

func TestRenderDeadline(t *testing.T) {
	needBrowser(t)
	srv := serveBusy(t)
	cfg := testConfig()
	cfg.SettleTimeout = 20 * time.Second
	const budget = 3 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	p, err, elapsed := render(t, ctx, srv.URL+"/", cfg)
	if elapsed > budget+1500*time.Millisecond {
		t.Errorf("took %v with a %v deadline", elapsed, budget)
	}
	switch {
	case err == nil:
		if p.Settled != SettleTimeout || !strings.Contains(p.HTML, "tick") {
			t.Errorf("Settled %s, HTML %q", p.Settled, p.HTML)
		}
	case KindOf(err) != KindTimeout:
		t.Errorf("Render = %v; want a page or a timeout", err)
	}

	// A canceled context ends the render at once.
	ctx, cancel = context.WithCancel(context.Background())
	testHookStarted = func(int, string) { cancel() }
	start := time.Now()
	p, err = Render(ctx, srv.URL+"/", &cfg)
	testHookStarted = nil
	if KindOf(err) != KindCanceled {
		t.Errorf("Render = %v, %v; want canceled", p, err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("a canceled render took %v", el)
	}
}

// fakeBrowser writes a shell script that stands in for a browser.
func fakeBrowser(t *testing.T, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	path := filepath.Join(t.TempDir(), "fake-browser")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRenderBrokenBrowser covers browsers that exit at once and browsers
// that never answer: no real browser needed.
func TestRenderBrokenBrowser(t *testing.T) {
	t.Run("exits", func(t *testing.T) {
		cfg := testConfig()
		cfg.Path = fakeBrowser(t, `echo "this browser is broken" >&2; exit 3`)
		start := time.Now()
		p, err := Render(context.Background(), "http://127.0.0.1:9/", &cfg)
		if KindOf(err) != KindStart || p != nil {
			t.Fatalf("Render = %v, %v; want a start error", p, err)
		}
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("took %v", el)
		}
	})
	t.Run("hangs", func(t *testing.T) {
		cfg := testConfig()
		// The script and its child keep the renderer's arguments on
		// their command lines, so that leftovers can be found.
		cfg.Path = fakeBrowser(t, `sh -c 'sleep 60; : "$@"' "$0" "$@" &
sleep 60`)
		cfg.Timeout = 2 * time.Second
		start := time.Now()
		p, err := Render(context.Background(), "http://127.0.0.1:9/", &cfg)
		el := time.Since(start)
		if KindOf(err) != KindTimeout || p != nil {
			t.Fatalf("Render = %v, %v; want a timeout", p, err)
		}
		if el > cfg.Timeout+2*time.Second {
			t.Errorf("took %v with a %v budget", el, cfg.Timeout)
		}
		if memoryWatched {
			if left := processesWith(cfg.Path); len(left) > 0 {
				t.Errorf("processes of the fake browser left: %v", left)
			}
		}
	})
}

// TestRenderSettlesWhenStill: a page whose network and DOM are both still
// is read after the shorter still window; one whose DOM keeps changing
// without requests is read only after the whole quiet window of network
// idleness.
func TestRenderSettlesWhenStill(t *testing.T) {
	needBrowser(t)
	srv := serve(t, map[string]string{
		"/":        `<!doctype html><html><body><p>A page that is already whole.</p></body></html>`,
		"/ticking": `<!doctype html><html><body><p id="t">tick</p><script>let n = 0; setInterval(() => { document.getElementById('t').textContent = 'tick ' + n++; }, 40);</script></body></html>`,
	}, nil)
	p, err, _ := render(t, context.Background(), srv.URL+"/", testConfig())
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if p.Settled != SettleStill {
		t.Errorf("a still page: Settled = %s, want %s", p.Settled, SettleStill)
	}
	// The ticks come every 40 ms; a window of a second keeps a loaded
	// machine's late timers from looking like stillness (300 ms here).
	ticking := testConfig()
	ticking.QuietWindow = time.Second
	p, err, _ = render(t, context.Background(), srv.URL+"/ticking", ticking)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if p.Settled != SettleNetworkIdle || !strings.Contains(p.HTML, "tick ") {
		t.Errorf("a ticking page: Settled = %s, want %s, with the ticks run", p.Settled, SettleNetworkIdle)
	}
}

// TestRenderWaitsForEventSourceData: a page that shows a placeholder and
// gets its content over an EventSource has no request in flight that the
// render waits for, yet its data is still coming: it is not read as still
// before the quiet window has passed since the stream opened.
func TestRenderWaitsForEventSourceData(t *testing.T) {
	needBrowser(t)
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	srv := serve(t, map[string]string{
		"/": `<!doctype html><html><body><p id="t">Waiting for the stream.</p><script>
new EventSource('/events').onmessage = e => { document.getElementById('t').textContent = e.data; };
</script></body></html>`,
	}, func(mux *http.ServeMux) {
		mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {
			case <-time.After(700 * time.Millisecond):
			case <-done:
				return
			case <-r.Context().Done():
				return
			}
			_, _ = w.Write([]byte("data: The streamed content arrived.\n\n"))
			w.(http.Flusher).Flush()
			select {
			case <-done:
			case <-r.Context().Done():
			}
		})
	})
	// The data comes 700 ms after the stream opens: after the still
	// window (480 ms), which alone would read the page without it, and
	// well before the quiet window (1.6 s) the stream holds the render to.
	cfg := testConfig()
	cfg.QuietWindow = 1600 * time.Millisecond
	p, err, _ := render(t, context.Background(), srv.URL+"/", cfg)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if !strings.Contains(p.HTML, "The streamed content arrived.") {
		t.Errorf("read before the stream's data (Settled = %s):\n%s", p.Settled, p.HTML)
	}
}
