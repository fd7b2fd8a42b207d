package browser

import (
	"context"
	"errors"
	"fmt"
	"github.com/webgate-dev/webgate/webpage"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// pollInterval is how often the browser's memory is measured, and at most
// how long the page goes unlooked at while it settles.
const pollInterval = 100 * time.Millisecond

// maxTracked bounds the requests tracked for the network-idle test; a page
// with more requests in flight is simply busy.
const maxTracked = 10000

// worldName names the isolated world the renderer observes and reads the
// page from; the page's own scripts cannot see or change it.
const worldName = "webgate-reader"

// testHookStarted, when set, is called with the browser's process group
// and the render's temporary directory as soon as the browser answers.
var testHookStarted func(pgid int, dir string)

// run is one render: one browser, one proxy, one temporary directory.
type run struct {
	cfg    Config
	exe    string
	log    *decisionLog
	start  time.Time
	parent context.Context

	ctx     context.Context // the render's budget
	bctx    context.Context // the chromedp context of the tab
	cancels []context.CancelFunc
	dir     string
	profile string
	proxy   *proxy
	pgid    int
	lost    <-chan struct{}
	tab     target.ID
	main    cdp.FrameID

	// warm is the pooled browser the render uses, and keep whether it
	// may go back to the pool afterwards.
	warm *warmBrowser
	keep bool

	memStop   chan struct{}
	memDone   chan struct{}
	peak      atomic.Int64
	memKilled atomic.Bool

	wake chan struct{}

	mu          sync.Mutex
	loader      cdp.LoaderID
	domReady    bool
	commits     []string
	unreachable string
	status      int
	navRequests int
	tooMany     bool
	mainBlocked *Decision
	pendingNav  map[network.RequestID]struct{}
	inflight    map[network.RequestID]*request
	lastNet     time.Time
	// lastSocket is when a WebSocket or EventSource of the page last
	// opened or carried a message.
	lastSocket  time.Time
	crashed     bool
	world       runtime.ExecutionContextID
	worldLoader cdp.LoaderID
	busySince   time.Time
	stopped     bool
	dialogs     []string
	popups      []string
	downloads   []string
}

// render runs the browser and always cleans up after it.
func (r *run) render(target string) (*Page, error) {
	ctx, cancel := context.WithTimeout(r.parent, r.cfg.Timeout)
	r.ctx = ctx
	r.wake = make(chan struct{}, 1)
	r.pendingNav = map[network.RequestID]struct{}{}
	r.inflight = map[network.RequestID]*request{}
	r.lastNet = time.Now()
	var (
		p    *Page
		kind Kind
		err  error
	)
	func() {
		defer func() {
			if rec := recover(); rec != nil {
				p, kind, err = nil, KindCrashed, fmt.Errorf("%w: internal error: %v", ErrCrashed, rec)
			}
		}()
		p, kind, err = r.session(target)
	}()
	r.mu.Lock()
	r.keep = err == nil && !r.stopped && !r.crashed
	r.mu.Unlock()
	r.cleanup()
	cancel()
	decisions, dropped := r.log.snapshot()
	if err != nil {
		return nil, &Error{Kind: kind, URL: target, Err: err, Decisions: decisions}
	}
	p.Decisions, p.DecisionsDropped = decisions, dropped
	p.PeakMemoryBytes = r.peak.Load()
	p.Timings.Total = time.Since(r.start)
	return p, nil
}

// session starts the browser (or takes one from the pool), loads the
// page, waits for it to settle and reads it.
func (r *run) session(target string) (*Page, Kind, error) {
	p := &Page{URL: target}
	t0 := time.Now()
	if k, err := r.open(); err != nil {
		return nil, k, err
	}
	bctx := r.bctx
	c := chromedp.FromContext(bctx)
	r.tab = c.Target.TargetID
	r.mu.Lock()
	r.main = cdp.FrameID(c.Target.TargetID)
	r.mu.Unlock()
	r.memStop, r.memDone = make(chan struct{}), make(chan struct{})
	go r.watchMemory()

	if err := chromedp.ListenBrowser(bctx, r.onBrowserEvent); err != nil {
		return nil, r.failKind(KindStart), err
	}
	if _, err := chromedp.CallBrowser(bctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior:         browser.SetDownloadBehaviorBehaviorDeny,
		BrowserContextID: c.BrowserContextID,
		EventsEnabled:    ptr(true),
	}); err != nil {
		return nil, r.failKind(KindStart), fmt.Errorf("denying downloads: %w", err)
	}
	if _, err := chromedp.Call(bctx, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument}},
	}); err != nil {
		return nil, r.failKind(KindStart), fmt.Errorf("watching navigations: %w", err)
	}
	p.Timings.Start = time.Since(t0)

	deadline, _ := r.ctx.Deadline()
	readBy := deadline.Add(-readReserve(time.Until(deadline)))

	// Load the page.
	t1 := time.Now()
	navBy := earliest(t1.Add(r.cfg.NavigationTimeout), readBy)
	nctx, ncancel := context.WithDeadline(bctx, navBy)
	res, err := chromedp.Call(nctx, page.Navigate, page.NavigateParams{URL: target})
	ncancel()
	if k, e, ok := r.outcome(); ok {
		return nil, k, e
	}
	switch {
	case r.ctx.Err() != nil:
		return nil, r.ctxKind(), fmt.Errorf("loading the page: %w", context.Cause(r.ctx))
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		return nil, KindTimeout, fmt.Errorf("the page did not answer in time (navigation timeout %v)", r.cfg.NavigationTimeout)
	case err != nil:
		return nil, r.failKind(KindNavigation), fmt.Errorf("loading the page: %w", err)
	case res.ErrorText != "":
		k, e := r.navFailure(target, res.ErrorText)
		return nil, k, e
	case res.IsDownload:
		return nil, KindNavigation, errors.New("the URL is a download, not a page")
	}
	ready := r.waitReady(navBy)
	p.Timings.Navigate = time.Since(t1)
	if k, e, ok := r.outcome(); ok {
		return nil, k, e
	}

	// Wait for it to settle.
	t2 := time.Now()
	p.Settled = SettleTimeout
	if ready {
		p.Settled = r.settle(earliest(t2.Add(r.cfg.SettleTimeout), readBy))
	}
	p.Timings.Settle = time.Since(t2)
	if k, e, ok := r.outcome(); ok {
		return nil, k, e
	}

	// Read it.
	t3 := time.Now()
	doc, err := r.read(deadline)
	p.Timings.Read = time.Since(t3)
	if k, e, ok := r.outcome(); ok {
		return nil, k, e
	}
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, r.ctxKind(), fmt.Errorf("reading the page: %w", context.Cause(r.ctx))
		}
		return nil, r.failKind(KindTimeout), fmt.Errorf("reading the page: %w", err)
	}
	p.FinalURL, p.Title, p.HTML, p.Truncated = doc.URL, strings.Join(strings.Fields(doc.Title), " "), doc.HTML, doc.Truncated
	r.mu.Lock()
	p.Status = r.status
	p.Navigations = append([]string(nil), r.commits...)
	p.ScriptsStopped = r.stopped
	p.Dialogs = append([]string(nil), r.dialogs...)
	p.Popups = append([]string(nil), r.popups...)
	p.Downloads = append([]string(nil), r.downloads...)
	r.mu.Unlock()
	return p, "", nil
}

// discard drops chromedp's own log lines.
func discard(string, ...any) {}

// launch makes a browser that lives as long as ctx: a profile in a new
// temporary directory, its proxy, and the chromedp context of its first
// tab (with opts). The browser starts on the first action in that
// context. What it made is in w even when it fails.
func (r *run) launch(ctx context.Context, opts ...chromedp.ContextOption) (w *warmBrowser, err error) {
	w = &warmBrowser{}
	dir, err := os.MkdirTemp("", "webgate-browser-")
	if err != nil {
		return w, fmt.Errorf("creating the profile directory: %w", err)
	}
	w.dir, w.profile = dir, filepath.Join(dir, "profile")
	for _, sub := range []string{"home", "tmp", "profile"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			return w, fmt.Errorf("creating the profile directory: %w", err)
		}
	}
	px, err := startProxy(ctx, r.cfg.CheckAddress, r.cfg.LookupIP, r.log)
	if err != nil {
		return w, err
	}
	w.proxy = px
	allocCtx, allocCancel := chromedp.NewExecAllocator(ctx, r.allocatorOptions(w)...)
	w.cancels = append(w.cancels, allocCancel)
	bctx, bcancel := chromedp.NewContext(allocCtx, append([]chromedp.ContextOption{
		chromedp.WithLogf(discard), chromedp.WithErrorf(discard), chromedp.WithDebugf(discard)}, opts...)...)
	w.cancels = append(w.cancels, bcancel)
	w.bctx = bctx
	return w, nil
}

// started records the browser's process group and lost-connection
// channel once it answers.
func (w *warmBrowser) started() {
	c := chromedp.FromContext(w.bctx)
	if proc := c.Browser.Process(); proc != nil {
		w.pgid = proc.Pid
	}
	w.lost = c.Browser.LostConnection
	if testHookStarted != nil {
		testHookStarted(w.pgid, w.dir)
	}
}

// open gives the render its tab (r.bctx): in a browser of its own, or, with
// a pool, in a new browser context of a browser kept warm.
func (r *run) open() (Kind, error) {
	if r.cfg.Pool != nil {
		return r.openWarm()
	}
	w, err := r.launch(r.ctx, chromedp.WithListener(r.onEvent))
	// The render's cleanup removes what the launch made, even when it
	// failed.
	r.cancels = append(r.cancels, w.cancels...)
	r.dir, r.profile, r.proxy = w.dir, w.profile, w.proxy
	if err != nil {
		return KindStart, err
	}
	r.bctx = w.bctx
	// The first call binds the browser's life to bctx, so it gets no
	// shorter context than the render's own.
	if err := chromedp.Do(r.bctx); err != nil {
		if k, e, ok := r.outcome(); ok {
			return k, e
		}
		if r.ctx.Err() != nil {
			return r.ctxKind(), fmt.Errorf("starting the browser: %w", context.Cause(r.ctx))
		}
		return KindStart, startError(r.exe, err)
	}
	w.started()
	r.pgid, r.lost = w.pgid, w.lost
	return "", nil
}

// openWarm takes a browser from the pool, or starts one for it, and opens
// the render's tab in a new browser context of its own, which the tab's
// end disposes of. Everything waits no longer than the render's context.
func (r *run) openWarm() (Kind, error) {
	pool := r.cfg.Pool
	key := poolKey(r.exe, r.cfg)
	if w := pool.take(key); w != nil {
		// A browser that does not open a tab promptly is retired, and a
		// new one started.
		if k, err := r.openTab(w, reusedTabWait); err == nil {
			return "", nil
		} else if r.ctx.Err() != nil {
			return k, err
		}
		w.close()
		r.abandonTab()
	}
	w, err := r.launch(context.Background())
	if err == nil {
		err = waitFor(r.ctx, 0, func() error { return chromedp.Do(w.bctx) })
	}
	if err != nil {
		w.close()
		if r.ctx.Err() != nil {
			return r.ctxKind(), fmt.Errorf("starting the browser: %w", context.Cause(r.ctx))
		}
		return KindStart, startError(r.exe, err)
	}
	w.key = key
	w.started()
	return r.openTab(w, 0)
}

// reusedTabWait bounds opening a tab in a browser taken from the pool.
const reusedTabWait = 3 * time.Second

// openTab opens the render's tab in w, in a new browser context, within
// wait (0: the render's time).
func (r *run) openTab(w *warmBrowser, wait time.Duration) (Kind, error) {
	r.warm = w
	r.dir, r.profile, r.proxy, r.pgid, r.lost = w.dir, w.profile, w.proxy, w.pgid, w.lost
	w.proxy.serve(r.ctx, r.cfg.CheckAddress, r.cfg.LookupIP, r.log)
	tctx, tcancel := chromedp.NewContext(w.bctx, chromedp.WithNewBrowserContext(), chromedp.WithListener(r.onEvent))
	r.cancels = append(r.cancels, tcancel)
	// The tab ends with the render.
	stop := context.AfterFunc(r.ctx, tcancel)
	r.cancels = append(r.cancels, func() { stop() })
	r.bctx = tctx
	if err := waitFor(r.ctx, wait, func() error { return chromedp.Do(tctx) }); err != nil {
		if k, e, ok := r.outcome(); ok {
			return k, e
		}
		if r.ctx.Err() != nil {
			return r.ctxKind(), fmt.Errorf("opening a tab: %w", context.Cause(r.ctx))
		}
		return KindStart, fmt.Errorf("opening a tab: %w", err)
	}
	return "", nil
}

// abandonTab forgets a tab that did not open, before another browser is
// tried.
func (r *run) abandonTab() {
	for i := len(r.cancels) - 1; i >= 0; i-- {
		r.cancels[i]()
	}
	r.cancels = nil
	r.warm, r.bctx = nil, nil
	r.dir, r.profile, r.proxy, r.pgid, r.lost = "", "", nil, 0, nil
	r.mu.Lock()
	r.crashed = false
	r.mu.Unlock()
}

// waitFor runs f and returns its error, or gives up when ctx ends or,
// when wait > 0, after wait (f goes on in the background).
func waitFor(ctx context.Context, wait time.Duration, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	var late <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		late = t.C
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-late:
		return fmt.Errorf("no answer within %v", wait)
	}
}

// allocatorOptions are the command line and environment of browser w,
// with its profile and proxy.
func (r *run) allocatorOptions(w *warmBrowser) []chromedp.ExecAllocatorOption {
	home := filepath.Join(w.dir, "home")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(r.exe),
		// The browser gets none of the caller's environment (no API
		// keys); its home and temporary files are in the render's
		// directory.
		chromedp.NoInheritEnv,
		chromedp.Env(
			"HOME="+home,
			"TMPDIR="+filepath.Join(w.dir, "tmp"),
			"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
			"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
			"PATH=/usr/local/bin:/usr/bin:/bin",
		),
		chromedp.ModifyCmdFunc(prepareCmd),
		chromedp.UserDataDir(w.profile),
		chromedp.Flag("headless", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1280, 1024),

		// All traffic goes through the proxy, loopback included.
		chromedp.ProxyServer("http://" + w.proxy.addr()),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("dns-prefetch-disable", true),
		// The browser's own resolver answers nothing: names are resolved
		// by the proxy only.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("no-pings", true),

		// No windows, prompts or background traffic of the browser's own.
		chromedp.Flag("block-new-web-contents", true),
		chromedp.Flag("deny-permission-prompts", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-crash-reporter", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,"+
			"AutofillServerCommunication,InterestFeedContentSuggestions,CertificateTransparencyComponentUpdater,"+
			"NetworkTimeServiceQuerying,BackForwardCache,Prerender2"),
		chromedp.Flag("enable-features", "NetworkServiceInProcess"),
		chromedp.Flag("disable-hang-monitor", true),
		chromedp.Flag("disable-prompt-on-repost", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		// A page's JavaScript heap cannot take the whole memory cap.
		chromedp.Flag("js-flags", "--max-old-space-size="+strconv.FormatInt(max(r.cfg.MaxMemoryBytes/2>>20, 64), 10)),
	}
	if r.cfg.UserAgent != "" {
		opts = append(opts, chromedp.UserAgent(r.cfg.UserAgent))
	}
	return opts
}

// signal wakes the waits after a state change.
func (r *run) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// onEvent follows the tab's events. It runs in the tab's event loop: it
// must not block or send commands itself.
func (r *run) onEvent(ev any) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.signal()
	switch e := ev.(type) {
	case *fetch.EventRequestPaused:
		go r.guard(func() { r.onPaused(e) })
	case *page.EventFrameNavigated:
		if e.Frame == nil || e.Frame.ParentID != "" {
			return
		}
		r.loader, r.domReady, r.world, r.busySince = e.Frame.LoaderID, false, 0, time.Time{}
		r.unreachable = e.Frame.UnreachableURL
		clear(r.pendingNav)
		if len(r.commits) < 100 {
			r.commits = append(r.commits, e.Frame.URL+e.Frame.URLFragment)
		}
	case *page.EventLifecycleEvent:
		if e.FrameID == r.main && e.LoaderID == r.loader && (e.Name == "DOMContentLoaded" || e.Name == "load") {
			r.domReady = true
		}
	case *page.EventJavascriptDialogOpening:
		if len(r.dialogs) < 100 {
			r.dialogs = append(r.dialogs, string(e.Type))
		}
		go r.guard(r.dismissDialog)
	case *network.EventRequestWillBeSent:
		if e.Type == network.ResourceTypeDocument && e.FrameID == r.main {
			r.pendingNav[e.RequestID] = struct{}{}
		}
		if e.Type == network.ResourceTypeWebSocket || e.Type == network.ResourceTypeEventSource {
			// A long-lived connection is not waited for, but the data it
			// brings may still be coming: see lastSocket.
			r.lastSocket = now
			return
		}
		r.lastNet = now
		if _, ok := r.inflight[e.RequestID]; !ok && len(r.inflight) < maxTracked {
			r.inflight[e.RequestID] = &request{start: now}
		}
	case *network.EventResponseReceived:
		if e.Type == network.ResourceTypeDocument && e.FrameID == r.main && e.Response != nil {
			r.status = int(e.Response.Status)
		}
		if q, ok := r.inflight[e.RequestID]; ok {
			q.responded = now
			r.lastNet = now
		}
	case *network.EventWebSocketCreated, *network.EventWebSocketFrameReceived, *network.EventWebSocketFrameSent,
		*network.EventEventSourceMessageReceived:
		r.lastSocket = now
	case *network.EventLoadingFinished:
		r.finished(e.RequestID, now)
	case *network.EventLoadingFailed:
		r.finished(e.RequestID, now)
	case *inspector.EventTargetCrashed:
		r.crashed = true
	case *runtime.EventExecutionContextsCleared:
		r.world = 0
	}
}

// request is a request of the page in flight.
type request struct {
	start     time.Time
	responded time.Time
}

// active reports whether q still counts as network activity: until it
// finishes loading, or for the quiet window after its response arrived
// (the browser reports a body no script reads as loading until much
// later).
func (q *request) active(now time.Time, w time.Duration) bool {
	return q.responded.IsZero() || now.Sub(q.responded) < w
}

// awaited reports whether the page may still be waiting for q to change
// the DOM: q has no response yet, or a slow response (one that took more
// than a poll interval) arrived less than the quiet window ago. A quick
// request, such as a page's polling, is not waited for.
func (q *request) awaited(now time.Time, w time.Duration) bool {
	if q.responded.IsZero() {
		return true
	}
	return q.responded.Sub(q.start) >= pollInterval && now.Sub(q.responded) < w
}

// finished records the end of a request; r.mu is held.
func (r *run) finished(id network.RequestID, now time.Time) {
	delete(r.pendingNav, id)
	if _, ok := r.inflight[id]; ok {
		delete(r.inflight, id)
		r.lastNet = now
	}
}

// onBrowserEvent follows the browser's events: downloads and new windows.
func (r *run) onBrowserEvent(ev any) {
	switch e := ev.(type) {
	case *browser.EventDownloadWillBegin:
		r.mu.Lock()
		if len(r.downloads) < 100 {
			r.downloads = append(r.downloads, e.URL)
		}
		r.mu.Unlock()
	case *target.EventTargetCreated:
		info := e.TargetInfo
		if info == nil || info.Type != "page" || info.TargetID == r.tab {
			return
		}
		r.mu.Lock()
		if len(r.popups) < 100 {
			r.popups = append(r.popups, info.URL)
		}
		r.mu.Unlock()
		id := info.TargetID
		go r.guard(func() {
			ctx, cancel := context.WithTimeout(r.bctx, 2*time.Second)
			defer cancel()
			_, _ = chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: id})
		})
	}
}

// guard runs f and turns a panic into a crashed render.
func (r *run) guard(f func()) {
	defer func() {
		if recover() != nil {
			r.mu.Lock()
			r.crashed = true
			r.mu.Unlock()
			r.signal()
		}
	}()
	f()
}

// dismissDialog dismisses the dialog the page opened.
func (r *run) dismissDialog() {
	ctx, cancel := context.WithTimeout(r.bctx, 2*time.Second)
	defer cancel()
	_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
}

// onPaused checks a document request (a navigation of the page or of one
// of its frames) before it is sent: its scheme, a host written as an
// address, and the number of navigations of the main frame.
func (r *run) onPaused(e *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(r.bctx, 5*time.Second)
	defer cancel()
	raw := ""
	if e.Request != nil {
		raw = e.Request.URL + e.Request.URLFragment
	}
	r.mu.Lock()
	isMain := e.FrameID == r.main && e.ResourceType == network.ResourceTypeDocument
	r.mu.Unlock()
	d, refused := r.checkNavigation(raw)
	if !refused && isMain {
		r.mu.Lock()
		r.navRequests++
		if r.navRequests > 1+r.cfg.MaxNavigations {
			r.tooMany, refused = true, true
			d = Decision{Stage: StageNavigation, URL: raw, Host: d.Host,
				Err: fmt.Errorf("%w: more than %d", ErrTooManyNavigations, r.cfg.MaxNavigations)}
		}
		r.mu.Unlock()
	}
	if !refused {
		_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
		return
	}
	r.log.add(d)
	if isMain {
		r.mu.Lock()
		if r.mainBlocked == nil {
			r.mainBlocked = &d
		}
		r.mu.Unlock()
		r.signal()
	}
	_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
}

// checkNavigation applies the URL rules to a document request: the scheme
// must be http, https, ws, wss, data, blob or about, and a host written as
// an address must pass the address rule.
func (r *run) checkNavigation(raw string) (Decision, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return Decision{Stage: StageURL, URL: raw, Err: fmt.Errorf("%w: malformed URL", ErrBlocked)}, true
	}
	d := Decision{Stage: StageURL, URL: raw, Host: u.Hostname()}
	switch u.Scheme {
	case "data", "blob", "about":
		return d, false
	case "http", "https", "ws", "wss":
	default:
		d.Err = fmt.Errorf("%w: scheme %q", ErrBlocked, u.Scheme)
		return d, true
	}
	if u.User != nil {
		d.URL, d.Err = redact(u), fmt.Errorf("%w: credentials in the URL", ErrBlocked)
		return d, true
	}
	if a, ok := webpage.HostAddr(u.Hostname()); ok {
		if rerr := r.cfg.CheckAddress(a); rerr != nil {
			d.Stage, d.Addr, d.Err = StageLiteral, a, fmt.Errorf("%w: %w", ErrBlocked, rerr)
			return d, true
		}
	}
	return d, false
}

// outcome reports a condition that ends the render whatever the page did:
// the memory cap, a crash, too many navigations, a main-frame navigation
// refused or failed.
func (r *run) outcome() (Kind, error, bool) {
	if r.memKilled.Load() {
		return KindMemory, fmt.Errorf("%w: over %d MiB", ErrMemoryLimit, r.cfg.MaxMemoryBytes>>20), true
	}
	r.mu.Lock()
	crashed, tooMany, blocked, unreachable := r.crashed, r.tooMany, r.mainBlocked, r.unreachable
	r.mu.Unlock()
	switch {
	case crashed:
		return KindCrashed, fmt.Errorf("%w: the page's renderer died", ErrCrashed), true
	case r.isLost():
		if r.ctx.Err() != nil {
			return r.ctxKind(), context.Cause(r.ctx), true
		}
		return KindCrashed, fmt.Errorf("%w: the browser exited", ErrCrashed), true
	case tooMany:
		return KindNavigation, fmt.Errorf("%w: the page navigated more than %d times", ErrTooManyNavigations, r.cfg.MaxNavigations), true
	case blocked != nil:
		return KindBlocked, blocked.Err, true
	case unreachable != "":
		k, e := r.navFailure(unreachable, "the page could not be loaded")
		return k, e, true
	}
	return "", nil, false
}

// navFailure classifies a main-frame navigation that failed.
func (r *run) navFailure(raw, why string) (Kind, error) {
	r.mu.Lock()
	blocked := r.mainBlocked
	r.mu.Unlock()
	if blocked != nil {
		return KindBlocked, blocked.Err
	}
	if u, err := url.Parse(raw); err == nil {
		if d, ok := r.log.refusedFor(u.Hostname()); ok {
			return KindBlocked, d.Err
		}
	}
	return KindNavigation, fmt.Errorf("loading %s: %s", raw, why)
}

// isLost reports whether the connection to the browser is gone.
func (r *run) isLost() bool {
	if r.lost == nil {
		return false
	}
	select {
	case <-r.lost:
		return true
	default:
		return false
	}
}

// failKind returns kind, unless the render ended for a reason that says
// more (the caller's context, the memory cap, a crash).
func (r *run) failKind(kind Kind) Kind {
	if k, _, ok := r.outcome(); ok && (k == KindMemory || k == KindCrashed) {
		return k
	}
	if r.ctx.Err() != nil {
		return r.ctxKind()
	}
	return kind
}

// ctxKind says whether the render's context ended by the caller's
// cancellation or by a deadline.
func (r *run) ctxKind() Kind { return ctxKind(r.parent) }

// readReserve is the time kept at the end of a budget for reading the
// page: a fifth of it, between 300ms and 2s.
func readReserve(budget time.Duration) time.Duration {
	return min(max(budget/5, 300*time.Millisecond), 2*time.Second)
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func ptr[T any](v T) *T { return &v }
