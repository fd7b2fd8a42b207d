package tavily

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
	"github.com/webgate-dev/webgate/provider/internal/lenient"
)

// searchRequest is the body of POST /search.
type searchRequest struct {
	Query             string   `json:"query"`
	SearchDepth       string   `json:"search_depth,omitempty"`
	Topic             string   `json:"topic,omitempty"`
	MaxResults        int      `json:"max_results"`
	ChunksPerSource   int      `json:"chunks_per_source,omitempty"`
	TimeRange         string   `json:"time_range,omitempty"`
	IncludeDomains    []string `json:"include_domains,omitempty"`
	ExcludeDomains    []string `json:"exclude_domains,omitempty"`
	Country           string   `json:"country,omitempty"`
	IncludeAnswer     string   `json:"include_answer,omitempty"`
	IncludeRawContent string   `json:"include_raw_content,omitempty"`
	IncludeUsage      bool     `json:"include_usage"`
}

// extractRequest is the body of POST /extract.
type extractRequest struct {
	URLs            []string `json:"urls"`
	Format          string   `json:"format,omitempty"`
	ExtractDepth    string   `json:"extract_depth,omitempty"`
	Query           string   `json:"query,omitempty"`
	ChunksPerSource int      `json:"chunks_per_source,omitempty"`
	Timeout         float64  `json:"timeout,omitempty"`
	IncludeUsage    bool     `json:"include_usage"`
}

// searchResponse is the part of a /search answer the client reads. Fields
// it does not need (images, response_time, auto_parameters) are not
// decoded, so their shape never matters.
type searchResponse struct {
	Answer    text           `json:"answer"`
	Results   []searchResult `json:"results"`
	RequestID text           `json:"request_id"`
	Usage     usage          `json:"usage"`
}

// usage is the "usage" object an answer carries when the request set
// include_usage: {"credits": 1}. Any other shape reads as no usage.
type usage struct {
	Credits *float `json:"credits"`
}

func (u *usage) UnmarshalJSON(b []byte) error {
	type plain usage
	var p plain
	if json.Unmarshal(b, &p) != nil {
		p = plain{}
	}
	*u = usage(p)
	return nil
}

// report returns the usage as the provider reported it, or nil when the
// answer had no credits figure.
func (u usage) report() *provider.Usage {
	if u.Credits == nil || *u.Credits < 0 {
		return nil
	}
	return &provider.Usage{Credits: float64(*u.Credits)}
}

type searchResult struct {
	Title         text  `json:"title"`
	URL           text  `json:"url"`
	Content       text  `json:"content"`
	RawContent    text  `json:"raw_content"`
	Score         float `json:"score"`
	PublishedDate text  `json:"published_date"`
}

// extractResponse is the part of an /extract answer the client reads.
type extractResponse struct {
	Results       []extractResult `json:"results"`
	FailedResults failedList      `json:"failed_results"`
	RequestID     text            `json:"request_id"`
	Usage         usage           `json:"usage"`
}

type extractResult struct {
	URL        text `json:"url"`
	RawContent text `json:"raw_content"`
}

// failedList decodes failed_results, reading anything but a list as empty:
// its shape must not cost the page that did succeed.
type failedList []failedResult

func (l *failedList) UnmarshalJSON(b []byte) error {
	var items []failedResult
	if json.Unmarshal(b, &items) != nil {
		items = nil
	}
	*l = items
	return nil
}

type failedResult struct {
	URL   text `json:"url"`
	Error text `json:"error"`
}

// errorBody covers Tavily's error envelopes: {"detail":{"error":"…"}} (all
// documented errors), {"detail":"…"} (framework errors), and the keyless
// envelope {"error":{"code","message","retry_after_seconds"}}.
type errorBody struct {
	Detail    json.RawMessage `json:"detail"`
	Error     json.RawMessage `json:"error"`
	Message   text            `json:"message"`
	RequestID text            `json:"request_id"`
}

type detailObject struct {
	Error   text `json:"error"`
	Message text `json:"message"`
}

type keylessError struct {
	Code              text  `json:"code"`
	Message           text  `json:"message"`
	RetryAfterSeconds float `json:"retry_after_seconds"`
}

// decodeSearch decodes a /search answer. It fails only when the body is not
// a JSON object or a field the client reads has an impossible shape
// (results that are not a list).
func decodeSearch(body []byte) (*searchResponse, error) { return decode[searchResponse](body) }

// decodeExtract decodes an /extract answer, with the same tolerance as
// decodeSearch.
func decodeExtract(body []byte) (*extractResponse, error) { return decode[extractResponse](body) }

// decode decodes body into a T. Unlike [lenient.Decode] it reads the body
// before it checks that it is an object, so that a body that is not JSON
// at all fails with json's syntax error, which [malformed] names as such.
func decode[T any](body []byte) (*T, error) {
	var r T
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	if b := bytes.TrimSpace(body); b[0] != '{' {
		return nil, lenient.ErrNotObject
	}
	return &r, nil
}

// Elements of a results list that are not objects decode as empty entries,
// which the client skips, rather than failing the whole answer.

func (r *searchResult) UnmarshalJSON(b []byte) error {
	type plain searchResult
	*r = searchResult(lenient.Loose[plain](b))
	return nil
}

func (r *extractResult) UnmarshalJSON(b []byte) error {
	type plain extractResult
	*r = extractResult(lenient.Loose[plain](b))
	return nil
}

func (r *failedResult) UnmarshalJSON(b []byte) error {
	type plain failedResult
	*r = failedResult(lenient.Loose[plain](b))
	return nil
}

// find returns the result for target, or the reason Tavily gave for failing
// it. Tavily may normalise the URL it echoes, so a result that differs only
// by a trailing slash or letter case of scheme and host matches too; a
// single result answers a single-URL request whatever its URL says.
func (r *extractResponse) find(target string) (*extractResult, string) {
	key := urlKey(target)
	for _, f := range r.FailedResults {
		if urlKey(string(f.URL)) == key {
			msg := string(f.Error)
			if msg == "" {
				msg = "failed"
			}
			return nil, msg
		}
	}
	for i := range r.Results {
		if urlKey(string(r.Results[i].URL)) == key {
			return &r.Results[i], ""
		}
	}
	if len(r.Results) == 1 {
		return &r.Results[0], ""
	}
	if len(r.FailedResults) > 0 {
		msg := string(r.FailedResults[0].Error)
		if msg == "" {
			msg = "failed"
		}
		return nil, msg
	}
	return nil, ""
}

func urlKey(s string) string {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil {
		return strings.TrimRight(s, "/")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Fragment = ""
	return strings.TrimRight(u.String(), "/")
}

// check classifies a Tavily answer. 2xx answers succeed unless they carry
// an error envelope and no results.
func check(r *provider.Response) *provider.Error {
	var eb errorBody
	parsed := json.Unmarshal(r.Body, &eb) == nil
	msg, tag, retryAfter := "", "", time.Duration(0)
	if parsed {
		msg, tag, retryAfter = eb.describe()
	}
	secret := r.Key.Secret()
	if r.Status >= 200 && r.Status < 300 {
		if msg == "" || hasResults(r.Body) {
			return nil
		}
		kind := provider.KindUnknown
		if retryAfter > 0 {
			kind = provider.KindRateLimited
		}
		return &provider.Error{Kind: kind, Tag: tag, RetryAfter: retryAfter,
			RequestID: string(eb.RequestID), Message: provider.Message(msg, secret)}
	}
	kind := statusKind(r.Status)
	if msg == "" {
		msg = backend.StatusText(r.Status)
	}
	return &provider.Error{Kind: kind, Tag: tag, RetryAfter: retryAfter,
		RequestID: string(eb.RequestID), Message: provider.Message(msg, secret)}
}

// statusKind maps Tavily's status codes: 401 and 403 are key problems, 432
// (plan or key limit) and 433 (pay-as-you-go limit) are exhausted credits.
func statusKind(status int) provider.Kind {
	switch status {
	case http.StatusBadRequest:
		return provider.KindBadRequest
	case http.StatusUnauthorized, http.StatusForbidden:
		return provider.KindAuth
	case http.StatusTooManyRequests:
		return provider.KindRateLimited
	case 432, 433:
		return provider.KindQuota
	}
	return provider.StatusKind(status)
}

// describe returns the message, the machine-readable code and the wait the
// envelope carries.
func (e *errorBody) describe() (msg, tag string, retryAfter time.Duration) {
	if len(e.Detail) > 0 {
		var s text
		var d detailObject
		switch {
		case json.Unmarshal(e.Detail, &d) == nil && (d.Error != "" || d.Message != ""):
			msg = string(d.Error)
			if msg == "" {
				msg = string(d.Message)
			}
		case json.Unmarshal(e.Detail, &s) == nil:
			msg = string(s)
		}
	}
	if len(e.Error) > 0 {
		var k keylessError
		var s text
		switch {
		case json.Unmarshal(e.Error, &k) == nil && (k.Message != "" || k.Code != ""):
			if msg == "" {
				msg = string(k.Message)
				if msg == "" {
					msg = string(k.Code)
				}
			}
			tag = string(k.Code)
			if k.RetryAfterSeconds > 0 && k.RetryAfterSeconds <= 86400 {
				retryAfter = time.Duration(float64(k.RetryAfterSeconds) * float64(time.Second))
			}
		case json.Unmarshal(e.Error, &s) == nil && msg == "":
			msg = string(s)
		}
	}
	if msg == "" {
		msg = string(e.Message)
	}
	return strings.TrimSpace(msg), tag, retryAfter
}

// hasResults reports whether a 2xx body carries a results list, which makes
// it a real answer even if it also has an error field.
func hasResults(body []byte) bool {
	var probe struct {
		Results json.RawMessage `json:"results"`
	}
	return json.Unmarshal(body, &probe) == nil && len(probe.Results) > 0 && probe.Results[0] == '['
}

// text is a string field read leniently ([lenient.Text]). Tavily's fields
// are nullable and some change type between versions, so reading them
// never fails.
type text = lenient.Text

// float is a number field read leniently ([lenient.Float]).
type float = lenient.Float
