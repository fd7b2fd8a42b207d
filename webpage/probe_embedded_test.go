package webpage

import (
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// These tests check the address rules as functions: nothing here dials.

func TestCheckAddress_JudgesEveryIPv6FormThatEmbedsIPv4ByTheIPv4Rules(t *testing.T) {
	tests := []struct {
		addr         string
		blocked      bool // with allowPrivate false
		blockedAllow bool // with allowPrivate true
	}{
		// IPv4-translated (SIIT, ::ffff:0:0:0/96): refused outright.
		{"::ffff:0:169.254.169.254", true, true},
		{"::ffff:0:a9fe:a9fe", true, true},
		{"::ffff:0:127.0.0.1", true, true},
		{"::ffff:0:8.8.8.8", true, true},
		// IPv4-mapped and IPv4-compatible.
		{"::ffff:169.254.169.254", true, true},
		{"::169.254.169.254", true, true},
		{"::127.0.0.1", true, false},
		// NAT64 well-known prefix (RFC 6052, /96).
		{"64:ff9b::127.0.0.1", true, false},
		{"64:ff9b::169.254.169.254", true, true},
		{"64:ff9b::192.0.2.1", true, true},
		{"64:ff9b::8.8.8.8", false, false},
		// Local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215): the IPv4
		// address sits where the operator's prefix length puts it.
		{"64:ff9b:1:a9fe:a9:fe00::", true, true},          // /48 layout, 169.254.169.254
		{"64:ff9b:1:12a9:fe:a9fe::", true, true},          // /56 layout
		{"64:ff9b:1:1234:a9:fea9:fe00:0", true, true},     // /64 layout
		{"64:ff9b:1:1234:0:5678:a9fe:a9fe", true, true},   // /96 layout
		{"64:ff9b:1:abcd:7f:0:100:0", true, false},        // /64 layout, 127.0.0.1
		{"64:ff9b:1:1234:5678:9abc:808:808", true, false}, // local use: private
		{"64:ff9b:1:ab08:8:808:8000:0", true, false},      // local use: private
		{"64:ff9b:1:808:8:800:0:0", true, false},          // local use: private
		// 6to4.
		{"2002:a9fe:a9fe::1", true, true},
		{"2002:7f00:1::1", true, false},
		{"2002:808:808::1", false, false},
		// Teredo: the server address and the obfuscated client address.
		{"2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7", true, true},   // server 169.254.169.254
		{"2001:0:7f00:1:8000:63bf:f7f7:f7f7", true, false},     // server 127.0.0.1
		{"2001:0:4136:e378:8000:63bf:5601:5601", true, true},   // client 169.254.169.254
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", true, false},  // client 127.0.0.1
		{"2001:0:4136:e378:8000:63bf:f7f7:f7f7", false, false}, // both public
		// ISATAP interface identifiers.
		{"2607:f8b0:1::5efe:a9fe:a9fe", true, true},
		{"2607:f8b0:1::200:5efe:a00:1", true, false},
		{"2607:f8b0:1::200:5efe:808:808", false, false},
		// Zones change nothing.
		{"64:ff9b::a9fe:a9fe%eth0", true, true},
		{"::ffff:0:a9fe:a9fe%1", true, true},
		// Special-purpose ranges that are never a web page.
		{"100::1", true, true},
		{"2001:2::1", true, true},
		{"2001:10::1", true, true},
		{"2001:20::1", true, true},
		{"3fff::1", true, true},
		{"5f00::1", true, true},
		{"192.88.99.1", true, true},
		// Cloud endpoints on public or IPv6 addresses.
		{"168.63.129.16", true, true},
		{"fd20:ce::254", true, true},
		{"169.254.0.23", true, true},
		// Ordinary public addresses stay allowed.
		{"2606:4700::6810:84e5", false, false},
		{"2001:4860:4860::8888", false, false},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		err := CheckAddress(a, false)
		if (err != nil) != tt.blocked {
			t.Errorf("CheckAddress(%s, false) = %v, want blocked %v", tt.addr, err, tt.blocked)
		} else if err != nil && !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("CheckAddress(%s) error %v does not wrap ErrBlockedAddress", tt.addr, err)
		}
		if err := CheckAddress(a, true); (err != nil) != tt.blockedAllow {
			t.Errorf("CheckAddress(%s, true) = %v, want blocked %v", tt.addr, err, tt.blockedAllow)
		}
	}
}

func TestCheckLiteralHost_RefusesIPv6LiteralsEmbeddingInternalIPv4(t *testing.T) {
	for _, raw := range []string{
		"http://[::ffff:0:169.254.169.254]/latest/meta-data/",
		"http://[::ffff:0:a9fe:a9fe]/",
		"http://[::ffff:0:127.0.0.1]:8080/",
		"http://[64:ff9b::127.0.0.1]/",
		"http://[64:ff9b::169.254.169.254]/",
		"http://[64:ff9b:1:a9fe:a9:fe00::]/",
		"http://[2002:a9fe:a9fe::1]/",
		"http://[2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7]/",
		"http://[::ffff:0:a9fe:a9fe%25eth0]/",
		"http://[64:ff9b::a9fe:a9fe%25lo]/",
		"http://[fe80::1%25eth0]/",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		err = checkLiteralHost(u, true)
		if strings.Contains(raw, "fe80::") {
			// Link-local is private: refused only by default.
			if err != nil {
				t.Errorf("%s with private addresses allowed: %v", raw, err)
			}
			err = checkLiteralHost(u, false)
		} else if strings.Contains(raw, "127.0.0.1") {
			if strings.Contains(raw, "::ffff:0:") != (err != nil) {
				t.Errorf("%s with private addresses allowed: %v", raw, err)
			}
			err = checkLiteralHost(u, false)
		}
		if !errors.Is(err, ErrBlockedAddress) || !strings.HasPrefix(err.Error(), u.Hostname()+": ") {
			t.Errorf("%s: err = %v, want a refusal of the literal host", raw, err)
		}
	}
}

func TestDialControl_RefusesEmbeddedAddressesBeforeConnecting(t *testing.T) {
	// The dialer calls Control after creating the socket and before
	// connecting: a refusal here means no packet is sent.
	control := dialControl(true, func(netip.Addr) {})
	for _, addr := range []string{
		"[::ffff:0:a9fe:a9fe]:80",
		"[64:ff9b::a9fe:a9fe]:443",
		"[64:ff9b:1:a9fe:a9:fe00::]:80",
		"[2002:a9fe:a9fe::1]:80",
		"[2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7]:80",
		"[::ffff:0:a9fe:a9fe%eth0]:80",
		"[2607:f8b0:1::5efe:a9fe:a9fe]:80",
		"168.63.129.16:80",
	} {
		err := control("tcp", addr, nil)
		if !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("Control(%s) = %v, want ErrBlockedAddress", addr, err)
		}
	}
	if err := dialControl(false, func(netip.Addr) {})("tcp6", "[64:ff9b::7f00:1]:80", nil); !errors.Is(err, ErrBlockedAddress) || !strings.Contains(err.Error(), "127.0.0.1 is a loopback address (carried by 64:ff9b::7f00:1, NAT64)") {
		t.Errorf("NAT64 loopback: %v", err)
	}
	if err := control("tcp", "127.0.0.1:80", nil); err != nil {
		t.Errorf("loopback with private addresses allowed: %v", err)
	}
}

func TestCheckLiteralHost_RefusesNamesReservedForLocalUse(t *testing.T) {
	tests := []struct {
		host         string
		blocked      bool
		blockedAllow bool
	}{
		{"app.localhost", true, false},
		{"API.LOCALHOST.", true, false},
		{"printer.local", true, false},
		{"nas.home.arpa", true, false},
		{"db.internal", true, false},
		{"metadata.google.internal", true, true},
		{"Metadata.Google.Internal.", true, true},
		{"metadata.goog", true, true},
		// Left to the check of the dialled address.
		{"localhost", false, false},
		{"example.com", false, false},
		{"localhost.example.com", false, false},
		{"internal.example.com", false, false},
	}
	for _, tt := range tests {
		u := &url.URL{Scheme: "http", Host: tt.host}
		err := checkLiteralHost(u, false)
		if (err != nil) != tt.blocked || err != nil && !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("%s: err = %v, want blocked %v", tt.host, err, tt.blocked)
		}
		if err := checkLiteralHost(u, true); (err != nil) != tt.blockedAllow {
			t.Errorf("%s with private addresses allowed: err = %v, want blocked %v", tt.host, err, tt.blockedAllow)
		}
	}
}
