package brave

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
)

// Name is the backend's name, as [Client.Name] returns it.
const Name = "brave"

// Defaults of [Config].
const (
	DefaultBaseURL = "https://api.search.brave.com"
	// DefaultMaxResults is the number of results a search asks for when
	// neither the query nor the Config says.
	DefaultMaxResults = 10
)

// Limits of the Brave Search API that [New] and the request mapping
// enforce.
const (
	// MaxResults is the most web results one request returns (count).
	MaxResults = 20
	// MaxQueryRunes and MaxQueryWords bound the q parameter.
	MaxQueryRunes = 400
	MaxQueryWords = 50
)

// searchPath is the web search endpoint, relative to the base URL.
const searchPath = "/res/v1/web/search"

// SafeSearchModes lists the accepted values of [Config.SafeSearch]; empty
// leaves Brave's default (moderate).
var SafeSearchModes = []string{"", "off", "moderate", "strict"}

// Config configures a [Client]. The zero value means the documented
// defaults; [New] never modifies the Config it is given.
type Config struct {
	// BaseURL is the API's root; default [DefaultBaseURL].
	BaseURL string `koanf:"base_url"`
	// HTTP configures timeouts, retries and the body cap.
	HTTP provider.HTTPConfig `koanf:"http"`
	// MaxResults is the number of results a search asks for when the query
	// does not say; default 10, at most 20.
	MaxResults int `koanf:"max_results"`
	// SafeSearch is one of [SafeSearchModes]: off, moderate or strict;
	// empty leaves Brave's default (moderate).
	SafeSearch string `koanf:"safe_search"`
	// ExtraSnippets asks Brave for up to five extra excerpts per result,
	// joined into Result.Content. Only some Brave plans include them.
	ExtraSnippets bool `koanf:"extra_snippets"`
}

// Client is a Brave Search backend: a [provider.Searcher]. It is safe for
// concurrent use.
type Client struct {
	cfg  Config
	base string
	keys provider.KeySource
	http *provider.HTTP
}

var _ backend.Searcher = (*Client)(nil)

// DefaultConfig returns the defaults as a Config, for callers that show or
// start from them (package config).
func DefaultConfig() Config { return Config{BaseURL: DefaultBaseURL, MaxResults: DefaultMaxResults} }

// New returns a client that takes its API keys from keys. A nil cfg means
// the defaults. New checks every enumerated and bounded field of cfg and
// returns an error naming the first bad one. A nil or empty key source is
// accepted: every call then fails with [provider.KindAuth].
func New(keys provider.KeySource, cfg *Config) (*Client, error) {
	c := backend.Copy(cfg)
	if err := backend.BaseURL(Name, &c.BaseURL, DefaultBaseURL); err != nil {
		return nil, err
	}
	if err := backend.MaxResultsSetting(Name, &c.MaxResults, DefaultMaxResults, MaxResults); err != nil {
		return nil, err
	}
	if err := backend.Choices(Name, backend.Choice{Setting: "safe_search", Value: c.SafeSearch, Allowed: SafeSearchModes}); err != nil {
		return nil, err
	}
	return &Client{
		cfg:  c,
		base: strings.TrimRight(c.BaseURL, "/"),
		keys: keys,
		http: provider.NewHTTP(&c.HTTP),
	}, nil
}

// Name returns "brave".
func (c *Client) Name() string { return Name }

// Search runs q through GET /res/v1/web/search. See the package
// documentation for how each field of q maps onto Brave's parameters.
func (c *Client) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	params, f, perr := c.searchParams(q)
	if perr != nil {
		return nil, perr
	}
	resp, err := c.http.Do(ctx, c.keys, provider.Request{
		Provider: Name,
		Op:       "search",
		Method:   http.MethodGet,
		URL:      c.base + searchPath + "?" + params.Encode(),
		Auth:     setKey,
		Check:    check,
	})
	if err != nil {
		return nil, err
	}
	sr, derr := decodeSearch(resp.Body)
	if derr != nil {
		return nil, &provider.Error{Provider: Name, Op: "search", Status: resp.Status, Kind: provider.KindUnknown,
			Message: "malformed response: " + derr.Error(), Attempts: resp.Attempts, Err: derr}
	}
	out := toResults(sr, q.Text, f)
	out.Ignored = provider.IgnoredBy(Name, c.Ignores(q))
	return out, nil
}

// Ignores returns the filters of q that Brave cannot apply: a country or a
// language it does not list, and a topic other than general (only the web
// vertical is read). See the package documentation.
func (c *Client) Ignores(q provider.Query) []string {
	var out []string
	if strings.TrimSpace(q.Country) != "" && CountryCode(q.Country) == "" {
		out = append(out, provider.FilterCountry)
	}
	if strings.TrimSpace(q.Language) != "" && SearchLang(q.Language) == "" {
		out = append(out, provider.FilterLanguage)
	}
	if q.Topic.Specific() {
		out = append(out, provider.FilterTopic)
	}
	return out
}

// setKey puts the key in Brave's X-Subscription-Token header.
func setKey(h http.Header, k provider.Key) { h.Set("X-Subscription-Token", k.Secret()) }

// searchParams maps q onto the query string of a web search, and returns
// the domain filter the answer is checked against.
func (c *Client) searchParams(q provider.Query) (url.Values, domainFilter, *provider.Error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, domainFilter{}, badRequest("the query text is empty")
	}
	freshness, ok := freshnesses[q.TimeRange]
	if !ok {
		return nil, domainFilter{}, badRequest(fmt.Sprintf("unknown time range %q", q.TimeRange))
	}
	n := backend.MaxResults(q.MaxResults, c.cfg.MaxResults, MaxResults)
	f := domainFilter{include: backend.Domains(q.IncludeDomains), exclude: backend.Domains(q.ExcludeDomains)}

	v := url.Values{}
	v.Set("q", withSiteOperators(text, f))
	v.Set("count", strconv.Itoa(n))
	v.Set("result_filter", "web")
	v.Set("text_decorations", "false")
	if freshness != "" {
		v.Set("freshness", freshness)
	}
	if cc := CountryCode(q.Country); cc != "" {
		v.Set("country", cc)
	}
	if lang := SearchLang(q.Language); lang != "" {
		v.Set("search_lang", lang)
	}
	if c.cfg.SafeSearch != "" {
		v.Set("safesearch", c.cfg.SafeSearch)
	}
	if c.cfg.ExtraSnippets {
		v.Set("extra_snippets", "true")
	}
	return v, f, nil
}

var freshnesses = map[provider.TimeRange]string{
	provider.AnyTime:   "",
	provider.PastDay:   "pd",
	provider.PastWeek:  "pw",
	provider.PastMonth: "pm",
	provider.PastYear:  "py",
}

func badRequest(msg string) *provider.Error {
	return &provider.Error{Provider: Name, Op: "search", Kind: provider.KindBadRequest, Message: msg}
}

// withSiteOperators appends Brave's site: operators for the domain filters
// to text: "site:a OR site:b" for the domains to keep and "-site:c" for
// those to drop. When the result would break Brave's limits on q (400
// characters, 50 words), text is sent alone and the filter is applied to
// the answer only.
func withSiteOperators(text string, f domainFilter) string {
	ops := backend.SiteOperators(f.include, f.exclude)
	if ops == "" {
		return text
	}
	q := text + ops
	if utf8.RuneCountInString(q) > MaxQueryRunes || len(strings.Fields(q)) > MaxQueryWords {
		return text
	}
	return q
}

// domainFilter holds a query's domain filters, which Brave can only express
// as query operators; the answer is checked against them too.
type domainFilter struct {
	include, exclude []string
}

// keeps reports whether a result at rawURL passes the filter: its host is
// one of the included domains or a subdomain of one (when any are given),
// and is none of the excluded domains or their subdomains.
func (f domainFilter) keeps(rawURL string) bool {
	return backend.InDomains(rawURL, f.include, f.exclude)
}

// toResults maps a decoded answer onto provider.Results. Results without a
// URL, or outside the query's domain filter, are dropped; a result without
// a title is titled by its URL. Brave sends no relevance score, so Score is
// 1/rank in Brave's order.
func toResults(sr *searchResponse, query string, f domainFilter) *provider.Results {
	out := &provider.Results{Query: query, Provider: Name, Results: []provider.Result{}}
	if sr.Web == nil {
		return out
	}
	for i, r := range sr.Web.Results {
		u := strings.TrimSpace(string(r.URL))
		if u == "" || !f.keeps(u) {
			continue
		}
		title := clean(string(r.Title))
		if title == "" {
			title = u
		}
		var extra []string
		for _, s := range r.ExtraSnippets {
			if s := clean(string(s)); s != "" {
				extra = append(extra, s)
			}
		}
		out.Results = append(out.Results, provider.Result{
			Title:     title,
			URL:       u,
			Snippet:   clean(string(r.Description)),
			Content:   strings.Join(extra, "\n\n"),
			Published: published(string(r.PageAge), string(r.Age)),
			Score:     1 / float64(i+1),
			Provider:  Name,
		})
	}
	return out
}

// clean turns one of Brave's display strings into plain text: the
// <strong> highlight markup is removed, HTML entities are decoded and runs
// of white space are joined.
func clean(s string) string {
	s = strings.NewReplacer("<strong>", "", "</strong>", "").Replace(s)
	return strings.Join(strings.Fields(html.UnescapeString(s)), " ")
}

// published reads a result's page_age (ISO 8601, usually without a zone,
// read as UTC) or else its age when that is a date ("March 4, 2025").
// Relative ages ("2 days ago") and anything else give the zero time.
func published(pageAge, age string) time.Time {
	for _, s := range []string{pageAge, age} {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02", "January 2, 2006", "Jan 2, 2006", "2 January 2006"} {
			if t, err := time.Parse(layout, s); err == nil && t.Year() >= 1970 {
				return t
			}
		}
	}
	return time.Time{}
}
