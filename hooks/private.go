package hooks

import (
	"net/url"
	"strings"

	"github.com/webgate-dev/webgate/webpage"
)

// AllowPrivateHint says how to let webgate read a loopback or
// private-network page: the setting and its environment variable.
const AllowPrivateHint = "set hooks.webfetch.allow_private = true (WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1) to read it"

// privateSuffixes are the names reserved for local use that
// hooks.webfetch.allow_private lets through (webpage's special names);
// cloud metadata names are refused always.
var privateSuffixes = []string{"localhost", "local", "home.arpa", "internal"}

// PrivateOnly reports whether rawURL names a host that is refused only
// because private addresses are not allowed, so that
// hooks.webfetch.allow_private would let webgate read it: a loopback,
// private-network or link-local address, or a name reserved for local use
// ("localhost", ".internal", …). A cloud metadata endpoint, refused
// always, is not.
func PrivateOnly(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if a, ok := webpage.HostAddr(host); ok {
		return webpage.CheckAddress(a, false) != nil && webpage.CheckAddress(a, true) == nil
	}
	if strings.HasPrefix(host, "metadata.") {
		return false
	}
	for _, s := range privateSuffixes {
		if host == s || strings.HasSuffix(host, "."+s) {
			return true
		}
	}
	return false
}
