package hookenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/sanitize"
)

// The environment of a hook that forwards to a team gateway: its base URL
// and the bearer token.
const (
	GatewayURLEnv   = "WEBGATE_GATEWAY_URL"
	GatewayTokenEnv = "WEBGATE_GATEWAY_TOKEN"
)

// GatewayConnectTimeout bounds the connection to the gateway a hook
// forwards to.
const GatewayConnectTimeout = 300 * time.Millisecond

// Gateway returns the base URL and token of the team gateway env names
// (WEBGATE_GATEWAY_URL, WEBGATE_GATEWAY_TOKEN), url "" when none: a hook
// then forwards each payload to it ([Forward]) instead of answering
// itself, for runtimes without HTTP hooks (Gemini CLI) or with command
// hooks registered.
func Gateway(env worker.Env) (base, token string) {
	u, _ := env(GatewayURLEnv)
	t, _ := env(GatewayTokenEnv)
	return strings.TrimRight(strings.TrimSpace(u), "/"), strings.TrimSpace(t)
}

// Forward posts a hook payload to the gateway's hook endpoint for hook
// (base/v1/hooks/websearch or /webfetch) and returns the decision JSON it
// answers, which the hook prints as its own. It fails open: when the
// gateway cannot be reached within [GatewayConnectTimeout], does not
// answer within the hook's default budget counted from start, refuses the
// token or a limit, or answers anything but 200, stdout is empty (the
// agent's own tool runs) and diag says why, never with the token.
func Forward(ctx context.Context, hook string, payload []byte, base, token string, start time.Time) (stdout []byte, diag string) {
	fail := func(format string, a ...any) ([]byte, string) {
		msg := fmt.Sprintf(format, a...)
		if token != "" {
			msg = strings.ReplaceAll(msg, token, "wg_…")
		}
		return nil, "webgate: " + sanitize.Line(msg) + "; passing through\n"
	}
	if !GatewayURLUsable(base) {
		return fail("%s is not a gateway's http:// or https:// base URL", GatewayURLEnv)
	}
	if token == "" {
		return fail("%s is set but %s is not", GatewayURLEnv, GatewayTokenEnv)
	}
	budget := gate.DefaultBudget(hook)
	ctx, cancel := context.WithDeadline(ctx, start.Add(budget))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/hooks/"+hook, bytes.NewReader(payload))
	if err != nil {
		return fail("the gateway at %s: %v", base, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := gatewayHTTP.Do(req)
	if err != nil {
		var ne net.Error
		var ue *url.Error
		switch {
		case ctx.Err() != nil:
			return fail("the gateway at %s did not answer within the %s hook's budget (%v)", base, hook, budget)
		case errors.As(err, &ne) && ne.Timeout():
			return fail("the gateway at %s is not reachable: no connection within %v", base, GatewayConnectTimeout)
		case errors.As(err, &ue):
			return fail("the gateway at %s is not reachable: %v", base, ue.Err)
		}
		return fail("the gateway at %s is not reachable: %v", base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, gate.MaxInputBytes))
	switch {
	case err != nil:
		return fail("the gateway at %s: reading its answer: %v", base, err)
	case resp.StatusCode == http.StatusUnauthorized:
		return fail("the gateway at %s refused the token in %s (unknown, expired or revoked)", base, GatewayTokenEnv)
	case resp.StatusCode == http.StatusTooManyRequests:
		return fail("the gateway at %s refused the call: a limit of the token was reached (retry after %ss)", base, resp.Header.Get("Retry-After"))
	case resp.StatusCode != http.StatusOK:
		return fail("the gateway at %s answered %s", base, resp.Status)
	}
	return body, ""
}

// GatewayURLUsable reports whether base can be a team gateway's base
// URL: http or https, with a host and no user information.
func GatewayURLUsable(base string) bool {
	u, err := url.Parse(base)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

// NewGatewayHTTP returns a client for a team gateway: the connection
// within [GatewayConnectTimeout], the TLS handshake within 2 s, no
// redirect followed (the token goes to the gateway only). The call's
// context bounds the rest.
func NewGatewayHTTP() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: GatewayConnectTimeout}).DialContext,
			TLSHandshakeTimeout: 2 * time.Second,
			MaxIdleConns:        4,
			IdleConnTimeout:     30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// gatewayHTTP is the client of [Forward].
var gatewayHTTP = NewGatewayHTTP()
