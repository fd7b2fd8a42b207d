package provider

import (
	"context"
	"time"
)

// Searcher runs a web search.
//
// Search must honour ctx: it returns promptly once ctx is done, with an error
// of kind [KindCanceled] (cancellation) or [KindTransient] (deadline). It must
// be safe for concurrent use. A search that succeeds with no hits returns
// empty Results and a nil error. Failures are returned as errors whose kind
// ([KindOf]) is one of the closed set documented on [Kind]; a provider that
// answers 429 yields [KindRateLimited], exhausted credits yield [KindQuota],
// a rejected key yields [KindAuth].
type Searcher interface {
	Search(ctx context.Context, q Query) (*Results, error)
}

// Extractor reads one URL and returns its readable content, as Markdown
// unless the request asks for another [Format].
//
// Extract must honour ctx and be safe for concurrent use, like
// [Searcher.Search]. A provider that cannot read the page (it reports the
// URL as failed, or returns no content) yields an error of kind
// [KindUnsupported]; empty content is never a success.
type Extractor interface {
	Extract(ctx context.Context, req ExtractRequest) (*Page, error)
}

// Namer is implemented by backends and policies that have a stable,
// human-readable name ("tavily", "exa", "websearchapi"). Callers that need a
// name for a value that does not implement it use [NameOf].
type Namer interface {
	Name() string
}

// NameOf returns v's name when it implements [Namer], and "unnamed"
// otherwise.
func NameOf(v any) string {
	if n, ok := v.(Namer); ok {
		return n.Name()
	}
	return "unnamed"
}

// NameOr returns name when it is not empty, else v's name when it
// implements [Namer], else fallback: the name to show for what answered
// a call when the answer did not say.
func NameOr(name string, v any, fallback string) string {
	if name != "" {
		return name
	}
	if n, ok := v.(Namer); ok {
		return n.Name()
	}
	return fallback
}

// TimeRange restricts a search to recently published pages.
type TimeRange string

// The time ranges a [Query] may ask for. The zero value means no
// restriction.
const (
	AnyTime   TimeRange = ""
	PastDay   TimeRange = "day"
	PastWeek  TimeRange = "week"
	PastMonth TimeRange = "month"
	PastYear  TimeRange = "year"
)

// Duration returns how far back r reaches, or 0 for [AnyTime] and unknown
// values.
func (r TimeRange) Duration() time.Duration {
	switch r {
	case PastDay:
		return 24 * time.Hour
	case PastWeek:
		return 7 * 24 * time.Hour
	case PastMonth:
		return 30 * 24 * time.Hour
	case PastYear:
		return 365 * 24 * time.Hour
	}
	return 0
}

// Query is what a caller asks a [Searcher] for. Every backend documents
// which fields it honours and which it cannot; none drops a filter without
// saying so in its package documentation.
type Query struct {
	// Text is the search query. Required.
	Text string
	// MaxResults is the number of results wanted; 0 means the backend's
	// default. Backends clamp it to what their API accepts.
	MaxResults int
	// IncludeDomains restricts results to these domains (and their
	// subdomains).
	IncludeDomains []string
	// ExcludeDomains removes results from these domains (and their
	// subdomains).
	ExcludeDomains []string
	// TimeRange restricts results to recently published pages.
	TimeRange TimeRange
	// Country is an ISO 3166-1 alpha-2 code ("us", "de") to bias results
	// towards; empty means no preference.
	Country string
	// Language is an ISO 639-1 code ("en", "fr"); empty means no preference.
	Language string
	// Topic is the kind of search, as Tavily's topic: [TopicGeneral],
	// [TopicNews] or [TopicFinance]; empty ([AnyTopic]) leaves it to the
	// backend's configuration. A backend that cannot search by topic
	// runs a general search and reports the filter in [Ignorer.Ignores].
	Topic Topic
}

// Topic is the kind of search a [Query] asks for.
type Topic string

// The topics a [Query] may ask for.
const (
	// AnyTopic leaves the topic to the backend's configuration.
	AnyTopic Topic = ""
	// TopicGeneral is a general web search.
	TopicGeneral Topic = "general"
	// TopicNews searches news: recent articles from news sources.
	TopicNews Topic = "news"
	// TopicFinance searches finance sources: markets, companies and their
	// reports.
	TopicFinance Topic = "finance"
)

// Topics lists the topics besides [AnyTopic].
var Topics = []Topic{TopicGeneral, TopicNews, TopicFinance}

// Specific reports whether t asks for more than a general search: a
// backend that cannot search by topic ignores a specific topic only.
func (t Topic) Specific() bool { return t != AnyTopic && t != TopicGeneral }

// The names of the filters of a [Query] that a backend may be unable to
// apply, as [Ignorer.Ignores] returns them, spelt as the search tools'
// inputs are.
const (
	FilterTimeRange = "time_range"
	FilterCountry   = "country"
	FilterLanguage  = "language"
	FilterTopic     = "topic"
)

// Ignorer is implemented by backends that can say which filters of a
// query they cannot apply. Ignores returns the names of the filters set in
// q that the search runs without ([FilterTimeRange], [FilterCountry],
// [FilterLanguage], [FilterTopic]), in that order, or nil when every
// filter set is applied; it sends no request. A filter the backend
// approximates (domain filters appended to the query and enforced on the
// answer) is applied, and a value the backend rejects as a bad request is
// an error of the search, not an ignored filter. Its answers match the
// backend's package documentation.
//
// Policies (package policy) ask every backend that answered and list the
// answers in [Results].Ignored; a backend also fills Results.Ignored
// itself, so that wrappers which hide the interface keep the answer.
type Ignorer interface {
	Ignores(q Query) []string
}

// IgnoresOf returns what s says it ignores of q ([Ignorer]), or nil when
// it does not implement Ignorer.
func IgnoresOf(s any, q Query) []string {
	if ig, ok := s.(Ignorer); ok {
		return ig.Ignores(q)
	}
	return nil
}

// IgnoredBy returns the value of [Results].Ignored for one backend named
// name that ignored filters: nil when filters is empty.
func IgnoredBy(name string, filters []string) map[string][]string {
	if len(filters) == 0 {
		return nil
	}
	return map[string][]string{name: filters}
}

// Results is the answer to a search.
type Results struct {
	// Query is the query text the results answer.
	Query string
	// Results are the hits, best first.
	Results []Result
	// Answer is a provider-generated summary answer, when one was asked for
	// and returned.
	Answer string
	// Provider names who produced the results: a backend's name, or a
	// policy's.
	Provider string
	// RequestID is the provider's request id, when it sent one.
	RequestID string
	// Failures lists the providers that failed while others succeeded. Only
	// policies that combine several providers fill it.
	Failures []Failure
	// Ignored maps the name of each backend that answered without applying
	// some filters of the query to those filters' names ([Ignorer]); nil
	// when every filter was applied.
	Ignored map[string][]string `json:",omitempty"`
	// Cached is when the results were fetched, for results answered from
	// a cache (package memory); zero for fresh results.
	Cached time.Time `json:",omitzero"`
	// Usage is what the provider reported the search cost; nil when it
	// reported nothing. Policies that merge several providers' answers
	// leave it nil: the memory counts each backend's usage below them.
	Usage *Usage `json:",omitempty"`
}

// Usage is what a provider reported one call cost, in the units it bills
// in. A backend fills the fields its provider reports in the answer and
// leaves the others zero; it never estimates a figure the answer lacks.
type Usage struct {
	// Credits are the provider's credits the call used (Tavily,
	// Firecrawl).
	Credits float64 `json:"credits,omitempty"`
	// CostUSD is the call's price in US dollars (Exa).
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Tokens are the tokens the call was charged (Jina).
	Tokens int64 `json:"tokens,omitempty"`
}

// Result is one search hit.
type Result struct {
	Title   string
	URL     string
	Snippet string
	// Content is a longer extract of the page, when the provider sent one.
	Content string
	// Published is when the page was published; zero when unknown.
	Published time.Time
	// Score is the provider's relevance score (higher is better); its scale
	// depends on the provider. Policies that merge lists replace it with
	// their own fused score.
	Score float64
	// Provider is the backend that produced the result.
	Provider string
	// Providers lists every backend that returned this result, after a
	// policy merged several lists; nil for a single backend's results.
	Providers []string
}

// Failure records one provider that failed inside a policy.
type Failure struct {
	Provider string
	Kind     Kind
	// TimedOut is true when the provider did not answer within its own
	// deadline.
	TimedOut bool
	// Err is the provider's error.
	Err error
	// Elapsed is how long the attempt ran.
	Elapsed time.Duration
}

// String renders the failure for people: "tavily (auth-failed)", or
// "exa (transient-provider-failed, timed out)".
func (f Failure) String() string {
	name := f.Provider
	if name == "" {
		name = "provider"
	}
	kind := f.Kind
	if kind == "" {
		kind = KindOf(f.Err)
	}
	if kind == "" {
		kind = KindUnknown
	}
	s := name + " (" + string(kind.Class())
	if f.TimedOut {
		s += ", timed out"
	}
	return s + ")"
}

// Format is the text format of extracted content.
type Format string

// The formats an [Extractor] may be asked for.
const (
	Markdown Format = "markdown"
	Text     Format = "text"
)

// ExtractRequest asks an [Extractor] for one page.
type ExtractRequest struct {
	// URL is the page to read. Required.
	URL string
	// Format is the wanted content format; empty means [Markdown].
	Format Format
	// Query optionally says what the reader is looking for; backends that
	// support it use it to rank or select the parts of the page returned.
	Query string
}

// Page is the readable content of one URL.
type Page struct {
	URL     string
	Title   string
	Content string
	Format  Format
	// Provider is the backend that produced the page.
	Provider  string
	RequestID string
	// Cached is when the page was read, for a page answered from a cache;
	// zero for a fresh read.
	Cached time.Time `json:",omitzero"`
	// Usage is what the provider reported the read cost; nil when it
	// reported nothing.
	Usage *Usage `json:",omitempty"`
}

// CapRunes returns s cut to at most n characters (runes); n <= 0 means no
// cap. Backends use it for their MaxCharacters settings.
func CapRunes(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
