package hooks_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestAdversarialIPv6LiteralsCarryingInternalIPv4AreNotProbed feeds the
// web fetch hook URLs whose host is an IPv6 literal carrying a loopback,
// private or metadata IPv4 address, or a name reserved for local use. Each
// is refused by the literal-host check, before any lookup or connection,
// and no extraction provider is asked.
func TestAdversarialIPv6LiteralsCarryingInternalIPv4AreNotProbed(t *testing.T) {
	f := newProviderFake(t, map[string]string{"wsapi": "ok", "tavily": "ok"})
	cases := []struct {
		url          string
		allowPrivate bool
	}{
		{"http://[::ffff:0:169.254.169.254]/latest/meta-data/", false},
		{"http://[::ffff:0:a9fe:a9fe]/latest/meta-data/", true},
		{"http://[::ffff:0:127.0.0.1]:8080/", true},
		{"http://[64:ff9b::127.0.0.1]/", false},
		{"http://[64:ff9b::169.254.169.254]/", true},
		{"http://[64:ff9b:1:a9fe:a9:fe00::]/", true},
		{"http://[2002:a9fe:a9fe::1]/", true},
		{"http://[2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7]/", true},
		{"http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", false},
		{"http://[::ffff:0:a9fe:a9fe%25eth0]/", true},
		{"https://[64:ff9b::a9fe:a9fe%25lo]:8443/", true},
		// Names that resolve, if at all, to something local or to the
		// metadata service: refused before any lookup.
		{"http://metadata.google.internal/computeMetadata/v1/", true},
		{"http://app.localhost:3000/", false},
		{"http://db.internal/", false},
	}
	for _, c := range cases {
		env := f.env(t, "wsapi", "tavily")
		if c.allowPrivate {
			env = append(env, "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=true")
		}
		r := runBinary(t, "webfetch", payload(t, "claude-webfetch-pre.json", c.url), env)
		if !c.allowPrivate && !strings.Contains(c.url, "169.254") {
			// Refused only as loopback or private: the user hears which
			// setting lifts it.
			if o := decode(t, r); o.HookSpecificOutput != nil || !strings.Contains(o.SystemMessage, "(WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1) to read it; the native WebFetch tool runs instead") {
				t.Errorf("%s: stdout %s, want a systemMessage naming the setting", c.url, r.stdout)
			}
		} else {
			wantNothing(t, r)
		}
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		// The literal-host check names the host before the reason; a
		// refusal at dial time would read "dial tcp …" instead.
		want := "not probing " + c.url + ": " + u.Hostname() + ": destination address not allowed"
		if !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "dial tcp") {
			t.Errorf("%s: stderr lacks %q:\n%s", c.url, want, r.stderr)
		}
	}
	if n := f.Hits("wsapi") + f.Hits("tavily"); n != 0 {
		t.Errorf("an extraction provider was asked %d times for an internal address", n)
	}
}
