package providertest

import (
	"net/http"
	"strconv"

	"github.com/webgate-dev/webgate/provider"
)

// Answer is one canned HTTP answer of the fake provider.
type Answer struct {
	Status int
	Header http.Header
	Body   string
}

// Fault is a failure answer together with the kind the backend must report
// for it.
type Fault struct {
	// Name names the case in test output ("432 plan limit").
	Name   string
	Answer Answer
	Kind   provider.Kind
}

// Wire describes one backend to the conformance suite.
type Wire struct {
	// Name is the backend's name, as its Name method returns it.
	Name string

	// NewSearcher builds the backend's searcher against baseURL with the
	// given keys and HTTP settings; nil when the backend cannot search.
	NewSearcher func(baseURL string, keys provider.KeySource, hc provider.HTTPConfig) provider.Searcher
	// NewExtractor builds the backend's extractor likewise; nil when it
	// cannot extract.
	NewExtractor func(baseURL string, keys provider.KeySource, hc provider.HTTPConfig) provider.Extractor

	// SearchPath and ExtractPath are the request paths ("/search").
	SearchPath, ExtractPath string

	// KeyOf returns the API key a request carries (from its headers). It
	// may be nil only when both operations are [KeyNone].
	KeyOf func(r *http.Request) string

	// SearchKeys and ExtractKeys say how each operation uses API keys. The
	// zero value, [KeyRequired], is what most backends do.
	SearchKeys, ExtractKeys KeyMode

	// ValidateSearch and ValidateExtract check a request body the backend
	// sent against the provider's published schema; they return nil when it
	// conforms.
	ValidateSearch, ValidateExtract func(body []byte) error
	// ValidateSearchRequest and ValidateExtractRequest check the whole
	// request the backend sent (method, path, query string, headers and
	// body), for wire formats that carry their parameters outside the
	// body; they return nil when it conforms. Either may be nil.
	ValidateSearchRequest, ValidateExtractRequest func(req Request) error

	// SearchOK answers a search with at least two results, each with a title
	// and a URL. SearchEmpty answers with no results.
	SearchOK, SearchEmpty Answer
	// ExtractOK answers an extraction of ExtractURL with non-empty content.
	ExtractOK Answer
	// ExtractURL is the URL the suite asks to extract.
	ExtractURL string
	// ExtractPartial answers an extraction with HTTP 200 where the requested
	// URL is reported as failed; the backend must return KindUnsupported.
	// A zero Answer skips the case.
	ExtractPartial Answer

	// Faults are the provider's documented failure answers (400, 401,
	// quota, …), each with its expected kind. The suite adds the generic
	// cases (5xx, 429, malformed JSON, oversize body, hang, refused
	// connection) itself, using ErrorBody to build the bodies.
	Faults []Fault
	// ErrorBody renders the provider's error envelope for a status and a
	// message, used for the generic cases.
	ErrorBody func(status int, message string) string
	// OKWithError is an HTTP 200 answer that carries an error field, with the
	// kind the backend must report; a zero Answer skips the case.
	OKWithError Fault
}

// KeyMode says how one operation of a backend uses API keys.
type KeyMode int

// The key modes.
const (
	// KeyRequired: the operation sends a key from the pool and, with no key
	// configured, fails with [provider.KindAuth] before any request. The
	// suite runs the key-pool cases (a revoked key, a rate-limited key,
	// every key out of quota).
	KeyRequired KeyMode = iota
	// KeyOptional: the operation sends a key when the pool has one and
	// works without one (Jina Reader). The suite runs the key-pool cases,
	// and with no key configured expects success from a request that
	// carries no key.
	KeyOptional
	// KeyNone: the operation never sends a key (a SearXNG instance). The
	// suite skips the key-pool cases and checks that no request carries a
	// key, although the backend is built with a pool holding [Secrets].
	KeyNone
)

// String returns the mode's name.
func (m KeyMode) String() string {
	switch m {
	case KeyRequired:
		return "required"
	case KeyOptional:
		return "optional"
	case KeyNone:
		return "none"
	}
	return "KeyMode(" + strconv.Itoa(int(m)) + ")"
}
