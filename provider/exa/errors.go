package exa

import (
	"net/http"
	"strings"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/internal/backend"
)

// Exa's machine-readable error tags, as sent in the "tag" field of its
// error envelope and in the statuses[] of /contents.
const (
	tagInvalidRequestBody       = "INVALID_REQUEST_BODY"
	tagInvalidRequest           = "INVALID_REQUEST"
	tagInvalidURLs              = "INVALID_URLS"
	tagInvalidNumResults        = "INVALID_NUM_RESULTS"
	tagInvalidJSONSchema        = "INVALID_JSON_SCHEMA"
	tagNumResultsExceeded       = "NUM_RESULTS_EXCEEDED"
	tagSubpagesLimitExceeded    = "SUBPAGES_LIMIT_EXCEEDED"
	tagNoContentFound           = "NO_CONTENT_FOUND"
	tagInvalidAPIKey            = "INVALID_API_KEY"
	tagNoMoreCredits            = "NO_MORE_CREDITS"
	tagAPIKeyBudgetExceeded     = "API_KEY_BUDGET_EXCEEDED"
	tagTeamBudgetExceeded       = "TEAM_BUDGET_EXCEEDED"
	tagFeatureDisabled          = "FEATURE_DISABLED"
	tagProhibitedContent        = "PROHIBITED_CONTENT"
	tagInsufficientScope        = "INSUFFICIENT_SCOPE"
	tagNotFound                 = "NOT_FOUND"
	tagFetchDocumentError       = "FETCH_DOCUMENT_ERROR"
	tagRateLimitExceeded        = "RATE_LIMIT_EXCEEDED"
	tagDefaultError             = "DEFAULT_ERROR"
	tagInternalError            = "INTERNAL_ERROR"
	tagServiceOverloaded        = "SERVICE_OVERLOADED"
	tagUnableToGenerateResponse = "UNABLE_TO_GENERATE_RESPONSE"

	tagCrawlNotFound         = "CRAWL_NOT_FOUND"
	tagCrawlTimeout          = "CRAWL_TIMEOUT"
	tagCrawlLivecrawlTimeout = "CRAWL_LIVECRAWL_TIMEOUT"
	tagSourceNotAvailable    = "SOURCE_NOT_AVAILABLE"
	tagUnsupportedURL        = "UNSUPPORTED_URL"
	tagCrawlUnknownError     = "CRAWL_UNKNOWN_ERROR"
)

// Operation names, the provider name and the request-id header.
const (
	opSearch        = "search"
	opExtract       = "extract"
	providerName    = "exa"
	requestIDHeader = "x-request-id"
)

// statusKind classifies a non-2xx answer: the HTTP status decides, and the
// tag only refines it where Exa documents a tag whose meaning differs from
// its status's usual one. An unknown tag is a generic error of its status.
func statusKind(op string, status int, tag string) provider.Kind {
	switch status {
	case http.StatusForbidden:
		switch tag {
		case tagProhibitedContent:
			// The content is refused, not the key: another key would
			// fare no better, but another provider may.
			return provider.KindUnsupported
		}
		// FEATURE_DISABLED, INSUFFICIENT_SCOPE and unknown tags: the key
		// (or its plan) lacks a permission; another key may have it.
		return provider.KindAuth
	case http.StatusUnprocessableEntity:
		if tag == tagFetchDocumentError {
			return provider.KindUnsupported
		}
	case http.StatusBadRequest:
		if tag == tagNoContentFound && op == opExtract {
			return provider.KindUnsupported
		}
	}
	return provider.StatusKind(status)
}

// tagKind classifies an error carried in a 2xx body, where the status says
// nothing: by its tag alone, and [provider.KindUnknown] for unknown or
// missing tags.
func tagKind(op, tag string) provider.Kind {
	switch tag {
	case tagInvalidAPIKey, tagFeatureDisabled, tagInsufficientScope:
		return provider.KindAuth
	case tagNoMoreCredits, tagAPIKeyBudgetExceeded, tagTeamBudgetExceeded:
		return provider.KindQuota
	case tagRateLimitExceeded:
		return provider.KindRateLimited
	case tagDefaultError, tagInternalError, tagServiceOverloaded:
		return provider.KindTransient
	case tagProhibitedContent, tagFetchDocumentError:
		return provider.KindUnsupported
	case tagNoContentFound:
		if op == opExtract {
			return provider.KindUnsupported
		}
		return provider.KindBadRequest
	case tagNotFound, tagInvalidRequestBody, tagInvalidRequest, tagInvalidURLs, tagInvalidNumResults,
		tagInvalidJSONSchema, tagNumResultsExceeded, tagSubpagesLimitExceeded:
		return provider.KindBadRequest
	case tagUnableToGenerateResponse:
		return provider.KindUnknown
	}
	return provider.KindUnknown
}

// crawlKind classifies a URL that /contents reported as failed in
// statuses[]. Timeouts may pass on a later attempt; every other failure
// (not found, unsupported, unavailable, unknown crawl error, unknown tag)
// means Exa cannot read the page.
func crawlKind(tag string) provider.Kind {
	switch tag {
	case tagCrawlTimeout, tagCrawlLivecrawlTimeout:
		return provider.KindTransient
	case tagCrawlNotFound, tagUnsupportedURL, tagSourceNotAvailable, tagCrawlUnknownError:
		return provider.KindUnsupported
	}
	return provider.KindUnsupported
}

// checker returns the response check for op: it accepts a 2xx body unless
// it carries Exa's error envelope, and classifies every other answer by
// status and tag. Messages are scrubbed of the key that was used.
func checker(op string) func(r *provider.Response) *provider.Error {
	return func(r *provider.Response) *provider.Error {
		ok := r.Status >= 200 && r.Status < 300
		env := decodeEnvelope(r.Body)
		if ok && !env.failed() {
			return nil
		}
		tag := strings.TrimSpace(string(env.Tag))
		var kind provider.Kind
		if ok {
			kind = tagKind(op, tag)
		} else {
			kind = statusKind(op, r.Status, tag)
		}
		msg := provider.Message(env.message(), r.Key.Secret())
		if msg == "" && ok {
			msg = "error in a successful response"
		} else if msg == "" {
			msg = backend.StatusText(r.Status)
		}
		return &provider.Error{
			Kind:      kind,
			Status:    r.Status,
			Tag:       provider.Message(tag, r.Key.Secret()),
			Message:   msg,
			RequestID: provider.Message(string(env.RequestID)),
		}
	}
}
