package webpage_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"time"

	"github.com/webgate-dev/webgate/webpage"
)

// CheckAddress is the rule the probe applies to every address it
// dials.
func ExampleCheckAddress() {
	for _, a := range []string{"93.184.215.14", "10.0.0.8", "169.254.169.254"} {
		err := webpage.CheckAddress(netip.MustParseAddr(a), false)
		fmt.Println(a, err == nil)
	}
	// Output:
	// 93.184.215.14 true
	// 10.0.0.8 false
	// 169.254.169.254 false
}

// A Reader reads a page that is readable as served without any provider:
// the probe reads it, the classifier finds it fetch-readable, and it is
// converted to Markdown locally. (The probe refuses loopback addresses
// unless AllowPrivate is set, as it is here for the example's server.)
func ExampleReader_Read() {
	page := `<html><head><title>Contexts</title></head><body><main><article>
<h1>Contexts</h1>
<p>A context carries a deadline, a cancellation signal and request-scoped values across API boundaries and between processes. Every function that does I/O on behalf of a request takes one as its first argument, and passes it on to the functions it calls.</p>
<p>When a context is canceled, every operation started under it is expected to stop promptly and return an error that wraps the context's error, so that callers can tell a timeout from any other failure and decide whether to try again.</p>
<p>Contexts form a tree: deriving a context with a timeout or a cancel function creates a child that ends when its parent ends or when its own deadline passes, whichever comes first. Canceling a child never affects its parent.</p>
<p>A server creates a context for each incoming request and cancels it when the handler returns, so that the work the handler started on other goroutines stops with it instead of running on for a client that has gone away.</p>
<p>Values stored in a context should be request-scoped data such as a trace identifier or an authenticated user, never optional parameters of a function, which belong in its signature where the compiler and the reader can see them.</p>
<p>Code that waits on a channel should also wait on the context's Done channel in the same select statement, so that a canceled request never leaves a goroutine blocked forever on a send or a receive that will not happen.</p>
</article></main></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()

	r := &webpage.Reader{Probe: webpage.ProbeConfig{AllowPrivate: true}}
	res, err := r.Read(context.Background(), webpage.Request{URL: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Source, res.Plan.Verdict.Class, res.Title)
	// Output:
	// local fetch-readable Contexts
}

// ExampleMetadata_About shows the one header line frontends print for
// what a page says about itself.
func ExampleMetadata_About() {
	m := webpage.Metadata{
		Byline:    "Ruth Okafor",
		SiteName:  "Harbour Gazette",
		Language:  "en",
		Published: time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC),
	}
	fmt.Println(m.About())
	// Output: By Ruth Okafor · Harbour Gazette · published 2026-03-02 · language en
}
