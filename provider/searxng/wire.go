package searxng

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/lenient"
)

// This file decodes SearXNG's answers. The JSON of GET /search is
// {"query","results":[…],"answers":[…],"corrections":[…],"infoboxes":[…],
// "suggestions":[…],"unresponsive_engines":[[engine,message],…]}; older
// instances add "number_of_results", which is ignored. Results come from
// many engines and templates, so each is read tolerantly from a generic
// JSON object: a field of an unexpected type reads as empty, and only a
// body that is not a JSON object, or a "results" that is not a list, is
// malformed.

type object = lenient.Object

// jsonDisabled is the message of the 403 an instance answers when its
// settings.yml does not list json under search.formats.
const jsonDisabled = "the SearXNG instance does not serve JSON: enable the json format under search.formats in its settings.yml"

// checkStatus classifies a non-2xx answer; it returns nil for 2xx.
//
//	403  bad-request: the instance does not serve JSON (its only 403)
//	429  rate-limited: the instance's limiter (plain text, no Retry-After)
//	400  bad-request ({"error":"No query"}, invalid parameters)
//	500  transient ({"error":"search error"})
//
// Other statuses are classified by [provider.StatusKind].
func checkStatus(r *provider.Response) *provider.Error {
	if r.Status >= 200 && r.Status < 300 {
		return nil
	}
	e := &provider.Error{Kind: provider.StatusKind(r.Status), Status: r.Status}
	switch r.Status {
	case http.StatusForbidden:
		// Not auth: no key is involved, another attempt cannot succeed,
		// and only the instance's owner can fix it.
		e.Kind = provider.KindBadRequest
		e.Message = jsonDisabled
		return e
	case http.StatusTooManyRequests:
		e.Kind = provider.KindRateLimited
	}
	e.Message = errorMessage(r.Body)
	if e.Message == "" {
		e.Message = http.StatusText(r.Status)
	}
	return e
}

// errorMessage returns the message of an error body: the "error" of a JSON
// object, or a plain-text body's first line. HTML pages give "".
func errorMessage(body []byte) string {
	var m object
	if json.Unmarshal(body, &m) == nil && m != nil {
		return provider.Message(lenient.String(m["error"]))
	}
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] == '<' || t[0] == '{' || t[0] == '[' || !utf8.Valid(t) {
		return ""
	}
	line, _, _ := strings.Cut(string(t), "\n")
	return provider.Message(line)
}

// decodedSearch is a decoded 2xx answer of GET /search.
type decodedSearch struct {
	Results []provider.Result
	Answer  string
	// Unresponsive lists the engines that failed, as "engine (message)".
	Unresponsive []string
}

// decodeSearch decodes a 2xx /search body. A body with no results and a
// non-empty unresponsive_engines is a failure of kind
// [provider.KindTransient] naming the engines: every engine that could
// have answered failed, which is not the same as finding nothing. Results
// without a URL are dropped. The error it returns has no Provider, Op or
// Status; [provider.HTTP.Do] fills them in.
func decodeSearch(body []byte) (*decodedSearch, *provider.Error) {
	var m object
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		msg := "response is not a JSON object"
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '<' {
			msg += " but HTML (is base_url a SearXNG instance, and does it serve JSON?)"
		}
		return nil, malformed(msg)
	}
	var items []json.RawMessage
	if raw, ok := m["results"]; ok && !lenient.IsNull(raw) {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, malformed(`"results" is not a list`)
		}
	}
	d := &decodedSearch{
		Results:      []provider.Result{},
		Answer:       answer(m["answers"]),
		Unresponsive: unresponsive(m["unresponsive_engines"]),
	}
	if len(items) == 0 && len(d.Unresponsive) > 0 {
		return nil, &provider.Error{
			Kind:    provider.KindTransient,
			Message: provider.Message("no results, and these engines failed: " + strings.Join(d.Unresponsive, ", ")),
		}
	}
	for _, raw := range items {
		var it object
		if json.Unmarshal(raw, &it) != nil || it == nil {
			continue
		}
		r := provider.Result{
			URL:     lenient.String(it["url"]),
			Title:   lenient.String(it["title"]),
			Snippet: lenient.String(it["content"]),
		}
		if r.URL == "" {
			continue
		}
		if s, ok := lenient.Number(it["score"]); ok {
			r.Score = s
		}
		r.Published = lenient.ParseDate(lenient.String(it["publishedDate"]))
		if r.Published.IsZero() {
			r.Published = lenient.ParseDate(lenient.String(it["pubdate"]))
		}
		d.Results = append(d.Results, r)
	}
	return d, nil
}

// unresponsive reads unresponsive_engines, a list of [engine, message]
// pairs, as "engine (message)" strings. Items of another shape are read as
// far as they are strings.
func unresponsive(raw json.RawMessage) []string {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		var pair []json.RawMessage
		if json.Unmarshal(it, &pair) != nil {
			if s := lenient.String(it); s != "" {
				out = append(out, s)
			}
			continue
		}
		var parts []string
		for _, p := range pair {
			if s := lenient.String(p); s != "" {
				parts = append(parts, s)
			}
		}
		switch len(parts) {
		case 0:
			continue
		case 1:
			out = append(out, parts[0])
		default:
			out = append(out, fmt.Sprintf("%s (%s)", parts[0], strings.Join(parts[1:], ", ")))
		}
	}
	return out
}

// answer returns the first answer's text: an object's "answer" (current
// instances) or a string (older ones).
func answer(raw json.RawMessage) string {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	for _, it := range items {
		if s := lenient.String(it); s != "" {
			return s
		}
		var o object
		if json.Unmarshal(it, &o) == nil && o != nil {
			if s := lenient.String(o["answer"]); s != "" {
				return s
			}
		}
	}
	return ""
}

func malformed(msg string) *provider.Error {
	return &provider.Error{Kind: provider.KindUnknown, Message: "malformed response: " + msg}
}
