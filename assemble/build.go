package assemble

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage"
	"github.com/webgate-dev/webgate/webpage/browser"
)

// ErrNoProviders is returned (wrapped) by [Searcher] and [Extractor] when no provider of the configured order has keys.
// Hooks then step aside and let the agent's own tool run.
var ErrNoProviders = errors.New("no provider in the configured order has keys")

// Options are what a frontend adds to the configuration when it
// builds: its own HTTP client and an observer of the policies. The zero
// value, and nil, mean none.
type Options struct {
	// HTTPClient, when set, is used by every backend (a proxy, a custom
	// transport, a test server's client).
	HTTPClient *http.Client
	// Observer receives the policies' traces.
	Observer policy.Observer
	// SearchProviders and ExtractProviders, when set, replace the
	// configured orders (a command's --provider flag). Names without keys
	// are dropped as usual.
	SearchProviders, ExtractProviders []string
	// Memory, when set, remembers across calls: parked keys and open
	// breakers skip providers, usage and budgets are counted, and search
	// results and page reads are cached ([OpenMemory]).
	Memory *memory.Memory
	// NoReader leaves the page reader out (Stack.Reader is nil): a caller
	// that only searches does not pay for the classifier's set-up or the
	// look for a browser on PATH.
	NoReader bool
	// Browsers, when set, keeps the local browser running between renders
	// (a long-running process: a server, the warm hook worker); see
	// [browser.Pool]. Nil starts a browser for each render.
	Browsers *browser.Pool
}

// Stack is what a frontend needs to answer searches and read pages, built
// from the configuration in one place ([Build]).
type Stack struct {
	// Searcher is the search policy over every search provider with keys;
	// nil when none has keys.
	Searcher provider.Searcher
	// Extractor is the extraction policy over every extraction provider
	// with keys; nil when none has keys.
	Extractor provider.Extractor
	// Reader reads pages: the probe and classifier as configured, with
	// Extractor for the pages that need it; nil with
	// [Options.NoReader].
	Reader *webpage.Reader
	// SearchProviders and ExtractProviders name the providers in use, in
	// order.
	SearchProviders, ExtractProviders []string
}

// Build builds the search policy, the extraction policy and the page
// reader from c, the one construction path of every frontend. Providers without keys are left out; a policy with no
// provider is nil. The error lists what could not be built (an invalid
// mode, a backend option its constructor refuses); what could be built is
// returned with it.
func Build(c *config.Config, opts *Options) (*Stack, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	st := &Stack{}
	var errs []error
	searchOrder, extractOrder := c.Search.Order(), c.Extract.Order()
	if o.SearchProviders != nil {
		searchOrder = o.SearchProviders
	}
	if o.ExtractProviders != nil {
		extractOrder = o.ExtractProviders
	}
	st.SearchProviders = usable(c, searchOrder, true)
	st.ExtractProviders = usable(c, extractOrder, false)
	if len(st.SearchProviders) > 0 {
		s, err := searcher(c, st.SearchProviders, o)
		if err != nil {
			errs = append(errs, err)
		}
		st.Searcher = s
	}
	if len(st.ExtractProviders) > 0 {
		x, err := extractor(c, st.ExtractProviders, o)
		if err != nil {
			errs = append(errs, err)
		}
		st.Extractor = x
	}
	st.Searcher = o.Memory.CacheSearcher(st.Searcher, append([]string{c.Search.Mode}, st.SearchProviders...))
	if !o.NoReader {
		r, err := reader(c, st.Extractor, o.Memory, o.Browsers)
		if r != nil {
			r.PrivateExtractor = selfHosted(c, st.ExtractProviders)
		}
		if err != nil {
			errs = append(errs, err)
		}
		st.Reader = r
	}
	return st, errors.Join(errs...)
}

// selfHosted reports whether every named provider is reached at a base
// URL whose host is a loopback or private address (or a name reserved for
// local use, localhost included): an instance in the user's own network,
// which can read pages at private addresses and tells no third party
// their URLs ([webpage.Reader.PrivateExtractor]). A provider at its
// public address, or at a name that may resolve anywhere, is not.
func selfHosted(c *config.Config, names []string) bool {
	if len(names) == 0 {
		return false
	}
	for _, n := range names {
		base := c.BaseURL(n)
		u, err := webpage.CheckURL(base)
		if err != nil {
			return false
		}
		local := webpage.LoopbackHost(u.Hostname()) ||
			errors.Is(webpage.CheckTarget(base, false), webpage.ErrBlockedAddress) && webpage.CheckTarget(base, true) == nil
		if !local {
			return false
		}
	}
	return true
}

// reader builds the page reader over x (nil for none) with the memory's
// page cache: the probe, the classifier, the reading order, the PDF reader
// and the local browser as configured, kept in browsers when set.
func reader(c *config.Config, x provider.Extractor, mem *memory.Memory, browsers *browser.Pool) (*webpage.Reader, error) {
	r := &webpage.Reader{Probe: ProbeConfig(c), Extractor: x, Order: webpage.Order(c.Fetch.Order)}
	if mb := c.Hooks.WebFetch.MaxBytes; mb > 0 {
		cl := classify.New(&classify.Options{MaxBytes: int64(mb)})
		r.Classify = cl.ClassifyBytes
	}
	r.Cache = mem.PageCache()
	r.PDF.Pdftotext = c.Fetch.Pdftotext
	r.RenderTemplateHeavy = c.Fetch.RenderTemplateHeavy
	rend, err := renderer(c, browsers)
	switch {
	case err == nil:
		r.Renderer = rend
	case errors.Is(err, browser.ErrDisabled), errors.Is(err, browser.ErrNotFound):
		err = nil
	}
	return r, err
}

// renderer returns the browser of the render tier, or an error wrapping
// browser.ErrDisabled (fetch.browser is off) or browser.ErrNotFound (no
// browser on PATH).
func renderer(c *config.Config, browsers *browser.Pool) (webpage.Renderer, error) {
	path, err := browser.Find(c.Fetch.Browser)
	if err != nil {
		return nil, err
	}
	allow := c.Hooks.WebFetch.AllowPrivate
	return browser.Renderer{Config: browser.Config{
		Path:         path,
		CheckAddress: func(a netip.Addr) error { return webpage.CheckAddress(a, allow) },
		Timeout:      c.Fetch.RenderTimeout,
		Pool:         browsers,
	}}, nil
}

// ProbeConfig returns the settings of the page probe in c.
func ProbeConfig(c *config.Config) webpage.ProbeConfig {
	wf := c.Hooks.WebFetch
	return webpage.ProbeConfig{MaxBytes: int64(wf.MaxBytes), Timeout: wf.ProbeTimeout, AllowPrivate: wf.AllowPrivate}
}

// backendsAs builds the named backends of c as T (a searcher or an
// extractor), each watched by the memory through watch; a backend that is
// not a T fails, saying it cannot do what.
func backendsAs[T any](c *config.Config, names []string, o Options, what string, watch func(memory.Backend, T) T) ([]T, error) {
	var ts []T
	for _, n := range names {
		b, err := backend(c, n, o.HTTPClient, o.Memory)
		if err != nil {
			return nil, err
		}
		t, ok := b.(T)
		if !ok {
			return nil, fmt.Errorf("assemble: %s cannot %s", n, what)
		}
		ts = append(ts, watch(MemoryBackend(c, n), t))
	}
	return ts, nil
}

func searcher(c *config.Config, names []string, o Options) (provider.Searcher, error) {
	ss, err := backendsAs(c, names, o, "search", o.Memory.Searcher)
	if err != nil {
		return nil, err
	}
	mode, err := policy.ParseMode(c.Search.Mode)
	if err != nil {
		return nil, err
	}
	pc := SearchPolicyConfig(c)
	pc.Observer = o.Observer
	return policy.NewSearch(mode, ss, pc)
}

func extractor(c *config.Config, names []string, o Options) (provider.Extractor, error) {
	es, err := backendsAs(c, names, o, "extract", o.Memory.Extractor)
	if err != nil {
		return nil, err
	}
	pc := extractPolicyConfig(c, names)
	pc.Observer = o.Observer
	return policy.NewExtraction(es, pc)
}

// SearchPolicyConfig returns the configuration of the search policy in c.
func SearchPolicyConfig(c *config.Config) *policy.SearchConfig {
	return &policy.SearchConfig{
		Budget:      c.Search.Timeout,
		PerProvider: c.Search.ProviderTimeout,
		MaxResults:  c.Search.MaxResults,
		Hedge:       c.Search.HedgeDelay,
	}
}

// extractPolicyConfig returns the configuration of the extraction policy
// over names. Primary is the first name when a primary is configured, so
// that the order stays the configured one; empty means a random first
// provider per extraction.
func extractPolicyConfig(c *config.Config, names []string) *policy.ExtractConfig {
	primary := ""
	if c.Extract.Primary != "" && len(names) > 0 {
		primary = names[0]
	}
	return &policy.ExtractConfig{
		Primary:    primary,
		Budget:     c.Extract.Timeout,
		PerAttempt: c.Extract.ProviderTimeout,
		Hedge:      c.Extract.HedgeDelay,
	}
}

// usable returns the names of names that can be used for a search
// (search) or an extraction ([config.Config.Usable]).
func usable(c *config.Config, names []string, search bool) []string {
	var out []string
	for _, n := range names {
		if c.Usable(n, search) {
			out = append(out, n)
		}
	}
	return out
}

// Searcher returns the search policy c configures (search.mode) over the
// search providers with keys. It fails (wrapping [ErrNoProviders]) when no
// provider of the order has keys.
func Searcher(c *config.Config) (provider.Searcher, error) {
	st, err := Build(c, &Options{NoReader: true})
	if st.Searcher == nil && err == nil {
		err = fmt.Errorf("assemble: search: %w (order: %v)", ErrNoProviders, c.Search.Order())
	}
	return st.Searcher, err
}

// Extractor returns the extraction policy over the extraction providers
// with keys that c configures. It fails (wrapping [ErrNoProviders]) when no
// provider of the order has keys.
func Extractor(c *config.Config) (provider.Extractor, error) {
	st, err := Build(c, &Options{NoReader: true})
	if st.Extractor == nil && err == nil {
		err = fmt.Errorf("assemble: extract: %w (order: %v)", ErrNoProviders, c.Extract.Order())
	}
	return st.Extractor, err
}

// MemoryBackend describes the named provider of c to the memory
// ([memory.Memory.Searcher], [memory.Memory.Skip]): its name and its keys,
// which the memory names by fingerprint only and never stores.
func MemoryBackend(c *config.Config, name string) memory.Backend {
	return memory.Backend{Name: name, Keys: c.KeyValues(name)}
}
