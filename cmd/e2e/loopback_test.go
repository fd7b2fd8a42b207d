package e2e

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// newLoopbackServer starts an httptest server bound to 127.0.0.1 only.
func newLoopbackServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	s := unstartedLoopback(t, h)
	s.Start()
	return s
}

// newLoopbackServerTLS starts an httptest TLS server bound to 127.0.0.1.
func newLoopbackServerTLS(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	s := unstartedLoopback(t, h)
	s.StartTLS()
	return s
}

// unstartedLoopback returns an httptest server for h that listens on
// 127.0.0.1 only, not started yet.
func unstartedLoopback(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.1: %v", err)
	}
	s := httptest.NewUnstartedServer(h)
	_ = s.Listener.Close()
	s.Listener = ln
	return s
}

// RefusingProxy is an HTTP proxy on 127.0.0.1 that refuses every request
// with 403 and records its request line. The CLI's HTTP_PROXY and
// HTTPS_PROXY point at it, so any attempt to reach a host other than
// 127.0.0.1 is caught here instead of leaving the machine.
type RefusingProxy struct {
	// URL is the proxy URL, for example "http://127.0.0.1:40123".
	URL string

	ln       net.Listener
	mu       sync.Mutex
	attempts []string
	wg       sync.WaitGroup
}

// NewRefusingProxy starts a RefusingProxy that is closed when the test ends.
func NewRefusingProxy(t testing.TB) *RefusingProxy {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.1: %v", err)
	}
	p := &RefusingProxy{URL: "http://" + ln.Addr().String(), ln: ln}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.wg.Wait()
	})
	return p
}

// Attempts returns the request lines received so far, for example
// "CONNECT api.anthropic.com:443 HTTP/1.1".
func (p *RefusingProxy) Attempts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.attempts...)
}

func (p *RefusingProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer func() { _ = c.Close() }()
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			line = strings.TrimSpace(line)
			if line == "" {
				line = "(empty)"
			}
			p.mu.Lock()
			p.attempts = append(p.attempts, line)
			p.mu.Unlock()
			_, _ = c.Write([]byte("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
		}()
	}
}

// startScripted starts a scripted fake model API serving h on 127.0.0.1
// and returns its URL. It is closed when the test ends; the test fails
// then if the CLI made requests beyond the turns scripted (*extra, read
// under mu). api names the fake, requests what it counts.
func startScripted(t testing.TB, h http.HandlerFunc, api, requests string, mu *sync.Mutex, extra *int, turns int) string {
	t.Helper()
	s := newLoopbackServer(t, h)
	t.Cleanup(func() {
		s.Close()
		mu.Lock()
		defer mu.Unlock()
		if *extra > 0 {
			t.Errorf("%s: the CLI made %d %s beyond the %d scripted turn(s)", api, *extra, requests, turns)
		}
	})
	return s.URL
}

// takeTurn returns the next turn of a script, turns[*next], and moves on;
// when the script is exhausted it counts the request in *extra and
// returns ok false. The caller holds the fake's lock.
func takeTurn(turns []Turn, next, extra *int) (turn Turn, ok bool) {
	if *next >= len(turns) {
		*extra++
		return Turn{}, false
	}
	turn = turns[*next]
	*next++
	return turn, true
}
