package exa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
	"github.com/webgate-dev/webgate/provider/internal/lenient"
)

// Defaults of [Config].
const (
	DefaultBaseURL = "https://api.exa.ai"
	// DefaultType is Exa's own default search type.
	DefaultType = "auto"
	// DefaultNumResults is Exa's own default; 1 to 25 results cost the
	// same.
	DefaultNumResults = 10
	// DefaultSearchMaxCharacters bounds the page text returned with each
	// search result.
	DefaultSearchMaxCharacters = 1000
	// DefaultExtractMaxCharacters bounds the page text of an extraction.
	// It is also the most Exa accepts for text.maxCharacters.
	DefaultExtractMaxCharacters = 10000
)

// Limits that [New] enforces.
const (
	// MaxNumResults is the most results one search returns.
	MaxNumResults = 100
	// MaxExtractMaxCharacters is the largest text.maxCharacters Exa accepts
	// on /contents.
	MaxExtractMaxCharacters = 10000
	// MaxLivecrawlTimeout is the longest livecrawl timeout Exa accepts.
	MaxLivecrawlTimeout = 90 * time.Second
	// MinMaxAgeHours and MaxMaxAgeHours bound [Config.MaxAgeHours].
	MinMaxAgeHours, MaxMaxAgeHours = -1, 720
)

// snippetRunes is how much of a result's text becomes its snippet when Exa
// sent no highlight.
const snippetRunes = 300

// Types lists the accepted values of [Config.Type]. "deep-lite" and the
// legacy "keyword" and "hybrid" are accepted by the service and its SDKs
// but are not in the published OpenAPI 1.2.0 enum.
var Types = []string{"auto", "neural", "fast", "deep", "deep-lite", "deep-reasoning", "instant", "keyword", "hybrid"}

// Categories lists the accepted values of [Config.Category].
var Categories = []string{"company", "research paper", "news", "pdf", "github", "personal site", "people", "financial report"}

// Config configures a [Client]. The zero value means the documented
// defaults; [New] never modifies the Config it is given.
type Config struct {
	// BaseURL is the API's root; default [DefaultBaseURL].
	BaseURL string `koanf:"base_url"`
	// HTTP configures timeouts, retries and the body cap.
	HTTP provider.HTTPConfig `koanf:"http"`
	// Type is the search type, one of [Types]; default "auto".
	Type string `koanf:"search_type"`
	// NumResults is the number of results a search returns when the query
	// does not say; default 10, at most 100.
	NumResults int `koanf:"max_results"`
	// Category focuses searches on one of [Categories]; empty means none.
	// Exa rejects date and excludeDomains filters for "company" and
	// "people" (HTTP 400, [provider.KindBadRequest]).
	Category string `koanf:"category"`
	// SearchMaxCharacters bounds the page text returned with each search
	// result (Result.Content); default 1000.
	SearchMaxCharacters int `koanf:"search_max_characters"`
	// ExtractMaxCharacters bounds the page text of an extraction; default
	// and maximum 10000, Exa's limit.
	ExtractMaxCharacters int `koanf:"extract_max_characters"`
	// Highlights asks Exa for highlights with each search result; the
	// first becomes the result's snippet. Highlights cost extra.
	Highlights bool `koanf:"highlights"`
	// MaxAgeHours is the oldest cached copy of a page Exa may serve, in
	// hours: a positive N, 0 to always crawl afresh, -1 to never crawl.
	// Nil leaves it to Exa (crawl only when nothing is cached).
	MaxAgeHours *int `koanf:"max_age_hours"`
	// LivecrawlTimeout bounds a live crawl on Exa's side, at most 90s;
	// zero leaves Exa's default (10s). Sent in milliseconds.
	LivecrawlTimeout time.Duration `koanf:"livecrawl_timeout"`
	// Now is the clock TimeRange filters are computed from; nil uses
	// time.Now.
	Now func() time.Time `koanf:"-" json:"-"`
}

// DefaultConfig returns the defaults as a Config, for callers that show or
// start from them (package config).
func DefaultConfig() Config {
	return Config{
		BaseURL:              DefaultBaseURL,
		Type:                 DefaultType,
		NumResults:           DefaultNumResults,
		SearchMaxCharacters:  DefaultSearchMaxCharacters,
		ExtractMaxCharacters: DefaultExtractMaxCharacters,
	}
}

// Client is the Exa backend. It implements [provider.Searcher],
// [provider.Extractor] and [provider.Namer] and is safe for concurrent use.
type Client struct {
	keys provider.KeySource
	http *provider.HTTP
	cfg  Config
	base string
}

var _ backend.Reader = (*Client)(nil)

// New returns a Client that takes its API keys from keys. A nil cfg means
// the defaults. It returns an error when cfg holds an invalid value; keys
// are only consulted at request time, where an empty source is a
// [provider.KindAuth] failure.
func New(keys provider.KeySource, cfg *Config) (*Client, error) {
	c := backend.Copy(cfg)
	if c.MaxAgeHours != nil {
		v := *c.MaxAgeHours
		c.MaxAgeHours = &v
	}
	if err := backend.BaseURL(providerName, &c.BaseURL, DefaultBaseURL); err != nil {
		return nil, err
	}
	if c.Type == "" {
		c.Type = DefaultType
	}
	if err := backend.Choices(providerName,
		backend.Choice{Setting: "type", Value: c.Type, Allowed: Types},
		backend.Choice{Setting: "category", Value: c.Category, Allowed: Categories},
	); err != nil {
		return nil, err
	}
	if err := backend.MaxResultsSetting(providerName, &c.NumResults, DefaultNumResults, MaxNumResults); err != nil {
		return nil, err
	}
	switch {
	case c.SearchMaxCharacters == 0:
		c.SearchMaxCharacters = DefaultSearchMaxCharacters
	case c.SearchMaxCharacters < 0:
		return nil, fmt.Errorf("exa: search_max_characters %d is negative", c.SearchMaxCharacters)
	}
	switch {
	case c.ExtractMaxCharacters == 0:
		c.ExtractMaxCharacters = DefaultExtractMaxCharacters
	case c.ExtractMaxCharacters < 0 || c.ExtractMaxCharacters > MaxExtractMaxCharacters:
		return nil, fmt.Errorf("exa: extract_max_characters %d is outside 1..%d", c.ExtractMaxCharacters, MaxExtractMaxCharacters)
	}
	if c.MaxAgeHours != nil && (*c.MaxAgeHours < MinMaxAgeHours || *c.MaxAgeHours > MaxMaxAgeHours) {
		return nil, fmt.Errorf("exa: max_age_hours %d is outside %d..%d", *c.MaxAgeHours, MinMaxAgeHours, MaxMaxAgeHours)
	}
	if c.LivecrawlTimeout < 0 || c.LivecrawlTimeout > MaxLivecrawlTimeout {
		return nil, fmt.Errorf("exa: livecrawl_timeout %s is outside 0..%s", c.LivecrawlTimeout, MaxLivecrawlTimeout)
	}
	if c.LivecrawlTimeout > 0 && c.LivecrawlTimeout < time.Millisecond {
		c.LivecrawlTimeout = time.Millisecond
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return &Client{
		keys: keys,
		http: provider.NewHTTP(&c.HTTP),
		cfg:  c,
		base: strings.TrimRight(c.BaseURL, "/"),
	}, nil
}

// Name returns "exa".
func (c *Client) Name() string { return providerName }

// Search runs q through POST /search. See the package documentation for
// which Query fields Exa honours.
func (c *Client) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	body, perr := c.searchBody(q)
	if perr != nil {
		return nil, perr
	}
	sr, resp, err := call(ctx, c, opSearch, "/search", body, decodeSearch)
	if err != nil {
		return nil, err
	}
	out := &provider.Results{
		Query:     q.Text,
		Results:   []provider.Result{},
		Answer:    sr.Output.text(),
		Provider:  providerName,
		RequestID: requestID(string(sr.RequestID), resp),
		Ignored:   provider.IgnoredBy(providerName, c.Ignores(q)),
		Usage:     sr.CostDollars.usage(),
	}
	for _, r := range sr.Results {
		u := strings.TrimSpace(string(r.URL))
		if u == "" {
			u = strings.TrimSpace(string(r.ID))
		}
		if u == "" {
			continue
		}
		res := provider.Result{
			Title:     strings.TrimSpace(string(r.Title)),
			URL:       u,
			Snippet:   snippet(r),
			Content:   string(r.Text),
			Published: lenient.ParseDate(string(r.PublishedDate)),
			Provider:  providerName,
		}
		if r.Score != nil {
			res.Score = float64(*r.Score)
		}
		out.Results = append(out.Results, res)
	}
	return out, nil
}

// Ignores returns the filters of q that Exa cannot apply: a language, and
// a topic other than general or news. See the package documentation.
func (c *Client) Ignores(q provider.Query) []string {
	var out []string
	if strings.TrimSpace(q.Language) != "" {
		out = append(out, provider.FilterLanguage)
	}
	if q.Topic.Specific() && q.Topic != provider.TopicNews {
		out = append(out, provider.FilterTopic)
	}
	return out
}

// category returns the category a search for q sends: "news" for the news
// topic, else the configured one.
func (c *Client) category(q provider.Query) string {
	if q.Topic == provider.TopicNews {
		return "news"
	}
	return c.cfg.Category
}

// searchBody maps q onto a /search request body.
func (c *Client) searchBody(q provider.Query) ([]byte, *provider.Error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, c.inputErr(opSearch, "query text is empty")
	}
	d := q.TimeRange.Duration()
	if q.TimeRange != provider.AnyTime && d == 0 {
		return nil, c.inputErr(opSearch, fmt.Sprintf("unknown time range %q", q.TimeRange))
	}
	req := searchRequest{
		Query:          text,
		Type:           c.cfg.Type,
		Category:       c.category(q),
		NumResults:     backend.MaxResults(q.MaxResults, c.cfg.NumResults, MaxNumResults),
		IncludeDomains: textfmt.NonBlank(q.IncludeDomains),
		ExcludeDomains: textfmt.NonBlank(q.ExcludeDomains),
		Contents:       c.contents(c.cfg.SearchMaxCharacters),
	}
	if d > 0 {
		req.StartPublishedDate = c.cfg.Now().Add(-d).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if cc := strings.TrimSpace(q.Country); cc != "" {
		if !backend.IsAlpha2(cc) {
			return nil, c.inputErr(opSearch, fmt.Sprintf("country %q is not a two-letter ISO 3166-1 code", q.Country))
		}
		req.UserLocation = strings.ToUpper(cc)
	}
	if c.cfg.Highlights {
		req.Contents.Highlights = true
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, c.inputErr(opSearch, "encoding the request: "+err.Error())
	}
	return body, nil
}

// contents returns the contents options shared by both endpoints.
func (c *Client) contents(maxChars int) contentsOptions {
	o := contentsOptions{Text: &textOptions{MaxCharacters: maxChars}, MaxAgeHours: c.cfg.MaxAgeHours}
	if c.cfg.LivecrawlTimeout > 0 {
		o.LivecrawlTimeout = int(c.cfg.LivecrawlTimeout / time.Millisecond)
	}
	return o
}

// Extract reads req.URL through POST /contents. Exa returns the page's main
// content formatted as Markdown, so the Page's Format is
// [provider.Markdown] whether Markdown or Text was asked for; see the
// package documentation.
func (c *Client) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	target := strings.TrimSpace(req.URL)
	if target == "" {
		return nil, c.inputErr(opExtract, "URL is empty")
	}
	if req.Format != "" && req.Format != provider.Markdown && req.Format != provider.Text {
		return nil, c.inputErr(opExtract, fmt.Sprintf("unknown format %q", req.Format))
	}
	body, err := json.Marshal(contentsRequest{URLs: []string{target}, contentsOptions: c.contents(c.cfg.ExtractMaxCharacters)})
	if err != nil {
		return nil, c.inputErr(opExtract, "encoding the request: "+err.Error())
	}
	cr, resp, err := call(ctx, c, opExtract, "/contents", body, decodeContents)
	if err != nil {
		return nil, err
	}
	rid := requestID(string(cr.RequestID), resp)
	if st := statusFor(cr.Statuses, target); st != nil && strings.EqualFold(string(st.Status), "error") {
		tag := ""
		msg := "Exa could not read the page"
		if st.Error != nil {
			tag = strings.TrimSpace(string(st.Error.Tag))
			if st.Error.HTTPStatusCode != nil && *st.Error.HTTPStatusCode != 0 {
				msg = fmt.Sprintf("%s (the site answered HTTP %d)", msg, int(*st.Error.HTTPStatusCode))
			}
		}
		e := c.respErr(opExtract, resp, crawlKind(tag), tag, msg, nil)
		e.RequestID = rid
		return nil, e
	}
	r := resultFor(cr.Results, target)
	if r == nil {
		e := c.respErr(opExtract, resp, provider.KindUnsupported, "", "Exa returned no content for the page", nil)
		e.RequestID = rid
		return nil, e
	}
	content := string(r.Text)
	if strings.TrimSpace(content) == "" {
		e := c.respErr(opExtract, resp, provider.KindUnsupported, "", "Exa returned empty text for the page", nil)
		e.RequestID = rid
		return nil, e
	}
	return &provider.Page{
		URL:       target,
		Title:     strings.TrimSpace(string(r.Title)),
		Content:   content,
		Format:    provider.Markdown,
		Provider:  providerName,
		RequestID: rid,
		Usage:     cr.CostDollars.usage(),
	}, nil
}

// setKey puts the key in Exa's x-api-key header.
func setKey(h http.Header, k provider.Key) { h.Set("x-api-key", k.Secret()) }

// inputErr is the error for a request that was not sent because its input
// is invalid.
func (c *Client) inputErr(op, msg string) *provider.Error {
	return &provider.Error{Provider: providerName, Op: op, Kind: provider.KindBadRequest, Message: msg, Err: errInvalidInput}
}

// errInvalidInput is the cause of errors for requests that were rejected
// before being sent.
var errInvalidInput = errors.New("invalid input")

// call sends one logical request through the HTTP core, body to path for
// op, and decodes the answer with decode; an answer that does not decode
// is an error of unknown kind.
func call[T any](ctx context.Context, c *Client, op, path string, body []byte, decode func([]byte) (*T, error)) (*T, *provider.Response, error) {
	resp, err := c.http.Do(ctx, c.keys, provider.Request{
		Provider:        providerName,
		Op:              op,
		URL:             c.base + path,
		Body:            body,
		Auth:            setKey,
		Check:           checker(op),
		RequestIDHeader: requestIDHeader,
	})
	if err != nil {
		return nil, nil, err
	}
	r, err := decode(resp.Body)
	if err != nil {
		return nil, nil, c.respErr(op, resp, provider.KindUnknown, "", err.Error(), err)
	}
	return r, resp, nil
}

// respErr is the error for a 2xx response whose content is a failure.
func (c *Client) respErr(op string, resp *provider.Response, kind provider.Kind, tag, msg string, cause error) *provider.Error {
	return &provider.Error{
		Provider:  providerName,
		Op:        op,
		Status:    resp.Status,
		Kind:      kind,
		Tag:       provider.Message(tag, resp.Key.Secret()),
		Message:   provider.Message(msg, resp.Key.Secret()),
		RequestID: requestID("", resp),
		Attempts:  resp.Attempts,
		Err:       cause,
	}
}

// usage returns the cost an answer reported as a [provider.Usage]: nil
// when it had no costDollars object, or a negative total.
func (c *costDollars) usage() *provider.Usage {
	if c == nil || !c.reported || c.Total < 0 {
		return nil
	}
	return &provider.Usage{CostUSD: float64(c.Total)}
}

// requestID returns the body's requestId, or else the x-request-id header.
func requestID(body string, resp *provider.Response) string {
	if id := strings.TrimSpace(body); id != "" {
		return provider.Message(id)
	}
	return provider.Message(resp.Header.Get(requestIDHeader))
}

// statusFor returns the statuses[] entry for target: the one whose id is
// target, or the only entry when there is exactly one.
func statusFor(sts []wireStatus, target string) *wireStatus {
	for i := range sts {
		if sameURL(string(sts[i].ID), target) {
			return &sts[i]
		}
	}
	if len(sts) == 1 {
		return &sts[0]
	}
	return nil
}

// resultFor returns the result for target: the one whose id or url is
// target, or else the first result (Exa may report a canonical URL).
func resultFor(rs []wireResult, target string) *wireResult {
	for i := range rs {
		if sameURL(string(rs[i].ID), target) || sameURL(string(rs[i].URL), target) {
			return &rs[i]
		}
	}
	for i := range rs {
		if rs[i].ID != "" || rs[i].URL != "" || rs[i].Text != "" {
			return &rs[i]
		}
	}
	return nil
}

// sameURL compares two URLs, ignoring surrounding space and a trailing
// slash.
func sameURL(a, b string) bool {
	a, b = strings.TrimRight(strings.TrimSpace(a), "/"), strings.TrimRight(strings.TrimSpace(b), "/")
	return a != "" && a == b
}

// snippet returns a result's snippet: its first non-empty highlight, its
// summary, or the start of its text cut at a word boundary.
func snippet(r wireResult) string {
	for _, h := range r.Highlights {
		if h = collapse(h); h != "" {
			return h
		}
	}
	if s := collapse(string(r.Summary)); s != "" {
		return s
	}
	t := collapse(string(r.Text))
	rs := []rune(t)
	if len(rs) <= snippetRunes {
		return t
	}
	cut := snippetRunes
	for i := snippetRunes; i > snippetRunes/2; i-- {
		if unicode.IsSpace(rs[i]) {
			cut = i
			break
		}
	}
	return strings.TrimSpace(string(rs[:cut])) + "…"
}

// collapse joins runs of white space into single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
