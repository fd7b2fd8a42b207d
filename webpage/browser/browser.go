package browser

import (
	"context"
	"errors"
	"fmt"
	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/webpage"
	"net/netip"
	"net/url"
	"os/exec"
	"strings"
	"time"
)

// Defaults of [Config].
const (
	DefaultTimeout           = webpage.DefaultRenderTimeout
	DefaultNavigationTimeout = 15 * time.Second
	DefaultSettleTimeout     = 5 * time.Second
	DefaultQuietWindow       = 500 * time.Millisecond
	DefaultMaxDOMBytes       = 8 << 20
	DefaultMaxMemoryBytes    = 1 << 30
	DefaultMaxNavigations    = 5
)

// candidates are the programs [Find] looks for on PATH, in order.
var candidates = []string{
	"chromium-headless-shell",
	"chromium",
	"chromium-browser",
	"google-chrome",
	"google-chrome-stable",
	"chrome",
}

// Config configures [Render]. The zero value is not usable: CheckAddress
// is required. Durations and sizes that are zero or negative mean the
// defaults.
type Config struct {
	// Path is the browser: "" or "auto" looks on PATH for
	// chromium-headless-shell, chromium, chromium-browser, google-chrome,
	// google-chrome-stable and chrome, in that order; "off" disables
	// rendering ([KindDisabled]); anything else is the program to run.
	Path string `koanf:"path"`
	// CheckAddress is the address rule: it returns nil when the browser
	// may connect to an address, and an error otherwise. Every connection
	// the browser makes is checked with it, on the address actually
	// connected to. Required: Render refuses to run without it.
	CheckAddress func(netip.Addr) error `koanf:"-"`
	// LookupIP resolves the host names the browser asks for; nil means
	// the system resolver. Tests use it to keep every name off real DNS.
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error) `koanf:"-"`
	// Timeout bounds the whole render, the browser's start and the
	// cleanup included; the caller's context may end it sooner. Default
	// 30s.
	Timeout time.Duration `koanf:"timeout"`
	// NavigationTimeout bounds the load of the page until its DOM is
	// parsed (DOMContentLoaded). Default 15s.
	NavigationTimeout time.Duration `koanf:"navigation_timeout"`
	// SettleTimeout bounds the wait, after the DOM is parsed, for the
	// page to settle; a page that never settles is read when it ends.
	// Default 5s.
	SettleTimeout time.Duration `koanf:"settle_timeout"`
	// QuietWindow is how long the network must stay idle, or the DOM
	// unchanged, for the page to count as settled; both together need
	// 30 % of it. Default 500ms.
	QuietWindow time.Duration `koanf:"quiet_window"`
	// MaxDOMBytes caps the HTML returned; a larger DOM is cut to its
	// first MaxDOMBytes bytes (Page.Truncated). Default 8 MiB.
	MaxDOMBytes int64 `koanf:"max_dom_bytes"`
	// MaxMemoryBytes caps the memory of the browser's processes: their
	// anonymous and shared-memory resident pages, summed over the
	// browser's process group and sampled every 100ms. Over it the browser
	// is killed ([KindMemory]). The page's JavaScript heap is limited to
	// half of it. Enforced on Linux only. Default 1 GiB.
	MaxMemoryBytes int64 `koanf:"max_memory_bytes"`
	// MaxNavigations is how many times the page may navigate its main
	// frame after the first load (HTTP redirects and navigations by its
	// scripts); one more fails the render. Default 5.
	MaxNavigations int `koanf:"max_navigations"`
	// UserAgent overrides the browser's User-Agent header.
	UserAgent string `koanf:"user_agent"`
	// Pool, when set, keeps the browser running for later renders (see
	// [Pool]); nil starts a browser for this render alone.
	Pool *Pool `koanf:"-"`
}

func (c Config) withDefaults() Config {
	c.Timeout = defaults.Positive(c.Timeout, DefaultTimeout)
	c.NavigationTimeout = defaults.Positive(c.NavigationTimeout, DefaultNavigationTimeout)
	c.SettleTimeout = defaults.Positive(c.SettleTimeout, DefaultSettleTimeout)
	c.QuietWindow = defaults.Positive(c.QuietWindow, DefaultQuietWindow)
	c.MaxDOMBytes = defaults.Positive(c.MaxDOMBytes, DefaultMaxDOMBytes)
	c.MaxMemoryBytes = defaults.Positive(c.MaxMemoryBytes, DefaultMaxMemoryBytes)
	c.MaxNavigations = defaults.Positive(c.MaxNavigations, DefaultMaxNavigations)
	return c
}

// Settle says how the wait for a page to settle ended.
type Settle string

// The ways a wait can end.
const (
	// SettleNetworkIdle: no request was in flight for the quiet window.
	SettleNetworkIdle Settle = "network-idle"
	// SettleDOMQuiet: the DOM did not change for the quiet window, and no
	// recent request was still in flight.
	SettleDOMQuiet Settle = "dom-quiet"
	// SettleStill: no request was in flight and the DOM did not change,
	// both for 30 % of the quiet window (150ms by default), and no
	// WebSocket or EventSource opened or carried a message for the whole
	// window.
	SettleStill Settle = "still"
	// SettleTimeout: the page was still busy when the settle timeout (or
	// the caller's deadline) came; it was read as it was.
	SettleTimeout Settle = "timeout"
)

// Page is a page rendered by [Render].
type Page struct {
	// URL is the URL asked for.
	URL string
	// FinalURL is the document's URL when it was read: after redirects,
	// navigations by the page's scripts and history.pushState.
	FinalURL string
	// Status is the HTTP status of the main document; 0 when unknown.
	Status int
	// Title is the document's title.
	Title string
	// HTML is the rendered DOM serialized as HTML (the doctype and the
	// outerHTML of the document element), at most MaxDOMBytes bytes.
	HTML string
	// Truncated reports that the DOM was larger than MaxDOMBytes and HTML
	// holds only its beginning, cut at a character boundary (possibly
	// inside a tag).
	Truncated bool
	// Settled says how the wait for the page to settle ended.
	Settled Settle
	// ScriptsStopped reports that the page's scripts kept the browser's
	// main thread busy for seconds (an endless loop, for example): the
	// running script was terminated, the page's scripts were disabled, and
	// the page was read as it was.
	ScriptsStopped bool
	// Navigations lists the documents the main frame loaded, in order.
	Navigations []string
	// Decisions lists every destination the browser asked for and what
	// the address rule decided, in order.
	Decisions []Decision
	// DecisionsDropped counts decisions left out of Decisions past its
	// bound (2000).
	DecisionsDropped int
	// Dialogs lists the JavaScript dialogs the page opened ("alert",
	// "confirm", "prompt", "beforeunload"), each dismissed.
	Dialogs []string
	// Popups lists the windows the page opened that reached the browser,
	// each closed unread; window.open is normally refused outright.
	Popups []string
	// Downloads lists the downloads the page started, each denied.
	Downloads []string
	// PeakMemoryBytes is the highest memory of the browser's processes
	// seen during the render, measured as for Config.MaxMemoryBytes
	// (Linux only; 0 elsewhere).
	PeakMemoryBytes int64
	// Timings says where the time went.
	Timings Timings
}

// Timings are the phases of a render.
type Timings struct {
	// Start is the browser's start, until it answered.
	Start time.Duration
	// Navigate is the load of the page, until its DOM was parsed.
	Navigate time.Duration
	// Settle is the wait for the page to settle.
	Settle time.Duration
	// Read is the serialization of the DOM.
	Read time.Duration
	// Total is the whole render, cleanup included.
	Total time.Duration
}

// Find returns the browser program path names: "" or "auto" looks on PATH
// for chromium-headless-shell, chromium, chromium-browser, google-chrome,
// google-chrome-stable and chrome, in that order; "off" returns an
// [*Error] of kind [KindDisabled]; anything else must name an executable
// file (a name without a slash is looked up on PATH). A browser that
// cannot be found is an [*Error] of kind [KindNotFound].
func Find(path string) (string, error) {
	path = strings.TrimSpace(path)
	switch {
	case strings.EqualFold(path, "off"):
		return "", &Error{Kind: KindDisabled, Err: ErrDisabled}
	case path == "" || strings.EqualFold(path, "auto"):
		for _, name := range candidates {
			if p, err := exec.LookPath(name); err == nil {
				return p, nil
			}
		}
		return "", &Error{Kind: KindNotFound, Err: fmt.Errorf("%w: none of %s on PATH", ErrNotFound, strings.Join(candidates, ", "))}
	}
	p, err := exec.LookPath(path)
	if err != nil {
		return "", &Error{Kind: KindNotFound, Err: fmt.Errorf("%w: %w", ErrNotFound, err)}
	}
	return p, nil
}

// Render loads rawURL in a fresh headless browser, waits for the page to
// settle, and returns its rendered DOM. Every connection the browser
// makes goes through a proxy that applies cfg.CheckAddress (see the
// package documentation). The browser and everything it started are
// killed, and its temporary profile removed, before Render returns.
// Failures are [*Error] values.
//
// A nil cfg means defaults, with the address rule of a page probe's
// default: public addresses only ([webpage.CheckAddress] with private
// addresses refused). A Config given without CheckAddress is refused
// ([ErrNoAddressRule]).
func Render(ctx context.Context, rawURL string, cfg *Config) (*Page, error) {
	if cfg == nil {
		return renderPage(ctx, rawURL, Config{CheckAddress: publicOnly})
	}
	return renderPage(ctx, rawURL, *cfg)
}

// publicOnly is the address rule of a nil Config: public addresses only.
func publicOnly(a netip.Addr) error { return webpage.CheckAddress(a, false) }

func renderPage(ctx context.Context, rawURL string, cfg Config) (page *Page, err error) {
	start := time.Now()
	cfg = cfg.withDefaults()
	dl := &decisionLog{start: start}
	fail := func(kind Kind, e error) (*Page, error) {
		d, _ := dl.snapshot()
		return nil, &Error{Kind: kind, URL: rawURL, Err: e, Decisions: d}
	}
	defer func() {
		if r := recover(); r != nil {
			page, err = fail(KindCrashed, fmt.Errorf("%w: internal error: %v", ErrCrashed, r))
		}
	}()
	if cfg.CheckAddress == nil {
		return fail(KindBadURL, ErrNoAddressRule)
	}
	u, err := checkURL(rawURL)
	if err != nil {
		return fail(KindBadURL, err)
	}
	if a, ok := webpage.HostAddr(u.Hostname()); ok {
		if rerr := cfg.CheckAddress(a); rerr != nil {
			err := fmt.Errorf("%w: %w", ErrBlocked, rerr)
			dl.add(Decision{Stage: StageLiteral, URL: u.String(), Host: u.Hostname(), Addr: a, Err: err})
			return fail(KindBlocked, err)
		}
	}
	exe, err := Find(cfg.Path)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return fail(e.Kind, e.Err)
		}
		return fail(KindNotFound, err)
	}
	if err := ctx.Err(); err != nil {
		return fail(ctxKind(ctx), context.Cause(ctx))
	}
	r := &run{cfg: cfg, exe: exe, log: dl, start: start, parent: ctx}
	return r.render(u.String())
}

// checkURL accepts absolute http and https URLs with a host and without
// credentials.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("scheme %q (only http and https)", u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, errors.New("no host")
	}
	if u.User != nil {
		return nil, errors.New("credentials in the URL")
	}
	return u, nil
}

// ctxKind says whether an ended context was canceled or timed out.
func ctxKind(ctx context.Context) Kind {
	if errors.Is(ctx.Err(), context.Canceled) {
		return KindCanceled
	}
	return KindTimeout
}
