package websearchapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
)

// Name is the backend's name, as [Client.Name] returns it.
const Name = "websearchapi"

// Defaults of [Config].
const (
	DefaultBaseURL       = "https://api.websearchapi.ai"
	DefaultMaxResults    = 5
	DefaultScrapeEngine  = "browser"
	DefaultReturnFormat  = "markdown"
	DefaultScrapeTimeout = 20 * time.Second
	// MaxMaxResults is the most results /ai-search returns for one query.
	MaxMaxResults = 20
)

// Config configures a [Client]. The zero value means the documented
// defaults; [New] never modifies the Config it is given.
type Config struct {
	// BaseURL is the API's base URL; default [DefaultBaseURL].
	BaseURL string `koanf:"base_url"`
	// HTTP configures timeouts, retries and the body cap.
	HTTP provider.HTTPConfig `koanf:"http"`

	// MaxResults is the number of results asked for when a query leaves
	// MaxResults at 0; default 5, at most 20.
	MaxResults int `koanf:"max_results"`
	// IncludeContent asks /ai-search for a longer extract of every result
	// page (Result.Content). Default false: fetching the pages makes a
	// search markedly slower, and snippets come from each result's
	// description anyway.
	IncludeContent bool `koanf:"include_content"`
	// ContentFormat is the format of that extract: "markdown", "text" or
	// "html"; empty sends nothing and leaves the choice to the API. Only
	// sent when IncludeContent is true.
	ContentFormat string `koanf:"content_format"`
	// ContentLength is the size of that extract: "short", "medium" or
	// "long"; empty sends nothing. Only sent when IncludeContent is true.
	ContentLength string `koanf:"content_length"`
	// IncludeAnswer asks for a generated summary answer (Results.Answer).
	IncludeAnswer bool `koanf:"include_answer"`
	// SafeSearch asks the API to filter explicit results.
	SafeSearch bool `koanf:"safe_search"`

	// ScrapeEngine is how /scrape fetches a page: "browser" (a headless
	// browser that runs the page's JavaScript), "direct" (a plain HTTP
	// fetch) or "cf-browser-rendering". Default "browser": this backend's
	// extractor is meant for pages a plain fetch could not read, so it
	// renders them; choose "direct" for speed when that is not the case.
	ScrapeEngine string `koanf:"scrape_engine"`
	// ScrapeTimeout is how long the API may spend fetching a page, sent in
	// whole seconds; default 20s. It is capped at one second below
	// HTTP.AttemptTimeout so that the API gives up before the client does,
	// and not sent at all when that leaves less than a second.
	ScrapeTimeout time.Duration `koanf:"scrape_timeout"`
	// ReturnFormat is the content format asked of /scrape when an
	// extraction request leaves its Format empty: "markdown", "text" or
	// "html"; default "markdown". A request's own Format always wins.
	ReturnFormat string `koanf:"return_format"`
	// TargetSelector is an optional CSS selector: only the matching part
	// of the page is returned.
	TargetSelector string `koanf:"target_selector"`
	// RemoveSelector is an optional CSS selector of parts to remove from
	// the page (navigation, footers).
	RemoveSelector string `koanf:"remove_selector"`
	// MaxCharacters caps the length, in characters, of extracted page
	// content and of search result content; 0 means no cap.
	MaxCharacters int `koanf:"max_characters"`
}

// Client is the WebSearchAPI.ai backend: a [provider.Searcher] over
// POST /ai-search and a [provider.Extractor] over POST /scrape. It is safe
// for concurrent use.
type Client struct {
	keys      provider.KeySource
	cfg       Config
	http      *provider.HTTP
	searchURL string
	scrapeURL string
	// scrapeTimeout is the timeout sent to /scrape in whole seconds; 0
	// sends none.
	scrapeTimeout int
	now           func() time.Time
}

var _ backend.Reader = (*Client)(nil)

// The accepted values of the enumerated [Config] fields.
var (
	// ContentFormats lists the values of ContentFormat and ReturnFormat.
	ContentFormats = []string{"markdown", "text", "html"}
	// ContentLengths lists the values of ContentLength.
	ContentLengths = []string{"short", "medium", "long"}
	// ScrapeEngines lists the values of ScrapeEngine.
	ScrapeEngines = []string{"browser", "direct", "cf-browser-rendering"}
)

// DefaultConfig returns the defaults as a Config, for callers that show or
// start from them (package config).
func DefaultConfig() Config {
	return Config{
		BaseURL:       DefaultBaseURL,
		MaxResults:    DefaultMaxResults,
		ScrapeEngine:  DefaultScrapeEngine,
		ScrapeTimeout: DefaultScrapeTimeout,
		ReturnFormat:  DefaultReturnFormat,
	}
}

// New returns a client that takes its API keys from keys. A nil cfg means
// the defaults. It returns an error naming the field when cfg holds an
// invalid value.
func New(keys provider.KeySource, cfg *Config) (*Client, error) {
	if keys == nil {
		return nil, fmt.Errorf("websearchapi: no key source")
	}
	c := backend.Copy(cfg)
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	base, err := url.Parse(c.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("websearchapi: base_url %q is not an absolute http(s) URL", backend.ShowURL(c.BaseURL))
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if err := backend.MaxResultsSetting(Name, &c.MaxResults, DefaultMaxResults, MaxMaxResults); err != nil {
		return nil, err
	}
	if c.MaxCharacters < 0 {
		return nil, fmt.Errorf("websearchapi: max_characters %d is negative", c.MaxCharacters)
	}
	if c.ScrapeTimeout < 0 {
		return nil, fmt.Errorf("websearchapi: scrape_timeout %s is negative", c.ScrapeTimeout)
	}
	if c.ScrapeTimeout == 0 {
		c.ScrapeTimeout = DefaultScrapeTimeout
	}
	if c.ScrapeEngine == "" {
		c.ScrapeEngine = DefaultScrapeEngine
	}
	if c.ReturnFormat == "" {
		c.ReturnFormat = DefaultReturnFormat
	}
	if err := backend.Choices(Name,
		backend.Choice{Setting: "content_format", Value: c.ContentFormat, Allowed: ContentFormats},
		backend.Choice{Setting: "content_length", Value: c.ContentLength, Allowed: ContentLengths},
		backend.Choice{Setting: "scrape_engine", Value: c.ScrapeEngine, Allowed: ScrapeEngines},
		backend.Choice{Setting: "return_format", Value: c.ReturnFormat, Allowed: ContentFormats},
	); err != nil {
		return nil, err
	}

	st := backend.ServerTimeout(c.HTTP, c.ScrapeTimeout)
	return &Client{
		keys:          keys,
		cfg:           c,
		http:          provider.NewHTTP(&c.HTTP),
		searchURL:     c.BaseURL + "/ai-search",
		scrapeURL:     c.BaseURL + "/scrape",
		scrapeTimeout: int(st / time.Second),
		now:           time.Now,
	}, nil
}

// Name returns "websearchapi".
func (c *Client) Name() string { return Name }

// searchRequest is the /ai-search request body. Optional fields are
// omitted when unset; includeContent is always sent because the API's
// default for it is not documented.
type searchRequest struct {
	Query          string   `json:"query"`
	MaxResults     int      `json:"maxResults"`
	IncludeContent bool     `json:"includeContent"`
	ContentFormat  string   `json:"contentFormat,omitempty"`
	ContentLength  string   `json:"contentLength,omitempty"`
	Country        string   `json:"country,omitempty"`
	Language       string   `json:"language,omitempty"`
	Timeframe      string   `json:"timeframe,omitempty"`
	IncludeDomains []string `json:"includeDomains,omitempty"`
	ExcludeDomains []string `json:"excludeDomains,omitempty"`
	IncludeAnswer  bool     `json:"includeAnswer,omitempty"`
	SafeSearch     bool     `json:"safeSearch,omitempty"`
}

// scrapeRequest is the /scrape request body. The same output controls are
// also sent as X-* headers (see the package documentation).
type scrapeRequest struct {
	URL            string `json:"url"`
	ReturnFormat   string `json:"returnFormat,omitempty"`
	Engine         string `json:"engine,omitempty"`
	Timeout        int    `json:"timeout,omitempty"`
	TargetSelector string `json:"targetSelector,omitempty"`
	RemoveSelector string `json:"removeSelector,omitempty"`
}

// Search runs q through POST /ai-search. See the package documentation for
// the Query fields it honours.
func (c *Client) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	body, err := c.searchBody(q)
	if err != nil {
		return nil, err
	}
	res, resp, err := call(ctx, c, opSearch, c.searchURL, body, nil, func(b []byte) (*provider.Results, *provider.Error) {
		return decodeSearch(b, c.now())
	})
	if err != nil {
		return nil, err
	}
	if res.RequestID == "" {
		res.RequestID = resp.Header.Get(requestIDHeader)
	}
	backend.Label(res, q.Text, Name, backend.MaxResults(q.MaxResults, c.cfg.MaxResults, MaxMaxResults), c.cfg.MaxCharacters, c.Ignores(q))
	return res, nil
}

// Ignores returns the filters of q that WebSearchAPI.ai cannot apply: a
// topic other than general. See the package documentation.
func (c *Client) Ignores(q provider.Query) []string {
	if q.Topic.Specific() {
		return []string{provider.FilterTopic}
	}
	return nil
}

// Extract reads req.URL through POST /scrape. req.Query is not used: the
// endpoint has no way to rank or select parts of a page by a query.
func (c *Client) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	format, err := c.returnFormat(req)
	if err != nil {
		return nil, err
	}
	if err := checkURL(req.URL); err != nil {
		return nil, err
	}
	sr := scrapeRequest{
		URL:            req.URL,
		ReturnFormat:   format,
		Engine:         c.cfg.ScrapeEngine,
		Timeout:        c.scrapeTimeout,
		TargetSelector: c.cfg.TargetSelector,
		RemoveSelector: c.cfg.RemoveSelector,
	}
	body, err := json.Marshal(sr)
	if err != nil {
		return nil, &provider.Error{Provider: Name, Op: opExtract, Kind: provider.KindBadRequest, Message: "cannot encode request", Err: err}
	}
	h := http.Header{}
	h.Set("X-Return-Format", format)
	h.Set("X-Engine", sr.Engine)
	if sr.Timeout > 0 {
		h.Set("X-Timeout", strconv.Itoa(sr.Timeout))
	}
	if sr.TargetSelector != "" {
		h.Set("X-Target-Selector", sr.TargetSelector)
	}
	if sr.RemoveSelector != "" {
		h.Set("X-Remove-Selector", sr.RemoveSelector)
	}
	p, resp, err := call(ctx, c, opExtract, c.scrapeURL, body, h, decodeScrape)
	if err != nil {
		return nil, err
	}
	if p.URL == "" {
		p.URL = req.URL
	}
	p.Content = provider.CapRunes(p.Content, c.cfg.MaxCharacters)
	p.Format = provider.Format(format)
	p.Provider = Name
	if p.RequestID == "" {
		p.RequestID = resp.Header.Get(requestIDHeader)
	}
	return p, nil
}

const (
	opSearch  = "search"
	opExtract = "extract"
)

// requestIDHeader is the response header that carries the request's ID.
const requestIDHeader = "X-Request-Id"

// call posts body (with the headers h) to url for op and decodes a 2xx
// answer with decode, inside the HTTP core's check: an answer that does
// not decode is reported like any other failure, with the key scrubbed
// from it.
func call[T any](ctx context.Context, c *Client, op, url string, body []byte, h http.Header, decode func([]byte) (*T, *provider.Error)) (*T, *provider.Response, error) {
	var decoded *T
	resp, err := c.http.Do(ctx, c.keys, provider.Request{
		Provider:        Name,
		Op:              op,
		URL:             url,
		Body:            body,
		Header:          h,
		Auth:            backend.Bearer,
		RequestIDHeader: requestIDHeader,
		Check: func(r *provider.Response) *provider.Error {
			if e := checkStatus(r, op); e != nil {
				return e
			}
			v, e := decode(r.Body)
			if e != nil {
				return scrub(e, r.Key)
			}
			decoded = v
			return nil
		},
	})
	if err != nil {
		return nil, nil, err
	}
	return decoded, resp, nil
}

// scrub removes k's value from every text field of e that comes from the
// response body.
func scrub(e *provider.Error, k provider.Key) *provider.Error {
	e.Message = provider.Message(e.Message, k.Secret())
	if e.Tag != "" {
		e.Tag = provider.Message(e.Tag, k.Secret())
	}
	if e.RequestID != "" {
		e.RequestID = provider.Message(e.RequestID, k.Secret())
	}
	return e
}

// searchBody validates q and encodes the /ai-search body.
func (c *Client) searchBody(q provider.Query) ([]byte, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, badRequest(opSearch, "query text is empty")
	}
	r := searchRequest{
		Query:          text,
		MaxResults:     backend.MaxResults(q.MaxResults, c.cfg.MaxResults, MaxMaxResults),
		IncludeContent: c.cfg.IncludeContent,
		IncludeAnswer:  c.cfg.IncludeAnswer,
		SafeSearch:     c.cfg.SafeSearch,
		IncludeDomains: domains(q.IncludeDomains),
		ExcludeDomains: domains(q.ExcludeDomains),
	}
	if r.IncludeContent {
		r.ContentFormat = c.cfg.ContentFormat
		r.ContentLength = c.cfg.ContentLength
	}
	switch q.TimeRange {
	case provider.AnyTime:
	case provider.PastDay, provider.PastWeek, provider.PastMonth, provider.PastYear:
		r.Timeframe = string(q.TimeRange)
	default:
		return nil, badRequest(opSearch, fmt.Sprintf("time range %q is not one of day, week, month, year", q.TimeRange))
	}
	if s := strings.ToLower(strings.TrimSpace(q.Country)); s != "" {
		if !backend.IsAlpha2(s) {
			return nil, badRequest(opSearch, fmt.Sprintf("country %q is not a two-letter ISO 3166-1 code", q.Country))
		}
		r.Country = s
	}
	if s := strings.ToLower(strings.TrimSpace(q.Language)); s != "" {
		// Accept a BCP 47 tag ("en-US") by keeping its primary language.
		if i := strings.IndexAny(s, "-_"); i > 0 {
			s = s[:i]
		}
		if !backend.IsAlpha2(s) {
			return nil, badRequest(opSearch, fmt.Sprintf("language %q is not a two-letter ISO 639-1 code", q.Language))
		}
		r.Language = s
	}
	body, err := json.Marshal(r)
	if err != nil {
		return nil, &provider.Error{Provider: Name, Op: opSearch, Kind: provider.KindBadRequest, Message: "cannot encode request", Err: err}
	}
	return body, nil
}

func (c *Client) returnFormat(req provider.ExtractRequest) (string, error) {
	switch req.Format {
	case "":
		return c.cfg.ReturnFormat, nil
	case provider.Markdown, provider.Text, "html":
		return string(req.Format), nil
	}
	return "", badRequest(opExtract, fmt.Sprintf("format %q is not one of markdown, text, html", req.Format))
}

func checkURL(raw string) error {
	if msg := backend.CheckURL(raw); msg != "" {
		return badRequest(opExtract, msg)
	}
	return nil
}

func badRequest(op, msg string) *provider.Error {
	return &provider.Error{Provider: Name, Op: op, Kind: provider.KindBadRequest, Message: msg}
}

// domains trims the domain filters and drops blanks, a scheme and a
// trailing slash, so "https://go.dev/" is sent as "go.dev".
func domains(in []string) []string {
	var out []string
	for _, d := range in {
		d = strings.TrimSpace(d)
		if i := strings.Index(d, "://"); i >= 0 {
			d = d[i+3:]
		}
		d = strings.TrimRight(d, "/")
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}
