package firecrawl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
	"github.com/webgate-dev/webgate/provider/internal/lenient"
)

// Operation names.
const (
	opSearch  = "search"
	opExtract = "extract"
)

// typed is a format or source given in its object form, {"type":"web"}.
type typed struct {
	Type string `json:"type"`
}

// scrapeOptions are the ScrapeOptions fields the client sends.
type scrapeOptions struct {
	Formats         []typed `json:"formats"`
	OnlyMainContent bool    `json:"onlyMainContent"`
	Timeout         int     `json:"timeout,omitempty"`
	MaxAge          *int64  `json:"maxAge,omitempty"`
	Proxy           string  `json:"proxy,omitempty"`
}

// scrapeRequest is the body of POST /v2/scrape.
type scrapeRequest struct {
	URL string `json:"url"`
	scrapeOptions
}

// searchRequest is the body of POST /v2/search.
type searchRequest struct {
	Query          string         `json:"query"`
	Limit          int            `json:"limit"`
	Sources        []typed        `json:"sources"`
	IncludeDomains []string       `json:"includeDomains,omitempty"`
	ExcludeDomains []string       `json:"excludeDomains,omitempty"`
	TBS            string         `json:"tbs,omitempty"`
	Country        string         `json:"country,omitempty"`
	ScrapeOptions  *scrapeOptions `json:"scrapeOptions,omitempty"`
}

// scrapeResponse is the part of a /v2/scrape answer the client reads.
type scrapeResponse struct {
	Data     document `json:"data"`
	ScrapeID text     `json:"scrape_id"`
}

// document is a scraped page.
type document struct {
	Markdown text     `json:"markdown"`
	Metadata metadata `json:"metadata"`
}

// metadata is the part of a page's metadata the client reads. Firecrawl
// sends title and description as a string or a list of strings.
type metadata struct {
	Title       text    `json:"title"`
	OGTitle     text    `json:"ogTitle"`
	Description text    `json:"description"`
	URL         text    `json:"url"`
	SourceURL   text    `json:"sourceURL"`
	StatusCode  number  `json:"statusCode"`
	Error       text    `json:"error"`
	ScrapeID    text    `json:"scrapeId"`
	CreditsUsed credits `json:"creditsUsed"`
}

// targetFailed reports whether the metadata says the target page failed:
// its status code is 400 or more, or it carries an error without a
// successful status code. The message quotes both.
func (m metadata) targetFailed() (bool, string) {
	code := int(m.StatusCode)
	msg := strings.TrimSpace(string(m.Error))
	ok := code >= 200 && code < 400
	if code < 400 && (msg == "" || ok) {
		return false, ""
	}
	s := "Firecrawl could not read the page"
	if code >= 400 {
		s += fmt.Sprintf(" (the site answered HTTP %d)", code)
	}
	if msg != "" {
		s += ": " + msg
	}
	return true, s
}

// searchResponse is the part of a /v2/search answer the client reads.
type searchResponse struct {
	Data        searchData `json:"data"`
	ID          text       `json:"id"`
	CreditsUsed credits    `json:"creditsUsed"`
}

// credits is a creditsUsed figure: a number or a numeric string. A figure
// that is absent, null, negative or of another type reads as not reported.
type credits struct {
	value    float64
	reported bool
}

// maxCredits is the largest figure read as credits; a larger one is not a
// figure Firecrawl reports.
const maxCredits = 1e15

// UnmarshalJSON implements json.Unmarshaler.
func (c *credits) UnmarshalJSON(b []byte) error {
	*c = credits{}
	if v, ok := lenient.Number(b); ok && v >= 0 && v <= maxCredits {
		*c = credits{value: v, reported: true}
	}
	return nil
}

// usage returns the figure as a [provider.Usage], or nil when it was not
// reported.
func (c credits) usage() *provider.Usage {
	if !c.reported {
		return nil
	}
	return &provider.Usage{Credits: c.value}
}

// searchData holds the results per source. Only web is requested. A list
// in place of the object, as the v1 API answered, is read as the web
// results.
type searchData struct {
	Web []searchResult `json:"web"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *searchData) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || b[0] == 'n':
		*d = searchData{}
		return nil
	case b[0] == '[':
		var web []searchResult
		if err := json.Unmarshal(b, &web); err != nil {
			return err
		}
		*d = searchData{Web: web}
		return nil
	case b[0] != '{':
		return errors.New("data is neither an object nor a list")
	}
	var raw struct {
		Web json.RawMessage `json:"web"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*d = searchData{}
	if w := bytes.TrimSpace(raw.Web); len(w) > 0 && w[0] != 'n' {
		return json.Unmarshal(w, &d.Web)
	}
	return nil
}

type searchResult struct {
	URL         text     `json:"url"`
	Title       text     `json:"title"`
	Description text     `json:"description"`
	Markdown    text     `json:"markdown"`
	Metadata    metadata `json:"metadata"`
}

// UnmarshalJSON reads an element of the results that is not an object as
// an empty entry, which the client skips, and a metadata of the wrong shape
// as empty, rather than failing the whole answer.
func (r *searchResult) UnmarshalJSON(b []byte) error {
	type plain searchResult
	var p plain
	if json.Unmarshal(b, &p) != nil {
		var bare struct {
			URL         text `json:"url"`
			Title       text `json:"title"`
			Description text `json:"description"`
			Markdown    text `json:"markdown"`
		}
		p = plain{}
		if json.Unmarshal(b, &bare) == nil {
			p = plain{URL: bare.URL, Title: bare.Title, Description: bare.Description, Markdown: bare.Markdown}
		}
	}
	*r = searchResult(p)
	return nil
}

// UnmarshalJSON reads a metadata that is not an object as empty.
func (m *metadata) UnmarshalJSON(b []byte) error {
	type plain metadata
	*m = metadata(lenient.Loose[plain](b))
	return nil
}

// UnmarshalJSON reads a data that is null or not an object as an empty
// document.
func (d *document) UnmarshalJSON(b []byte) error {
	type plain document
	*d = document(lenient.Loose[plain](b))
	return nil
}

// decodeScrape decodes a /v2/scrape answer. It fails only when the body is
// not a JSON object.
func decodeScrape(body []byte) (*scrapeResponse, error) {
	return lenient.Decode[scrapeResponse](body)
}

// decodeSearch decodes a /v2/search answer. It fails only when the body is
// not a JSON object or the web results are not a list.
func decodeSearch(body []byte) (*searchResponse, error) {
	return lenient.Decode[searchResponse](body)
}

// errorBody is Firecrawl's error envelope: {"success":false,"error":"…"},
// with a "code" on some errors, and "message" and "retry_after_seconds" on
// others.
type errorBody struct {
	Success           json.RawMessage `json:"success"`
	Error             json.RawMessage `json:"error"`
	Message           text            `json:"message"`
	Code              text            `json:"code"`
	RetryAfterSeconds number          `json:"retry_after_seconds"`
}

// failed reports whether the envelope says "success": false.
func (e *errorBody) failed() bool {
	s := string(bytes.TrimSpace(e.Success))
	return s == "false" || s == `"false"`
}

// message returns the envelope's error text: "error" as a string, or its
// "message" when it is an object, else the top-level "message".
func (e *errorBody) message() string {
	var s text
	if json.Unmarshal(e.Error, &s) == nil && strings.TrimSpace(string(s)) != "" {
		return strings.TrimSpace(string(s))
	}
	var o struct {
		Message text `json:"message"`
	}
	if json.Unmarshal(e.Error, &o) == nil && strings.TrimSpace(string(o.Message)) != "" {
		return strings.TrimSpace(string(o.Message))
	}
	return strings.TrimSpace(string(e.Message))
}

// retryAfterText matches the wait Firecrawl writes into its rate-limit
// message ("… or please retry after 15s, resets at …").
var retryAfterText = regexp.MustCompile(`(?i)retry after (\d+(?:\.\d+)?) ?s\b`)

// maxWait bounds a wait read from a body, as provider.ParseRetryAfter
// bounds the header; a longer wait ends the request at once anyway.
const maxWait = 24 * time.Hour

// wait returns the wait a rate-limited answer asks for in its body: the
// retry_after_seconds field, or else the seconds in the message. It
// returns 0 when the body names none.
func (e *errorBody) wait() time.Duration {
	secs := float64(e.RetryAfterSeconds)
	if !(secs > 0) {
		if m := retryAfterText.FindStringSubmatch(e.message()); m != nil {
			secs, _ = lenient.Number(json.RawMessage(m[1]))
		}
	}
	return lenient.Seconds(secs, maxWait)
}

// Firecrawl's error codes that decide a failure's kind (the "code" field;
// the set comes from Firecrawl's source, apps/api/src/lib/error.ts).
var (
	badRequestCodes = []string{"BAD_REQUEST", "BAD_REQUEST_INVALID_JSON", "SCRAPE_ACTIONS_NOT_SUPPORTED", "PARSE_UNSUPPORTED_OPTIONS"}
	transientCodes  = []string{"UNKNOWN_ERROR", "SCRAPE_TIMEOUT", "MAP_TIMEOUT", "SCRAPE_PROXY_SELECTION_ERROR",
		"SCRAPE_PDF_FETCH_PROXY_ERROR", "SCRAPE_DOCUMENT_FETCH_PROXY_ERROR", "SCRAPE_PDF_INSUFFICIENT_TIME_ERROR"}
	rateLimitCodes = []string{"CONCURRENCY_QUEUE_TIMEOUT"}
	authCodes      = []string{"AGENT_INDEX_ONLY", "THIRD_PARTY_DATA_TERMS_REQUIRED"}
	// targetCodes say the page itself cannot be read; they decide the kind
	// of an extraction only.
	targetCodes = []string{"SCRAPE_ALL_ENGINES_FAILED", "SCRAPE_SSL_ERROR", "SCRAPE_SITE_ERROR", "SCRAPE_DNS_RESOLUTION_ERROR",
		"SCRAPE_UNSUPPORTED_FILE_ERROR", "SCRAPE_PDF_PREFETCH_FAILED", "SCRAPE_DOCUMENT_PREFETCH_FAILED", "SCRAPE_PDF_ANTIBOT_ERROR",
		"SCRAPE_DOCUMENT_ANTIBOT_ERROR", "SCRAPE_PDF_OCR_REQUIRED", "SCRAPE_RETRY_LIMIT", "SCRAPE_NO_CACHED_DATA",
		"SCRAPE_LOCKDOWN_CACHE_MISS", "SCRAPE_ACTION_ERROR", "SCRAPE_RACED_REDIRECT_ERROR", "SCRAPE_SITEMAP_ERROR",
		"SCRAPE_AUDIO_UNSUPPORTED_URL", "SCRAPE_VIDEO_UNSUPPORTED_URL", "SCRAPE_MEDIA_ACCESS_DENIED",
		"SCRAPE_PROMPT_INJECTION_DETECTED", "SCRAPE_JSON_CONTENT_TOO_LARGE", "SCRAPE_X_TWITTER_CONFIGURATION_ERROR",
		"SCRAPE_ZDR_VIOLATION_ERROR", "UNSUPPORTED_SITE", "CRAWL_DENIAL", "SAFE_MODE_BLOCKED", "unsafe_domain_blocked"}
)

// codeKind classifies a failure by its code, whatever the status; it
// returns "" for codes that do not decide the kind.
func codeKind(op, code string) provider.Kind {
	has := func(set []string) bool {
		for _, c := range set {
			if c == code {
				return true
			}
		}
		return false
	}
	switch {
	case code == "":
		return ""
	case has(badRequestCodes):
		return provider.KindBadRequest
	case has(transientCodes):
		return provider.KindTransient
	case has(rateLimitCodes):
		return provider.KindRateLimited
	case has(authCodes):
		return provider.KindAuth
	case has(targetCodes) && op == opExtract:
		return provider.KindUnsupported
	}
	return ""
}

// statusKind classifies a non-2xx answer without a deciding code. A 403 to
// a scrape is Firecrawl refusing the site (its blocklist), so another
// extractor may still read the page; to a search it is a key that lacks a
// permission.
func statusKind(op string, status int) provider.Kind {
	switch {
	case status == http.StatusForbidden && op == opExtract:
		return provider.KindUnsupported
	case status == http.StatusConflict:
		return provider.KindBadRequest
	}
	return provider.StatusKind(status)
}

// checker returns the response check for op: a 2xx answer succeeds unless
// its body says "success": false; every other answer, and such a body, is
// a failure classified by its code and then its status. A failed 2xx
// scrape without a deciding code is a page Firecrawl could not read
// (KindUnsupported); a failed 2xx search is KindUnknown. A rate-limited
// answer without a usable Retry-After header waits for what its body asks.
func checker(op string) func(r *provider.Response) *provider.Error {
	return func(r *provider.Response) *provider.Error {
		ok := r.Status >= 200 && r.Status < 300
		var eb errorBody
		parsed := json.Unmarshal(r.Body, &eb) == nil
		if ok && !(parsed && eb.failed()) {
			return nil
		}
		secret := r.Key.Secret()
		code := strings.TrimSpace(string(eb.Code))
		kind := codeKind(op, code)
		switch {
		case kind != "":
		case ok && op == opExtract:
			kind = provider.KindUnsupported
		case ok:
			kind = provider.KindUnknown
		default:
			kind = statusKind(op, r.Status)
		}
		msg := eb.message()
		if msg == "" && ok {
			msg = "Firecrawl reported a failure"
		} else if msg == "" {
			msg = backend.StatusText(r.Status)
		}
		e := &provider.Error{Kind: kind, Tag: provider.Message(code, secret), Message: provider.Message(msg, secret)}
		if kind == provider.KindRateLimited && provider.ParseRetryAfter(r.Header.Get("Retry-After"), time.Now()) == 0 {
			e.RetryAfter = eb.wait()
		}
		return e
	}
}

// text is a string field read leniently ([lenient.Text]): Firecrawl's
// metadata may repeat a tag as a list, and an unexpected type in a field
// the client reads never fails the answer.
type text = lenient.Text

// number is a number field read leniently ([lenient.Float]).
type number = lenient.Float
