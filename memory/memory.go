package memory

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/store"
)

// DefaultOpTimeout bounds each store call of a [Memory] whose caller's
// deadline is not earlier.
const DefaultOpTimeout = 50 * time.Millisecond

// StoreRetry is how long a [Memory] leaves its store alone after a
// failure before it tries the store again. It is longer than a hook's
// call, so a hook goes on without the store for the rest of the call,
// while a long-lived Memory (the MCP server's) comes back to the store
// after a passing failure instead of doing without it until it restarts.
const StoreRetry = 30 * time.Second

// Options configures a [Memory]. Zero fields mean the defaults.
type Options struct {
	// Store keeps the memory; nil means a Memory that remembers nothing.
	Store *store.Store
	// Salt keys the fingerprints that name API keys in the store (see
	// [store.Fingerprint]). Processes that share a store share health
	// records only when they use the same salt.
	Salt []byte
	// Health configures key parking and the circuit breaker.
	Health HealthConfig
	// Cache configures the result cache.
	Cache CacheConfig
	// Log configures the decision log.
	Log LogConfig
	// Budgets maps a provider's name to its monthly budget of requests;
	// a provider without one (or with 0) has none.
	Budgets map[string]int64
	// OpTimeout bounds each store call; default [DefaultOpTimeout].
	OpTimeout time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Memory is webgate's memory across calls over a store. It is safe for
// concurrent use. A nil *Memory remembers nothing: its wrappers return
// what they wrap, and its reads find nothing.
type Memory struct {
	opts Options

	mu     sync.Mutex
	broken error      // the first failure
	reason SkipReason // why the store was left alone: the first failure's
	paused time.Time  // the store is left alone until then
	// deferring is set by DeferWrites; pending are the writes kept for
	// Flush.
	deferring bool
	pending   []func(ctx context.Context, s *store.Store) error
	notices   []string
	hits      atomic.Int64
	// seen holds the health records this Memory read, by provider.
	seen map[string]seenHealth
}

// CacheHits returns how many answers the Memory's caches gave so far.
func (m *Memory) CacheHits() int64 {
	if m == nil {
		return 0
	}
	return m.hits.Load()
}

// New returns a Memory over opts.Store; a nil opts means defaults (a
// Memory over no store, which remembers nothing).
func New(opts *Options) *Memory {
	var o Options
	if opts != nil {
		o = *opts
	}
	return newMemory(o)
}

func newMemory(opts Options) *Memory {
	if opts.OpTimeout <= 0 {
		opts.OpTimeout = DefaultOpTimeout
	}
	opts.Health = opts.Health.withDefaults()
	opts.Cache = opts.Cache.withDefaults()
	opts.Log = opts.Log.withDefaults()
	return &Memory{opts: opts}
}

// Store returns the store the Memory keeps its data in (nil for none).
func (m *Memory) Store() *store.Store {
	if m == nil {
		return nil
	}
	return m.opts.Store
}

// Problem returns the first store failure the Memory met; nil while the
// store has never failed. After each failure the Memory leaves the store
// alone for [StoreRetry].
func (m *Memory) Problem() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.broken
}

// Notices returns the warnings meant for the user that the calls so far
// raised (a monthly budget passing 80 %), each once, and forgets them.
// They are sentences without a prefix: "tavily has used 80 of …".
func (m *Memory) Notices() []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.notices
	m.notices = nil
	return out
}

func (m *Memory) notice(s string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.notices = append(m.notices, s)
}

func (m *Memory) now() time.Time { return defaults.Now(m.opts.Now) }

// live reports whether the store may be used.
func (m *Memory) live() bool {
	if m == nil || m.opts.Store == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.paused.IsZero() || !m.now().Before(m.paused)
}

// call runs fn against the store with the Memory's per-call bound. A
// failure of the store (not an answer such as not found) disables the
// store for [StoreRetry]; the caller carries on without it.
func (m *Memory) call(ctx context.Context, fn func(ctx context.Context, s *store.Store) error) error {
	if !m.live() {
		return errOff
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	cctx, cancel := context.WithTimeout(ctx, m.opts.OpTimeout)
	defer cancel()
	err := fn(cctx, m.opts.Store)
	if err != nil && store.Failed(err) && ctx.Err() == nil {
		m.mu.Lock()
		if m.broken == nil {
			m.broken = fmt.Errorf("the store failed, going on without it: %w", err)
			m.reason = SkipFailed
			if timedOut(err) {
				m.reason = SkipOpTimeout
			}
		}
		m.paused = m.now().Add(StoreRetry)
		m.mu.Unlock()
	}
	return err
}

var errOff = fmt.Errorf("memory: no store")
