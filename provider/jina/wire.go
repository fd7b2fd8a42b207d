package jina

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/lenient"
)

// This file decodes Jina's answers. Successful JSON answers are the
// envelope {"code":200,"status":20000,"data":…,"meta":{"usage":…}}, with
// "data" an object for the reader and a list for search. Errors are
// civkit's envelope {"data":null,"code":<http>,"name":"<Class>",
// "status":<5 digits>,"message":…,"readableMessage":…}, sometimes
// delivered with HTTP 200. Fields are read from generic JSON objects: a
// field of an unexpected type reads as empty.

type object = lenient.Object

// Jina error class names that change a status's usual meaning.
const (
	nameAssertionFailure = "AssertionFailureError"
	nameBudgetExceeded   = "BudgetExceededError"
	nameLockConflict     = "LockConflictError"
	// Jina's upstream (a search engine, a scraping node) failed: 422.
	nameDownstreamFailure = "DownstreamServiceFailureError"
	nameExternalFailure   = "ExternalServiceFailureError"
)

// statusKind classifies an HTTP status, or the code of an error envelope,
// for one operation. Statuses that describe the target page (409 budget,
// 413, 422, 451) mean the URL cannot be extracted; for search they mean
// the request was wrong. A 422 that names a failure of Jina's own upstream
// is transient.
func statusKind(op string, status int, name string) provider.Kind {
	page := func() provider.Kind {
		if op == opExtract {
			return provider.KindUnsupported
		}
		return provider.KindBadRequest
	}
	switch status {
	case http.StatusConflict:
		switch name {
		case nameBudgetExceeded:
			return page()
		case nameLockConflict:
			return provider.KindTransient
		}
		return provider.KindBadRequest
	case http.StatusUnprocessableEntity:
		if name == nameDownstreamFailure || name == nameExternalFailure {
			return provider.KindTransient
		}
		return page()
	case http.StatusRequestEntityTooLarge, http.StatusUnavailableForLegalReasons:
		return page()
	}
	return provider.StatusKind(status)
}

// envelope is the part of an error envelope the classification reads.
type envelope struct {
	code    int
	name    string
	message string
	// retryAfter is the body's retryAfter (seconds) or retryAfterDate.
	retryAfter time.Duration
}

// readEnvelope reads the error envelope fields of m. code is the body's
// "code" when it is an HTTP status, else the first three digits of a
// five-digit "status" (42903 → 429), else 0.
func readEnvelope(m object, now time.Time) envelope {
	e := envelope{name: lenient.String(m["name"])}
	if f, ok := lenient.Number(m["code"]); ok && f == math.Trunc(f) && f >= 100 && f <= 599 {
		e.code = int(f)
	} else if f, ok := lenient.Number(m["status"]); ok && f == math.Trunc(f) && f >= 10000 && f <= 59999 {
		e.code = int(f) / 100
	}
	e.message = lenient.String(m["message"])
	if e.message == "" {
		e.message = lenient.String(m["readableMessage"])
	}
	if s, ok := lenient.Number(m["retryAfter"]); ok && s > 0 && s <= 86400 {
		e.retryAfter = time.Duration(s * float64(time.Second))
	} else if d := lenient.String(m["retryAfterDate"]); d != "" {
		if t, err := time.Parse(time.RFC3339Nano, d); err == nil && t.After(now) {
			e.retryAfter = t.Sub(now)
		}
	}
	return e
}

// failed reports whether a 2xx body is an error envelope: it names an
// error class, or carries an error code.
func (e envelope) failed() bool {
	return e.code >= 400 || strings.HasSuffix(e.name, "Error")
}

// failure turns an error envelope into an error; status is the HTTP status
// when the envelope came with a non-2xx answer, and 0 for a 2xx one.
func (e envelope) failure(op string, status int) *provider.Error {
	code := status
	if code == 0 {
		code = e.code
	}
	kind := provider.KindUnknown
	if code >= 300 {
		kind = statusKind(op, code, e.name)
	}
	msg := e.message
	if msg == "" {
		msg = http.StatusText(code)
	}
	if msg == "" {
		msg = "the response reports an error"
	}
	if status == 0 && e.code != 0 {
		msg = fmt.Sprintf("code %d: %s", e.code, msg)
	}
	return &provider.Error{
		Kind:       kind,
		Tag:        provider.Message(e.name),
		Message:    provider.Message(msg),
		RetryAfter: e.retryAfter,
	}
}

// checkStatus classifies a non-2xx answer; it returns nil for 2xx. The
// kind comes from the status and, where [statusKind] says so, the error
// class name; the body supplies the message, the class name as the tag,
// and a wait (retryAfter, retryAfterDate) when the Retry-After header has
// none.
func checkStatus(r *provider.Response, op string) *provider.Error {
	if r.Status >= 200 && r.Status < 300 {
		return nil
	}
	now := time.Now()
	var m object
	if json.Unmarshal(r.Body, &m) != nil {
		m = nil
	}
	e := readEnvelope(m, now).failure(op, r.Status)
	if ra := provider.ParseRetryAfter(r.Header.Get("Retry-After"), now); ra > 0 {
		e.RetryAfter = ra
	}
	return scrub(e, r.Key)
}

// noResults reports whether a 422 search answer is Jina's "No search
// results available for query …", which is an empty result, not a
// failure: an AssertionFailureError envelope.
func noResults(body []byte) bool {
	var m object
	if json.Unmarshal(body, &m) != nil || m == nil {
		return false
	}
	return lenient.String(m["name"]) == nameAssertionFailure
}

// scrub removes k's value from every text field of e that comes from the
// response body.
func scrub(e *provider.Error, k provider.Key) *provider.Error {
	e.Message = provider.Message(e.Message, k.Secret())
	e.Tag = provider.Message(e.Tag, k.Secret())
	return e
}

// targetFailed matches the warning lines that mean the reader did not get
// the page: the target answered an error status, or a CAPTCHA.
var targetFailed = regexp.MustCompile(`^(Target URL returned error \d{3}\b.*|This page maybe requiring CAPTCHA\b.*)$`)

// decodeReader decodes a 2xx reader body:
//
//	{"code":200,"status":20000,"data":{"title","description","url",
//	  "content"|"text"|"html","publishedTime"?,"warning"?,"usage":{…}},"meta":{…}}
//
// The content is data.content for the "content" and "markdown" formats,
// data.text for "text" and data.html for "html". A warning line that says
// the target failed ("Target URL returned error 404: Not Found", or a
// CAPTCHA) is a failure of kind [provider.KindUnsupported], whatever the
// content; so is empty content. An error envelope is classified by its
// code. A body that is not JSON but the reader's text layout
// ("Title: …", "URL Source: …", "Markdown Content:") is read too.
func decodeReader(body []byte, respondWith string) (*provider.Page, *provider.Error) {
	var m object
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		if p, ok := decodeReaderText(body); ok && respondWith != "text" && respondWith != "html" {
			return checkPage(p.page, p.warnings)
		}
		return nil, malformed("response is not a JSON object")
	}
	if env := readEnvelope(m, time.Now()); env.failed() {
		return nil, env.failure(opExtract, 0)
	}
	raw, ok := m["data"]
	if !ok || lenient.IsNull(raw) {
		return nil, &provider.Error{Kind: provider.KindUnsupported, Message: "no content returned for the URL"}
	}
	var d object
	if json.Unmarshal(raw, &d) != nil || d == nil {
		return nil, malformed(`"data" is not an object`)
	}
	field := "content"
	switch respondWith {
	case "text":
		field = "text"
	case "html":
		field = "html"
	}
	p := &provider.Page{
		URL:     lenient.String(d["url"]),
		Title:   lenient.String(d["title"]),
		Content: strings.TrimSpace(lenient.RawString(d[field])),
	}
	if n, ok := tokensOf(d); ok {
		p.Usage = &provider.Usage{Tokens: n}
	} else if n, ok := usageTokens(m["meta"]); ok {
		p.Usage = &provider.Usage{Tokens: n}
	}
	return checkPage(p, strings.Split(lenient.RawString(d["warning"]), "\n"))
}

// checkPage fails a decoded page whose warnings say the target failed, or
// whose content is empty.
func checkPage(p *provider.Page, warnings []string) (*provider.Page, *provider.Error) {
	for _, w := range warnings {
		if w = strings.TrimSpace(w); targetFailed.MatchString(w) {
			return nil, &provider.Error{Kind: provider.KindUnsupported, Message: provider.Message(w)}
		}
	}
	if p.Content == "" {
		return nil, &provider.Error{Kind: provider.KindUnsupported, Message: "no content returned for the URL"}
	}
	return p, nil
}

type textPage struct {
	page     *provider.Page
	warnings []string
}

// decodeReaderText reads the reader's text layout:
//
//	Title: …
//
//	URL Source: …
//	Published Time: …
//	Warning: …
//	Markdown Content:
//	…
//
// It reports false when the body has no "Markdown Content:" line.
func decodeReaderText(body []byte) (textPage, bool) {
	text := strings.ReplaceAll(string(body), "\r\n", "\n")
	head, content, ok := strings.Cut(text, "Markdown Content:\n")
	if !ok {
		if head, ok = strings.CutSuffix(strings.TrimRight(text, "\n "), "Markdown Content:"); !ok {
			return textPage{}, false
		}
	}
	if head != "" && !strings.HasSuffix(head, "\n") {
		return textPage{}, false // the marker must start a line
	}
	tp := textPage{page: &provider.Page{Content: strings.TrimSpace(content)}}
	for _, line := range strings.Split(head, "\n") {
		switch {
		case strings.HasPrefix(line, "Title: "):
			tp.page.Title = strings.TrimSpace(strings.TrimPrefix(line, "Title: "))
		case strings.HasPrefix(line, "URL Source: "):
			tp.page.URL = strings.TrimSpace(strings.TrimPrefix(line, "URL Source: "))
		case strings.HasPrefix(line, "Warning: "):
			tp.warnings = append(tp.warnings, strings.TrimPrefix(line, "Warning: "))
		}
	}
	return tp, true
}

// decodeSearch decodes a 2xx search body:
//
//	{"code":200,"status":20000,"data":[{"title","url","description",
//	  "content"?,"date"?,"favicon"?,"usage":{…}}],"meta":{…}}
//
// A missing or null "data" is an empty result; an error envelope is
// classified by its code (an AssertionFailureError, Jina's "No search
// results", is an empty result). Hits without a URL are dropped. Jina
// sends no score, so Result.Score is 1/rank (1, 0.5, 0.33, …).
func decodeSearch(body []byte, now time.Time) (*provider.Results, *provider.Error) {
	var m object
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, malformed("response is not a JSON object")
	}
	res := &provider.Results{Results: []provider.Result{}}
	if env := readEnvelope(m, now); env.failed() {
		if env.name == nameAssertionFailure && (env.code == 0 || env.code == http.StatusUnprocessableEntity) {
			return res, nil
		}
		return nil, env.failure(opSearch, 0)
	}
	var items []json.RawMessage
	if raw, ok := m["data"]; ok && !lenient.IsNull(raw) {
		if json.Unmarshal(raw, &items) != nil {
			return nil, malformed(`"data" is not a list`)
		}
	}
	var hitTokens int64
	var hitsReport bool
	for _, raw := range items {
		var it object
		if json.Unmarshal(raw, &it) != nil || it == nil {
			continue
		}
		if n, ok := tokensOf(it); ok {
			hitTokens, hitsReport = hitTokens+n, true
		}
		r := provider.Result{
			URL:       lenient.String(it["url"]),
			Title:     lenient.String(it["title"]),
			Snippet:   lenient.String(it["description"]),
			Content:   strings.TrimSpace(lenient.RawString(it["content"])),
			Published: lenient.ParseDateAt(lenient.String(it["date"]), now),
		}
		if r.URL == "" {
			continue
		}
		r.Score = 1 / float64(len(res.Results)+1)
		res.Results = append(res.Results, r)
	}
	if n, ok := usageTokens(m["meta"]); ok {
		res.Usage = &provider.Usage{Tokens: n}
	} else if hitsReport {
		res.Usage = &provider.Usage{Tokens: hitTokens}
	}
	return res, nil
}

// maxTokens bounds a token count read from an answer, so that sums stay
// far from overflowing.
const maxTokens = 1 << 50

// usageTokens reads "usage.tokens" of the JSON object raw (the envelope's
// meta): a whole, non-negative number.
func usageTokens(raw json.RawMessage) (int64, bool) {
	var o object
	if json.Unmarshal(raw, &o) != nil || o == nil {
		return 0, false
	}
	return tokensOf(o)
}

// tokensOf reads "usage.tokens" of the decoded object o (the reader's
// data, a search hit): a whole, non-negative number.
func tokensOf(o object) (int64, bool) {
	var u object
	if json.Unmarshal(o["usage"], &u) != nil || u == nil {
		return 0, false
	}
	f, ok := lenient.Number(u["tokens"])
	if !ok || f < 0 || f > maxTokens || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// headerTokens reads the X-Usage-Tokens header the reader sends with its
// text answers.
func headerTokens(h http.Header) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-Usage-Tokens")), 10, 64)
	if err != nil || n < 0 || n > maxTokens {
		return 0, false
	}
	return n, true
}

func malformed(msg string) *provider.Error {
	return &provider.Error{Kind: provider.KindUnknown, Message: "malformed response: " + msg}
}
