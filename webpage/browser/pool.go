package browser

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// DefaultPoolIdle is how long a [Pool] keeps a browser nobody uses.
const DefaultPoolIdle = 2 * time.Minute

// maxPooled bounds the browsers a pool keeps between renders.
const maxPooled = 2

// Pool keeps browsers running between renders, for a process that renders
// more than once (a long-running server, webgate's warm hook worker): a
// render with [Config.Pool] set takes a browser from it, or starts one,
// and gives it back when it is done, instead of starting and killing a
// browser every time. Each render still gets a fresh profile of its own
// (a new browser context: no cookies, storage, cache or permissions of
// an earlier render), its own address rule and decision log, and the same
// bounds; a render that fails, stops the page's scripts or finds the
// browser in trouble retires the browser instead of giving it back.
// A browser nobody has used for the pool's idle time is killed with its
// process group and profile, and so is every browser when the pool is
// closed. A Pool is safe for concurrent use; renders at the same time use
// different browsers.
type Pool struct {
	idle   time.Duration
	mu     sync.Mutex
	free   []*warmBrowser
	closed bool
	timer  *time.Timer
	armed  bool // the timer will fire for the oldest browser kept
}

// NewPool returns a pool that kills a browser left unused for idle (0
// means [DefaultPoolIdle]).
func NewPool(idle time.Duration) *Pool {
	if idle <= 0 {
		idle = DefaultPoolIdle
	}
	return &Pool{idle: idle}
}

// Close kills every browser the pool holds and makes it keep none from
// now on. Browsers in use are killed when their render ends.
func (p *Pool) Close() {
	p.mu.Lock()
	free := p.free
	p.free, p.closed = nil, true
	if p.timer != nil {
		p.timer.Stop()
	}
	p.mu.Unlock()
	for _, w := range free {
		w.close()
	}
}

// Len returns how many browsers are waiting in the pool.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.free)
}

// warmBrowser is a browser a pool keeps: its process group, profile,
// proxy and the chromedp context of its first tab, which new renders'
// browser contexts are made from.
type warmBrowser struct {
	key     string
	dir     string
	profile string
	proxy   *proxy
	pgid    int
	lost    <-chan struct{}
	bctx    context.Context
	cancels []context.CancelFunc
	used    time.Time
}

// poolKey says which renders can share a browser: the same program and
// the same command line.
func poolKey(exe string, cfg Config) string {
	return exe + "\x00" + cfg.UserAgent + "\x00" + strconv.FormatInt(cfg.MaxMemoryBytes, 10)
}

// take returns a running browser for key, or nil.
func (p *Pool) take(key string) *warmBrowser {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.free) - 1; i >= 0; i-- {
		w := p.free[i]
		if w.key != key {
			continue
		}
		p.free = append(p.free[:i], p.free[i+1:]...)
		select {
		case <-w.lost:
			go w.close()
			continue
		default:
		}
		return w
	}
	return nil
}

// give takes w back after a render; keep false (or a full or closed pool)
// kills it instead.
func (p *Pool) give(w *warmBrowser, keep bool) {
	// Nothing the render left may reach anything from now on.
	w.proxy.serve(context.Background(), refuseAll, refuseLookup, &decisionLog{})
	w.proxy.drop()
	p.mu.Lock()
	if !keep || p.closed || len(p.free) >= maxPooled {
		p.mu.Unlock()
		w.close()
		return
	}
	w.used = time.Now()
	p.free = append(p.free, w)
	if !p.armed {
		// The oldest browser's time decides; expire arms the next.
		p.armed = true
		if p.timer == nil {
			p.timer = time.AfterFunc(p.idle, p.expire)
		} else {
			p.timer.Reset(p.idle)
		}
	}
	p.mu.Unlock()
}

// expire kills the browsers unused for the idle time.
func (p *Pool) expire() {
	p.mu.Lock()
	var old []*warmBrowser
	keep := p.free[:0]
	next := time.Duration(0)
	for _, w := range p.free {
		if age := time.Since(w.used); age >= p.idle {
			old = append(old, w)
		} else {
			keep = append(keep, w)
			if left := p.idle - age; next == 0 || left < next {
				next = left
			}
		}
	}
	p.free = keep
	p.armed = next > 0 && !p.closed
	if p.armed {
		p.timer.Reset(next)
	}
	p.mu.Unlock()
	for _, w := range old {
		w.close()
	}
}

// close kills the browser's process group and whatever it started,
// removes its profile and stops its proxy.
func (w *warmBrowser) close() {
	(&run{pgid: w.pgid, profile: w.profile, dir: w.dir, proxy: w.proxy, cancels: w.cancels}).cleanup()
}

// refuseAll and refuseLookup are the address rule and resolver of a
// browser waiting in a pool: it has nothing to fetch.
func refuseAll(netip.Addr) error { return errNoRender }

func refuseLookup(context.Context, string) ([]netip.Addr, error) { return nil, errNoRender }

var errNoRender = errors.New("no render under way")

// startError wraps a failure to start the browser exe.
func startError(exe string, err error) error { return fmt.Errorf("starting %s: %w", exe, err) }
