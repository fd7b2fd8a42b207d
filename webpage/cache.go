package webpage

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/provider"
)

// Cache keeps page reads between calls, so that reading a page again soon
// costs neither the probe nor a provider. Package memory provides one over
// webgate's store. Keys are opaque strings the reader makes from the URL
// and what changes the answer; implementations decide how long an entry
// lives and must be safe for concurrent use. A Cache that fails finds
// nothing.
//
// The reader caches what it read in full: a fresh local conversion, a
// tier's or a provider's result. It never caches a failure, nor the
// page's own text returned as a fallback when no tier could read it.
//
// A key carries the reading order, the address policy
// (ProbeConfig.AllowPrivate, [Reader.PrivateExtractor]), the probe's size
// limits, whether a browser renders pages and whether template-heavy
// pages are rendered, so a read is only answered to a reader that would
// have read it the same way. An
// answer from the cache also passes the address rule a fresh read passes,
// for this reader: the URL asked for, every redirect and the final URL
// ([CheckTarget]), and every address the page was read from
// ([CheckAddress]); an entry that fails it is not used, and the page is
// read afresh, which refuses it as a fresh read does. An extraction
// provider's read is kept with the prompt it was given, since a provider
// may select the parts of a page by it; a read that used a prompt is not
// kept for other prompts. Whatever a caller cuts from the page for a
// prompt, it cuts after the cache.
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
	// Redirects are the URLs the probe was redirected to, and Addrs the
	// addresses the page was read from, checked again before the entry
	// answers.
	Redirects []string     `json:"redirects,omitempty"`
	Addrs     []netip.Addr `json:"addrs,omitempty"`
	// Class and Confidence are the classifier's verdict on the page's
	// HTML, when there was one, so a cached answer describes the page as
	// a fresh one does.
	Class      classify.Class `json:"class,omitempty"`
	Confidence float64        `json:"confidence,omitempty"`
	// Article is the verdict's Article: the page declares itself an
	// article.
	Article bool `json:"article,omitempty"`
	// Mode is how a locally read page was converted, and Metadata what
	// the page says about itself (byline, site name, language,
	// publication date): a cached answer says how the page was read and
	// what it is as the fresh read did.
	Mode ConvertMode `json:"mode,omitempty"`
	Metadata
}

// readKey is the cache key of a read of rawURL by r: the URL and every
// setting of r that changes the answer. extractKey is that of a read by
// the extraction providers alone, with the prompt they were given.
func (r *Reader) readKey(rawURL string) string {
	pc := r.Probe.WithDefaults()
	private := fmt.Sprint(pc.AllowPrivate)
	if !pc.AllowPrivate && pc.AllowAddress != nil {
		private = "by-host"
	}
	// The PDF reader's program and page count change what a document
	// reads as (pdftotext's layout or the pure-Go reader's text); its
	// timeout and memory cap only whether it reads.
	return fmt.Sprintf("read v3 order=%s private=%s private-extractor=%t max=%d doc-max=%d render=%t render-template-heavy=%t pdftotext=%q pdf-pages=%d %s",
		r.order(), private, r.PrivateExtractor, pc.MaxBytes, pc.MaxDocumentBytes, r.Renderer != nil, r.RenderTemplateHeavy,
		strings.TrimSpace(r.PDF.Pdftotext), r.PDF.MaxPages, rawURL)
}

func extractKey(rawURL, prompt string) string {
	return fmt.Sprintf("extract v2 prompt=%q %s", strings.Join(strings.Fields(prompt), " "), rawURL)
}

// cachedPlan returns a plan answered from the cache, or nil: nil too for
// an entry that does not pass r's address rule ([Reader.cacheAllows]).
func (r *Reader) cachedPlan(ctx context.Context, rawURL string) *Plan {
	if r.Cache == nil {
		return nil
	}
	c, at, ok := r.Cache.Get(ctx, r.readKey(rawURL))
	if !ok || c == nil || c.Content == "" || !r.cacheAllows(rawURL, c) {
		return nil
	}
	p := &Plan{URL: rawURL, Action: c.Action, Why: c.Why, FinalURL: c.FinalURL, Status: c.Status, ContentType: c.ContentType,
		hops: c.Redirects, addrs: c.Addrs, cached: c, cachedAt: at}
	if c.Class != "" {
		p.Verdict = &classify.Result{Class: c.Class, Confidence: c.Confidence, Article: c.Article}
	}
	return p
}

// cacheAllows applies to a cached read the address rule a fresh read of
// rawURL by r passes: [CheckTarget] on the URL, each redirect and the
// final URL, and [CheckAddress] on each address the page was read from,
// with r's ProbeConfig.AllowPrivate or, under ProbeConfig.AllowAddress,
// an address allowed for one of the hosts the read went through.
func (r *Reader) cacheAllows(rawURL string, c *Cached) bool {
	var hosts []string
	for _, u := range append([]string{rawURL, c.URL, c.FinalURL}, c.Redirects...) {
		if u == "" {
			continue
		}
		if r.Probe.checkTarget(u) != nil {
			return false
		}
		if p, err := CheckURL(u); err == nil {
			hosts = append(hosts, p.Hostname())
		}
	}
	for _, a := range c.Addrs {
		// An address counts for a host that could have dialled it: a host
		// spelling an address dials only that address.
		allowed := func(h string) bool {
			if ha, ok := HostAddr(h); ok && ha.Unmap() != a.Unmap() {
				return false
			}
			return r.Probe.checkAddress(h, a) == nil
		}
		if CheckAddress(a, r.Probe.AllowPrivate) != nil && !slices.ContainsFunc(hosts, allowed) {
			return false
		}
	}
	return true
}

// result turns a cached read back into a Result of plan p.
func (c *Cached) result(p *Plan) *Result {
	return &Result{URL: p.URL, FinalURL: c.FinalURL, Title: c.Title, Metadata: c.Metadata, Content: c.Content, Mode: c.Mode,
		Format: c.Format, Source: c.Source, Provider: c.Provider, Note: c.Note, Plan: p, Cached: p.cachedAt}
}

// remember keeps a read of plan p for req in the cache, unless it is the
// page's own text returned as a fallback, or a provider's read that used
// the request's prompt (kept by [Reader.Extract] under that prompt).
func (r *Reader) remember(ctx context.Context, p *Plan, req Request, res *Result) {
	if r.Cache == nil || res == nil || res.Source == SourceLocalFallback || res.Content == "" {
		return
	}
	if res.Source == SourceProvider && strings.TrimSpace(req.Prompt) != "" {
		return
	}
	c := &Cached{URL: res.URL, FinalURL: res.FinalURL, Title: res.Title, Content: res.Content, Format: res.Format,
		Source: res.Source, Provider: res.Provider, Note: res.Note, Redirects: p.hops, Addrs: p.addrs,
		Mode: res.Mode, Metadata: res.Metadata}
	c.Action, c.Why, c.Status, c.ContentType = p.Action, p.Why, p.Status, p.ContentType
	if p.Verdict != nil {
		c.Class, c.Confidence, c.Article = p.Verdict.Class, p.Verdict.Confidence, p.Verdict.Article
	}
	r.Cache.Put(ctx, r.readKey(p.URL), c)
}

// cachedPage returns a page the extraction providers read recently for
// prompt, or nil.
func (r *Reader) cachedPage(ctx context.Context, rawURL, prompt string) *provider.Page {
	if r.Cache == nil {
		return nil
	}
	c, at, ok := r.Cache.Get(ctx, extractKey(rawURL, prompt))
	if !ok || c == nil || c.Content == "" {
		return nil
	}
	return &provider.Page{URL: c.URL, Title: c.Title, Content: c.Content, Format: c.Format, Provider: c.Provider, Cached: at}
}

// rememberPage keeps a page the extraction providers read for prompt.
func (r *Reader) rememberPage(ctx context.Context, rawURL, prompt string, page *provider.Page) {
	if r.Cache == nil {
		return
	}
	r.Cache.Put(ctx, extractKey(rawURL, prompt), &Cached{URL: page.URL, Title: page.Title, Content: page.Content,
		Format: page.Format, Source: SourceProvider, Provider: page.Provider})
}
