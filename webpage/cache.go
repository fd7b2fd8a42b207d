package webpage

import (
	"context"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// Cache keeps page reads between calls, so that reading a page again soon
// costs neither the probe nor a provider. Package memory provides one over
// webgate's store. Keys are opaque strings the reader makes from the URL
// and the reading path; implementations decide how long an entry lives and
// must be safe for concurrent use. A Cache that fails finds nothing.
//
// The reader caches what it read in full: a fresh local conversion, a
// tier's or a provider's result. It never caches a failure, nor the
// page's own text returned as a fallback when no tier could read it. The
// prompt does not take part in the key: whatever a caller cuts from the
// page for a prompt, it cuts after the cache.
type Cache interface {
	// Get returns the read kept at key and when it was made.
	Get(ctx context.Context, key string) (*Cached, time.Time, bool)
	// Put keeps a read at key.
	Put(ctx context.Context, key string, page *Cached)
}

// Cached is what a [Cache] keeps of a read: the result and the plan's
// findings, without the page's raw bytes.
type Cached struct {
	URL         string          `json:"url"`
	FinalURL    string          `json:"final_url,omitempty"`
	Title       string          `json:"title,omitempty"`
	Content     string          `json:"content"`
	Format      provider.Format `json:"format"`
	Source      Source          `json:"source"`
	Provider    string          `json:"provider,omitempty"`
	Note        string          `json:"note,omitempty"`
	Action      Action          `json:"action,omitempty"`
	Why         string          `json:"why,omitempty"`
	Status      int             `json:"status,omitempty"`
	ContentType string          `json:"content_type,omitempty"`
}

// readKey is the cache key of a read of rawURL in the given order;
// extractKey that of a read by the extraction providers alone.
func readKey(o Order, rawURL string) string { return "read " + string(o) + " " + rawURL }
func extractKey(rawURL string) string       { return "extract " + rawURL }

// cachedPlan returns a plan answered from the cache, or nil.
func (r *Reader) cachedPlan(ctx context.Context, rawURL string) *Plan {
	if r.Cache == nil {
		return nil
	}
	c, at, ok := r.Cache.Get(ctx, readKey(r.order(), rawURL))
	if !ok || c == nil || c.Content == "" {
		return nil
	}
	return &Plan{URL: rawURL, Action: c.Action, Why: c.Why, FinalURL: c.FinalURL, Status: c.Status, ContentType: c.ContentType, cached: c, cachedAt: at}
}

// result turns a cached read back into a Result of plan p.
func (c *Cached) result(p *Plan) *Result {
	return &Result{URL: p.URL, FinalURL: c.FinalURL, Title: c.Title, Content: c.Content, Format: c.Format,
		Source: c.Source, Provider: c.Provider, Note: c.Note, Plan: p, Cached: p.cachedAt}
}

// remember keeps a read in the cache, unless it is the page's own text
// returned as a fallback.
func (r *Reader) remember(ctx context.Context, key string, res *Result) {
	if r.Cache == nil || res == nil || res.Source == SourceLocalFallback || res.Content == "" {
		return
	}
	c := &Cached{URL: res.URL, FinalURL: res.FinalURL, Title: res.Title, Content: res.Content, Format: res.Format,
		Source: res.Source, Provider: res.Provider, Note: res.Note}
	if p := res.Plan; p != nil {
		c.Action, c.Why, c.Status, c.ContentType = p.Action, p.Why, p.Status, p.ContentType
	}
	r.Cache.Put(ctx, key, c)
}

// cachedPage returns a page the extraction providers read recently, or
// nil.
func (r *Reader) cachedPage(ctx context.Context, rawURL string) *provider.Page {
	if r.Cache == nil {
		return nil
	}
	c, at, ok := r.Cache.Get(ctx, extractKey(rawURL))
	if !ok || c == nil || c.Content == "" {
		return nil
	}
	return &provider.Page{URL: c.URL, Title: c.Title, Content: c.Content, Format: c.Format, Provider: c.Provider, Cached: at}
}

// rememberPage keeps a page the extraction providers read.
func (r *Reader) rememberPage(ctx context.Context, rawURL string, page *provider.Page) {
	if r.Cache == nil {
		return
	}
	r.Cache.Put(ctx, extractKey(rawURL), &Cached{URL: page.URL, Title: page.Title, Content: page.Content,
		Format: page.Format, Source: SourceProvider, Provider: page.Provider})
}
