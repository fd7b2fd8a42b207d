package tavily

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
)

// Name is the backend's name, as [Client.Name] returns it.
const Name = "tavily"

// Defaults of [Config].
const (
	DefaultBaseURL      = "https://api.tavily.com"
	DefaultSearchDepth  = "basic"
	DefaultTopic        = "general"
	DefaultMaxResults   = 5
	DefaultExtractDepth = "basic"
)

// Limits of the Tavily API that [New] and the request mapping enforce.
const (
	// MaxResults is the most results one search returns.
	MaxResults = 20
	// MaxSearchChunks and MaxExtractChunks bound chunks_per_source.
	MaxSearchChunks  = 3
	MaxExtractChunks = 5
	// MinExtractTimeout and MaxExtractTimeout bound the extract timeout
	// Tavily accepts.
	MinExtractTimeout = time.Second
	MaxExtractTimeout = 60 * time.Second
)

// The accepted values of the enumerated [Config] fields.
var (
	SearchDepths  = []string{"basic", "advanced", "fast", "ultra-fast"}
	Topics        = []string{"general", "news", "finance"}
	ExtractDepths = []string{"basic", "advanced"}
	AnswerModes   = []string{"", "basic", "advanced"}
)

// Config configures a [Client]. The zero value means the documented
// defaults; [New] never modifies the Config it is given.
type Config struct {
	// BaseURL is the API's root; default [DefaultBaseURL].
	BaseURL string `koanf:"base_url"`
	// HTTP configures timeouts, retries and the body cap. When
	// AttemptTimeout is not set, extractions get an attempt timeout 10s
	// longer than the time Tavily may spend on the page.
	HTTP provider.HTTPConfig `koanf:"http"`
	// SearchDepth is one of [SearchDepths]; default "basic". "advanced"
	// costs two credits per search.
	SearchDepth string `koanf:"search_depth"`
	// Topic is one of [Topics]; default "general". Country applies only to
	// the general topic.
	Topic string `koanf:"topic"`
	// MaxResults is the number of results a search returns when the query
	// does not say; default 5, at most 20.
	MaxResults int `koanf:"max_results"`
	// ChunksPerSource is how many content chunks Tavily returns per
	// search result (1–3, not with the "ultra-fast" depth). 0 leaves
	// Tavily's default (3).
	ChunksPerSource int `koanf:"chunks_per_source"`
	// ExtractChunks, when set (1–5), sends an extraction's query to Tavily
	// with this chunks_per_source, so Tavily returns only that many chunks
	// of the page, the ones most relevant to the query. 0 (the default)
	// sends no query: the whole page comes back, and the caller (the web
	// fetch hook) keeps the parts relevant to the prompt itself when the
	// page is too long.
	ExtractChunks int `koanf:"extract_chunks"`
	// IncludeRawContent asks searches for each page's full text, as
	// Markdown, in Result.Content.
	IncludeRawContent bool `koanf:"include_raw_content"`
	// IncludeAnswer asks searches for a generated answer in
	// Results.Answer: "basic" or "advanced"; empty means none.
	IncludeAnswer string `koanf:"include_answer"`
	// ExtractDepth is one of [ExtractDepths]; default "basic". "advanced"
	// reads pages that need more work (tables, embedded content) and costs
	// twice as much.
	ExtractDepth string `koanf:"extract_depth"`
	// ExtractTimeout is how long Tavily may spend reading a page, 1s–60s;
	// 0 leaves Tavily's default (10s basic, 30s advanced).
	ExtractTimeout time.Duration `koanf:"extract_timeout"`
	// MaxCharacters caps the content of an extracted page and the raw
	// content of search results, in characters; 0 means no cap.
	MaxCharacters int `koanf:"max_characters"`
	// ProjectID is sent as X-Project-ID, for per-project usage tracking;
	// optional.
	ProjectID string `koanf:"project_id"`
}

// DefaultConfig returns the defaults as a Config, for callers that show or
// start from them (package config).
func DefaultConfig() Config {
	return Config{
		BaseURL:      DefaultBaseURL,
		SearchDepth:  DefaultSearchDepth,
		Topic:        DefaultTopic,
		MaxResults:   DefaultMaxResults,
		ExtractDepth: DefaultExtractDepth,
	}
}

// Client is a Tavily backend: a [provider.Searcher] and
// [provider.Extractor]. It is safe for concurrent use.
type Client struct {
	cfg     Config
	base    string
	keys    provider.KeySource
	search  *provider.HTTP
	extract *provider.HTTP
}

var _ backend.Reader = (*Client)(nil)

// New returns a client that takes its API keys from keys. A nil cfg means
// the defaults. New checks every enumerated and bounded field of cfg and
// returns an error naming the first bad one. A nil or empty key source is
// accepted: every call then fails with [provider.KindAuth].
func New(keys provider.KeySource, cfg *Config) (*Client, error) {
	c := backend.Copy(cfg)
	if err := backend.BaseURL(Name, &c.BaseURL, DefaultBaseURL); err != nil {
		return nil, err
	}
	if c.SearchDepth == "" {
		c.SearchDepth = DefaultSearchDepth
	}
	if c.Topic == "" {
		c.Topic = DefaultTopic
	}
	if c.ExtractDepth == "" {
		c.ExtractDepth = DefaultExtractDepth
	}
	if c.MaxResults == 0 {
		c.MaxResults = DefaultMaxResults
	}
	if err := backend.Choices(Name,
		backend.Choice{Setting: "search_depth", Value: c.SearchDepth, Allowed: SearchDepths},
		backend.Choice{Setting: "topic", Value: c.Topic, Allowed: Topics},
		backend.Choice{Setting: "extract_depth", Value: c.ExtractDepth, Allowed: ExtractDepths},
		backend.Choice{Setting: "include_answer", Value: c.IncludeAnswer, Allowed: AnswerModes},
	); err != nil {
		return nil, err
	}
	switch {
	case c.MaxResults < 1 || c.MaxResults > MaxResults:
		return nil, fmt.Errorf("tavily: max_results %d is not between 1 and %d", c.MaxResults, MaxResults)
	case c.ChunksPerSource < 0 || c.ChunksPerSource > MaxSearchChunks:
		return nil, fmt.Errorf("tavily: chunks_per_source %d is not between 0 and %d", c.ChunksPerSource, MaxSearchChunks)
	case c.ExtractChunks < 0 || c.ExtractChunks > MaxExtractChunks:
		return nil, fmt.Errorf("tavily: extract_chunks %d is not between 0 and %d", c.ExtractChunks, MaxExtractChunks)
	case c.ExtractTimeout != 0 && (c.ExtractTimeout < MinExtractTimeout || c.ExtractTimeout > MaxExtractTimeout):
		return nil, fmt.Errorf("tavily: extract_timeout %v is not between %v and %v", c.ExtractTimeout, MinExtractTimeout, MaxExtractTimeout)
	case c.MaxCharacters < 0:
		return nil, fmt.Errorf("tavily: max_characters %d is negative", c.MaxCharacters)
	}

	// Leave Tavily time to read the page and answer.
	server := c.ExtractTimeout
	if server == 0 {
		server = 10 * time.Second
		if c.ExtractDepth == "advanced" {
			server = 30 * time.Second
		}
	}
	ehc := backend.Outwait(c.HTTP, server)
	return &Client{
		cfg:     c,
		base:    strings.TrimRight(c.BaseURL, "/"),
		keys:    keys,
		search:  provider.NewHTTP(&c.HTTP),
		extract: provider.NewHTTP(&ehc),
	}, nil
}

// Name returns "tavily".
func (c *Client) Name() string { return Name }

// Search runs q through POST /search. See the package documentation for
// how each field of q maps onto Tavily's request.
func (c *Client) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	body, err := c.searchBody(q)
	if err != nil {
		return nil, err
	}
	sr, _, err := call(ctx, c, c.search, "search", "/search", body, decodeSearch)
	if err != nil {
		return nil, err
	}
	out := toResults(sr, q.Text, c.cfg.MaxCharacters)
	out.Ignored = provider.IgnoredBy(Name, c.Ignores(q))
	return out, nil
}

// topic returns the topic a search for q sends: the query's, else the
// configured one.
func (c *Client) topic(q provider.Query) string {
	if q.Topic != provider.AnyTopic {
		return string(q.Topic)
	}
	return c.cfg.Topic
}

// Ignores returns the filters of q that Tavily cannot apply: a language,
// and a country with the news or finance topic or that Tavily does not
// list. See the package documentation.
func (c *Client) Ignores(q provider.Query) []string {
	var out []string
	if strings.TrimSpace(q.Country) != "" && (c.topic(q) != "general" || CountryName(q.Country) == "") {
		out = append(out, provider.FilterCountry)
	}
	if strings.TrimSpace(q.Language) != "" {
		out = append(out, provider.FilterLanguage)
	}
	return out
}

// toResults maps a decoded /search answer onto provider.Results. Results
// without a URL are dropped; a result without a title is titled by its URL.
func toResults(sr *searchResponse, query string, maxChars int) *provider.Results {
	out := &provider.Results{
		Query:     query,
		Answer:    string(sr.Answer),
		Provider:  Name,
		RequestID: string(sr.RequestID),
		Results:   make([]provider.Result, 0, len(sr.Results)),
		Usage:     sr.Usage.report(),
	}
	for _, r := range sr.Results {
		u := strings.TrimSpace(string(r.URL))
		if u == "" {
			continue
		}
		title := strings.TrimSpace(string(r.Title))
		if title == "" {
			title = u
		}
		out.Results = append(out.Results, provider.Result{
			Title:     title,
			URL:       u,
			Snippet:   string(r.Content),
			Content:   provider.CapRunes(string(r.RawContent), maxChars),
			Published: parseDate(string(r.PublishedDate)),
			Score:     float64(r.Score),
			Provider:  Name,
		})
	}
	return out
}

// searchBody maps q onto a /search request body.
func (c *Client) searchBody(q provider.Query) ([]byte, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, badRequest("search", "the query text is empty")
	}
	tr, ok := timeRanges[q.TimeRange]
	if !ok {
		return nil, badRequest("search", fmt.Sprintf("unknown time range %q", q.TimeRange))
	}
	topic := c.topic(q)
	if !slices.Contains(Topics, topic) {
		return nil, badRequest("search", fmt.Sprintf("unknown topic %q", q.Topic))
	}
	n := backend.MaxResults(q.MaxResults, c.cfg.MaxResults, MaxResults)
	req := searchRequest{
		Query:          text,
		SearchDepth:    c.cfg.SearchDepth,
		Topic:          topic,
		MaxResults:     n,
		TimeRange:      tr,
		IncludeDomains: textfmt.NonBlank(q.IncludeDomains),
		ExcludeDomains: textfmt.NonBlank(q.ExcludeDomains),
		IncludeAnswer:  c.cfg.IncludeAnswer,
		IncludeUsage:   true,
	}
	if c.cfg.ChunksPerSource > 0 && c.cfg.SearchDepth != "ultra-fast" {
		req.ChunksPerSource = c.cfg.ChunksPerSource
	}
	if c.cfg.IncludeRawContent {
		req.IncludeRawContent = "markdown"
	}
	if topic == "general" {
		req.Country = CountryName(q.Country)
	}
	return json.Marshal(req)
}

var timeRanges = map[provider.TimeRange]string{
	provider.AnyTime:   "",
	provider.PastDay:   "day",
	provider.PastWeek:  "week",
	provider.PastMonth: "month",
	provider.PastYear:  "year",
}

// Extract reads req.URL through POST /extract. The page's title is its
// first Markdown heading, since Tavily returns none.
func (c *Client) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	target := strings.TrimSpace(req.URL)
	if target == "" {
		return nil, badRequest("extract", "the URL is empty")
	}
	format := req.Format
	if format == "" {
		format = provider.Markdown
	}
	if format != provider.Markdown && format != provider.Text {
		return nil, badRequest("extract", fmt.Sprintf("unknown format %q", req.Format))
	}
	er := extractRequest{
		URLs:         []string{target},
		Format:       string(format),
		ExtractDepth: c.cfg.ExtractDepth,
		Timeout:      c.cfg.ExtractTimeout.Seconds(),
		IncludeUsage: true,
	}
	if q := strings.TrimSpace(req.Query); q != "" && c.cfg.ExtractChunks > 0 {
		er.Query = q
		er.ChunksPerSource = c.cfg.ExtractChunks
	}
	body, err := json.Marshal(er)
	if err != nil {
		return nil, badRequest("extract", "cannot encode the request")
	}
	xr, resp, err := call(ctx, c, c.extract, "extract", "/extract", body, decodeExtract)
	if err != nil {
		return nil, err
	}
	res, failure := xr.find(target)
	if res == nil {
		msg := "Tavily returned no content for the URL"
		if failure != "" {
			msg = "Tavily could not read the URL: " + provider.Message(failure, resp.Key.Secret())
		}
		return nil, &provider.Error{Provider: Name, Op: "extract", Status: resp.Status, Kind: provider.KindUnsupported,
			RequestID: string(xr.RequestID), Message: msg, Attempts: resp.Attempts}
	}
	content := string(res.RawContent)
	if strings.TrimSpace(content) == "" {
		return nil, &provider.Error{Provider: Name, Op: "extract", Status: resp.Status, Kind: provider.KindUnsupported,
			RequestID: string(xr.RequestID), Message: "Tavily returned empty content for the URL", Attempts: resp.Attempts}
	}
	return &provider.Page{
		URL:       target,
		Title:     backend.MarkdownTitle(content),
		Content:   provider.CapRunes(content, c.cfg.MaxCharacters),
		Format:    format,
		Provider:  Name,
		RequestID: string(xr.RequestID),
		Usage:     xr.Usage.report(),
	}, nil
}

func badRequest(op, msg string) error {
	return &provider.Error{Provider: Name, Op: op, Kind: provider.KindBadRequest, Message: msg}
}

// call sends one logical request with the pool's keys, body to path for
// op through h, and decodes the answer with decode; an answer that does
// not decode is [malformed].
func call[T any](ctx context.Context, c *Client, h *provider.HTTP, op, path string, body []byte, decode func([]byte) (*T, error)) (*T, *provider.Response, error) {
	var hdr http.Header
	if c.cfg.ProjectID != "" {
		hdr = http.Header{"X-Project-Id": {c.cfg.ProjectID}}
	}
	resp, err := h.Do(ctx, c.keys, provider.Request{
		Provider: Name,
		Op:       op,
		URL:      c.base + path,
		Body:     body,
		Header:   hdr,
		Auth:     backend.Bearer,
		Check:    check,
	})
	if err != nil {
		return nil, nil, err
	}
	r, err := decode(resp.Body)
	if err != nil {
		return nil, nil, malformed(op, resp, err)
	}
	return r, resp, nil
}

// malformed is the error for a 200 answer that does not decode.
func malformed(op string, resp *provider.Response, err error) error {
	var se *json.SyntaxError
	msg := "malformed JSON response"
	if !errors.As(err, &se) {
		msg = "unexpected JSON response shape"
	}
	return &provider.Error{Provider: Name, Op: op, Status: resp.Status, Kind: provider.KindUnknown,
		Message: msg, Attempts: resp.Attempts, Err: err}
}

// parseDate reads the publication dates Tavily sends (RFC 1123 for news,
// ISO 8601 elsewhere); it returns the zero time for anything else.
func parseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, time.RFC1123, time.RFC1123Z, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02", time.RFC850, time.ANSIC} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}
