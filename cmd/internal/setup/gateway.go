package setup

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/webgate-dev/webgate/internal/redact"
)

// DefaultGatewayTokenEnv is the environment variable an HTTP hook
// registration reads the gateway token from ([Options].GatewayTokenEnv).
const DefaultGatewayTokenEnv = "WEBGATE_GATEWAY_TOKEN"

// gatewayHookPath is the path of the gateway's hook endpoints, followed
// by the hook's name.
const gatewayHookPath = "/v1/hooks/"

// CheckGatewayURL reports whether u can be a gateway's base URL in a hook
// registration: http or https, a host, no query, fragment or user
// information (a token never goes into the URL).
func CheckGatewayURL(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("gateway URL %q: %v", redact.String(u), err)
	}
	switch {
	case p.Scheme != "http" && p.Scheme != "https":
		return fmt.Errorf("gateway URL %q: want http:// or https://", redact.String(u))
	case p.Host == "":
		return fmt.Errorf("gateway URL %q has no host", redact.String(u))
	case p.User != nil:
		return fmt.Errorf("gateway URL %q holds user information; the token goes in %s instead", p.Redacted(), DefaultGatewayTokenEnv)
	case p.RawQuery != "" || p.Fragment != "":
		return fmt.Errorf("gateway URL %q: no query or fragment, only the gateway's base URL", redact.String(u))
	}
	return nil
}

// GatewayHookURL is the URL of the hook endpoint of hook ("websearch" or
// "webfetch") on the gateway at base.
func GatewayHookURL(base, hook string) string {
	return strings.TrimRight(base, "/") + gatewayHookPath + hook
}

// gatewayHookBin returns "websearch" or "webfetch" when u is one of a
// gateway's hook endpoints, and "" otherwise.
func gatewayHookBin(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return ""
	}
	for _, b := range []string{"websearch", "webfetch"} {
		if strings.HasSuffix(p.Path, gatewayHookPath+b) {
			return b
		}
	}
	return ""
}

// The members each form of webgate's handler owns; when a handler changes
// form (install --gateway over a local install, or back), the other
// form's members are removed.
var (
	commandMembers = []string{"command", "args", "bash", "powershell"}
	httpMembers    = []string{"url", "headers", "allowedEnvVars"}
)

// setHandler rewrites the webgate handler ho as want: want's members are
// set, the other form's members removed (install --gateway over a local
// install, or back) and, when the form changed, want's members come
// first, in want's order, as a new handler has them; members webgate does
// not own stay, after them.
func setHandler(ho, want *object) {
	drop := httpMembers
	if textOf(want, "type") == "http" {
		drop = commandMembers
	}
	changed := false
	for _, k := range drop {
		if _, ok := want.get(k); ok {
			continue
		}
		if _, ok := ho.get(k); ok {
			ho.del(k)
			changed = true
		}
	}
	for _, m := range want.members {
		ho.set(m.key, m.val)
	}
	if !changed {
		return
	}
	var first, rest []member
	for _, m := range ho.members {
		if _, ok := want.get(m.key); ok {
			first = append(first, m)
		} else {
			rest = append(rest, m)
		}
	}
	slices.SortStableFunc(first, func(a, b member) int { return want.last(a.key) - want.last(b.key) })
	ho.members = append(first, rest...)
}

// httpHandler is the HTTP hook handler of hook on the gateway o.Gateway:
// the token comes from the environment variable o.GatewayTokenEnv, which
// the runtime substitutes into the header when allowedEnvVars lists it;
// the token itself is never written. timeoutKey is the runtime's name for
// the timeout ("timeout", "timeoutSec").
func httpHandler(o Options, hook, timeoutKey string, timeout int) *object {
	env := o.GatewayTokenEnv
	if env == "" {
		env = DefaultGatewayTokenEnv
	}
	h := newObject()
	h.set("type", "http")
	h.set("url", GatewayHookURL(o.Gateway, hook))
	headers := newObject()
	headers.set("Authorization", "Bearer $"+env)
	h.set("headers", headers)
	h.set("allowedEnvVars", []any{env})
	h.set(timeoutKey, timeout)
	return h
}
