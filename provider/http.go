package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/webgate-dev/webgate/internal/buildinfo"
	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/internal/textfmt"
)

// DefaultUserAgent is the User-Agent backends send unless configured
// otherwise: "webgate/<version> (+https://github.com/webgate-dev/webgate)".
func DefaultUserAgent() string { return buildinfo.UserAgent() }

// Defaults of [HTTPConfig].
const (
	DefaultAttemptTimeout = 30 * time.Second
	DefaultMaxAttempts    = 3
	DefaultMinBackoff     = 250 * time.Millisecond
	DefaultMaxBackoff     = 4 * time.Second
	DefaultMaxRetryAfter  = 30 * time.Second
	DefaultMaxBodyBytes   = 8 << 20
)

// HTTPConfig configures how a backend talks HTTP. The zero value means the
// documented defaults; a backend's Config embeds it. Redirects are not
// followed (a 3xx answer is a failure of kind [KindUnknown]) unless Client
// sets its own CheckRedirect.
type HTTPConfig struct {
	// Client is the HTTP client; nil uses a new client with the default
	// transport. Inject one to add a proxy or a custom transport.
	Client *http.Client `koanf:"-" json:"-"`
	// AttemptTimeout bounds one HTTP attempt, body included; default 30s.
	// The caller's context bounds the whole request, retries included.
	AttemptTimeout time.Duration `koanf:"attempt_timeout"`
	// MaxAttempts is the number of attempts per key for retryable failures
	// (transient, rate limited); default 3. 1 disables retries.
	MaxAttempts int `koanf:"max_attempts"`
	// MinBackoff and MaxBackoff bound the exponential backoff between
	// attempts; defaults 250ms and 4s. Full jitter is applied.
	MinBackoff time.Duration `koanf:"min_backoff"`
	MaxBackoff time.Duration `koanf:"max_backoff"`
	// MaxRetryAfter is the longest Retry-After the client waits for; a
	// longer one ends the request as rate limited. Default 30s.
	MaxRetryAfter time.Duration `koanf:"max_retry_after"`
	// MaxBodyBytes caps a response body; a larger body is a failure of kind
	// [KindUnknown]. Default 8 MiB.
	MaxBodyBytes int64 `koanf:"max_body_bytes"`
	// UserAgent overrides [DefaultUserAgent].
	UserAgent string `koanf:"user_agent"`
	// Rand is the jitter source; nil uses a randomly seeded one.
	Rand *rand.Rand `koanf:"-" json:"-"`
}

func (c HTTPConfig) withDefaults() HTTPConfig {
	c.AttemptTimeout = defaults.Positive(c.AttemptTimeout, DefaultAttemptTimeout)
	c.MaxAttempts = defaults.Positive(c.MaxAttempts, DefaultMaxAttempts)
	c.MinBackoff = defaults.Positive(c.MinBackoff, DefaultMinBackoff)
	c.MaxBackoff = defaults.Positive(c.MaxBackoff, DefaultMaxBackoff)
	if c.MaxBackoff < c.MinBackoff {
		c.MaxBackoff = c.MinBackoff
	}
	c.MaxRetryAfter = defaults.Positive(c.MaxRetryAfter, DefaultMaxRetryAfter)
	c.MaxBodyBytes = defaults.Positive(c.MaxBodyBytes, DefaultMaxBodyBytes)
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent()
	}
	return c
}

// HTTP performs provider requests: key rotation over a [KeySource],
// kind-driven retries with exponential backoff and jitter, Retry-After,
// a per-attempt timeout, and a capped response body. Backends build one with
// [NewHTTP] and call [HTTP.Do] once per logical request. It is safe for
// concurrent use.
type HTTP struct {
	cfg    HTTPConfig
	client *http.Client
	jitter func(time.Duration) time.Duration
}

// NewHTTP returns an HTTP for cfg (see [HTTPConfig] for the defaults); a
// nil cfg means defaults.
func NewHTTP(cfg *HTTPConfig) *HTTP {
	var c HTTPConfig
	if cfg != nil {
		c = *cfg
	}
	return newHTTP(c.withDefaults())
}

func newHTTP(cfg HTTPConfig) *HTTP {
	client := &http.Client{}
	if cfg.Client != nil {
		c := *cfg.Client
		client = &c
	}
	if client.Timeout == 0 {
		client.Timeout = cfg.AttemptTimeout
	}
	if client.CheckRedirect == nil {
		// Provider APIs do not redirect. Following one would send the
		// request, and a key in a header such as x-api-key (which
		// net/http forwards to any host), wherever the response points,
		// cloud metadata addresses included.
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	h := &HTTP{cfg: cfg, client: client}
	if cfg.Rand != nil {
		r := cfg.Rand
		mu := make(chan struct{}, 1)
		h.jitter = func(d time.Duration) time.Duration {
			mu <- struct{}{}
			defer func() { <-mu }()
			return time.Duration(r.Int64N(int64(d) + 1))
		}
	} else {
		h.jitter = func(d time.Duration) time.Duration { return time.Duration(rand.Int64N(int64(d) + 1)) }
	}
	return h
}

// Request is one logical request to a provider.
type Request struct {
	// Provider and Op name the backend and operation for errors.
	Provider, Op string
	// Method and URL of the request; Method defaults to POST.
	Method, URL string
	// Body is sent as application/json when non-nil.
	Body []byte
	// Header holds extra headers sent with every attempt.
	Header http.Header
	// Auth sets the key on an attempt's headers ("Authorization: Bearer …").
	// Nil means the request needs no key; then Do makes a single keyless
	// round of attempts.
	Auth func(h http.Header, k Key)
	// Check classifies a response: nil for success, otherwise the failure.
	// Nil uses [CheckStatus]. Do fills Provider, Op, Status, Attempts and,
	// when unset, RetryAfter and RequestID of the returned error.
	Check func(r *Response) *Error
	// RequestIDHeader names the response header holding the provider's
	// request id, if any.
	RequestIDHeader string
}

// Response is a successful response, body read in full.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// Key is the key that succeeded (zero for a keyless request).
	Key Key
	// Attempts is the number of HTTP attempts made.
	Attempts int
}

// ErrNoKeys is the cause of the [KindAuth] error Do returns when the key
// source has no keys.
var ErrNoKeys = errors.New("no API key configured")

var errBodyTooLarge = errors.New("response body too large")

// Do runs req: for each key the source offers, up to MaxAttempts attempts
// while the failure is retryable; on an auth, quota or rate-limit failure it
// moves on to the next key. It never sleeps past ctx's deadline, nor so
// close to it that the retry has no time: a backoff or Retry-After wait is
// taken only when at least twice the wait remains before the deadline, and
// otherwise the request ends at once with the last failure (rate-limited,
// for a 429). It returns the successful response, or an [*Error].
func (h *HTTP) Do(ctx context.Context, keys KeySource, req Request) (*Response, error) {
	var ks []Key
	if req.Auth != nil {
		if keys != nil {
			ks = keys.Keys(ctx)
		}
		if len(ks) == 0 {
			return nil, &Error{Provider: req.Provider, Op: req.Op, Kind: KindAuth, Message: ErrNoKeys.Error(), Err: ErrNoKeys}
		}
	} else {
		ks = []Key{{}}
	}
	attempts := 0
	var last *Error
	for i, k := range ks {
		resp, err := h.attempt(ctx, req, k, i == len(ks)-1, &attempts)
		if err == nil {
			if req.Auth != nil {
				keys.Report(k, "")
			}
			resp.Attempts = attempts
			return resp, nil
		}
		last = err
		if req.Auth != nil {
			if er, ok := keys.(ErrorReporter); ok {
				er.ReportError(k, err)
			} else {
				keys.Report(k, err.Kind)
			}
		}
		if !err.Kind.Rotatable() || ctx.Err() != nil {
			break
		}
	}
	last.Attempts = attempts
	return nil, last
}

// attempt runs the retry loop for one key.
func (h *HTTP) attempt(ctx context.Context, req Request, k Key, lastKey bool, attempts *int) (*Response, *Error) {
	method := req.Method
	if method == "" {
		method = http.MethodPost
	}
	var body any
	if req.Body != nil {
		body = req.Body
	}
	rreq, err := retryablehttp.NewRequestWithContext(ctx, method, req.URL, body)
	if err != nil {
		return nil, &Error{Provider: req.Provider, Op: req.Op, Kind: KindBadRequest, Message: "invalid request URL"}
	}
	for name, vs := range req.Header {
		for _, v := range vs {
			rreq.Header.Add(name, v)
		}
	}
	if req.Body != nil && rreq.Header.Get("Content-Type") == "" {
		rreq.Header.Set("Content-Type", "application/json")
	}
	if rreq.Header.Get("Accept") == "" {
		rreq.Header.Set("Accept", "application/json")
	}
	rreq.Header.Set("User-Agent", h.cfg.UserAgent)
	if req.Auth != nil {
		req.Auth(rreq.Header, k)
	}

	var (
		lastErr  *Error
		lastResp *Response
		wait     time.Duration
	)
	check := req.Check
	if check == nil {
		check = CheckStatus
	}
	rc := &retryablehttp.Client{
		HTTPClient:   h.client,
		RetryMax:     h.cfg.MaxAttempts - 1,
		RetryWaitMin: h.cfg.MinBackoff,
		RetryWaitMax: h.cfg.MaxBackoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
		Backoff: func(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
			return wait
		},
	}
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, doErr error) (bool, error) {
		*attempts++
		lastErr, lastResp = nil, nil
		if doErr != nil {
			lastErr = &Error{Kind: transportKind(doErr), Err: doErr, Message: transportMessage(ctx, doErr)}
			if ctx.Err() != nil {
				lastErr.Kind = KindOf(ctx.Err())
				return false, nil
			}
		} else {
			data, rerr := readCapped(resp.Body, h.cfg.MaxBodyBytes)
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(nil))
			r := &Response{Status: resp.StatusCode, Header: resp.Header, Body: data, Key: k}
			switch {
			case resp.StatusCode >= 300 && resp.StatusCode < 400:
				lastErr = &Error{Kind: KindUnknown, Status: resp.StatusCode, Message: "unexpected redirect (not followed)"}
			case errors.Is(rerr, errBodyTooLarge):
				lastErr = &Error{Kind: KindUnknown, Status: resp.StatusCode, Err: errBodyTooLarge,
					Message: fmt.Sprintf("response body exceeds %d bytes", h.cfg.MaxBodyBytes)}
			case rerr != nil:
				lastErr = &Error{Kind: transportKind(rerr), Status: resp.StatusCode, Err: rerr, Message: "reading response: " + transportMessage(ctx, rerr)}
				if ctx.Err() != nil {
					lastErr.Kind = KindOf(ctx.Err())
				}
			default:
				lastErr = check(r)
				if lastErr == nil {
					lastResp = r
					return false, nil
				}
				if lastErr.Status == 0 {
					lastErr.Status = resp.StatusCode
				}
				if lastErr.RetryAfter == 0 {
					lastErr.RetryAfter = ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
				}
				if lastErr.RequestID == "" && req.RequestIDHeader != "" {
					lastErr.RequestID = resp.Header.Get(req.RequestIDHeader)
				}
				// Whatever the backend took from the answer, an echoed key
				// never reaches the error's text.
				lastErr.Message = Message(lastErr.Message, k.Secret())
				lastErr.Tag = Message(lastErr.Tag, k.Secret())
				lastErr.RequestID = Message(lastErr.RequestID, k.Secret())
			}
		}
		kind := lastErr.Kind
		if !kind.Retryable() || ctx.Err() != nil {
			return false, nil
		}
		if kind == KindRateLimited && !lastKey {
			return false, nil // rotate to the next key instead of waiting
		}
		wait = h.backoff(*attempts, lastErr.RetryAfter)
		if lastErr.RetryAfter > h.cfg.MaxRetryAfter {
			return false, nil
		}
		// A wait must leave the retry at least as long again before the
		// deadline: sleeping until just before it would only end in a
		// timed-out retry, reported as a timeout rather than as the
		// provider's own answer, with the caller's time used up.
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < 2*wait {
			return false, nil
		}
		return true, nil
	}
	resp, err := rc.Do(rreq)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if lastResp != nil {
		return lastResp, nil
	}
	if lastErr == nil {
		// CheckRetry always runs, so this is only reached if the retry
		// library failed before an attempt (for example a body rewind).
		lastErr = &Error{Kind: KindOf(err), Err: err, Message: "request failed"}
	}
	lastErr.Provider, lastErr.Op = req.Provider, req.Op
	return nil, lastErr
}

// backoff returns the wait before the next attempt: the provider's
// Retry-After when it sent one, otherwise exponential backoff from
// MinBackoff, capped at MaxBackoff, with full jitter.
func (h *HTTP) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := h.cfg.MinBackoff
	for i := 1; i < attempt && d < h.cfg.MaxBackoff; i++ {
		d *= 2
	}
	if d > h.cfg.MaxBackoff {
		d = h.cfg.MaxBackoff
	}
	return d/2 + h.jitter(d/2)
}

func readCapped(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errBodyTooLarge
	}
	return data, nil
}

// transportMessage describes a failure that produced no HTTP response.
func transportMessage(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded) || (ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)):
		return "deadline exceeded"
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	msg := err.Error()
	// net/http prefixes errors with the method and URL; the URL holds no
	// key, but keep the message short.
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		msg = msg[i+2:]
	}
	return msg
}

// CheckStatus is the default response check: 2xx is success, anything else
// a failure classified by [StatusKind].
func CheckStatus(r *Response) *Error {
	if r.Status >= 200 && r.Status < 300 {
		return nil
	}
	return &Error{Kind: StatusKind(r.Status), Status: r.Status, Message: http.StatusText(r.Status)}
}

// StatusKind classifies an HTTP status by the common meaning providers give
// it. Backends refine it with their own status codes and body tags.
func StatusKind(status int) Kind {
	switch {
	case status >= 200 && status < 300:
		return ""
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return KindAuth
	case status == http.StatusPaymentRequired:
		return KindQuota
	case status == http.StatusTooManyRequests:
		return KindRateLimited
	case status == http.StatusRequestTimeout:
		return KindTransient
	case status == http.StatusNotImplemented:
		return KindUnknown
	case status >= 500:
		return KindTransient
	case status >= 400:
		return KindBadRequest
	}
	return KindUnknown
}

// ParseRetryAfter parses a Retry-After header value, in seconds or as an
// HTTP date relative to now. It returns 0 for an empty, invalid or past
// value.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || s > 86400 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// Message returns a short, single-line version of a provider's error
// message, cut to 200 characters, with every occurrence of the given
// secrets replaced by "[redacted]" ([textfmt.Scrub]: the one rule every
// frontend applies too). Backends use it for Error.Message.
func Message(msg string, secrets ...string) string {
	msg = textfmt.Scrub(msg, secrets...)
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > 200 {
		msg = string(r[:200]) + "…"
	}
	return msg
}
