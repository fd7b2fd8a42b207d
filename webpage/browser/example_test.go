package browser_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/webgate-dev/webgate/webpage"
	"github.com/webgate-dev/webgate/webpage/browser"
)

// The page reader renders a page that needs JavaScript with the same
// address rule as its own probe. The example needs a browser and the
// network, so it is not run by go test.
func ExampleRender() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	page, err := browser.Render(ctx, "https://example.com/", &browser.Config{
		Path: "auto",
		CheckAddress: func(a netip.Addr) error {
			return webpage.CheckAddress(a, false)
		},
	})
	switch browser.KindOf(err) {
	case "":
	case browser.KindDisabled, browser.KindNotFound:
		fmt.Println("no browser to render with:", err)
		return
	default:
		fmt.Println("render failed:", err)
		return
	}
	fmt.Println(page.FinalURL, page.Title, len(page.HTML), page.Settled)
	for _, d := range page.Decisions {
		if !d.Allowed {
			fmt.Println("refused:", d)
		}
	}
}

// A server that renders many pages keeps its browser warm between them:
// each render still gets a fresh browser context and its own address
// rule. Closing the pool kills the browsers it keeps. The example needs a
// browser and the network, so it is not run by go test.
func ExamplePool() {
	pool := browser.NewPool(2 * time.Minute)
	defer pool.Close()
	cfg := browser.Config{
		CheckAddress: func(a netip.Addr) error { return webpage.CheckAddress(a, false) },
		Pool:         pool,
	}
	for _, u := range []string{"https://example.com/", "https://example.org/"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		page, err := browser.Render(ctx, u, &cfg)
		cancel()
		if err != nil {
			fmt.Println("render failed:", err)
			continue
		}
		fmt.Println(page.FinalURL, page.Title)
	}
}

// The page reader renders the pages that need a browser with Renderer:
// an app shell, whose text its scripts write, is read as rendered; the
// browser checks every connection with the probe's own address rule.
// The example needs a browser and the network, so it is not run by go
// test.
func ExampleRenderer() {
	pool := browser.NewPool(2 * time.Minute) // optional: warm browsers
	defer pool.Close()
	reader := &webpage.Reader{
		Renderer: browser.Renderer{Config: browser.Config{
			CheckAddress: func(a netip.Addr) error { return webpage.CheckAddress(a, false) },
			Pool:         pool,
		}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := reader.Read(ctx, webpage.Request{URL: "https://example.com/app"})
	if err != nil {
		fmt.Println("read failed:", err)
		return
	}
	fmt.Println(res.Source, res.Title)
	fmt.Println(res.Content)
}
