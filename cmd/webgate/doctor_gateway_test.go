package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/cmd/internal/gateway"
	"github.com/webgate-dev/webgate/cmd/internal/setup"
	"github.com/webgate-dev/webgate/internal/fakeweb"
)

// doctorChecks runs doctor --json and returns its checks of section.
func doctorChecks(t *testing.T, h *testHost, section string) map[string]check {
	t.Helper()
	_, out, _ := h.run("", "doctor", "--json")
	var rep struct{ Checks []check }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	got := map[string]check{}
	for _, c := range rep.Checks {
		if c.Section == section || section == "" {
			got[c.Name] = c
		}
	}
	return got
}

// doctor checks the gateway the remote mode and the HTTP hooks use: that
// it answers, is ready and takes the token, and says which use it.
func TestDoctor_ChecksTheGatewayAndTheToken(t *testing.T) {
	f := newRemoteFixture(t, gateway.Limits{}, 0)
	h := newTestHost(t)
	h.env["WEBGATE_GATEWAY_URL"] = f.gw
	h.env["WEBGATE_GATEWAY_TOKEN"] = f.secret
	p, err := setup.PlanInstall(setup.Options{Target: setup.ClaudeCode, Scope: setup.User, Home: h.home, Gateway: f.gw})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(nil); err != nil {
		t.Fatal(err)
	}
	name := safeURL(f.gw)
	got := doctorChecks(t, h, "Gateway")
	for _, n := range []string{" reachable", " ready", " token"} {
		if got[name+n].Status != statusOK {
			t.Errorf("%s: %+v", n, got[name+n])
		}
	}
	if c, ok := got[name+" hooks"]; ok {
		t.Errorf("hooks: %+v", c)
	}
	if via := got[name].Detail; !strings.Contains(via, "WEBGATE_GATEWAY_URL") || !strings.Contains(via, "claude-code HTTP hooks") {
		t.Errorf("doctor does not say which uses the gateway: %q", via)
	}
	all := doctorChecks(t, h, "")
	if c := all["providers"]; c.Status == statusNext || c.Status == statusFail {
		t.Errorf("no key here is a next step although the gateway holds them: %+v", c)
	}
	if c := all["claude-code (user)"]; c.Status == statusFail {
		t.Errorf("registration: %+v", c)
	}

	h.env["WEBGATE_GATEWAY_TOKEN"] = "wg_WRONGWRONGWRONG"
	if c := doctorChecks(t, h, "Gateway")[name+" token"]; c.Status != statusFail || strings.Contains(c.Detail, "wg_WRONG") {
		t.Errorf("a wrong token: %+v", c)
	}
	down := "http://" + fakeweb.RefusedAddr(t)
	h.env["WEBGATE_GATEWAY_URL"] = down
	if c := doctorChecks(t, h, "Gateway")[safeURL(down)+" reachable"]; c.Status != statusFail || !strings.Contains(c.Detail, "not reachable") {
		t.Errorf("a gateway that is down: %+v", c)
	}
}
