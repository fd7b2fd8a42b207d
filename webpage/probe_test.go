package webpage

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

func TestCheckAddress_RefusesInternalAddresses(t *testing.T) {
	tests := []struct {
		addr         string
		blocked      bool // with allowPrivate false
		blockedAllow bool // with allowPrivate true
	}{
		{"93.184.215.14", false, false},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", false, false},
		{"8.8.8.8", false, false},
		{"127.0.0.1", true, false},
		{"127.10.0.1", true, false},
		{"::1", true, false},
		{"10.1.2.3", true, false},
		{"172.16.0.1", true, false},
		{"172.31.255.255", true, false},
		{"172.32.0.1", false, false},
		{"192.168.1.1", true, false},
		{"169.254.1.1", true, false},
		{"fe80::1", true, false},
		{"fe80::1%eth0", true, false},
		{"fd12:3456::1", true, false},
		{"fc00::1", true, false},
		{"100.64.0.1", true, false},
		{"100.127.255.254", true, false},
		{"0.0.0.0", true, false},
		{"::", true, true},
		{"::ffff:127.0.0.1", true, false},
		{"::ffff:10.0.0.1", true, false},
		{"::ffff:93.184.215.14", false, false},
		{"64:ff9b::a00:1", true, false},     // NAT64 of 10.0.0.1
		{"2002:a00:1::1", true, false},      // 6to4 of 10.0.0.1
		{"2002:5db8:d70e::1", false, false}, // 6to4 of 93.184.215.14
		{"169.254.169.254", true, true},
		{"::ffff:169.254.169.254", true, true},
		{"64:ff9b::a9fe:a9fe", true, true}, // NAT64 of 169.254.169.254
		{"fd00:ec2::254", true, true},
		{"100.100.100.200", true, true},
		{"169.254.170.2", true, true},
		{"224.0.0.1", true, true},
		{"ff02::1", true, true},
		{"255.255.255.255", true, true},
		{"240.0.0.1", true, true},
		{"192.0.2.1", true, true},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if err := CheckAddress(a, false); (err != nil) != tt.blocked {
			t.Errorf("CheckAddress(%s, false) = %v, want blocked %v", tt.addr, err, tt.blocked)
		} else if err != nil && !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("CheckAddress(%s) error %v does not wrap ErrBlockedAddress", tt.addr, err)
		}
		if err := CheckAddress(a, true); (err != nil) != tt.blockedAllow {
			t.Errorf("CheckAddress(%s, true) = %v, want blocked %v", tt.addr, err, tt.blockedAllow)
		}
	}
	if CheckAddress(netip.Addr{}, true) == nil {
		t.Error("the zero address was allowed")
	}
}

func servePage(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func TestProbe_RefusesLoopbackUnlessAllowed(t *testing.T) {
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>hi</html>")) })
	_, err := Probe(context.Background(), s.URL, &ProbeConfig{})
	if !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("err = %v, want ErrBlockedAddress", err)
	}
	r, err := Probe(context.Background(), s.URL, &ProbeConfig{AllowPrivate: true})
	if err != nil || r.Status != 200 || !r.HTML() {
		t.Fatalf("r = %+v, err %v", r, err)
	}
}

func TestProbe_ChecksTheAddressOfEveryRedirect(t *testing.T) {
	// A hostname that resolves to loopback is refused on the dialled
	// address, not on the name.
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("x")) })
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.URL, "http://"))
	_, err := Probe(context.Background(), "http://localhost:"+port+"/", &ProbeConfig{})
	if !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("localhost: err = %v, want ErrBlockedAddress", err)
	}
}

func TestProbe_SendsAnHonestUserAgentAndAcceptsHTML(t *testing.T) {
	var ua, accept string
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		ua, accept = r.Header.Get("User-Agent"), r.Header.Get("Accept")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<p>x</p>"))
	})
	if _, err := Probe(context.Background(), s.URL, &ProbeConfig{AllowPrivate: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ua, "webgate/") || !strings.Contains(ua, "(+https://github.com/webgate-dev/webgate)") || !strings.HasPrefix(accept, "text/html") {
		t.Errorf("User-Agent %q, Accept %q", ua, accept)
	}
}

func TestProbe_StopsAfterFiveRedirects(t *testing.T) {
	var s *httptest.Server
	s = servePage(t, func(w http.ResponseWriter, r *http.Request) {
		var n int
		_, _ = fmt.Sscan(r.URL.Query().Get("n"), &n)
		http.Redirect(w, r, s.URL+"/?n="+strconv.Itoa(n+1), http.StatusFound)
	})
	_, err := Probe(context.Background(), s.URL+"/?n=0", &ProbeConfig{AllowPrivate: true})
	if err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Fatalf("err = %v, want a redirect limit error", err)
	}
	// Five redirects are fine.
	s2 := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		var n int
		_, _ = fmt.Sscan(r.URL.Query().Get("n"), &n)
		if n == 5 {
			_, _ = w.Write([]byte("<html>done</html>"))
			return
		}
		http.Redirect(w, r, "/?n="+strconv.Itoa(n+1), http.StatusFound)
	})
	if r, err := Probe(context.Background(), s2.URL+"/?n=0", &ProbeConfig{AllowPrivate: true}); err != nil || !strings.HasSuffix(r.URL, "n=5") {
		t.Fatalf("r = %+v, err = %v", r, err)
	}
}

func TestProbe_RefusesNonHTTPSchemesAndRedirectsToThem(t *testing.T) {
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/", "gopher://x", "javascript:alert(1)", "http://user:pw@example.com/", "/relative", "http://"} {
		if _, err := Probe(context.Background(), u, &ProbeConfig{}); !errors.Is(err, ErrUnsupportedURL) {
			t.Errorf("Probe(%q) err = %v, want ErrUnsupportedURL", u, err)
		}
	}
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	if _, err := Probe(context.Background(), s.URL, &ProbeConfig{AllowPrivate: true}); !errors.Is(err, ErrUnsupportedURL) {
		t.Errorf("redirect to file: err = %v", err)
	}
}

func TestProbe_ReadsAtMostMaxBytes(t *testing.T) {
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(strings.Repeat("a", 10000)))
	})
	r, err := Probe(context.Background(), s.URL, &ProbeConfig{AllowPrivate: true, MaxBytes: 1000})
	if err != nil || len(r.Body) != 1000 || !r.Truncated {
		t.Fatalf("len %d truncated %v err %v", len(r.Body), r.Truncated, err)
	}
}

func TestProbe_SniffsTheTypeWhenTheHeaderIsMissing(t *testing.T) {
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		_, _ = w.Write([]byte("%PDF-1.4 binary"))
	})
	r, err := Probe(context.Background(), s.URL, &ProbeConfig{AllowPrivate: true})
	if err != nil || r.HTML() || r.ContentType != "application/pdf" {
		t.Fatalf("type %q err %v", r.ContentType, err)
	}
}

func TestHostAddr_ReadsEveryIPv4SpellingAResolverAccepts(t *testing.T) {
	tests := []struct {
		host string
		want string // "" when host is a name
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"127.0.0.1.", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0X7F.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0177.0.0.01", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"169.254.169.254.", "169.254.169.254"},
		{"0xa9fea9fe", "169.254.169.254"},
		{"::1", "::1"},
		{"example.com", ""},
		{"1.2.3.4.5", ""},
		{"256.1.1.1", ""},
		{"1.2.65536", ""},
		{"4294967296", ""},
		{"08.1.1.1", ""},
		{"0x", "0.0.0.0"},
		{"127.0x.0x.1", "127.0.0.1"},
		{"0x.0x.0x.0x", "0.0.0.0"},
		{"0000000000000000000251.254.169.254", "169.254.169.254"},
		{"0x0000000000000a9.254.169.254", "169.254.169.254"},
		{"0000000000000000000177.0.0.1", "127.0.0.1"},
		{"127.0000000000000000000000000001", "127.0.0.1"},
		{"00000000000000000000000000000000000000000000", "0.0.0.0"},
		{"99999999999999999999999999", ""},
		{"deadbeef", ""},
		{"", ""},
	}
	for _, tt := range tests {
		a, ok := HostAddr(tt.host)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("hostAddr(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}

// A host whose last label is a number is an IPv4 address or no host at
// all (the URL Standard refuses it; resolvers read it their own ways): it
// is never taken for a name, which an extraction provider would be handed.
func TestCheckTarget_RefusesHostsEndingInANumberThatAreNoAddress(t *testing.T) {
	for _, host := range []string{"1.2.3.4.5", "256.1.1.1", "08.1.1.1", "1.2.65536", "4294967296", "99999999999999999999999999",
		"example.123", "example.0x1f", "a.0x", "0x0g.1", "1.2.3.4.5."} {
		err := CheckTarget("http://"+host+"/", true)
		if !errors.Is(err, ErrUnsupportedURL) {
			t.Errorf("CheckTarget(http://%s/) = %v, want ErrUnsupportedURL", host, err)
		}
	}
	for _, host := range []string{"0000000000000000000251.254.169.254", "0x0000000000000a9.254.169.254"} {
		if err := CheckTarget("http://"+host+"/x", true); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("CheckTarget(http://%s/x, private allowed) = %v, want the metadata refusal", host, err)
		}
	}
	for _, host := range []string{"0000000000000000000177.0.0.1", "127.0x.0x.1", "0x7f.0x.0x.0x1", "0x.0x.0x.0x"} {
		if err := CheckTarget("http://"+host+"/", false); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("CheckTarget(http://%s/) = %v, want ErrBlockedAddress", host, err)
		}
	}
	for _, host := range []string{"example.com", "1password.com", "123.example", "0x.example", "deadbeef", "example.com."} {
		if err := CheckTarget("http://"+host+"/", false); err != nil {
			t.Errorf("CheckTarget(http://%s/) = %v, want a name let through", host, err)
		}
	}
}

func TestProbe_RefusesInternalAddressesSpelledAsNames(t *testing.T) {
	// Go's dialer takes these for names; the lookup would fail and the
	// hook would hand the URL to an extraction provider.
	for _, u := range []string{"http://127.1/", "http://0x7f000001/", "http://2130706433/", "http://017700000001/", "http://0/", "http://127.0.0.1./", "http://169.254.169.254./latest/meta-data/"} {
		if _, err := Probe(context.Background(), u, &ProbeConfig{}); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("%s: err = %v, want ErrBlockedAddress", u, err)
		}
	}
	// Metadata stays refused with private addresses allowed, redirects
	// included.
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://0xa9fea9fe/latest/meta-data/", http.StatusFound)
	})
	if _, err := Probe(context.Background(), s.URL, &ProbeConfig{AllowPrivate: true}); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("redirect: err = %v, want ErrBlockedAddress", err)
	}
}

func TestProbe_RecordsTheRedirectsAndTheAddressesItDialled(t *testing.T) {
	s := servePage(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a" {
			http.Redirect(w, r, "/b", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("x"))
	})
	res, err := Probe(context.Background(), s.URL+"/a", &ProbeConfig{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Redirects) != 1 || res.Redirects[0] != s.URL+"/b" || res.URL != s.URL+"/b" {
		t.Errorf("redirects %v, URL %s", res.Redirects, res.URL)
	}
	if len(res.Addrs) == 0 || res.Addrs[0] != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("addresses %v, want 127.0.0.1", res.Addrs)
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "api.localhost": true, "127.0.0.1": true, "127.1": true,
		"0x7f.1": true, "2130706433": true, "[::1]": true, "::1": true, "::ffff:127.0.0.1": true, "127.0.0.1.": true,
		"": false, "example.com": false, "localhost.example.com": false, "notlocalhost": false, "10.0.0.1": false,
		"192.168.1.1": false, "::ffff:10.0.0.1": false, "0.0.0.0": false, "[fe80::1]": false, "169.254.169.254": false,
	} {
		if got := LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
