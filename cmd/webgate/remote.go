package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/provider"
)

// The environment of the remote mode: webgate search and fetch ask the
// team gateway at gatewayURLEnv with the token in gatewayTokenEnv instead
// of the providers (the names the hooks read, too).
const (
	gatewayURLEnv   = hookenv.GatewayURLEnv
	gatewayTokenEnv = hookenv.GatewayTokenEnv
)

// gatewayCallSlack is what a remote call may take beyond the command's
// timeout (--timeout, else the tools' default), for the gateway's own work
// around the providers'. The connection is bound by
// hookenv.GatewayConnectTimeout.
const gatewayCallSlack = 2 * time.Second

// exitGateway is the exit code of a call the gateway did not answer: it
// could not be reached in time, refused the token, or a limit.
const exitGateway = 6

// remoteHelp is the paragraph of the search and fetch commands' help on
// the remote mode; what is what the command asks for ("the search").
func remoteHelp(what string) string {
	return fmt.Sprintf(`With %s and %s set, %s is asked
of that team gateway (webgate serve) instead, with the token and nothing
else: no configuration, provider or key is needed here, and it prints
what the local command prints. The connection must open within %v
and the answer come within the timeout and %v more; a gateway that does
not answer, refuses the token (401) or a limit (429) exits %d with the
reason.
`, gatewayURLEnv, gatewayTokenEnv, what, hookenv.GatewayConnectTimeout, gatewayCallSlack, exitGateway)
}

// gatewayClient calls a team gateway's JSON API (/v1/search, /v1/fetch).
// It sends the token and nothing else of the caller's: no provider key.
type gatewayClient struct {
	base, token string
	http        *http.Client
}

// remoteGateway returns the gateway client h's environment configures
// (WEBGATE_GATEWAY_URL and WEBGATE_GATEWAY_TOKEN), nil when the URL is
// not set, or an error for a URL or token that cannot be used.
func remoteGateway(h hostEnv) (*gatewayClient, error) {
	base := strings.TrimSpace(h.getenv(gatewayURLEnv))
	if base == "" {
		return nil, nil
	}
	if !hookenv.GatewayURLUsable(base) {
		return nil, fmt.Errorf("%s must be the gateway's http:// or https:// base URL, with no user information", gatewayURLEnv)
	}
	token := strings.TrimSpace(h.getenv(gatewayTokenEnv))
	if token == "" {
		return nil, fmt.Errorf("%s is set but %s is not: the gateway needs a token (webgate token create on the gateway prints one)", gatewayURLEnv, gatewayTokenEnv)
	}
	return newGatewayClient(strings.TrimRight(base, "/"), token), nil
}

func newGatewayClient(base, token string) *gatewayClient {
	return &gatewayClient{base: base, token: token, http: hookenv.NewGatewayHTTP()}
}

// gatewayError is a call the gateway did not answer with a result or a
// tool's error: Reason is "gateway-unavailable" (not reached in time, or
// an answer that is not the gateway's), "unauthorized" (401) or
// "rate-limited" (429, RetryAfter from its Retry-After).
type gatewayError struct {
	Reason     string
	Message    string
	RetryAfter time.Duration
}

func (e *gatewayError) Error() string { return e.Message }

// call posts body to path and decodes a 200 answer into out. A tool's
// error (the gateway's {"error": {...}} with the reason of a search or a
// fetch) is returned as a *webtools.Error, any other failure as a
// *gatewayError whose message names the gateway and never the token.
func (g *gatewayClient) call(ctx context.Context, path string, timeout time.Duration, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout+gatewayCallSlack)
	defer cancel()
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	resp, raw, err := hookenv.PostGateway(ctx, g.http, g.base, path, g.token, "webgate/"+versionString(), data, 64<<20)
	if err != nil {
		if resp == nil && ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
			return &gatewayError{Reason: "gateway-unavailable", Message: fmt.Sprintf("the gateway at %s did not answer within %v", g.base, (timeout + gatewayCallSlack).Round(time.Millisecond))}
		}
		return g.unavailable(err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		if err := json.Unmarshal(raw, out); err != nil {
			return &gatewayError{Reason: "gateway-unavailable", Message: fmt.Sprintf("the gateway at %s answered something that is not a webgate answer", g.base)}
		}
		return nil
	case http.StatusUnauthorized:
		return &gatewayError{Reason: "unauthorized", Message: fmt.Sprintf("the gateway at %s refused the token in %s (unknown, expired or revoked); ask for a new one (webgate token create)", g.base, gatewayTokenEnv)}
	case http.StatusTooManyRequests:
		e := &gatewayError{Reason: "rate-limited", Message: fmt.Sprintf("the gateway at %s refused the call: %s", g.base, g.message(raw, "a limit of the token was reached"))}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			e.RetryAfter = time.Duration(s) * time.Second
			e.Message += fmt.Sprintf("; retry after %v", e.RetryAfter)
		}
		return e
	}
	var te struct {
		Error *struct {
			Reason   webtools.Reason    `json:"reason"`
			Class    string             `json:"class"`
			Message  string             `json:"message"`
			Failures []webtools.Failure `json:"failed_providers"`
			TimedOut bool               `json:"timed_out"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &te) == nil && te.Error != nil {
		switch te.Error.Reason {
		case webtools.BadInput, webtools.NotConfigured, webtools.ProviderFailed, webtools.PageUnavailable:
			e := &webtools.Error{Reason: te.Error.Reason, Class: provider.Class(te.Error.Class), Failures: te.Error.Failures, Message: te.Error.Message, TimedOut: te.Error.TimedOut}
			e.Clean(g.token)
			return e
		}
	}
	return &gatewayError{Reason: "gateway-unavailable", Message: fmt.Sprintf("the gateway at %s answered %s: %s", g.base, resp.Status, g.message(raw, "no reason given"))}
}

// message returns the message of a gateway's error answer, scrubbed,
// or fallback.
func (g *gatewayClient) message(raw []byte, fallback string) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Error.Message == "" {
		return fallback
	}
	return g.scrub(sanitize.Line(e.Error.Message))
}

// unavailable is the error of a call that did not reach the gateway.
func (g *gatewayClient) unavailable(err error) error {
	return &gatewayError{Reason: "gateway-unavailable", Message: fmt.Sprintf("the gateway at %s is not reachable: %s", g.base, g.scrub(hookenv.Unreachable(err)))}
}

// scrub removes the token from s.
func (g *gatewayClient) scrub(s string) string { return hookenv.ScrubToken(s, g.token) }

// search asks the gateway's /v1/search.
func (g *gatewayClient) search(ctx context.Context, timeout time.Duration, req webtools.SearchRequest) (*webtools.SearchResult, error) {
	if timeout <= 0 {
		timeout = webtools.DefaultSearchTimeout
	}
	start := time.Now()
	body := map[string]any{"query": req.Query}
	if len(req.AllowedDomains) > 0 {
		body["allowed_domains"] = req.AllowedDomains
	}
	if len(req.BlockedDomains) > 0 {
		body["blocked_domains"] = req.BlockedDomains
	}
	if req.MaxResults > 0 {
		body["max_results"] = req.MaxResults
	}
	if req.TimeRange != "" {
		body["time_range"] = string(req.TimeRange)
	}
	if req.Topic != "" {
		body["topic"] = string(req.Topic)
	}
	var res webtools.SearchResult
	if err := g.call(ctx, "/v1/search", timeout, body, &res); err != nil {
		return nil, err
	}
	// The gateway's answer gets the rule a local search's result gets.
	res.Clean(g.token)
	res.Elapsed = time.Since(start)
	return &res, nil
}

// fetch asks the gateway's /v1/fetch.
func (g *gatewayClient) fetch(ctx context.Context, timeout time.Duration, req webtools.FetchRequest) (*webtools.FetchResult, error) {
	if timeout <= 0 {
		timeout = webtools.DefaultFetchTimeout
	}
	start := time.Now()
	body := map[string]any{"url": req.URL}
	if req.Prompt != "" {
		body["prompt"] = req.Prompt
	}
	var res webtools.FetchResult
	if err := g.call(ctx, "/v1/fetch", timeout, body, &res); err != nil {
		return nil, err
	}
	res.Prompt = req.Prompt
	// The gateway's answer gets the rule a local read's result gets.
	res.Clean(g.token)
	res.Elapsed = time.Since(start)
	return &res, nil
}
