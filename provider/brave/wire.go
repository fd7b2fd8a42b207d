package brave

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
	"github.com/webgate-dev/webgate/provider/internal/lenient"
)

// searchResponse is the part of a web search answer the client reads.
// The other verticals (news, videos, mixed, …) are not decoded, so their
// shape never matters.
type searchResponse struct {
	Web *webSection `json:"web"`
}

// webSection is the "web" vertical; it is absent when there are no web
// results.
type webSection struct {
	Results []webResult `json:"results"`
}

type webResult struct {
	Title         text   `json:"title"`
	URL           text   `json:"url"`
	Description   text   `json:"description"`
	Age           text   `json:"age"`
	PageAge       text   `json:"page_age"`
	ExtraSnippets []text `json:"extra_snippets"`
}

// UnmarshalJSON reads an element of web.results that is not an object,
// or whose extra_snippets is not a list, as an empty entry, which the
// client skips, rather than failing the whole answer.
func (r *webResult) UnmarshalJSON(b []byte) error {
	type plain webResult
	var p plain
	if json.Unmarshal(b, &p) != nil {
		p = plain{}
		var bare struct {
			Title       text `json:"title"`
			URL         text `json:"url"`
			Description text `json:"description"`
			Age         text `json:"age"`
			PageAge     text `json:"page_age"`
		}
		if json.Unmarshal(b, &bare) == nil {
			p = plain{Title: bare.Title, URL: bare.URL, Description: bare.Description, Age: bare.Age, PageAge: bare.PageAge}
		}
	}
	*r = webResult(p)
	return nil
}

// UnmarshalJSON reads a "web" vertical that is null or not an object as
// absent; a results field that is present but not a list is an error.
func (w *webSection) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		*w = webSection{}
		return nil
	}
	type plain webSection
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*w = webSection(p)
	return nil
}

// decodeSearch decodes a web search answer. It fails only when the body is
// not a JSON object or web.results is not a list.
func decodeSearch(body []byte) (*searchResponse, error) {
	return lenient.Decode[searchResponse](body)
}

// errorEnvelope is Brave's error body:
// {"type":"ErrorResponse","error":{"id","status","code","detail","meta"},"time"}.
// The reference's examples print a list under "errors" instead; both are
// read.
type errorEnvelope struct {
	Type   text            `json:"type"`
	Error  json.RawMessage `json:"error"`
	Errors json.RawMessage `json:"errors"`
}

// errorDetail is one error of the envelope.
type errorDetail struct {
	ID     text `json:"id"`
	Code   text `json:"code"`
	Detail text `json:"detail"`
}

// detail returns the envelope's error: the "error" object, else the first
// object of the "errors" list.
func (e *errorEnvelope) detail() (errorDetail, bool) {
	var d errorDetail
	if len(e.Error) > 0 && json.Unmarshal(e.Error, &d) == nil && (d.Code != "" || d.Detail != "" || d.ID != "") {
		return d, true
	}
	var list []json.RawMessage
	if len(e.Errors) > 0 && json.Unmarshal(e.Errors, &list) == nil {
		for _, raw := range list {
			var d errorDetail
			if json.Unmarshal(raw, &d) == nil && (d.Code != "" || d.Detail != "" || d.ID != "") {
				return d, true
			}
		}
	}
	return errorDetail{}, false
}

// Brave's machine-readable error codes.
const (
	codeTokenInvalid         = "SUBSCRIPTION_TOKEN_INVALID"
	codeSubscriptionNotFound = "SUBSCRIPTION_NOT_FOUND"
	codeOptionNotInPlan      = "OPTION_NOT_IN_PLAN"
	codeRateLimited          = "RATE_LIMITED"
	codeQuotaLimited         = "QUOTA_LIMITED"
	codeCreditExhausted      = "CREDIT_EXHAUSTED"
)

// codeKind classifies an error by its code, whatever the status: Brave
// answers a bad key with 422 and both rate limiting and an exhausted quota
// with 429. It returns "" for codes that do not decide the kind.
func codeKind(code string) provider.Kind {
	switch code {
	case codeTokenInvalid, codeSubscriptionNotFound, codeOptionNotInPlan:
		return provider.KindAuth
	case codeRateLimited:
		return provider.KindRateLimited
	case codeQuotaLimited, codeCreditExhausted:
		return provider.KindQuota
	}
	return ""
}

// check classifies a Brave answer. A 2xx answer succeeds unless its body
// is an error envelope. Otherwise the error code decides the kind, and the
// status when the code is missing or says nothing more. A rate-limited
// answer without a usable Retry-After header waits for the shortest
// exhausted rate-limit window (see rateLimitWait).
func check(r *provider.Response) *provider.Error {
	ok := r.Status >= 200 && r.Status < 300
	var env errorEnvelope
	parsed := json.Unmarshal(r.Body, &env) == nil
	d, hasDetail := errorDetail{}, false
	if parsed {
		d, hasDetail = env.detail()
	}
	if ok && !(parsed && (string(env.Type) == "ErrorResponse" || hasDetail)) {
		return nil
	}
	secret := r.Key.Secret()
	code := strings.TrimSpace(string(d.Code))
	kind := codeKind(code)
	if kind == "" {
		if ok {
			kind = provider.KindUnknown
		} else {
			kind = provider.StatusKind(r.Status)
		}
	}
	msg := strings.TrimSpace(string(d.Detail))
	if msg == "" && ok {
		msg = "error in a successful response"
	} else if msg == "" {
		msg = backend.StatusText(r.Status)
	}
	e := &provider.Error{
		Kind:      kind,
		Tag:       provider.Message(code, secret),
		Message:   provider.Message(msg, secret),
		RequestID: provider.Message(string(d.ID), secret),
	}
	if kind == provider.KindRateLimited && provider.ParseRetryAfter(r.Header.Get("Retry-After"), time.Now()) == 0 {
		e.RetryAfter = rateLimitWait(r.Header)
	}
	return e
}

// maxReset bounds a reset time read from the rate-limit headers, so that
// absurd values cannot overflow a time.Duration; any wait this long ends
// the request at once anyway.
const maxReset = 400 * 24 * time.Hour

// rateLimitWait reads Brave's X-RateLimit-* headers, which hold one
// comma-separated value per window ("1, 15000": per second, per month),
// and returns the X-RateLimit-Reset of the shortest window whose
// X-RateLimit-Remaining is 0. Window lengths come from X-RateLimit-Policy
// ("1;w=1, 15000;w=2592000") when it gives one for every window, and
// otherwise from the documented order, shortest first. A window whose
// X-RateLimit-Limit is 0 is unlimited and never counts as exhausted. It
// returns 0 when no window is exhausted or the headers cannot be read.
func rateLimitWait(h http.Header) time.Duration {
	remaining := headerNumbers(h.Get("X-RateLimit-Remaining"))
	reset := headerNumbers(h.Get("X-RateLimit-Reset"))
	limits := headerNumbers(h.Get("X-RateLimit-Limit"))
	windows := policyWindows(h.Get("X-RateLimit-Policy"))
	usePolicy := len(windows) == len(remaining)
	for _, w := range windows {
		if !(w > 0) {
			usePolicy = false
		}
	}
	best, bestLen := -1, math.Inf(1)
	for i, rem := range remaining {
		if i >= len(reset) || rem != 0 || !(reset[i] > 0) {
			continue
		}
		if i < len(limits) && limits[i] == 0 {
			continue
		}
		length := float64(i)
		if usePolicy {
			length = windows[i]
		}
		if length < bestLen {
			best, bestLen = i, length
		}
	}
	if best < 0 {
		return 0
	}
	return lenient.Seconds(reset[best], maxReset)
}

// headerNumbers parses a comma-separated list of numbers; an entry that is
// not a finite number becomes NaN, so positions still line up.
func headerNumbers(v string) []float64 {
	return headerEntries(v, func(p string) float64 {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsInf(f, 0) || f < 0 {
			return math.NaN()
		}
		return f
	})
}

// policyWindows reads the window length, in seconds, of each entry of an
// X-RateLimit-Policy header ("15000;w=2592000"); an entry without a
// readable w parameter gives NaN.
func policyWindows(v string) []float64 {
	return headerEntries(v, func(p string) float64 {
		w := math.NaN()
		for _, param := range strings.Split(p, ";")[1:] {
			name, val, ok := strings.Cut(strings.TrimSpace(param), "=")
			if !ok || strings.TrimSpace(name) != "w" {
				continue
			}
			if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil && f > 0 && !math.IsInf(f, 0) {
				w = f
			}
		}
		return w
	})
}

// headerEntries reads each comma-separated entry of the header value v
// with read, in order, so that the entries of the rate-limit headers line
// up; nil for a blank v.
func headerEntries(v string, read func(entry string) float64) []float64 {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	parts := strings.Split(v, ",")
	out := make([]float64, len(parts))
	for i, p := range parts {
		out[i] = read(p)
	}
	return out
}

// text is a string field read leniently ([lenient.Text]), so that an
// unexpected type in a field the client reads never fails the search.
type text = lenient.Text
