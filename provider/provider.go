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
	// Cached is when the results were fetched, for results answered from
	// a cache (package memory); zero for fresh results.
	Cached time.Time `json:",omitzero"`
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
