package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/cmd/internal/setup"
)

// doctorGatewayTimeout bounds each of doctor's calls to a gateway.
const doctorGatewayTimeout = 3 * time.Second

// gatewayUse is one way this machine uses a team gateway: the remote mode
// of the CLI (WEBGATE_GATEWAY_URL), or HTTP hooks registered in a
// settings file; tokenEnv names the variable its token is read from.
type gatewayUse struct {
	base, via, tokenEnv string
}

// gatewayUses returns the gateways this machine uses, the remote CLI's
// first, one entry per base URL and token variable.
func (d *doctor) gatewayUses() []gatewayUse {
	var uses []gatewayUse
	add := func(u gatewayUse) {
		for i, o := range uses {
			if o.base == u.base && o.tokenEnv == u.tokenEnv {
				uses[i].via += "; " + u.via
				return
			}
		}
		uses = append(uses, u)
	}
	if base := strings.TrimRight(strings.TrimSpace(d.f.host.getenv(gatewayURLEnv)), "/"); base != "" {
		add(gatewayUse{base: base, via: "webgate search and fetch (" + gatewayURLEnv + ")", tokenEnv: gatewayTokenEnv})
	}
	for _, tc := range []struct {
		target setup.Target
		scope  setup.Scope
	}{{setup.ClaudeCode, setup.User}, {setup.ClaudeCode, setup.Project}, {setup.CopilotCLI, setup.User}, {setup.CopilotCLI, setup.Project}} {
		r, err := setup.Inspect(setup.Options{Target: tc.target, Scope: tc.scope, Home: d.f.host.Home,
			ClaudeConfigDir: d.f.host.getenv("CLAUDE_CONFIG_DIR"), ProjectDir: d.f.projectDir})
		if err != nil || r.Gateway() == "" {
			continue
		}
		env := r.GatewayTokenEnv()
		if env == "" {
			env = setup.DefaultGatewayTokenEnv
		}
		add(gatewayUse{base: r.Gateway(), via: "the " + string(tc.target) + " HTTP hooks in " + r.Path, tokenEnv: env})
	}
	return uses
}

// checkGateway checks each gateway this machine uses: that it answers
// (/healthz), is ready (/readyz: its store answers) and accepts the token
// (a hook call the hooks ignore, which costs nothing and is not
// recorded). It reports whether a gateway is in use.
func (d *doctor) checkGateway(ctx context.Context) bool {
	const sec = "Gateway"
	uses := d.gatewayUses()
	for _, u := range uses {
		name := safeURL(u.base)
		d.add(sec, name, statusInfo, "used by "+u.via, "")
		if hookenv.GatewayInClear(u.base) {
			d.add(sec, name+" transport", statusWarn, hookenv.InClearWarning(name), "serve the gateway over https (behind a TLS proxy) and use its https:// URL")
		}
		token := strings.TrimSpace(d.f.host.getenv(u.tokenEnv))
		c := newGatewayClient(u.base, token)
		status, _, err := c.get(ctx, "/healthz", "", false)
		switch {
		case err != nil:
			d.add(sec, name+" reachable", statusFail, err.Error(), "start the gateway (webgate serve) or correct the URL; until it answers, the hooks let the agent's own tools run and webgate search and fetch exit 6")
			continue
		case status != http.StatusOK:
			d.add(sec, name+" reachable", statusFail, fmt.Sprintf("/healthz answered %d: not a webgate gateway, or not this URL", status), "check the URL")
			continue
		}
		d.add(sec, name+" reachable", statusOK, "/healthz answered", "")
		if status, _, err := c.get(ctx, "/readyz", "", false); err != nil || status != http.StatusOK {
			d.add(sec, name+" ready", statusWarn, "/readyz did not answer 200: the gateway's store is unavailable, and it refuses calls (503) until it is back", "check the gateway's store (store.url) and its logs")
		} else {
			d.add(sec, name+" ready", statusOK, "/readyz answered: its store answers", "")
		}
		if token == "" {
			d.add(sec, name+" token", statusFail, "$"+u.tokenEnv+" is not set: the gateway refuses every call", "set "+u.tokenEnv+" to the token 'webgate token create' printed on the gateway")
			continue
		}
		// An event the hooks ignore: answered at once, free, not recorded.
		status, _, err = c.get(ctx, setup.GatewayHookURL("", "websearch"), `{"hook_event_name":"Stop"}`, true)
		hooks := true
		if err == nil && status == http.StatusNotFound {
			// A gateway without hook endpoints: /metrics takes the token too.
			hooks = false
			status, _, err = c.get(ctx, "/metrics", "", true)
		}
		switch {
		case err != nil:
			d.add(sec, name+" token", statusWarn, err.Error(), "")
		case status == http.StatusOK && hooks:
			d.add(sec, name+" token", statusOK, "$"+u.tokenEnv+" is accepted", "")
		case status == http.StatusOK:
			d.add(sec, name+" token", statusOK, "$"+u.tokenEnv+" is accepted", "")
			if strings.Contains(u.via, "HTTP hooks") {
				d.add(sec, name+" hooks", statusFail, "the gateway serves no hook endpoints (/v1/hooks/…): the HTTP hooks registered for it fail, and the agent's own tools run", "upgrade the gateway")
			}
		case status == http.StatusUnauthorized:
			d.add(sec, name+" token", statusFail, "$"+u.tokenEnv+" is refused (unknown, expired or revoked)", "ask for a new token ('webgate token create' on the gateway)")
		default:
			d.add(sec, name+" token", statusWarn, fmt.Sprintf("a call with the token answered %d", status), "see the gateway's logs")
		}
	}
	return len(uses) > 0
}

// get asks the gateway for path: a GET, or with body a POST. It
// returns the status and at most 64 KiB of the answer.
func (g *gatewayClient) get(ctx context.Context, path, body string, auth bool) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, doctorGatewayTimeout)
	defer cancel()
	method := http.MethodGet
	var rd io.Reader
	if body != "" {
		method, rd = http.MethodPost, strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, g.base+path, rd)
	if err != nil {
		return 0, nil, g.unavailable(err)
	}
	if auth && g.token != "" {
		req.Header.Set("Authorization", "Bearer "+g.token)
	}
	resp, err := g.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, fmt.Errorf("the gateway at %s did not answer within %v", g.base, doctorGatewayTimeout)
		}
		return 0, nil, g.unavailable(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, data, nil
}
