package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store"
)

// Backend describes the provider a guard wraps.
type Backend struct {
	// Name is the provider's name.
	Name string
	// Keys are the provider's key values, to name them by fingerprint;
	// empty for a keyless provider. They are never stored.
	Keys []string
}

func (m *Memory) fingerprints(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = store.Fingerprint([]byte(k), m.opts.Salt)
	}
	return out
}

// Searcher guards s, a backend: the call is skipped at once when the
// memory says so (parked keys, an open breaker, a spent budget), and its
// outcome and usage are recorded. A nil Memory returns s.
func (m *Memory) Searcher(b Backend, s provider.Searcher) provider.Searcher {
	if m == nil || m.opts.Store == nil {
		return s
	}
	return &guardedSearcher{guard: guard{m: m, name: b.Name, fps: m.fingerprints(b.Keys)}, s: s}
}

// Extractor guards x, a backend, as [Memory.Searcher] guards a searcher.
func (m *Memory) Extractor(b Backend, x provider.Extractor) provider.Extractor {
	if m == nil || m.opts.Store == nil {
		return x
	}
	return &guardedExtractor{guard: guard{m: m, name: b.Name, fps: m.fingerprints(b.Keys)}, x: x}
}

type guard struct {
	m    *Memory
	name string
	fps  []string // empty for a keyless provider
}

// Name returns the provider's name, for the guarded searcher and
// extractor.
func (g *guard) Name() string { return g.name }

// before returns the error a skipped call fails with, or nil.
func (g *guard) before(ctx context.Context, op string) error {
	if pe := g.m.budgetSpent(ctx, g.name, op); pe != nil {
		return pe
	}
	if pe := g.m.admit(ctx, g.name, op, g.fps); pe != nil {
		return pe
	}
	return nil
}

// after records the call's outcome and usage. It runs detached from the
// call's context, which may have ended, within the store's own bound.
func (g *guard) after(ctx context.Context, results int, usage *provider.Usage, elapsed time.Duration, err error) {
	ctx = context.WithoutCancel(ctx)
	g.m.settle(ctx, g.name, len(g.fps) == 0, err)
	g.m.count(ctx, g.name, results, usage, elapsed, err)
}

type guardedSearcher struct {
	guard
	s provider.Searcher
}

// Search implements provider.Searcher.
func (g *guardedSearcher) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	return guarded(&g.guard, ctx, "search", func() (*provider.Results, error) { return g.s.Search(ctx, q) },
		func(res *provider.Results) (int, *provider.Usage) { return len(res.Results), res.Usage })
}

type guardedExtractor struct {
	guard
	x provider.Extractor
}

// Extract implements provider.Extractor.
func (g *guardedExtractor) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	return guarded(&g.guard, ctx, "extract", func() (*provider.Page, error) { return g.x.Extract(ctx, req) },
		func(p *provider.Page) (int, *provider.Usage) { return 1, p.Usage })
}

// guarded makes the call op through g: it fails at once when g skips it,
// and otherwise records the outcome and, from an answer that is not nil,
// the results and usage that measure says.
func guarded[T any](g *guard, ctx context.Context, op string, call func() (*T, error), measure func(*T) (int, *provider.Usage)) (*T, error) {
	if err := g.before(ctx, op); err != nil {
		return nil, err
	}
	start := g.m.now()
	v, err := call()
	n := 0
	var u *provider.Usage
	if v != nil {
		n, u = measure(v)
	}
	g.after(ctx, n, u, g.m.now().Sub(start), err)
	return v, err
}

// Usage counters live under "usage/<YYYY-MM-DD>/<provider>/<name>"; the
// monthly request count a budget is held against lives under
// "month/<YYYY-MM>/<provider>/requests" (monthKey). Both are kept for
// [usageTTL].
const usageTTL = 400 * 24 * time.Hour

// monthKey is the counter of the provider's requests in t's month.
func monthKey(name string, t time.Time) string { return monthPrefix(t) + name + "/requests" }

// monthPrefix starts the keys of the month of t's counters.
func monthPrefix(t time.Time) string { return "month/" + month(t) + "/" }

func day(t time.Time) string   { return t.UTC().Format("2006-01-02") }
func month(t time.Time) string { return t.UTC().Format("2006-01") }

// The scales of the usage counters that hold fractions: credits in
// thousandths, dollars in millionths.
const (
	creditsScale = 1000
	costScale    = 1_000_000
)

// scaled returns v × scale rounded, or 0 when v is not a positive,
// finite figure of a sane size (below 10^12).
func scaled(v float64, scale float64) int64 {
	if !(v > 0) || v >= 1e12 {
		return 0
	}
	return int64(math.Round(v * scale))
}

// count adds one call to the provider's usage (with the credits, cost and
// tokens usage reports, when it reports them) and, when it has a budget,
// warns once when the month's requests pass 80 % of it.
func (m *Memory) count(ctx context.Context, name string, results int, usage *provider.Usage, elapsed time.Duration, err error) {
	now := m.now()
	p := "usage/" + day(now) + "/" + name + "/"
	deltas := map[string]int64{
		p + "requests":   1,
		p + "results":    int64(results),
		p + "latency_ms": elapsed.Milliseconds(),
	}
	if usage != nil {
		if v := scaled(usage.Credits, creditsScale); v > 0 {
			deltas[p+"credits_milli"] = v
		}
		if v := scaled(usage.CostUSD, costScale); v > 0 {
			deltas[p+"cost_micro_usd"] = v
		}
		if usage.Tokens > 0 {
			deltas[p+"tokens"] = usage.Tokens
		}
	}
	if err != nil {
		kind := provider.KindOf(err)
		if kind == "" {
			kind = provider.KindUnknown
		}
		deltas[p+"failures/"+string(kind)] = 1
	}
	// A provider with a budget counts the month's requests in the same
	// atomic write.
	budget := m.opts.Budgets[name]
	mk := monthKey(name, now)
	if budget > 0 {
		deltas[mk] = 1
	}
	if budget <= 0 {
		// Nothing the answer needs: the write can wait.
		m.later(ctx, func(ctx context.Context, s *store.Store) error {
			_, err := s.IncrMany(ctx, deltas, usageTTL)
			return err
		})
		return
	}
	var counts map[string]int64
	if m.call(ctx, func(ctx context.Context, s *store.Store) error {
		var err error
		counts, err = s.IncrMany(ctx, deltas, usageTTL)
		return err
	}) != nil {
		return
	}
	m.budgetNotices(name, counts[mk], budget)
}

// budgetNotices warns once when the month's requests reach 80 % of the
// provider's budget, and once when they reach all of it.
func (m *Memory) budgetNotices(name string, used, budget int64) {
	if warn := (budget*8 + 9) / 10; used == warn && warn < budget {
		m.notice(fmt.Sprintf("%s has used %d of its monthly budget of %d requests (80 %%); at 100 %% it is skipped until next month", name, used, budget))
	}
	if used == budget {
		m.notice(fmt.Sprintf("%s reached its monthly budget of %d requests and is skipped until next month", name, budget))
	}
}

// budgetSpent returns the error a provider whose monthly budget is spent
// fails with, or nil.
func (m *Memory) budgetSpent(ctx context.Context, name, op string) *provider.Error {
	budget := m.opts.Budgets[name]
	if budget <= 0 {
		return nil
	}
	var used int64
	mk := monthKey(name, m.now())
	err := m.call(ctx, func(ctx context.Context, s *store.Store) error {
		cs, err := s.Counters(ctx, mk)
		used = cs[mk]
		return err
	})
	if err != nil || used < budget {
		return nil
	}
	se := &SkipError{Provider: name, Why: fmt.Sprintf("monthly budget of %d requests reached (%d used)", budget, used)}
	return &provider.Error{Provider: name, Op: op, Kind: provider.KindQuota, Message: se.message(), Err: se}
}

// IsSkip reports whether err is, or wraps, a [*SkipError]: the memory
// skipped a provider without a request.
func IsSkip(err error) bool {
	var se *SkipError
	return errors.As(err, &se)
}
