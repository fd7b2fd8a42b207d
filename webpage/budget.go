package webpage

import (
	"context"
	"time"
)

// slowTier reports whether t can take long enough to spend a caller's
// whole budget: a browser rendering, a local PDF reader, an extraction
// provider. The other tiers read what the probe already holds.
func (r *Reader) slowTier(t tier, providerSkipped bool) bool {
	switch t.name {
	case "render", "pdf":
		return true
	case "provider":
		return r.Extractor != nil && !providerSkipped
	}
	return false
}

// tierContext returns the context a tier runs in, given the tiers that
// follow it. The rule: when ctx has a deadline and k of the later tiers
// can take long ([Reader.slowTier]), the tier gets at most the time left
// divided by k+1, so that a page that keeps one tier busy (a hostile page
// that holds the browser) leaves each later tier as long as it had. A
// tier that answers or fails early leaves its unused time to the next,
// which again shares what is left. A tier's own bound (the browser's
// timeout, the PDF reader's) still applies within its share; without a
// deadline, or with no slow tier after it, a tier gets ctx as it is.
func (r *Reader) tierContext(ctx context.Context, later []tier, providerSkipped bool) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	k := 0
	for _, t := range later {
		if r.slowTier(t, providerSkipped) {
			k++
		}
	}
	if k == 0 {
		return ctx, func() {}
	}
	left := time.Until(dl)
	if left <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, left/time.Duration(k+1))
}
