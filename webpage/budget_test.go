package webpage

import (
	"context"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// hangingRenderer holds the browser until its context ends, as a hostile
// page (a million unclosed elements) does.
type hangingRenderer struct{ left chan time.Duration }

func (h *hangingRenderer) Render(ctx context.Context, _ string) (*Rendered, error) {
	if dl, ok := ctx.Deadline(); ok {
		h.left <- time.Until(dl)
	}
	<-ctx.Done()
	return nil, context.Cause(ctx)
}

func TestReader_ATierThatHangsLeavesTheProviderItsShareOfTheBudget(t *testing.T) {
	x := &fakeExtractor{name: "x", page: &provider.Page{Content: "# Dashboard\n\nRead by the provider."}}
	u := serve(t, 200, "text/html", shell)
	r := loopbackReader(x)
	rend := &hangingRenderer{left: make(chan time.Duration, 1)}
	r.Renderer = rend
	const budget = 6 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	res, err := r.Read(ctx, Request{URL: u, NoFallback: true})
	if err != nil || res.Source != SourceProvider || res.Content != x.page.Content || x.calls.Load() != 1 {
		t.Fatalf("res %+v, err %v, provider calls %d; want the provider's answer within the budget", res, err, x.calls.Load())
	}
	if ctx.Err() != nil {
		t.Error("the read took the whole budget")
	}
	// The browser was given about half of what was left, not all of it.
	if left := <-rend.left; left > budget*3/4 {
		t.Errorf("the render tier was given %v of a %v budget, with the provider still to ask", left, budget)
	}
}

func TestReader_ATierWithNoSlowTierAfterItGetsTheWholeBudget(t *testing.T) {
	r := &Reader{Renderer: &fakeRenderer{}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	tctx, tcancel := r.tierContext(ctx, []tier{{name: "structure"}, {name: "provider"}}, false)
	defer tcancel()
	if dl, _ := tctx.Deadline(); dl.Before(time.Now().Add(50 * time.Minute)) {
		t.Errorf("deadline %v: a tier followed by no configured slow tier was cut short", time.Until(dl))
	}
	r.Extractor = &fakeExtractor{name: "x"}
	tctx2, tcancel2 := r.tierContext(ctx, []tier{{name: "render"}, {name: "provider"}}, false)
	defer tcancel2()
	if dl, _ := tctx2.Deadline(); dl.After(time.Now().Add(21 * time.Minute)) {
		t.Errorf("deadline %v: a tier followed by two slow tiers has more than a third of the budget", time.Until(dl))
	}
}
