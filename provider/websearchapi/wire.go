package websearchapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/lenient"
)

// This file decodes WebSearchAPI.ai responses. Almost nothing about them is
// published, so every decoder is tolerant: it reads the fields it knows
// from a generic JSON object, accepts numbers written as strings and null
// anywhere, ignores unknown fields, and never trusts a 200 that carries an
// error.

type object = lenient.Object

// statusKind classifies an HTTP status, or a status-like "code" in a body,
// for one operation. For /scrape, statuses that describe the target page
// (404, 410, 415, 422, 451) mean the URL cannot be extracted; for
// /ai-search they can only mean the request was wrong.
func statusKind(op string, status int) provider.Kind {
	switch status {
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
		e.RequestID = lenient.String(m["requestId"], m["request_id"])
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
	hasPayload := ok && !lenient.IsNull(raw)
	if hasPayload {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, malformed(`"organic" is not a list`)
		}
	}
	if e := bodyFailure(m, opSearch, hasPayload); e != nil {
		return nil, e
	}
	res := &provider.Results{
		Answer:    lenient.String(m["answer"]),
		RequestID: lenient.String(m["requestId"], m["request_id"]),
		Results:   []provider.Result{},
	}
	for i, raw := range items {
		var it object
		if json.Unmarshal(raw, &it) != nil || it == nil {
			continue
		}
		r := provider.Result{
			URL:     lenient.String(it["url"], it["link"]),
			Title:   lenient.String(it["title"]),
			Snippet: lenient.String(it["description"], it["snippet"]),
			Content: lenient.String(it["content"]),
		}
		if r.URL == "" {
			continue
		}
		if s, ok := lenient.Number(it["score"]); ok {
			r.Score = s
		} else if p, ok := lenient.Number(it["position"]); ok && p >= 1 {
			r.Score = 1 / p
		} else {
			r.Score = 1 / float64(i+1)
		}
		r.Published = lenient.DateAt(it["date"], now)
		if r.Published.IsZero() {
			r.Published = lenient.DateAt(it["publishedDate"], now)
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
	p := &provider.Page{RequestID: lenient.String(m["requestId"], m["request_id"])}
	data := m
	if raw, ok := m["data"]; ok && !lenient.IsNull(raw) {
		var d object
		if json.Unmarshal(raw, &d) == nil && d != nil {
			data = d
		} else if s := lenient.String(raw); s != "" {
			data = object{"content": raw}
		} else {
			data = object{}
		}
	}
	p.Content = lenient.String(data["content"], data["text"])
	p.Title = lenient.String(data["title"])
	p.URL = lenient.String(data["url"])
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
			if f, ok := lenient.Number(o[k]); ok && f == math.Trunc(f) && f >= 100 && f <= 599 {
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
	if s := lenient.String(m["error"]); s != "" {
		return s
	}
	var inner object
	if json.Unmarshal(m["error"], &inner) == nil && inner != nil {
		if s := lenient.String(inner["message"], inner["error"], inner["detail"]); s != "" {
			return s
		}
	}
	if s := lenient.String(m["message"], m["detail"]); s != "" {
		return s
	}
	var detail object
	if json.Unmarshal(m["detail"], &detail) == nil && detail != nil {
		return lenient.String(detail["message"], detail["error"])
	}
	return ""
}

// envelopeTag returns a machine-readable error tag when the body has one:
// a string "tag", or a string "code"/"type" inside an "error" object.
func envelopeTag(m object) string {
	if s := lenient.String(m["tag"]); s != "" {
		return provider.Message(s)
	}
	var inner object
	if json.Unmarshal(m["error"], &inner) == nil && inner != nil {
		if s := lenient.String(inner["code"], inner["type"]); s != "" {
			return provider.Message(s)
		}
	}
	return ""
}
