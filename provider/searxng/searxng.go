package searxng

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
)

// Name is the backend's name, as [Client.Name] returns it.
const Name = "searxng"

// Defaults and limits of [Config].
const (
	// DefaultMaxResults is the number of results a search returns when the
	// query does not say.
	DefaultMaxResults = 10
	// MaxTimeoutLimit is the longest [Config.TimeoutLimit] accepted.
	MaxTimeoutLimit = 60 * time.Second
)

// Config configures a [Client]. The zero value is not usable: BaseURL is
// required. [New] never modifies the Config it is given.
type Config struct {
	// BaseURL is the URL of the SearXNG instance ("http://127.0.0.1:8888",
	// "https://search.example.org/searx"). Required: there is no default
	// public instance, and public instances seldom serve JSON. A trailing
	// "/search" is removed.
	BaseURL string `koanf:"base_url"`
	// HTTP configures timeouts, retries and the body cap.
	HTTP provider.HTTPConfig `koanf:"http"`

	// MaxResults is the number of results returned when a query leaves
	// MaxResults at 0; default 10. SearXNG has no result-count parameter,
	// so this only cuts the one page of results it returns.
	MaxResults int `koanf:"max_results"`
	// Categories is sent as "categories" (for example "general", "news",
	// "it"); empty leaves the choice to the instance's preferences.
	// SearXNG drops unknown names silently.
	Categories []string `koanf:"categories"`
	// Engines is sent as "engines" (for example "duckduckgo", "brave");
	// empty leaves the choice to the instance's preferences.
	Engines []string `koanf:"engines"`
	// SafeSearch is sent as "safesearch": 0 (off), 1 (moderate) or 2
	// (strict). Nil leaves the instance's search.safe_search setting.
	SafeSearch *int `koanf:"safe_search"`
	// TimeoutLimit is sent as "timeout_limit", in seconds: how long the
	// instance waits for its engines. Zero leaves the instance's own
	// timeouts; at most 60s.
	TimeoutLimit time.Duration `koanf:"timeout_limit"`
}

// Client is the SearXNG backend: a [provider.Searcher] over
// GET /search?format=json. It is safe for concurrent use.
type Client struct {
	cfg       Config
	http      *provider.HTTP
	searchURL string
}

var _ backend.Searcher = (*Client)(nil)

// DefaultConfig returns the defaults as a Config, for callers that show or
// start from them (package config). BaseURL has no default: it names the
// instance.
func DefaultConfig() Config { return Config{MaxResults: DefaultMaxResults} }

// New returns a client for the SearXNG instance at cfg.BaseURL. keys is
// ignored and may be nil: SearXNG has no API keys, and the parameter
// exists so that every backend is built the same way. It returns an error
// naming the setting when cfg is nil, lacks BaseURL or holds an invalid
// value.
func New(keys provider.KeySource, cfg *Config) (*Client, error) {
	_ = keys
	if cfg == nil || strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, fmt.Errorf("searxng: base_url is required (the URL of a SearXNG instance)")
	}
	c := *cfg
	c.Categories = textfmt.NonBlank(cfg.Categories)
	c.Engines = textfmt.NonBlank(cfg.Engines)
	if cfg.SafeSearch != nil {
		v := *cfg.SafeSearch
		c.SafeSearch = &v
	}
	base, err := url.Parse(strings.TrimSpace(c.BaseURL))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("searxng: base_url %q is not an absolute http(s) URL", backend.ShowURL(c.BaseURL))
	}
	if base.RawQuery != "" || base.Fragment != "" || base.User != nil {
		return nil, fmt.Errorf("searxng: base_url %q must not have a query, a fragment or user information", backend.ShowURL(c.BaseURL))
	}
	base.Path = strings.TrimSuffix(strings.TrimRight(base.Path, "/"), "/search")
	base.RawPath = ""
	c.BaseURL = strings.TrimRight(base.String(), "/")
	switch {
	case c.MaxResults == 0:
		c.MaxResults = DefaultMaxResults
	case c.MaxResults < 0:
		return nil, fmt.Errorf("searxng: max_results %d is negative", c.MaxResults)
	}
	if c.SafeSearch != nil && (*c.SafeSearch < 0 || *c.SafeSearch > 2) {
		return nil, fmt.Errorf("searxng: safe_search %d is not 0, 1 or 2", *c.SafeSearch)
	}
	if c.TimeoutLimit < 0 || c.TimeoutLimit > MaxTimeoutLimit {
		return nil, fmt.Errorf("searxng: timeout_limit %s is outside 0..%s", c.TimeoutLimit, MaxTimeoutLimit)
	}
	for _, l := range []struct {
		name  string
		items []string
	}{{"categories", c.Categories}, {"engines", c.Engines}} {
		for _, it := range l.items {
			if strings.Contains(it, ",") {
				return nil, fmt.Errorf("searxng: %s entry %q contains a comma", l.name, it)
			}
		}
	}
	return &Client{
		cfg:       c,
		http:      provider.NewHTTP(&c.HTTP),
		searchURL: c.BaseURL + "/search",
	}, nil
}

// Name returns "searxng".
func (c *Client) Name() string { return Name }

// Search runs q through GET /search?format=json on the instance. See the
// package documentation for how the Query fields map onto SearXNG's
// parameters and which it cannot honour.
func (c *Client) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	params, perr := c.params(q)
	if perr != nil {
		return nil, perr
	}
	var decoded *decodedSearch
	_, err := c.http.Do(ctx, nil, provider.Request{
		Provider: Name,
		Op:       opSearch,
		Method:   http.MethodGet,
		URL:      c.searchURL + "?" + params.Encode(),
		Check: func(r *provider.Response) *provider.Error {
			if e := checkStatus(r); e != nil {
				return e
			}
			d, e := decodeSearch(r.Body)
			if e != nil {
				return e
			}
			decoded = d
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	out := &provider.Results{
		Query:    q.Text,
		Answer:   decoded.Answer,
		Provider: Name,
		Results:  []provider.Result{},
		Ignored:  provider.IgnoredBy(Name, c.Ignores(q)),
	}
	include, exclude := backend.Domains(q.IncludeDomains), backend.Domains(q.ExcludeDomains)
	want := q.MaxResults
	if want <= 0 {
		want = c.cfg.MaxResults
	}
	for _, r := range decoded.Results {
		if len(out.Results) == want {
			break
		}
		if !backend.InDomains(r.URL, include, exclude) {
			continue
		}
		r.Provider = Name
		out.Results = append(out.Results, r)
	}
	return out, nil
}

const opSearch = "search"

// Ignores returns the filters of q that SearXNG cannot apply: a country
// without a language (or with the language "auto"), and the finance topic.
// See the package documentation.
func (c *Client) Ignores(q provider.Query) []string {
	var out []string
	lang := strings.TrimSpace(q.Language)
	if strings.TrimSpace(q.Country) != "" && (lang == "" || strings.EqualFold(lang, "auto")) {
		out = append(out, provider.FilterCountry)
	}
	if q.Topic.Specific() && q.Topic != provider.TopicNews {
		out = append(out, provider.FilterTopic)
	}
	return out
}

// languageRE is the language SearXNG accepts (webadapter.py): a two- or
// three-letter code with an optional two-letter region.
var languageRE = regexp.MustCompile(`^[a-z]{2,3}(-[a-zA-Z]{2})?$`)

// params maps q onto the /search query parameters, refusing before any
// request what the instance would refuse.
func (c *Client) params(q provider.Query) (url.Values, *provider.Error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, badRequest("query text is empty")
	}
	v := url.Values{}
	v.Set("q", text+backend.SiteOperators(backend.Domains(q.IncludeDomains), backend.Domains(q.ExcludeDomains)))
	v.Set("format", "json")
	v.Set("pageno", "1")
	switch q.TimeRange {
	case provider.AnyTime:
	case provider.PastDay, provider.PastWeek, provider.PastMonth, provider.PastYear:
		v.Set("time_range", string(q.TimeRange))
	default:
		return nil, badRequest(fmt.Sprintf("time range %q is not one of day, week, month, year", q.TimeRange))
	}
	country := strings.TrimSpace(q.Country)
	if country != "" && !backend.IsAlpha2(strings.ToLower(country)) {
		return nil, badRequest(fmt.Sprintf("country %q is not a two-letter ISO 3166-1 code", q.Country))
	}
	if lang := strings.ReplaceAll(strings.TrimSpace(q.Language), "_", "-"); strings.EqualFold(lang, "auto") {
		v.Set("language", "auto")
	} else if lang != "" {
		primary, region, _ := strings.Cut(lang, "-")
		primary = strings.ToLower(primary)
		if country != "" {
			region = country
		}
		if region != "" {
			lang = primary + "-" + strings.ToUpper(region)
		} else {
			lang = primary
		}
		if !languageRE.MatchString(lang) {
			return nil, badRequest(fmt.Sprintf("language %q is not a language code SearXNG accepts", q.Language))
		}
		v.Set("language", lang)
	}
	if q.Topic == provider.TopicNews {
		v.Set("categories", "news")
	} else if len(c.cfg.Categories) > 0 {
		v.Set("categories", strings.Join(c.cfg.Categories, ","))
	}
	if len(c.cfg.Engines) > 0 {
		v.Set("engines", strings.Join(c.cfg.Engines, ","))
	}
	if c.cfg.SafeSearch != nil {
		v.Set("safesearch", strconv.Itoa(*c.cfg.SafeSearch))
	}
	if c.cfg.TimeoutLimit > 0 {
		v.Set("timeout_limit", strconv.FormatFloat(c.cfg.TimeoutLimit.Seconds(), 'f', -1, 64))
	}
	return v, nil
}

func badRequest(msg string) *provider.Error {
	return &provider.Error{Provider: Name, Op: opSearch, Kind: provider.KindBadRequest, Message: msg}
}
