package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// waitReady waits until the main frame's document is parsed and no
// navigation of the main frame is pending, the render must end, or by.
// While it waits it checks that the page answers; see [run.checkHang].
func (r *run) waitReady(by time.Time) bool {
	timer := time.NewTimer(time.Until(by))
	defer timer.Stop()
	tick := time.NewTicker(5 * pollInterval)
	defer tick.Stop()
	for {
		r.mu.Lock()
		ok := r.domReady && len(r.pendingNav) == 0
		committed := r.loader != ""
		r.mu.Unlock()
		if ok {
			return true
		}
		if _, _, end := r.outcome(); end {
			return false
		}
		select {
		case <-r.wake:
		case <-tick.C:
			if committed {
				_, err := r.eval("0", earliest(time.Now().Add(time.Second), by))
				r.checkHang(err)
			}
		case <-timer.C:
			return false
		case <-r.lost:
			return false
		case <-r.ctx.Done():
			return false
		}
	}
}

// scriptHang is how long the page's main thread may stay unresponsive
// before its scripts are stopped.
var scriptHang = 5 * time.Second

// checkHang follows the answers of the page: a page that has not answered
// for scriptHang runs a script that does not yield (an endless loop, a
// busy miner). The running script is terminated and the page's scripts
// are disabled; the page is then read as it is.
func (r *run) checkHang(err error) {
	now := time.Now()
	r.mu.Lock()
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		r.busySince = time.Time{}
		r.mu.Unlock()
		return
	}
	if r.busySince.IsZero() {
		r.busySince = now.Add(-time.Second)
	}
	hung := !r.stopped && now.Sub(r.busySince) >= scriptHang
	r.mu.Unlock()
	if hung {
		r.stopScripts()
	}
}

// stopScripts terminates the page's running script and disables its
// scripts.
func (r *run) stopScripts() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(r.bctx, time.Second)
	defer cancel()
	_, _ = chromedp.Call(ctx, runtime.TerminateExecution, cdp.Empty{})
	_, _ = chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
}

// pollState is what one look at the page says.
type pollState struct {
	// N counts the DOM mutations seen since the observer started.
	N int64 `json:"n"`
	// Text reports that the page shows some text.
	Text bool `json:"t"`
}

// pollJS installs a mutation observer in the isolated world on first use
// and returns the number of mutations seen, and whether the body holds
// any visible text (outside scripts, styles and templates).
const pollJS = `(() => {
  let st = globalThis.__webgateObserver;
  if (!st) {
    st = {n: 0};
    globalThis.__webgateObserver = st;
    new MutationObserver(ms => { st.n += ms.length; }).observe(document,
      {subtree: true, childList: true, attributes: true, characterData: true});
  }
  let t = false;
  const root = document.body || document.documentElement;
  if (root) {
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(), i = 0; n && i < 20000; n = w.nextNode(), i++) {
      if (n.data.trim() && !(n.parentElement && n.parentElement.closest('script,style,noscript,template'))) {
        t = true;
        break;
      }
    }
  }
  return {n: st.n, t: t};
})()`

// settle waits until the page settles (see [Settle]) or by.
func (r *run) settle(by time.Time) Settle {
	w := r.cfg.QuietWindow
	// still is how long the network and the DOM must both be still for the
	// page to count as settled before either alone has been for w.
	still := w * 3 / 10
	// A request pending longer than this is taken for a long poll and no
	// longer waited for.
	young := max(4*w, r.cfg.SettleTimeout/2)
	lastN := int64(-1)
	var quietSince time.Time
	tick := time.NewTicker(max(min(pollInterval, still/5), time.Millisecond))
	defer tick.Stop()
	for {
		if !time.Now().Before(by) {
			return SettleTimeout
		}
		if _, _, end := r.outcome(); end {
			return SettleTimeout
		}
		r.mu.Lock()
		navBusy := !r.domReady || len(r.pendingNav) > 0
		r.mu.Unlock()
		var st pollState
		looked := false
		if !navBusy {
			raw, err := r.eval(pollJS, earliest(time.Now().Add(time.Second), by))
			r.checkHang(err)
			looked = err == nil && json.Unmarshal(raw, &st) == nil
		}
		if !looked {
			lastN = -1
		} else {
			// The look may have waited behind the page's scripts: the
			// network is read, and the time taken, after it.
			now := time.Now()
			if st.N != lastN {
				lastN, quietSince = st.N, now
			}
			r.mu.Lock()
			active, recent := 0, false
			for _, q := range r.inflight {
				if q.active(now, w) {
					active++
				}
				recent = recent || (q.awaited(now, w) && now.Sub(q.start) < young)
			}
			netIdle := active == 0 && now.Sub(r.lastNet) >= w
			netStill := len(r.inflight) == 0 && now.Sub(r.lastNet) >= still && now.Sub(r.lastSocket) >= w
			r.mu.Unlock()
			switch {
			case st.Text && netStill && now.Sub(quietSince) >= still:
				return SettleStill
			case st.Text && netIdle:
				return SettleNetworkIdle
			case st.Text && now.Sub(quietSince) >= w && !recent:
				return SettleDOMQuiet
			}
		}
		select {
		case <-tick.C:
		case <-r.lost:
		case <-r.ctx.Done():
		}
	}
}

// world returns the isolated world of the current main-frame document,
// creating it when needed.
func (r *run) ensureWorld(ctx context.Context) (runtime.ExecutionContextID, error) {
	r.mu.Lock()
	if r.world != 0 && r.worldLoader == r.loader {
		id := r.world
		r.mu.Unlock()
		return id, nil
	}
	loader, main := r.loader, r.main
	r.mu.Unlock()
	res, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: main, WorldName: worldName})
	if err != nil {
		return 0, err
	}
	r.mu.Lock()
	if r.loader == loader {
		r.world, r.worldLoader = res.ExecutionContextID, loader
	}
	r.mu.Unlock()
	return res.ExecutionContextID, nil
}

// eval evaluates expr in the isolated world and returns its JSON value.
func (r *run) eval(expr string, by time.Time) ([]byte, error) {
	ctx, cancel := context.WithDeadline(r.bctx, by)
	defer cancel()
	id, err := r.ensureWorld(ctx)
	if err != nil {
		return nil, err
	}
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression:    expr,
		ContextID:     id,
		ReturnByValue: ptr(true),
		Silent:        ptr(true),
	})
	if err != nil {
		r.mu.Lock()
		if r.world == id {
			r.world = 0
		}
		r.mu.Unlock()
		return nil, err
	}
	if res.ExceptionDetails != nil {
		r.mu.Lock()
		if r.world == id {
			r.world = 0
		}
		r.mu.Unlock()
		return nil, fmt.Errorf("evaluation failed: %s", res.ExceptionDetails.Text)
	}
	if res.Result == nil {
		return nil, errors.New("evaluation returned nothing")
	}
	return []byte(res.Result.Value), nil
}

// document is what the page read returns.
type document struct {
	HTML      string `json:"html"`
	Total     int    `json:"total"`
	Title     string `json:"title"`
	URL       string `json:"url"`
	Truncated bool   `json:"-"`
}

// readJS serializes the document, cut to %d UTF-16 code units.
const readJS = `((max) => {
  const d = document;
  let s = '';
  if (d.doctype) {
    try { s = new XMLSerializer().serializeToString(d.doctype); } catch (e) {}
  }
  if (d.documentElement) s += d.documentElement.outerHTML;
  const total = s.length;
  if (s.length > max) s = s.slice(0, max);
  return {html: s, total: total, title: String(d.title || ''), url: String(location.href)};
})(%d)`

// read serializes the DOM. A page whose scripts hold the main thread is
// stopped: its running script is terminated and its scripts disabled, and
// the read is tried again.
func (r *run) read(deadline time.Time) (*document, error) {
	limit := int(min(r.cfg.MaxDOMBytes, math.MaxInt32))
	expr := fmt.Sprintf(readJS, limit)
	end := deadline.Add(-50 * time.Millisecond)
	first := earliest(time.Now().Add(max(time.Until(end)/3, 500*time.Millisecond)), end)
	raw, err := r.eval(expr, first)
	for attempt := 0; err != nil && attempt < 2 && time.Now().Before(end) && !r.isLost(); attempt++ {
		r.stopScripts()
		raw, err = r.eval(expr, end)
	}
	if err != nil {
		return nil, err
	}
	var doc document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decoding the page: %w", err)
	}
	doc.Truncated = doc.Total > limit
	if len(doc.HTML) > limit {
		i := limit
		for i > 0 && !utf8.RuneStart(doc.HTML[i]) {
			i--
		}
		doc.HTML, doc.Truncated = doc.HTML[:i], true
	}
	return &doc, nil
}
