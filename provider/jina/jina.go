package jina

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
)

// Name is the backend's name, as [Client.Name] returns it.
const Name = "jina"

// Defaults of [Config].
const (
	DefaultReaderURL = "https://r.jina.ai"
	DefaultSearchURL = "https://s.jina.ai"
	// DefaultReturnFormat is Jina Reader's own default: the page's main
	// content as Markdown.
	DefaultReturnFormat = "content"
	// DefaultMaxResults is Jina Search's own default count.
	DefaultMaxResults = 10
)

// Limits that [New] enforces.
const (
	// MaxMaxResults is the largest count Jina Search accepts.
	MaxMaxResults = 20
	// MaxReaderTimeout is the longest X-Timeout Jina Reader accepts.
	MaxReaderTimeout = 180 * time.Second
	// MinMaxTokens is the smallest X-Max-Tokens Jina Reader accepts.
	MinMaxTokens = 500
)

// ReturnFormats lists the accepted values of [Config.ReturnFormat], Jina
// Reader's X-Respond-With values that yield text.
var ReturnFormats = []string{"content", "markdown", "text", "html"}

// Engines lists the accepted values of [Config.Engine].
var Engines = []string{"auto", "browser", "direct", "curl", "cf-browser-rendering"}

// ImageRetentionModes lists the accepted values of [Config.RetainImages].
var ImageRetentionModes = []string{"none", "all", "alt", "all_p", "alt_p"}

// Config configures a [Client]. The zero value means the documented
// defaults; [New] never modifies the Config it is given.
type Config struct {
	// ReaderURL is Jina Reader's base URL; default [DefaultReaderURL].
	ReaderURL string `koanf:"reader_url"`
	// SearchURL is Jina Search's base URL; default [DefaultSearchURL].
	SearchURL string `koanf:"search_url"`
	// HTTP configures timeouts, retries and the body cap.
	HTTP provider.HTTPConfig `koanf:"http"`

	// ReturnFormat is what the reader is asked for (X-Respond-With) when
	// an extraction leaves its Format empty: "content" (the default: the
	// main content found by a readability pass, as Markdown), "markdown"
	// (the whole page as Markdown), "text" or "html". A request for
	// Markdown uses "markdown" when that is configured and "content"
	// otherwise.
	ReturnFormat string `koanf:"return_format"`
	// Engine is how the reader fetches pages (X-Engine): "auto",
	// "browser", "direct", "curl" or "cf-browser-rendering". Empty leaves
	// the choice to Jina.
	Engine string `koanf:"engine"`
	// ReaderTimeout is how long the reader may spend loading a page
	// (X-Timeout, whole seconds, at most 180s). Zero sends nothing, and
	// Jina returns as soon as the content is visible; with a timeout it
	// waits for the network to settle, which is slower. It is capped at
	// one second below HTTP.AttemptTimeout so that Jina gives up first.
	ReaderTimeout time.Duration `koanf:"reader_timeout"`
	// TargetSelector is a CSS selector (X-Target-Selector): only the
	// matching part of the page is returned.
	TargetSelector string `koanf:"target_selector"`
	// RemoveSelector is a CSS selector of parts to remove
	// (X-Remove-Selector), such as "nav, footer".
	RemoveSelector string `koanf:"remove_selector"`
	// WaitForSelector is a CSS selector the reader waits for
	// (X-Wait-For-Selector).
	WaitForSelector string `koanf:"wait_for_selector"`
	// RetainImages is which images stay in the content (X-Retain-Images):
	// "none", "all", "alt", "all_p" or "alt_p". Empty leaves Jina's
	// default, "all".
	RetainImages string `koanf:"retain_images"`
	// NoCache asks the reader to fetch the page afresh (X-No-Cache)
	// instead of serving a copy up to an hour old.
	NoCache bool `koanf:"no_cache"`
	// MaxTokens trims the returned content to this many tokens
	// (X-Max-Tokens, at least 500); 0 sends nothing.
	MaxTokens int `koanf:"max_tokens"`
	// TokenBudget makes Jina refuse a page that would cost more tokens
	// (X-Token-Budget); 0 sends nothing. A refused page is
	// [provider.KindUnsupported].
	TokenBudget int `koanf:"token_budget"`
	// MaxCharacters caps the length, in characters, of extracted content
	// and of search result content; 0 means no cap.
	MaxCharacters int `koanf:"max_characters"`

	// MaxResults is the number of search results asked for when a query
	// leaves MaxResults at 0; default 10, at most 20.
	MaxResults int `koanf:"max_results"`
	// IncludeContent makes Jina Search read every result page and return
	// its content (Result.Content). Default false: searches then send
	// "X-Respond-With: no-content" and return titles, URLs and
	// descriptions only, which is much faster.
	IncludeContent bool `koanf:"include_content"`
}

// Client is the Jina backend: a [provider.Extractor] over Jina Reader and a
// [provider.Searcher] over Jina Search. It is safe for concurrent use.
type Client struct {
	keys      provider.KeySource
	cfg       Config
	http      *provider.HTTP
	readerURL string
	searchURL string
	// readerTimeout is the X-Timeout sent, in whole seconds; 0 sends none.
	readerTimeout int
	now           func() time.Time
}

var _ backend.Reader = (*Client)(nil)

// DefaultConfig returns the defaults as a Config, for callers that show or
// start from them (package config).
func DefaultConfig() Config {
	return Config{ReaderURL: DefaultReaderURL, SearchURL: DefaultSearchURL, ReturnFormat: DefaultReturnFormat, MaxResults: DefaultMaxResults}
}

// New returns a client that takes its API keys from keys. keys may be nil
// or empty: the reader then works without a key, at Jina's anonymous rate
// limit, and a search fails with [provider.KindAuth] without a request. A
// nil cfg means the defaults. It returns an error naming the setting when
// cfg holds an invalid value.
func New(keys provider.KeySource, cfg *Config) (*Client, error) {
	c := backend.Copy(cfg)
	var err error
	if c.ReaderURL, err = baseURL("reader_url", c.ReaderURL, DefaultReaderURL); err != nil {
		return nil, err
	}
	if c.SearchURL, err = baseURL("search_url", c.SearchURL, DefaultSearchURL); err != nil {
		return nil, err
	}
	if c.ReturnFormat == "" {
		c.ReturnFormat = DefaultReturnFormat
	}
	if err := backend.Choices(Name,
		backend.Choice{Setting: "return_format", Value: c.ReturnFormat, Allowed: ReturnFormats},
		backend.Choice{Setting: "engine", Value: c.Engine, Allowed: Engines},
		backend.Choice{Setting: "retain_images", Value: c.RetainImages, Allowed: ImageRetentionModes},
	); err != nil {
		return nil, err
	}
	for _, e := range []struct{ name, value string }{
		{"target_selector", c.TargetSelector},
		{"remove_selector", c.RemoveSelector},
		{"wait_for_selector", c.WaitForSelector},
	} {
		if strings.ContainsAny(e.value, "\r\n") {
			return nil, fmt.Errorf("jina: %s contains a line break", e.name)
		}
	}
	if c.ReaderTimeout < 0 || c.ReaderTimeout > MaxReaderTimeout {
		return nil, fmt.Errorf("jina: reader_timeout %s is outside 0..%s", c.ReaderTimeout, MaxReaderTimeout)
	}
	if c.MaxTokens != 0 && c.MaxTokens < MinMaxTokens {
		return nil, fmt.Errorf("jina: max_tokens %d is below %d", c.MaxTokens, MinMaxTokens)
	}
	if c.TokenBudget < 0 {
		return nil, fmt.Errorf("jina: token_budget %d is negative", c.TokenBudget)
	}
	if c.MaxCharacters < 0 {
		return nil, fmt.Errorf("jina: max_characters %d is negative", c.MaxCharacters)
	}
	if err := backend.MaxResultsSetting(Name, &c.MaxResults, DefaultMaxResults, MaxMaxResults); err != nil {
		return nil, err
	}

	rt := backend.ServerTimeout(c.HTTP, c.ReaderTimeout)
	return &Client{
		keys:          keys,
		cfg:           c,
		http:          provider.NewHTTP(&c.HTTP),
		readerURL:     c.ReaderURL + "/",
		searchURL:     c.SearchURL + "/",
		readerTimeout: int(rt / time.Second),
		now:           time.Now,
	}, nil
}

// Name returns "jina".
func (c *Client) Name() string { return Name }

const (
	opSearch  = "search"
	opExtract = "extract"
)

// Extract reads req.URL through Jina Reader: POST / with {"url": …} and
// the reader options as X-* headers, asking for JSON. The key is sent when
// the key source has one; without one the request is anonymous.
// req.Query is not used: the reader cannot select parts of a page by a
// query.
func (c *Client) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	respondWith, format, perr := c.respondWith(req.Format)
	if perr != nil {
		return nil, perr
	}
	if perr := checkURL(req.URL); perr != nil {
		return nil, perr
	}
	body, err := json.Marshal(readerRequest{URL: req.URL})
	if err != nil {
		return nil, &provider.Error{Provider: Name, Op: opExtract, Kind: provider.KindBadRequest, Message: "cannot encode request", Err: err}
	}
	keys, auth := c.optionalKeys(ctx)
	var page *provider.Page
	_, err = c.http.Do(ctx, keys, provider.Request{
		Provider: Name,
		Op:       opExtract,
		URL:      c.readerURL,
		Body:     body,
		Header:   c.readerHeader(respondWith),
		Auth:     auth,
		Check: func(r *provider.Response) *provider.Error {
			if e := checkStatus(r, opExtract); e != nil {
				return e
			}
			p, e := decodeReader(r.Body, respondWith)
			if e != nil {
				return e
			}
			if n, ok := headerTokens(r.Header); ok && p.Usage == nil {
				p.Usage = &provider.Usage{Tokens: n}
			}
			page = p
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	if page.URL == "" {
		page.URL = req.URL
	}
	page.Content = provider.CapRunes(page.Content, c.cfg.MaxCharacters)
	page.Format = format
	page.Provider = Name
	return page, nil
}

// readerRequest is the body of POST / on Jina Reader.
type readerRequest struct {
	URL string `json:"url"`
}

// readerHeader returns the reader options as headers.
func (c *Client) readerHeader(respondWith string) http.Header {
	h := http.Header{}
	h.Set("X-Respond-With", respondWith)
	set := func(name, value string) {
		if value != "" {
			h.Set(name, value)
		}
	}
	set("X-Engine", c.cfg.Engine)
	if c.readerTimeout > 0 {
		h.Set("X-Timeout", strconv.Itoa(c.readerTimeout))
	}
	set("X-Target-Selector", c.cfg.TargetSelector)
	set("X-Remove-Selector", c.cfg.RemoveSelector)
	set("X-Wait-For-Selector", c.cfg.WaitForSelector)
	set("X-Retain-Images", c.cfg.RetainImages)
	if c.cfg.NoCache {
		h.Set("X-No-Cache", "true")
	}
	if c.cfg.MaxTokens > 0 {
		h.Set("X-Max-Tokens", strconv.Itoa(c.cfg.MaxTokens))
	}
	if c.cfg.TokenBudget > 0 {
		h.Set("X-Token-Budget", strconv.Itoa(c.cfg.TokenBudget))
	}
	return h
}

// respondWith resolves the X-Respond-With value and the Page format for a
// requested format.
func (c *Client) respondWith(f provider.Format) (string, provider.Format, *provider.Error) {
	rw := c.cfg.ReturnFormat
	switch f {
	case "":
	case provider.Markdown:
		if rw != "markdown" {
			rw = "content"
		}
	case provider.Text:
		rw = "text"
	case "html":
		rw = "html"
	default:
		return "", "", badRequest(opExtract, fmt.Sprintf("format %q is not one of markdown, text, html", f))
	}
	switch rw {
	case "text":
		return rw, provider.Text, nil
	case "html":
		return rw, "html", nil
	}
	return rw, provider.Markdown, nil
}

// Search runs q through Jina Search: GET /?q=…&count=… with the API key,
// asking for JSON. Without a key it fails with [provider.KindAuth] and
// sends nothing. See the package documentation for the Query fields it
// honours.
func (c *Client) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	params, perr := c.searchParams(q)
	if perr != nil {
		return nil, perr
	}
	var ks []provider.Key
	if c.keys != nil {
		ks = c.keys.Keys(ctx)
	}
	if len(ks) == 0 {
		return nil, &provider.Error{Provider: Name, Op: opSearch, Kind: provider.KindAuth,
			Message: "no API key configured: Jina Search requires one", Err: provider.ErrNoKeys}
	}
	h := http.Header{}
	if !c.cfg.IncludeContent {
		h.Set("X-Respond-With", "no-content")
	}
	var decoded *provider.Results
	_, err := c.http.Do(ctx, fixedKeys{keys: ks, src: c.keys}, provider.Request{
		Provider: Name,
		Op:       opSearch,
		Method:   http.MethodGet,
		URL:      c.searchURL + "?" + params.Encode(),
		Header:   h,
		Auth:     backend.Bearer,
		Check: func(r *provider.Response) *provider.Error {
			if r.Status == http.StatusUnprocessableEntity && noResults(r.Body) {
				decoded = &provider.Results{Results: []provider.Result{}}
				return nil
			}
			if e := checkStatus(r, opSearch); e != nil {
				return e
			}
			res, e := decodeSearch(r.Body, c.now())
			if e != nil {
				return e
			}
			decoded = res
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	res := decoded
	backend.Label(res, q.Text, Name, backend.MaxResults(q.MaxResults, c.cfg.MaxResults, MaxMaxResults), c.cfg.MaxCharacters, c.Ignores(q))
	return res, nil
}

// Ignores returns the filters of q that Jina Search cannot apply: a time
// range, and a topic other than general. See the package documentation.
func (c *Client) Ignores(q provider.Query) []string {
	var out []string
	if q.TimeRange != provider.AnyTime {
		out = append(out, provider.FilterTimeRange)
	}
	if q.Topic.Specific() {
		out = append(out, provider.FilterTopic)
	}
	return out
}

// searchParams maps q onto Jina Search's query parameters.
func (c *Client) searchParams(q provider.Query) (url.Values, *provider.Error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, badRequest(opSearch, "query text is empty")
	}
	v := url.Values{}
	for _, d := range backend.Domains(q.ExcludeDomains) {
		text += " -site:" + d
	}
	v.Set("q", text)
	v.Set("count", strconv.Itoa(backend.MaxResults(q.MaxResults, c.cfg.MaxResults, MaxMaxResults)))
	for _, d := range backend.Domains(q.IncludeDomains) {
		v.Add("site", d)
	}
	if s := strings.ToLower(strings.TrimSpace(q.Country)); s != "" {
		if !backend.IsAlpha2(s) {
			return nil, badRequest(opSearch, fmt.Sprintf("country %q is not a two-letter ISO 3166-1 code", q.Country))
		}
		v.Set("gl", s)
	}
	if s := strings.TrimSpace(q.Language); s != "" {
		hl, ok := hostLanguage(s)
		if !ok {
			return nil, badRequest(opSearch, fmt.Sprintf("language %q is not an ISO 639-1 code", q.Language))
		}
		v.Set("hl", hl)
	}
	return v, nil
}

// regionalLanguages are the hl values with a region that Jina Search
// accepts; for any other tag only the primary language is sent.
var regionalLanguages = []string{"zh-cn", "zh-tw", "pt-br", "pt-pt", "es-419"}

// hostLanguage maps a language tag onto Jina Search's hl: lower case, the
// primary language, or one of regionalLanguages.
func hostLanguage(s string) (string, bool) {
	s = strings.ReplaceAll(strings.ToLower(s), "_", "-")
	if slices.Contains(regionalLanguages, s) {
		return s, true
	}
	primary, _, _ := strings.Cut(s, "-")
	if len(primary) < 2 || len(primary) > 3 {
		return "", false
	}
	for _, r := range primary {
		if r < 'a' || r > 'z' {
			return "", false
		}
	}
	return primary, true
}

// optionalKeys returns the key source and Auth for a reader request: the
// keys drawn once from the source when it has any, and no key otherwise.
func (c *Client) optionalKeys(ctx context.Context) (provider.KeySource, func(http.Header, provider.Key)) {
	if c.keys == nil {
		return nil, nil
	}
	ks := c.keys.Keys(ctx)
	if len(ks) == 0 {
		return nil, nil
	}
	return fixedKeys{keys: ks, src: c.keys}, backend.Bearer
}

// fixedKeys hands [provider.HTTP.Do] keys already drawn from a source, so
// that the source is asked once per request (a round-robin pool would
// otherwise advance twice), and reports outcomes back to it.
type fixedKeys struct {
	keys []provider.Key
	src  provider.KeySource
}

// Keys implements [provider.KeySource].
func (f fixedKeys) Keys(context.Context) []provider.Key { return f.keys }

// Report implements [provider.KeySource].
func (f fixedKeys) Report(k provider.Key, kind provider.Kind) { f.src.Report(k, kind) }

func baseURL(name, raw, def string) (string, error) {
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("jina: %s %q is not an absolute http(s) URL", name, backend.ShowURL(raw))
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("jina: %s %q must not have a query, a fragment or user information", name, backend.ShowURL(raw))
	}
	return strings.TrimRight(raw, "/"), nil
}

func checkURL(raw string) *provider.Error {
	if msg := backend.CheckURL(raw); msg != "" {
		return badRequest(opExtract, msg)
	}
	return nil
}

func badRequest(op, msg string) *provider.Error {
	return &provider.Error{Provider: Name, Op: op, Kind: provider.KindBadRequest, Message: msg}
}
