package webpage

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync/atomic"
	"testing"
)

// listenOn starts a server on addr (a loopback address) that redirects
// /redir?to=URL and answers anything else, counting its requests.
func listenOn(t *testing.T, addr string) (string, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	ln, err := net.Listen("tcp", addr+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><p>page</p></body></html>"))
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, &hits
}

func TestProbe_AllowAddressEveryHop(t *testing.T) {
	allowed, _ := listenOn(t, "127.0.0.2")
	forbidden, hits := listenOn(t, "127.0.0.1")
	fu, _ := url.Parse(forbidden)
	var asked []string
	cfg := &ProbeConfig{AllowAddress: func(host string, a netip.Addr) bool {
		asked = append(asked, host)
		return a == netip.MustParseAddr("127.0.0.2")
	}}
	if _, err := Probe(context.Background(), allowed+"/redir?to="+url.QueryEscape(allowed+"/page"), cfg); err != nil {
		t.Fatalf("allowed chain: %v", err)
	}
	for _, to := range []string{"http://localhost:" + fu.Port() + "/", forbidden + "/", "http://[::ffff:127.0.0.1]:" + fu.Port() + "/", "http://[64:ff9b::7f00:1]:" + fu.Port() + "/"} {
		_, err := Probe(context.Background(), allowed+"/redir?to="+url.QueryEscape(to), cfg)
		if !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("redirect to %s: %v, want ErrBlockedAddress", to, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the address AllowAddress refuses was sent %d request(s)", hits.Load())
	}
	if len(asked) == 0 {
		t.Fatal("AllowAddress never asked")
	}
	// Metadata stays refused whatever AllowAddress says.
	all := &ProbeConfig{AllowAddress: func(string, netip.Addr) bool { return true }}
	if _, err := Probe(context.Background(), "http://169.254.169.254/", all); !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("metadata address: %v", err)
	}
}

func TestReader_CacheAllowsByHost(t *testing.T) {
	r := &Reader{Probe: ProbeConfig{AllowAddress: func(host string, a netip.Addr) bool { return host == "127.0.0.2" }}}
	ok := &Cached{URL: "http://127.0.0.2/", Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.2")}}
	if !r.cacheAllows("http://127.0.0.2/", ok) {
		t.Fatal("a read of the allowed host refused from the cache")
	}
	bad := &Cached{URL: "http://127.0.0.2/", FinalURL: "http://localhost/", Redirects: []string{"http://localhost/"},
		Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.1")}}
	if r.cacheAllows("http://127.0.0.2/", bad) {
		t.Fatal("a cached read that went on to loopback was answered")
	}
	if (&Reader{}).readKey("http://x/") == r.readKey("http://x/") {
		t.Fatal("a read under AllowAddress shares the cache key of a public-only read")
	}
}
