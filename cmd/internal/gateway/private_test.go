package gateway

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage"
)

// loopbackSite serves /redir?to=URL (a 302 to URL) and /page on addr
// (a loopback address), counting the requests it is sent.
func loopbackSite(t *testing.T, addr, name string) (string, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	ln, err := net.Listen("tcp", addr+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if to := r.URL.Query().Get("to"); r.URL.Path == "/redir" && to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><article><h1>%s</h1><p>%s</p></article></body></html>",
			name, name, strings.Repeat("The "+name+" page says what only its own network should read. ", 20))
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, &hits
}

// TestServer_AllowPrivateHoldsOnEveryHop: with gateway.allow_private
// naming 127.0.0.2 only, a read that starts there is refused every hop
// to another private address — loopback by name, by address, by an
// IPv4-mapped or a NAT64 spelling — before any request reaches it, on
// /v1/fetch and MCP web_fetch alike, and from the cache too.
func TestServer_AllowPrivateHoldsOnEveryHop(t *testing.T) {
	allowed, _ := loopbackSite(t, "127.0.0.2", "Allowed")
	forbidden, hits := loopbackSite(t, "127.0.0.1", "Forbidden")
	fu, _ := url.Parse(forbidden)
	port := fu.Port()
	st := openStore(t, "memory:")
	f := newFixture(t, st, Options{AllowPrivate: []string{"127.0.0.2"}})
	redir := func(to string) string { return allowed + "/redir?to=" + url.QueryEscape(to) }

	// An allowed chain is read.
	resp, body := post(t, f.url+"/v1/fetch", f.secret, `{"url":"`+redir(allowed+"/page")+`"}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "Allowed page says") {
		t.Fatalf("allowed chain: %d %s", resp.StatusCode, body)
	}
	chains := map[string]string{
		"to localhost":               redir("http://localhost:" + port + "/page"),
		"through 127.0.0.1 and back": redir("http://127.0.0.1:" + port + "/redir?to=" + url.QueryEscape(allowed+"/page")),
		"to ::ffff:127.0.0.1":        redir("http://[::ffff:127.0.0.1]:" + port + "/page"),
		"to 64:ff9b::7f00:1":         redir("http://[64:ff9b::7f00:1]:" + port + "/page"),
	}
	for name, u := range chains {
		for range 2 { // the second read would come from the cache
			resp, body := post(t, f.url+"/v1/fetch", f.secret, `{"url":"`+u+`"}`)
			if resp.StatusCode == 200 || strings.Contains(body, "Forbidden page") {
				t.Errorf("/v1/fetch %s: %d %s", name, resp.StatusCode, body)
			}
			_, body = postMCP(t, f, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"web_fetch","arguments":{"url":"`+u+`"}}}`)
			if strings.Contains(body, "Forbidden page") || strings.Contains(body, "Allowed page says") || !strings.Contains(body, `"isError":true`) {
				t.Errorf("MCP web_fetch %s: %s", name, body)
			}
		}
		if n := hits.Load(); n != 0 {
			t.Fatalf("%s: the address allow_private does not name was sent %d request(s)", name, n)
		}
	}
}

// TestServer_PrivateReadNotSharedThroughCache: a page read from an
// allowed private host is kept for the token that read it only.
func TestServer_PrivateReadNotSharedThroughCache(t *testing.T) {
	allowed, hits := loopbackSite(t, "127.0.0.2", "Allowed")
	st := openStore(t, "memory:")
	f := newFixture(t, st, Options{AllowPrivate: []string{"127.0.0.2"}})
	_, other, _ := f.tokens.Create(context.Background(), NewToken{Owner: "bo"})
	u := allowed + "/page"
	for _, secret := range []string{f.secret, other} {
		resp, body := post(t, f.url+"/v1/fetch", secret, `{"url":"`+u+`"}`)
		if resp.StatusCode != 200 || strings.Contains(body, "cached") {
			t.Fatalf("fetch: %d %s", resp.StatusCode, body)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Fatalf("two tokens' reads sent %d requests, want one each (no shared cache entry)", n)
	}
	for key := range f.cache.m {
		if !strings.HasPrefix(key, "token=") {
			t.Errorf("a private read was cached for every token: %q", key)
		}
	}
}

// urlExtractor is a self-hosted extraction provider: it answers every
// URL it is given, counting them.
type urlExtractor struct{ calls atomic.Int64 }

func (x *urlExtractor) Extract(_ context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	x.calls.Add(1)
	return &provider.Page{URL: req.URL, Title: "Extracted", Content: strings.Repeat("Extracted private text read by the self-hosted provider. ", 20), Provider: "selfhosted"}, nil
}

// TestServer_SelfHostedExtractorGetsNoPrivateURL: a self-hosted extraction
// provider (Reader.PrivateExtractor) reads in the gateway's network, so a
// private URL handed to it would be read whatever allow_private says; the
// gateway hands it none.
func TestServer_SelfHostedExtractorGetsNoPrivateURL(t *testing.T) {
	page, hits := loopbackSite(t, "127.0.0.1", "Forbidden")
	pu, _ := url.Parse(page)
	x := &urlExtractor{}
	st := openStore(t, "memory:")
	f := newFixture(t, st, Options{Tools: &webtools.Tools{Reader: &webpage.Reader{Extractor: x, PrivateExtractor: true, Cache: &mapCache{}}}})
	for _, u := range []string{page + "/page", "http://localhost.:" + pu.Port() + "/page", "http://localhost:" + pu.Port() + "/page"} {
		_, body := post(t, f.url+"/v1/fetch", f.secret, `{"url":"`+u+`"}`)
		if strings.Contains(body, "Extracted private text") || strings.Contains(body, "Forbidden page") {
			t.Errorf("%s read without allow_private: %s", u, body)
		}
	}
	if x.calls.Load() != 0 || hits.Load() != 0 {
		t.Fatalf("the provider was handed %d private URL(s); the page was sent %d request(s)", x.calls.Load(), hits.Load())
	}
}

// countingCache counts the reads of the cache it wraps.
type countingCache struct {
	mapCache
	gets int
}

func (c *countingCache) Get(ctx context.Context, key string) (*webpage.Cached, time.Time, bool) {
	c.gets++
	return c.mapCache.Get(ctx, key)
}

// A cache miss asks the store once when the gateway reads no private
// address (no token can own an entry), twice when allow_private names
// some (the token's own entries, then the shared ones).
func TestServer_CacheMissReadsTheStoreOnceWithoutAllowPrivate(t *testing.T) {
	for _, c := range []struct {
		allow []string
		want  int
	}{{nil, 1}, {[]string{"intranet.example"}, 2}} {
		cache := &countingCache{}
		tools := &webtools.Tools{Searcher: &fakeSearcher{}, Reader: &webpage.Reader{Cache: cache}}
		s := New(Options{Tools: tools, Tokens: &Tokens{Store: openStore(t, "memory:")}, AllowPrivate: c.allow})
		t.Cleanup(func() { s.Close(context.Background()) })
		tt := s.forToken(s.o.Tools, &Token{ID: "t1"})
		if _, _, ok := tt.Reader.Cache.Get(context.Background(), "https://example.com/"); ok || cache.gets != c.want {
			t.Errorf("allow_private %v: a miss read the store %d times (hit %v), want %d", c.allow, cache.gets, ok, c.want)
		}
	}
}
