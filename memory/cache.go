package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/webpage"
)

// Defaults of [CacheConfig].
const (
	// DefaultSearchTTL keeps search results for half an hour: long enough
	// for an agent that asks again within a task, short enough for news.
	DefaultSearchTTL = 30 * time.Minute
	// DefaultFetchTTL keeps page reads for 15 minutes, as Claude Code's
	// own WebFetch cache does.
	DefaultFetchTTL = 15 * time.Minute
	// DefaultCacheEntries bounds the cache; older entries are evicted.
	DefaultCacheEntries = 2000
	// partialDivisor shortens the life of results some providers failed
	// to contribute to.
	partialDivisor = 6
)

// CachePrefix is the key prefix of every cache entry in the store
// (`webgate cache clear` clears it).
const CachePrefix = "cache/"

// CacheConfig configures the result cache. A TTL of 0 (or less) turns
// that half of the cache off: set [DefaultSearchTTL] and [DefaultFetchTTL]
// for the defaults. MaxEntries 0 means [DefaultCacheEntries].
type CacheConfig struct {
	// SearchTTL is how long search results are kept.
	SearchTTL time.Duration `koanf:"search_ttl"`
	// FetchTTL is how long page reads are kept.
	FetchTTL time.Duration `koanf:"fetch_ttl"`
	// MaxEntries bounds the number of entries (search and pages together);
	// the oldest are evicted.
	MaxEntries int `koanf:"max_entries"`
}

func (c CacheConfig) withDefaults() CacheConfig {
	c.MaxEntries = defaults.Positive(c.MaxEntries, DefaultCacheEntries)
	return c
}

// Bounds returns the store bounds the cache needs: pass them in
// [store.Options.Bounds] when opening the store.
func (c CacheConfig) Bounds() []store.Bound {
	c = c.withDefaults()
	return []store.Bound{{Prefix: CachePrefix, MaxEntries: c.MaxEntries}}
}

// cacheKey hashes parts into a key under prefix.
func cacheKey(prefix string, v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return CachePrefix + prefix + "/" + hex.EncodeToString(sum[:16])
}

// searchKey is what identifies a search: the normalised query, its
// filters, and the providers and mode asked.
type searchKey struct {
	V         int      `json:"v"`
	Text      string   `json:"q"`
	Max       int      `json:"n"`
	Include   []string `json:"i,omitempty"`
	Exclude   []string `json:"x,omitempty"`
	TimeRange string   `json:"t,omitempty"`
	Country   string   `json:"c,omitempty"`
	Language  string   `json:"l,omitempty"`
	Topic     string   `json:"o,omitempty"`
	Providers []string `json:"p"`
}

func normText(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

func normDomains(ds []string) []string {
	var out []string
	for _, d := range ds {
		d = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
		if d != "" {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// SearchKey returns the cache key of q asked of the named providers (and
// mode): the same question with the same filters asked of the same
// providers has the same key, whatever the case and spacing of its text
// and the order of its domains.
func SearchKey(q provider.Query, providers []string) string {
	ps := slices.Clone(providers)
	return cacheKey("search", searchKey{
		V: 2, Text: normText(q.Text), Max: q.MaxResults, Topic: strings.ToLower(string(q.Topic)),
		Include: normDomains(q.IncludeDomains), Exclude: normDomains(q.ExcludeDomains),
		TimeRange: string(q.TimeRange), Country: strings.ToLower(q.Country), Language: strings.ToLower(q.Language),
		Providers: ps,
	})
}

// cachedResults is a search's entry.
type cachedResults struct {
	At      time.Time         `json:"at"`
	Results *provider.Results `json:"results"`
}

// CacheSearcher caches s's results (see the package documentation); set
// names the providers and mode s asks, which are part of the key. A nil
// Memory, or a search cache turned off, returns s.
func (m *Memory) CacheSearcher(s provider.Searcher, set []string) provider.Searcher {
	if m == nil || m.opts.Store == nil || m.opts.Cache.SearchTTL <= 0 || s == nil {
		return s
	}
	return &cachedSearcher{m: m, s: s, set: set}
}

type cachedSearcher struct {
	m   *Memory
	s   provider.Searcher
	set []string
}

// Name returns the wrapped searcher's name.
func (c *cachedSearcher) Name() string { return provider.NameOf(c.s) }

// Search answers from the cache when it can, and otherwise asks the
// wrapped searcher and caches a successful answer.
func (c *cachedSearcher) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	key := SearchKey(q, c.set)
	var hit cachedResults
	if c.m.get(ctx, key, &hit) && hit.Results != nil && filtersHold(hit.Results, q) {
		r := hit.Results
		r.Cached, r.Query = hit.At, q.Text
		c.m.hits.Add(1)
		return r, nil
	}
	res, err := c.s.Search(ctx, q)
	if err != nil || res == nil || len(res.Results) == 0 {
		return res, err
	}
	ttl := c.m.opts.Cache.SearchTTL
	if len(res.Failures) > 0 {
		ttl /= partialDivisor
	}
	// The entry keeps the results, not the question: the key is a hash
	// of it, and the query text is the caller's on a hit. A hit costs
	// nothing, so the call's usage is not kept either.
	stored := *res
	stored.Failures, stored.Query, stored.Usage = nil, "", nil
	c.m.put(ctx, key, cachedResults{At: c.m.now(), Results: &stored}, ttl)
	return res, nil
}

// filtersHold checks a cached answer against the query's domain filters,
// so that no entry can answer with a domain the query excludes: each of
// its results passes the filter the policies apply ([policy.FilterDomains]).
func filtersHold(r *provider.Results, q provider.Query) bool {
	return len(policy.FilterDomains(r.Results, q.IncludeDomains, q.ExcludeDomains)) == len(r.Results)
}

func (m *Memory) get(ctx context.Context, key string, v any) bool {
	var found bool
	_ = m.call(ctx, func(ctx context.Context, s *store.Store) error {
		e, err := s.Get(ctx, key)
		if err != nil {
			return err
		}
		found = json.Unmarshal(e.Value, v) == nil
		return nil
	})
	return found
}

func (m *Memory) put(ctx context.Context, key string, v any, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	m.soon(ctx, func(ctx context.Context, s *store.Store) error {
		return s.Set(ctx, key, b, ttl)
	})
}

// PageCache returns the page cache of the memory, for
// [webpage.Reader.Cache]; nil when the memory has no store or the page
// cache is off.
func (m *Memory) PageCache() webpage.Cache {
	if m == nil || m.opts.Store == nil || m.opts.Cache.FetchTTL <= 0 {
		return nil
	}
	return pageCache{m}
}

type pageCache struct{ m *Memory }

type cachedPage struct {
	At     time.Time       `json:"at"`
	Result *webpage.Cached `json:"page"`
}

// Get implements webpage.Cache.
func (p pageCache) Get(ctx context.Context, key string) (*webpage.Cached, time.Time, bool) {
	var hit cachedPage
	if !p.m.get(ctx, cacheKey("page", key), &hit) || hit.Result == nil {
		return nil, time.Time{}, false
	}
	p.m.hits.Add(1)
	return hit.Result, hit.At, true
}

// Put implements webpage.Cache.
func (p pageCache) Put(ctx context.Context, key string, page *webpage.Cached) {
	p.m.put(ctx, cacheKey("page", key), cachedPage{At: p.m.now(), Result: page}, p.m.opts.Cache.FetchTTL)
}

// ClearCache removes every cached search result and page, and returns how
// many entries it removed.
func (m *Memory) ClearCache(ctx context.Context) (int, error) {
	if m == nil || m.opts.Store == nil {
		return 0, nil
	}
	return m.opts.Store.Clear(ctx, CachePrefix)
}
