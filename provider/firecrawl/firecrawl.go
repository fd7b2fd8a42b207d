package firecrawl

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
)

// Name is the backend's name, as [Client.Name] returns it.
const Name = "firecrawl"

// Defaults of [Config].
const (
	// DefaultBaseURL is Firecrawl's hosted API. A self-hosted instance
	// listens on http://<host>:3002 by default.
	DefaultBaseURL = "https://api.firecrawl.dev"
	// DefaultMaxResults is Firecrawl's own default search limit.
	DefaultMaxResults = 10
	// DefaultScrapeTimeout is how long Firecrawl spends on a page when
	// Config.ScrapeTimeout is not set (its own default).
	DefaultScrapeTimeout = 60 * time.Second
)

// Limits of the Firecrawl API that [New] and the request mapping enforce.
const (
	// MaxResults is the largest search limit Firecrawl accepts.
	MaxResults = 100
	// MaxQueryRunes is the longest search query Firecrawl accepts.
	MaxQueryRunes = 500
	// MinScrapeTimeout and MaxScrapeTimeout bound Config.ScrapeTimeout.
	MinScrapeTimeout = time.Second
	MaxScrapeTimeout = 300 * time.Second
)

// The request paths, relative to the base URL.
const (
	scrapePath = "/v2/scrape"
	searchPath = "/v2/search"
)

// Proxies lists the accepted values of [Config.Proxy]; empty leaves
// Firecrawl's default (auto).
var Proxies = []string{"", "basic", "enhanced", "auto"}

// Config configures a [Client]. The zero value means the documented
// defaults; [New] never modifies the Config it is given.
type Config struct {
	// BaseURL is the API's root, without the /v2 version prefix (one is
	// accepted and dropped); default [DefaultBaseURL]. Point it at a
	// self-hosted instance ("http://localhost:3002") to use that instead.
	BaseURL string `koanf:"base_url"`
	// HTTP configures timeouts, retries and the body cap. When
	// AttemptTimeout is not set, extractions (and searches that scrape
	// their results) get an attempt timeout 10s longer than the time
	// Firecrawl may spend on a page.
	HTTP provider.HTTPConfig `koanf:"http"`
	// MaxResults is the number of results a search asks for when the query
	// does not say; default 10, at most 100.
	MaxResults int `koanf:"max_results"`
	// ScrapeResults asks searches to scrape every result as Markdown into
	// Result.Content. Each scraped result costs extra credits.
	ScrapeResults bool `koanf:"scrape_results"`
	// OnlyMainContent leaves out headers, navigation and footers; nil means
	// true, Firecrawl's default.
	OnlyMainContent *bool `koanf:"only_main_content"`
	// ScrapeTimeout is how long Firecrawl may spend on a page, 1s to 300s;
	// 0 leaves Firecrawl's default (60s). Sent in milliseconds.
	ScrapeTimeout time.Duration `koanf:"scrape_timeout"`
	// MaxAge is the oldest cached copy of a page Firecrawl may return; 0
	// always scrapes afresh. Nil leaves Firecrawl's default (2 days). Sent
	// in milliseconds.
	MaxAge *time.Duration `koanf:"max_age"`
	// Proxy is one of [Proxies]: basic, enhanced or auto; empty leaves
	// Firecrawl's default (auto).
	Proxy string `koanf:"proxy"`
	// MaxCharacters caps the content of an extracted page and of scraped
	// search results, in characters; 0 means no cap.
	MaxCharacters int `koanf:"max_characters"`
}

// Client is a Firecrawl backend: a [provider.Searcher] and a
// [provider.Extractor]. It is safe for concurrent use.
type Client struct {
	cfg    Config
	base   string
	keys   provider.KeySource
	search *provider.HTTP
	scrape *provider.HTTP
}

var _ backend.Reader = (*Client)(nil)

// DefaultConfig returns the defaults as a Config, for callers that show or
// start from them (package config).
func DefaultConfig() Config {
	return Config{BaseURL: DefaultBaseURL, MaxResults: DefaultMaxResults}
}

// New returns a client that takes its API keys from keys. A nil cfg means
// the defaults. New checks every enumerated and bounded field of cfg and
// returns an error naming the first bad one. A nil or empty key source is
// accepted: every call then fails with [provider.KindAuth].
func New(keys provider.KeySource, cfg *Config) (*Client, error) {
	c := backend.Copy(cfg)
	if c.OnlyMainContent != nil {
		v := *c.OnlyMainContent
		c.OnlyMainContent = &v
	}
	if c.MaxAge != nil {
		v := *c.MaxAge
		c.MaxAge = &v
	}
	if err := backend.BaseURL(Name, &c.BaseURL, DefaultBaseURL); err != nil {
		return nil, err
	}
	if err := backend.MaxResultsSetting(Name, &c.MaxResults, DefaultMaxResults, MaxResults); err != nil {
		return nil, err
	}
	switch {
	case c.ScrapeTimeout != 0 && (c.ScrapeTimeout < MinScrapeTimeout || c.ScrapeTimeout > MaxScrapeTimeout):
		return nil, fmt.Errorf("firecrawl: scrape_timeout %v is not between %v and %v", c.ScrapeTimeout, MinScrapeTimeout, MaxScrapeTimeout)
	case c.MaxAge != nil && *c.MaxAge < 0:
		return nil, fmt.Errorf("firecrawl: max_age %v is negative", *c.MaxAge)
	}
	if err := backend.Choices(Name, backend.Choice{Setting: "proxy", Value: c.Proxy, Allowed: Proxies}); err != nil {
		return nil, err
	}
	if c.MaxCharacters < 0 {
		return nil, fmt.Errorf("firecrawl: max_characters %d is negative", c.MaxCharacters)
	}

	// Leave Firecrawl time to read the page and answer.
	server := c.ScrapeTimeout
	if server == 0 {
		server = DefaultScrapeTimeout
	}
	long := backend.Outwait(c.HTTP, server)
	searchHTTP := c.HTTP
	if c.ScrapeResults {
		searchHTTP = long
	}
	base := strings.TrimRight(c.BaseURL, "/")
	base = strings.TrimRight(strings.TrimSuffix(base, "/v2"), "/")
	return &Client{
		cfg:    c,
		base:   base,
		keys:   keys,
		search: provider.NewHTTP(&searchHTTP),
		scrape: provider.NewHTTP(&long),
	}, nil
}

// Name returns "firecrawl".
func (c *Client) Name() string { return Name }

// Search runs q through POST /v2/search. See the package documentation for
// how each field of q maps onto Firecrawl's request.
func (c *Client) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	body, exclude, perr := c.searchBody(q)
	if perr != nil {
		return nil, perr
	}
	sr, _, err := call(ctx, c, c.search, opSearch, searchPath, body, decodeSearch)
	if err != nil {
		return nil, err
	}
	out := toResults(sr, q.Text, exclude, c.cfg.MaxCharacters)
	out.Ignored = provider.IgnoredBy(Name, c.Ignores(q))
	return out, nil
}

// Ignores returns the filters of q that Firecrawl cannot apply: a
// language, and a topic other than general. See the package documentation.
func (c *Client) Ignores(q provider.Query) []string {
	var out []string
	if strings.TrimSpace(q.Language) != "" {
		out = append(out, provider.FilterLanguage)
	}
	if q.Topic.Specific() {
		out = append(out, provider.FilterTopic)
	}
	return out
}

// searchBody maps q onto a /v2/search body. It also returns the domains to
// drop from the answer: those of ExcludeDomains when IncludeDomains is set
// too, since Firecrawl takes only one of the two lists.
func (c *Client) searchBody(q provider.Query) ([]byte, []string, *provider.Error) {
	text := strings.TrimSpace(q.Text)
	switch {
	case text == "":
		return nil, nil, inputErr(opSearch, "the query text is empty")
	case utf8.RuneCountInString(text) > MaxQueryRunes:
		return nil, nil, inputErr(opSearch, fmt.Sprintf("the query text is longer than Firecrawl's %d characters", MaxQueryRunes))
	}
	tbs, ok := timeRanges[q.TimeRange]
	if !ok {
		return nil, nil, inputErr(opSearch, fmt.Sprintf("unknown time range %q", q.TimeRange))
	}
	req := searchRequest{
		Query:   text,
		Limit:   backend.MaxResults(q.MaxResults, c.cfg.MaxResults, MaxResults),
		Sources: []typed{{Type: "web"}},
		TBS:     tbs,
	}
	if cc := strings.TrimSpace(q.Country); cc != "" {
		if !backend.IsAlpha2(cc) {
			return nil, nil, inputErr(opSearch, fmt.Sprintf("country %q is not a two-letter ISO 3166-1 code", q.Country))
		}
		req.Country = strings.ToUpper(cc)
		if req.Country == "UK" {
			req.Country = "GB"
		}
	}
	include, exclude := backend.Domains(q.IncludeDomains), backend.Domains(q.ExcludeDomains)
	var dropped []string
	if len(include) > 0 {
		req.IncludeDomains = include
		dropped = exclude
	} else {
		req.ExcludeDomains = exclude
	}
	if c.cfg.ScrapeResults {
		o := c.scrapeOptions()
		req.ScrapeOptions = &o
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, nil, inputErr(opSearch, "cannot encode the request")
	}
	return body, dropped, nil
}

var timeRanges = map[provider.TimeRange]string{
	provider.AnyTime:   "",
	provider.PastDay:   "qdr:d",
	provider.PastWeek:  "qdr:w",
	provider.PastMonth: "qdr:m",
	provider.PastYear:  "qdr:y",
}

// scrapeOptions returns the scrape options shared by /v2/scrape and the
// scraping of search results. Markdown and onlyMainContent are always
// sent, so what comes back never depends on the service's defaults.
func (c *Client) scrapeOptions() scrapeOptions {
	o := scrapeOptions{
		Formats:         []typed{{Type: "markdown"}},
		OnlyMainContent: c.cfg.OnlyMainContent == nil || *c.cfg.OnlyMainContent,
		Proxy:           c.cfg.Proxy,
	}
	if c.cfg.ScrapeTimeout > 0 {
		o.Timeout = int(c.cfg.ScrapeTimeout / time.Millisecond)
	}
	if c.cfg.MaxAge != nil {
		ms := int64(*c.cfg.MaxAge / time.Millisecond)
		o.MaxAge = &ms
	}
	return o
}

// toResults maps a decoded /v2/search answer onto provider.Results.
// Results without a URL, or on a domain of exclude, are dropped; a result
// without a title is titled by its URL. Firecrawl sends no relevance score,
// so Score is 1/rank in Firecrawl's order.
func toResults(sr *searchResponse, query string, exclude []string, maxChars int) *provider.Results {
	out := &provider.Results{
		Query:     query,
		Provider:  Name,
		RequestID: provider.Message(string(sr.ID)),
		Results:   make([]provider.Result, 0, len(sr.Data.Web)),
		Usage:     sr.CreditsUsed.usage(),
	}
	for i, r := range sr.Data.Web {
		u := firstOf(string(r.URL), string(r.Metadata.URL), string(r.Metadata.SourceURL))
		if u == "" || excluded(u, exclude) {
			continue
		}
		title := oneLine(firstOf(string(r.Title), string(r.Metadata.Title)))
		if title == "" {
			title = u
		}
		out.Results = append(out.Results, provider.Result{
			Title:    title,
			URL:      u,
			Snippet:  oneLine(firstOf(string(r.Description), string(r.Metadata.Description))),
			Content:  provider.CapRunes(string(r.Markdown), maxChars),
			Score:    1 / float64(i+1),
			Provider: Name,
		})
	}
	return out
}

// Extract reads req.URL through POST /v2/scrape as Markdown. Firecrawl has
// no plain-text format, so the Page's Format is [provider.Markdown] whether
// Markdown or Text was asked for; see the package documentation.
func (c *Client) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	target := strings.TrimSpace(req.URL)
	if u, err := url.Parse(target); target == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, inputErr(opExtract, fmt.Sprintf("%q is not an absolute http(s) URL", req.URL))
	}
	if req.Format != "" && req.Format != provider.Markdown && req.Format != provider.Text {
		return nil, inputErr(opExtract, fmt.Sprintf("unknown format %q", req.Format))
	}
	body, err := json.Marshal(scrapeRequest{URL: target, scrapeOptions: c.scrapeOptions()})
	if err != nil {
		return nil, inputErr(opExtract, "cannot encode the request")
	}
	sr, resp, err := call(ctx, c, c.scrape, opExtract, scrapePath, body, decodeScrape)
	if err != nil {
		return nil, err
	}
	doc := sr.Data
	rid := provider.Message(firstOf(string(doc.Metadata.ScrapeID), string(sr.ScrapeID)), resp.Key.Secret())
	if failed, msg := doc.Metadata.targetFailed(); failed {
		e := respErr(opExtract, resp, provider.KindUnsupported, msg, nil)
		e.RequestID = rid
		return nil, e
	}
	content := string(doc.Markdown)
	if strings.TrimSpace(content) == "" {
		e := respErr(opExtract, resp, provider.KindUnsupported, "Firecrawl returned no content for the page", nil)
		e.RequestID = rid
		return nil, e
	}
	title := oneLine(firstOf(string(doc.Metadata.Title), string(doc.Metadata.OGTitle)))
	if title == "" {
		title = backend.MarkdownTitle(content)
	}
	return &provider.Page{
		URL:       target,
		Title:     title,
		Content:   provider.CapRunes(content, c.cfg.MaxCharacters),
		Format:    provider.Markdown,
		Provider:  Name,
		RequestID: rid,
		Usage:     doc.Metadata.CreditsUsed.usage(),
	}, nil
}

// inputErr is the error for a request that was not sent because its input
// is invalid.
func inputErr(op, msg string) *provider.Error {
	return &provider.Error{Provider: Name, Op: op, Kind: provider.KindBadRequest, Message: msg}
}

// call sends one logical request with the pool's keys, body to path for
// op through h, and decodes the answer with decode; an answer that does
// not decode is an error of unknown kind.
func call[T any](ctx context.Context, c *Client, h *provider.HTTP, op, path string, body []byte, decode func([]byte) (*T, error)) (*T, *provider.Response, error) {
	resp, err := h.Do(ctx, c.keys, provider.Request{
		Provider: Name,
		Op:       op,
		URL:      c.base + path,
		Body:     body,
		Auth:     backend.Bearer,
		Check:    checker(op),
	})
	if err != nil {
		return nil, nil, err
	}
	r, err := decode(resp.Body)
	if err != nil {
		return nil, nil, respErr(op, resp, provider.KindUnknown, "malformed response: "+err.Error(), err)
	}
	return r, resp, nil
}

// respErr is the error for a 2xx answer whose content is a failure.
func respErr(op string, resp *provider.Response, kind provider.Kind, msg string, cause error) *provider.Error {
	return &provider.Error{
		Provider: Name,
		Op:       op,
		Status:   resp.Status,
		Kind:     kind,
		Message:  provider.Message(msg, resp.Key.Secret()),
		Attempts: resp.Attempts,
		Err:      cause,
	}
}

// excluded reports whether rawURL's host is one of domains or a subdomain
// of one.
func excluded(rawURL string, domains []string) bool {
	if len(domains) == 0 {
		return false
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// firstOf returns the first of vs that is not blank, trimmed.
func firstOf(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// oneLine joins runs of white space into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
