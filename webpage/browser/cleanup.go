package browser

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// watchMemory samples the memory of the browser's process group (see
// [Config.MaxMemoryBytes]) every pollInterval, and kills the group when it
// passes the cap. The group's members are listed again every fifth sample,
// so a new process is measured within half a second.
func (r *run) watchMemory() {
	defer close(r.memDone)
	if !memoryWatched || r.pgid <= 1 {
		return
	}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var members []procInfo
	for i := 0; ; i++ {
		if i%5 == 0 {
			members = groupProcs(r.pgid)
		}
		if mem, ok := groupMemory(members); ok {
			if mem > r.peak.Load() {
				r.peak.Store(mem)
			}
			if mem > r.cfg.MaxMemoryBytes {
				r.memKilled.Store(true)
				_ = killGroup(r.pgid)
				r.signal()
				return
			}
		}
		select {
		case <-r.memStop:
			return
		case <-tick.C:
		}
	}
}

// cleanup kills the browser's process group and anything else started with
// its profile, waits until they are gone, and removes the directory and
// the proxy.
func (r *run) cleanup() {
	if r.memStop != nil {
		close(r.memStop)
		<-r.memDone
	}
	if r.warm != nil {
		// The browser goes back to the pool only when the render left it
		// sound and its tab and browser context are gone; otherwise it is
		// killed at once, before anything waits on it.
		keep := r.keep && !r.isLost() && !r.memKilled.Load() && r.closeTab()
		if !keep {
			r.cfg.Pool.give(r.warm, false)
		}
		for i := len(r.cancels) - 1; i >= 0; i-- {
			r.cancels[i]()
		}
		if keep {
			r.cfg.Pool.give(r.warm, true)
		}
		return
	}
	if r.pgid > 1 {
		_ = killGroup(r.pgid)
	}
	for i := len(r.cancels) - 1; i >= 0; i-- {
		r.cancels[i]()
	}
	r.reap()
	if r.proxy != nil {
		r.proxy.close()
	}
	if r.dir != "" {
		removeAll(r.dir)
	}
}

// reap kills what is left of the browser (its process group, any group
// of a process started with its profile, and those processes themselves)
// until nothing is found three times in a row, for at most three seconds.
func (r *run) reap() {
	deadline := time.Now().Add(3 * time.Second)
	for quiet := 0; quiet < 3 && time.Now().Before(deadline); {
		groups := groupsUsing(r.profile)
		if r.pgid > 1 {
			groups = append(groups, r.pgid)
		}
		found := 0
		for _, g := range groups {
			if procs := groupProcs(g); len(procs) > 0 {
				found += len(procs)
				_ = killGroup(g)
			}
		}
		for _, pid := range procsUsing(r.profile) {
			found++
			killPID(pid)
		}
		if found == 0 {
			quiet++
		} else {
			quiet = 0
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// removeAll removes dir, trying again for a second while processes that
// just died still release their files.
func removeAll(dir string) {
	deadline := time.Now().Add(time.Second)
	for {
		if err := os.RemoveAll(dir); err == nil || !time.Now().Before(deadline) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tabCloseWait bounds closing a pooled render's tab and browser context.
const tabCloseWait = time.Second

// closeTab closes the render's tab and disposes of its browser context,
// and reports whether the browser is then back to its first tab alone,
// within tabCloseWait.
func (r *run) closeTab() bool {
	return waitFor(context.Background(), tabCloseWait, func() error {
		if err := chromedp.Cancel(r.bctx); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(r.warm.bctx, tabCloseWait)
		defer cancel()
		res, err := chromedp.CallBrowser(ctx, target.GetBrowserContexts, cdp.Empty{})
		if err == nil && len(res.BrowserContextIDs) > 0 {
			err = errors.New("a browser context is left")
		}
		return err
	}) == nil
}
