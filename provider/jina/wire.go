package jina

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// This file decodes Jina's answers. Successful JSON answers are the
// envelope {"code":200,"status":20000,"data":…,"meta":{"usage":…}}, with
// "data" an object for the reader and a list for search. Errors are
// civkit's envelope {"data":null,"code":<http>,"name":"<Class>",
// "status":<5 digits>,"message":…,"readableMessage":…}, sometimes
// delivered with HTTP 200. Fields are read from generic JSON objects: a
// field of an unexpected type reads as empty.

type object = map[string]json.RawMessage

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
	case http.StatusBadRequest:
		return provider.KindBadRequest
	case http.StatusUnauthorized, http.StatusForbidden:
		return provider.KindAuth
	case http.StatusPaymentRequired:
		return provider.KindQuota
	case http.StatusTooManyRequests:
		return provider.KindRateLimited
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
	e := envelope{name: str(m["name"])}
	if f, ok := num(m["code"]); ok && f == math.Trunc(f) && f >= 100 && f <= 599 {
		e.code = int(f)
	} else if f, ok := num(m["status"]); ok && f == math.Trunc(f) && f >= 10000 && f <= 59999 {
		e.code = int(f) / 100
	}
	e.message = str(m["message"])
	if e.message == "" {
		e.message = str(m["readableMessage"])
	}
	if s, ok := num(m["retryAfter"]); ok && s > 0 && s <= 86400 {
		e.retryAfter = time.Duration(s * float64(time.Second))
	} else if d := str(m["retryAfterDate"]); d != "" {
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
	return str(m["name"]) == nameAssertionFailure
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
	if !ok || isNull(raw) {
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
		URL:     str(d["url"]),
		Title:   str(d["title"]),
		Content: strings.TrimSpace(rawStr(d[field])),
	}
	if n, ok := tokensOf(d); ok {
		p.Usage = &provider.Usage{Tokens: n}
	} else if n, ok := usageTokens(m["meta"]); ok {
		p.Usage = &provider.Usage{Tokens: n}
	}
	return checkPage(p, strings.Split(rawStr(d["warning"]), "\n"))
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
	if raw, ok := m["data"]; ok && !isNull(raw) {
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
			URL:       str(it["url"]),
			Title:     str(it["title"]),
			Snippet:   str(it["description"]),
			Content:   strings.TrimSpace(rawStr(it["content"])),
			Published: parseDate(str(it["date"]), now),
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
	f, ok := num(u["tokens"])
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

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// rawStr returns raw as a string when it is a JSON string, untrimmed, and
// "" otherwise.
func rawStr(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// str returns raw as a trimmed string when it is a JSON string, and ""
// otherwise.
func str(raw json.RawMessage) string { return strings.TrimSpace(rawStr(raw)) }

// num reads a finite number written as a JSON number or a numeric string.
func num(raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return 0, false
		}
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// dateLayouts are the absolute forms of a search hit's "date": ISO 8601
// and the short English dates search engines print ("Mar 5, 2024").
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05",
	"2006-01-02",
	"Jan 2, 2006",
	"January 2, 2006",
	"2 Jan 2006",
	"2 January 2006",
	time.RFC1123Z,
	time.RFC1123,
}

var relativeDate = regexp.MustCompile(`^(\d{1,4}|an?)\s*(minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago$`)

// parseDate parses a search hit's date: an absolute form, or a relative
// one ("3 days ago") counted back from now. It returns the zero time for
// anything else, and for dates before 1970 or more than two days after
// now.
func parseDate(s string, now time.Time) time.Time {
	if s == "" || len(s) > 64 {
		return time.Time{}
	}
	var t time.Time
	for _, l := range dateLayouts {
		if p, err := time.Parse(l, s); err == nil {
			t = p
			break
		}
	}
	if t.IsZero() {
		if m := relativeDate.FindStringSubmatch(strings.ToLower(s)); m != nil {
			n := 1
			if m[1] != "a" && m[1] != "an" {
				n, _ = strconv.Atoi(m[1])
			}
			unit := map[string]time.Duration{
				"minute": time.Minute, "min": time.Minute, "hour": time.Hour, "hr": time.Hour,
				"day": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour, "year": 365 * 24 * time.Hour,
			}[strings.TrimSuffix(m[2], "s")]
			if float64(n)*float64(unit) < float64(100*365*24*time.Hour) {
				t = now.Add(-time.Duration(n) * unit)
			}
		}
	}
	if t.IsZero() || t.Year() < 1970 || t.After(now.Add(48*time.Hour)) {
		return time.Time{}
	}
	return t.UTC()
}
