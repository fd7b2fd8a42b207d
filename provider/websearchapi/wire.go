package websearchapi

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

// This file decodes WebSearchAPI.ai responses. Almost nothing about them is
// published, so every decoder is tolerant: it reads the fields it knows
// from a generic JSON object, accepts numbers written as strings and null
// anywhere, ignores unknown fields, and never trusts a 200 that carries an
// error.

type object = map[string]json.RawMessage

// statusKind classifies an HTTP status, or a status-like "code" in a body,
// for one operation. For /scrape, statuses that describe the target page
// (404, 410, 415, 422, 451) mean the URL cannot be extracted; for
// /ai-search they can only mean the request was wrong.
func statusKind(op string, status int) provider.Kind {
	switch status {
	case http.StatusBadRequest:
		return provider.KindBadRequest
	case http.StatusUnauthorized, http.StatusForbidden:
		return provider.KindAuth
	case http.StatusPaymentRequired:
		return provider.KindQuota
	case http.StatusTooManyRequests:
		return provider.KindRateLimited
	case http.StatusNotFound, http.StatusGone, http.StatusUnsupportedMediaType,
		http.StatusUnprocessableEntity, http.StatusUnavailableForLegalReasons:
		if op == opExtract {
			return provider.KindUnsupported
		}
		return provider.KindBadRequest
	}
	return provider.StatusKind(status)
}

// checkStatus classifies a non-2xx response; it returns nil for 2xx. The
// kind comes from the status alone; the body only supplies the message.
func checkStatus(r *provider.Response, op string) *provider.Error {
	if r.Status >= 200 && r.Status < 300 {
		return nil
	}
	e := &provider.Error{Kind: statusKind(op, r.Status), Status: r.Status}
	var m object
	if json.Unmarshal(r.Body, &m) == nil && m != nil {
		e.Message = envelopeMessage(m)
		e.Tag = envelopeTag(m)
		e.RequestID = str(m["requestId"], m["request_id"])
	}
	if e.Message == "" {
		e.Message = http.StatusText(r.Status)
	}
	return scrub(e, r.Key)
}

// decodeSearch decodes a 2xx /ai-search body:
//
//	{"searchParameters":{…},"organic":[{"title","url","description","content"?,
//	  "position","score"?,"date"?}],"answer"?,"responseTime"?}
//
// A missing or null "organic" is an empty result list, unless the body
// carries an error or a message instead. Hits without a URL are dropped.
// The error it returns has no Provider, Op or Status; [provider.HTTP.Do]
// fills them in.
func decodeSearch(body []byte, now time.Time) (*provider.Results, *provider.Error) {
	m, e := decodeObject(body)
	if e != nil {
		return nil, e
	}
	var items []json.RawMessage
	raw, ok := m["organic"]
	hasPayload := ok && !isNull(raw)
	if hasPayload {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, malformed(`"organic" is not a list`)
		}
	}
	if e := bodyFailure(m, opSearch, hasPayload); e != nil {
		return nil, e
	}
	res := &provider.Results{
		Answer:    str(m["answer"]),
		RequestID: str(m["requestId"], m["request_id"]),
		Results:   []provider.Result{},
	}
	for i, raw := range items {
		var it object
		if json.Unmarshal(raw, &it) != nil || it == nil {
			continue
		}
		r := provider.Result{
			URL:     str(it["url"], it["link"]),
			Title:   str(it["title"]),
			Snippet: str(it["description"], it["snippet"]),
			Content: str(it["content"]),
		}
		if r.URL == "" {
			continue
		}
		if s, ok := num(it["score"]); ok {
			r.Score = s
		} else if p, ok := num(it["position"]); ok && p >= 1 {
			r.Score = 1 / p
		} else {
			r.Score = 1 / float64(i+1)
		}
		r.Published = parseDate(it["date"], now)
		if r.Published.IsZero() {
			r.Published = parseDate(it["publishedDate"], now)
		}
		res.Results = append(res.Results, r)
	}
	return res, nil
}

// decodeScrape decodes a 2xx /scrape body:
//
//	{"code":200,"data":{"title":"…","url":"…","content":"…"}}
//
// The content is data.content, else data.text; when "data" is absent the
// same fields are read from the top level, and a string "data" is the
// content itself. Empty content is a failure of kind
// [provider.KindUnsupported]; a status-like "code" outside 2xx is
// classified as if it were the HTTP status.
func decodeScrape(body []byte) (*provider.Page, *provider.Error) {
	m, e := decodeObject(body)
	if e != nil {
		return nil, e
	}
	p := &provider.Page{RequestID: str(m["requestId"], m["request_id"])}
	data := m
	if raw, ok := m["data"]; ok && !isNull(raw) {
		var d object
		if json.Unmarshal(raw, &d) == nil && d != nil {
			data = d
		} else if s := str(raw); s != "" {
			data = object{"content": raw}
		} else {
			data = object{}
		}
	}
	p.Content = str(data["content"], data["text"])
	p.Title = str(data["title"])
	p.URL = str(data["url"])
	if e := bodyFailure(m, opExtract, p.Content != ""); e != nil {
		return nil, e
	}
	if p.Content == "" {
		msg := envelopeMessage(m)
		if msg == "" {
			msg = "no content returned for the URL"
		}
		return nil, &provider.Error{Kind: provider.KindUnsupported, Message: msg}
	}
	return p, nil
}

func decodeObject(body []byte) (object, *provider.Error) {
	var m object
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, malformed("response is not a JSON object")
	}
	return m, nil
}

func malformed(msg string) *provider.Error {
	return &provider.Error{Kind: provider.KindUnknown, Message: "malformed response: " + msg}
}

// bodyFailure reports the error a 2xx body carries, or nil. A body fails
// when it has a non-empty "error", "success": false, or a status-like code
// outside 2xx, or when it has no payload but a message. The kind comes from
// that code when there is one (classified like an HTTP status), and is
// [provider.KindUnknown] otherwise: message text is never interpreted.
func bodyFailure(m object, op string, hasPayload bool) *provider.Error {
	code := bodyCode(m)
	msg := envelopeMessage(m)
	var success bool
	successFalse := json.Unmarshal(m["success"], &success) == nil && !success
	failed := hasError(m) || successFalse || (code != 0 && (code < 200 || code > 299)) || (!hasPayload && msg != "")
	if !failed {
		return nil
	}
	e := &provider.Error{Kind: provider.KindUnknown, Tag: envelopeTag(m)}
	if code >= 400 {
		e.Kind = statusKind(op, code)
	}
	if msg == "" {
		msg = "the response reports an error"
	}
	if code != 0 && (code < 200 || code > 299) {
		msg = fmt.Sprintf("code %d: %s", code, msg)
	}
	e.Message = msg
	return e
}

// bodyCode returns the first status-like code in the body ("code",
// "status", "statusCode", or the same inside an "error" object) that lies
// in 100..599, or 0. Other values ("status":20000, "code":"OK") are not
// HTTP statuses and are ignored.
func bodyCode(m object) int {
	sources := []object{m}
	var inner object
	if json.Unmarshal(m["error"], &inner) == nil && inner != nil {
		sources = append(sources, inner)
	}
	for _, o := range sources {
		for _, k := range []string{"code", "status", "statusCode"} {
			if f, ok := num(o[k]); ok && f == math.Trunc(f) && f >= 100 && f <= 599 {
				return int(f)
			}
		}
	}
	return 0
}

// hasError reports whether the body's "error" field is set to something
// other than null, false, "", {} or [].
func hasError(m object) bool {
	raw, ok := m["error"]
	if !ok {
		return false
	}
	switch t := string(bytes.TrimSpace(raw)); t {
	case "", "null", "false", `""`, "{}", "[]":
		return false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s) != ""
	}
	var o object
	if json.Unmarshal(raw, &o) == nil {
		return len(o) > 0
	}
	var a []json.RawMessage
	if json.Unmarshal(raw, &a) == nil {
		return len(a) > 0
	}
	return true
}

// envelopeMessage returns the provider's error message: "error" as a
// string or as an object's "message"/"error"/"detail", else "message",
// else "detail".
func envelopeMessage(m object) string {
	if s := str(m["error"]); s != "" {
		return s
	}
	var inner object
	if json.Unmarshal(m["error"], &inner) == nil && inner != nil {
		if s := str(inner["message"], inner["error"], inner["detail"]); s != "" {
			return s
		}
	}
	if s := str(m["message"], m["detail"]); s != "" {
		return s
	}
	var detail object
	if json.Unmarshal(m["detail"], &detail) == nil && detail != nil {
		return str(detail["message"], detail["error"])
	}
	return ""
}

// envelopeTag returns a machine-readable error tag when the body has one:
// a string "tag", or a string "code"/"type" inside an "error" object.
func envelopeTag(m object) string {
	if s := str(m["tag"]); s != "" {
		return provider.Message(s)
	}
	var inner object
	if json.Unmarshal(m["error"], &inner) == nil && inner != nil {
		if s := str(inner["code"], inner["type"]); s != "" {
			return provider.Message(s)
		}
	}
	return ""
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// str returns the first of raws that is a non-blank JSON string, trimmed;
// other JSON types are ignored.
func str(raws ...json.RawMessage) string {
	for _, raw := range raws {
		if len(raw) == 0 {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if s = strings.TrimSpace(s); s != "" {
				return s
			}
		}
	}
	return ""
}

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

// dateLayouts are the absolute date forms seen in search results: ISO 8601
// variants, RFC 1123/822 (HTTP and feed dates) and the short English forms
// search engines print ("Mar 5, 2024").
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04:05 -0700 MST",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02",
	"2006.01.02",
	"20060102",
	time.RFC1123Z,
	time.RFC1123,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	time.RFC850,
	time.RFC822Z,
	time.RFC822,
	time.ANSIC,
	time.UnixDate,
	"Jan 2, 2006",
	"January 2, 2006",
	"Jan 2 2006",
	"January 2 2006",
	"Mon, Jan 2, 2006",
	"Monday, January 2, 2006",
	"2 Jan 2006",
	"2 January 2006",
	"2 Jan, 2006",
	"Jan 2006",
	"January 2006",
	"2006-01",
}

var relativeDate = regexp.MustCompile(`^(\d{1,4}|an?)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago$`)

// parseDate parses a result's date: any of dateLayouts, a relative date
// ("3 days ago", "yesterday") counted back from now, or a Unix time in
// seconds or milliseconds. It returns the zero time for anything else,
// and for dates before 1970 or more than two days after now.
func parseDate(raw json.RawMessage, now time.Time) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	var t time.Time
	var s string
	if json.Unmarshal(raw, &s) == nil {
		t = parseDateString(strings.TrimSpace(s), now)
	} else if f, ok := num(raw); ok {
		t = unixTime(f)
	}
	if t.IsZero() || t.Year() < 1970 || t.After(now.Add(48*time.Hour)) {
		return time.Time{}
	}
	return t.UTC()
}

func parseDateString(s string, now time.Time) time.Time {
	if s == "" || len(s) > 64 {
		return time.Time{}
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t
		}
	}
	lower := strings.ToLower(s)
	switch lower {
	case "today", "just now":
		return now
	case "yesterday":
		return now.Add(-24 * time.Hour)
	}
	if m := relativeDate.FindStringSubmatch(lower); m != nil {
		n := 1
		if m[1] != "a" && m[1] != "an" {
			n, _ = strconv.Atoi(m[1])
		}
		var unit time.Duration
		switch u := strings.TrimSuffix(m[2], "s"); u {
		case "second", "sec":
			unit = time.Second
		case "minute", "min":
			unit = time.Minute
		case "hour", "hr":
			unit = time.Hour
		case "day":
			unit = 24 * time.Hour
		case "week":
			unit = 7 * 24 * time.Hour
		case "month":
			unit = 30 * 24 * time.Hour
		case "year":
			unit = 365 * 24 * time.Hour
		}
		if float64(n)*float64(unit) > float64(200*365*24*time.Hour) {
			return time.Time{} // would overflow time.Duration
		}
		return now.Add(-time.Duration(n) * unit)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && len(s) >= 9 {
		return unixTime(f)
	}
	return time.Time{}
}

// unixTime reads f as Unix seconds, or milliseconds when it is too large
// to be seconds.
func unixTime(f float64) time.Time {
	if f <= 0 || f > 1e15 {
		return time.Time{}
	}
	if f > 1e11 {
		return time.UnixMilli(int64(f))
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9))
}
