package browser

import (
	"context"

	"github.com/webgate-dev/webgate/webpage"
)

// Renderer is the page reader's render tier: a [webpage.Renderer] that
// renders each page with [Render] and Config. Set it as
// webpage.Reader.Renderer, with the same address rule as the reader's
// probe:
//
//	rule := func(a netip.Addr) error { return webpage.CheckAddress(a, false) }
//	reader := &webpage.Reader{Renderer: browser.Renderer{Config: browser.Config{CheckAddress: rule}}}
//
// With Config.Pool set, the reader's renders share warm browsers. Use
// [Find] first to leave the tier out when there is no browser: a
// Renderer without one fails every render with [KindNotFound] (the
// reader then goes on to its other tiers).
type Renderer struct {
	// Config configures every render; its CheckAddress is required.
	Config Config
}

var _ webpage.Renderer = Renderer{}

// Render renders rawURL and returns its DOM and its URL after redirects
// and script navigation. Failures are the [*Error] values of [Render].
func (r Renderer) Render(ctx context.Context, rawURL string) (*webpage.Rendered, error) {
	p, err := Render(ctx, rawURL, &r.Config)
	if err != nil {
		return nil, err
	}
	u := p.FinalURL
	if u == "" {
		u = rawURL
	}
	return &webpage.Rendered{URL: u, HTML: []byte(p.HTML)}, nil
}
