package hookenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/webpage"
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

// MaxGatewayAnswer caps the decision a gateway may answer a forwarded
// hook call with; a longer answer is refused, not cut (a cut JSON object
// is no decision).
const MaxGatewayAnswer = gate.MaxInputBytes

// Forward posts a hook payload to the gateway's hook endpoint for hook
// (base/v1/hooks/websearch or /webfetch) and returns the decision it
// answers, which the hook prints as its own: one JSON object, every text
// of which gets the rule a local decision's gets (package sanitize: the
// agent rule, the terminal rule for systemMessage) with the token
// scrubbed, or nothing. It fails open: when the gateway cannot be
// reached within [GatewayConnectTimeout], does not answer within budget
// (the hook's configured budget, [Budget]) counted from start, refuses
// the token or a limit, answers anything but 200, or answers what is not
// one JSON object (or nothing), or more than [MaxGatewayAnswer] bytes,
// stdout is empty (the agent's own tool runs) and diag says why, never
// with the token. A plain-http gateway that is not on loopback is
// warned about in diag ([GatewayInClear]), the answer kept.
func Forward(ctx context.Context, hook string, payload []byte, base, token string, start time.Time, budget time.Duration) (stdout []byte, diag string) {
	var warn string
	fail := func(format string, a ...any) ([]byte, string) {
		msg := ScrubToken(fmt.Sprintf(format, a...), token)
		return nil, warn + "webgate: " + sanitize.Line(msg) + "; passing through\n"
	}
	if !GatewayURLUsable(base) {
		return fail("%s is not a gateway's http:// or https:// base URL", GatewayURLEnv)
	}
	if GatewayInClear(base) {
		warn = "webgate: " + sanitize.Line(InClearWarning(base)) + "\n"
	}
	if token == "" {
		return fail("%s is set but %s is not", GatewayURLEnv, GatewayTokenEnv)
	}
	if budget <= 0 {
		budget = gate.DefaultBudget(hook)
	}
	ctx, cancel := context.WithDeadline(ctx, start.Add(budget))
	defer cancel()
	resp, body, err := PostGateway(ctx, gatewayHTTP, base, "/v1/hooks/"+hook, token, "", payload, MaxGatewayAnswer+1)
	switch {
	case err != nil && ctx.Err() != nil:
		return fail("the gateway at %s did not answer within the %s hook's budget (%v)", base, hook, budget)
	case err != nil && resp == nil:
		return fail("the gateway at %s is not reachable: %s", base, Unreachable(err))
	case err != nil:
		return fail("the gateway at %s: reading its answer: %v", base, err)
	case resp.StatusCode == http.StatusUnauthorized:
		return fail("the gateway at %s refused the token in %s (unknown, expired or revoked)", base, GatewayTokenEnv)
	case resp.StatusCode == http.StatusTooManyRequests:
		return fail("the gateway at %s refused the call: a limit of the token was reached (retry after %ss)", base, resp.Header.Get("Retry-After"))
	case resp.StatusCode != http.StatusOK:
		return fail("the gateway at %s answered %s", base, resp.Status)
	case len(body) > MaxGatewayAnswer:
		return fail("the gateway at %s answered more than %d bytes: no hook decision is that long", base, MaxGatewayAnswer)
	}
	out, why := forwardedDecision(body, token)
	if why != "" {
		return fail("the gateway at %s answered %s, not a hook decision", base, why)
	}
	return out, warn
}

// PostGateway posts body, a JSON document, to the gateway at base+path
// through client with the bearer token (and userAgent, when set), and
// reads at most limit bytes of its answer. err is the transport's when
// no answer came ([Unreachable] says why in words), or the error reading
// the answer's body, with resp set.
func PostGateway(ctx context.Context, client *http.Client, base, path, token, userAgent string, body []byte, limit int64) (resp *http.Response, answer []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if userAgent != "" {
		req.Header.Set("User-Agent", userAgent)
	}
	resp, err = client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	answer, err = io.ReadAll(io.LimitReader(resp.Body, limit))
	return resp, answer, err
}

// Unreachable says why a call [PostGateway] sent got no answer: "no
// connection within 300ms" when the connection did not open within
// [GatewayConnectTimeout], else the transport's reason without the URL.
func Unreachable(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no connection within %v", GatewayConnectTimeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// ScrubToken returns s with the gateway token replaced by "wg_…": no
// message about a call to the gateway shows it.
func ScrubToken(s, token string) string {
	if token == "" {
		return s
	}
	return strings.ReplaceAll(s, token, "wg_…")
}

// forwardedDecision reads a gateway's answer to a hook call: nothing, or
// one JSON object, which it returns as compact JSON followed by a
// newline (as a local hook writes its decision), its members in their
// order, every string under the rule of a local decision's text
// ([sanitize.Text] for systemMessage, a notice for the user; the terminal
// rule with neutralised framing tags, [sanitize.Agent], for the rest:
// reasons, added context, replaced output), keys on one line, and the
// token scrubbed. why says what else the answer was.
func forwardedDecision(body []byte, token string) (out []byte, why string) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, ""
	}
	var secrets []string
	if token != "" {
		secrets = []string{token}
	}
	// frame is an open object or array: obj, how many members it has so
	// far (n), the member name its strings fall under (key: an array's
	// is its parent's) and, for an object, whether a name comes next.
	type frame struct {
		obj, wantKey bool
		n            int
		key          string
	}
	var stack []*frame
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	writeString := func(s string) {
		_ = enc.Encode(s)
		b.Truncate(b.Len() - 1) // the newline Encode adds
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for begun := false; ; {
		tok, err := dec.Token()
		if begun && len(stack) == 0 {
			if err == io.EOF {
				break
			}
			return nil, "more than one JSON value"
		}
		if err != nil {
			return nil, "something that is not JSON"
		}
		if !begun {
			if tok != json.Delim('{') {
				return nil, "JSON that is not an object"
			}
			begun = true
		}
		var f *frame
		if len(stack) > 0 {
			f = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			b.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].wantKey = true
			}
			continue
		}
		key := ""
		if f != nil {
			if f.n > 0 && (!f.obj || f.wantKey) {
				b.WriteByte(',')
			}
			if f.obj && f.wantKey {
				k, _ := tok.(string)
				f.key, f.wantKey = k, false
				f.n++
				writeString(textfmt.Scrub(sanitize.AgentLine(k), secrets...))
				b.WriteByte(':')
				continue
			}
			if !f.obj {
				f.n++
			}
			key = f.key
		}
		switch t := tok.(type) {
		case json.Delim:
			b.WriteByte(byte(t))
			stack = append(stack, &frame{obj: t == '{', wantKey: t == '{', key: key})
			continue
		case string:
			if key == "systemMessage" {
				writeString(textfmt.Scrub(sanitize.Text(t), secrets...))
			} else {
				writeString(textfmt.Scrub(sanitize.Agent(t), secrets...))
			}
		case json.Number:
			b.WriteString(t.String())
		case bool:
			b.WriteString(strconv.FormatBool(t))
		case nil:
			b.WriteString("null")
		}
		if f != nil && f.obj {
			f.wantKey = true
		}
	}
	b.WriteByte('\n')
	return b.Bytes(), ""
}

// Budget returns the budget of hook (hooks.websearch.budget or
// hooks.webfetch.budget) as load's configuration sets it: the one a
// forwarded call waits for the gateway within. Loading gives up at the
// hook's default budget counted from start, and the default is returned
// when nothing could be loaded.
func Budget(ctx context.Context, hook string, load Loader, start time.Time) time.Duration {
	k := searchHook
	if hook == gate.WebFetch {
		k = fetchHook
	}
	_, budget, _ := k.load(ctx, load, start)
	return budget
}

// GatewayInClear reports whether base is a plain-http gateway URL whose
// host is not on loopback: the token would cross the network in clear.
func GatewayInClear(base string) bool {
	u, err := url.Parse(base)
	if err != nil || !strings.EqualFold(u.Scheme, "http") {
		return false
	}
	return !webpage.LoopbackHost(u.Hostname())
}

// InClearWarning says that the gateway at base (a plain-http URL off
// loopback, [GatewayInClear]) is sent the token in clear.
func InClearWarning(base string) string {
	return fmt.Sprintf("the gateway at %s is plain http: the token in %s crosses the network unencrypted, readable by anyone on the path; use an https:// URL", base, GatewayTokenEnv)
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
