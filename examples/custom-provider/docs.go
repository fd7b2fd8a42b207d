package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/webgate-dev/webgate/provider"
)

// DocsName is the docs backend's name, used for provenance and in errors.
const DocsName = "docs"

// DocsConfig configures a [DocsSearch]. The zero value is not enough:
// BaseURL is required.
type DocsConfig struct {
	// BaseURL is the docs service's address, such as
	// "https://docs.internal.example".
	BaseURL string
	// HTTP configures timeouts, retries and the response cap; the zero value
	// means provider's defaults.
	HTTP provider.HTTPConfig
}

// DocsSearch is a search backend for a documentation search service with a
// small JSON API:
//
//	GET {base}/v1/search?q=TEXT&limit=N      Authorization: Bearer KEY
//	200 {"hits":[{"title","url","summary","score"}],"request_id":"…"}
//	4xx/5xx {"error":{"code":"…","message":"…"}}
//
// It implements [provider.Searcher] and [provider.Namer], which is all a
// policy needs. It makes one logical request per search through
// [provider.HTTP], which brings key rotation over a [provider.KeySource],
// kind-driven retries, Retry-After and a capped body, and it classifies
// every failure into a [provider.Kind] by returning a *[provider.Error].
//
// Query fields: Text and MaxResults are sent. The service has no domain,
// time, country or language filters, so those fields are not sent; the
// policies enforce domain filters again on what comes back.
//
// A DocsSearch is safe for concurrent use.
type DocsSearch struct {
	keys provider.KeySource
	base string
	http *provider.HTTP
}

// Compile-time checks that DocsSearch is what policies expect.
var (
	_ provider.Searcher = (*DocsSearch)(nil)
	_ provider.Namer    = (*DocsSearch)(nil)
)

// NewDocsSearch returns a DocsSearch using keys. It fails when the base URL
// is not an absolute http or https URL.
func NewDocsSearch(keys provider.KeySource, cfg *DocsConfig) (*DocsSearch, error) {
	if cfg == nil {
		cfg = &DocsConfig{}
	}
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: the base URL must be an absolute http or https URL", DocsName)
	}
	return &DocsSearch{keys: keys, base: strings.TrimRight(u.String(), "/"), http: provider.NewHTTP(&cfg.HTTP)}, nil
}

// Name implements [provider.Namer].
func (d *DocsSearch) Name() string { return DocsName }

// wire types: private, decoded leniently.
type docsHits struct {
	Hits []struct {
		Title   string  `json:"title"`
		URL     string  `json:"url"`
		Summary string  `json:"summary"`
		Score   float64 `json:"score"`
	} `json:"hits"`
	RequestID string     `json:"request_id"`
	Error     *docsError `json:"error"`
}

type docsError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Search implements [provider.Searcher].
func (d *DocsSearch) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		// Rejected before any request: a bad request never improves by
		// retrying or by another key.
		return nil, &provider.Error{Provider: DocsName, Op: "search", Kind: provider.KindBadRequest, Message: "the query is empty"}
	}
	v := url.Values{"q": {text}}
	if q.MaxResults > 0 {
		v.Set("limit", strconv.Itoa(q.MaxResults))
	}
	resp, err := d.http.Do(ctx, d.keys, provider.Request{
		Provider: DocsName,
		Op:       "search",
		Method:   http.MethodGet,
		URL:      d.base + "/v1/search?" + v.Encode(),
		Auth:     func(h http.Header, k provider.Key) { h.Set("Authorization", "Bearer "+k.Secret()) },
		Check:    checkDocs,
		// The service also names the request in a header.
		RequestIDHeader: "X-Request-Id",
	})
	if err != nil {
		return nil, err // already a *provider.Error with its kind
	}
	var body docsHits
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		// A 200 that is not the documented JSON: nothing to act on but the
		// fact that it is unexpected.
		return nil, &provider.Error{Provider: DocsName, Op: "search", Status: resp.Status, Kind: provider.KindUnknown,
			Message: "the answer is not the expected JSON", Err: err, Attempts: resp.Attempts}
	}
	out := &provider.Results{Query: text, Provider: DocsName, RequestID: body.RequestID}
	for _, h := range body.Hits {
		if strings.TrimSpace(h.URL) == "" {
			continue
		}
		out.Results = append(out.Results, provider.Result{
			Title: h.Title, URL: h.URL, Snippet: h.Summary, Score: h.Score, Provider: DocsName,
		})
	}
	return out, nil
}

// checkDocs classifies a docs service answer. The HTTP status gives the
// usual kind (provider.StatusKind: 401 auth, 429 rate-limited, 5xx
// transient, …) and the body's machine-readable code refines it where the
// service gives a status another meaning: it answers 403 "quota_exceeded"
// when a plan runs out, which is a quota failure (another key may work, the
// same one will not), not a rejected key. A 200 that carries an error is a
// failure too. Message text is never interpreted.
func checkDocs(r *provider.Response) *provider.Error {
	var body struct {
		Error *docsError `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &body) // best effort: a body that is not JSON has no code
	ok := r.Status >= 200 && r.Status <= 299
	if ok && body.Error == nil {
		return nil
	}
	e := &provider.Error{Kind: provider.StatusKind(r.Status)}
	if ok {
		e.Kind = provider.KindUnknown
	}
	if body.Error != nil {
		e.Tag = body.Error.Code
		// Keys are scrubbed from the provider's message, in case it
		// echoes the request.
		e.Message = provider.Message(body.Error.Message, r.Key.Secret())
		switch body.Error.Code {
		case "quota_exceeded":
			e.Kind = provider.KindQuota
		case "rate_limited":
			e.Kind = provider.KindRateLimited
		case "index_unavailable":
			e.Kind = provider.KindTransient
		}
	}
	return e
}
