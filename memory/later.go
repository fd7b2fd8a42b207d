package memory

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/store"
)

// SkipReason says why a call went on without the store.
type SkipReason string

// The reasons a call goes on without the store.
const (
	// SkipOpenTimeout: the store did not open within its open bound
	// (store.open_timeout).
	SkipOpenTimeout SkipReason = "open_timeout"
	// SkipOpTimeout: a call to the store took longer than its bound
	// (store.timeout).
	SkipOpTimeout SkipReason = "op_timeout"
	// SkipFailed: the store failed otherwise (missing, corrupt, locked,
	// full, down).
	SkipFailed SkipReason = "error"
)

// SkipReasons lists every [SkipReason], in the order reports show them.
var SkipReasons = []SkipReason{SkipOpenTimeout, SkipOpTimeout, SkipFailed}

// OpenSkipReason returns why a call went on without a store that failed to
// open with err: [SkipOpenTimeout] for a timeout (a wait for another
// process's lock that the deadline ended included), [SkipFailed]
// otherwise.
func OpenSkipReason(err error) SkipReason {
	if timedOut(err) {
		return SkipOpenTimeout
	}
	return SkipFailed
}

// timedOut reports whether a store failed by taking too long: its own
// timeout, or a wait for a lock that the deadline ended.
func timedOut(err error) bool {
	return errors.Is(err, store.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)
}

// Skipped returns why the Memory left its store alone after a failure
// ([SkipOpTimeout] or [SkipFailed]), or "" while the store has never
// failed it.
func (m *Memory) Skipped() SkipReason {
	if m == nil {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reason
}

// DeferWrites makes the Memory keep the writes that can wait until
// [Memory.Flush], so that they do not hold up the answer: the decision
// log, usage counters of providers without a monthly budget (a budget's
// warning must reach the answer), and key and provider health outcomes.
// The result cache's entries are still written on the way to the answer,
// so that the next call finds them, but one the store is too slow for
// waits for Flush instead of failing the store for the call. A hook calls
// DeferWrites once it has opened the memory, and Flush once it has
// answered. Reads, the answers kept for the replace style and the docs
// routes' state are never deferred.
func (m *Memory) DeferWrites() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.deferring = true
	m.mu.Unlock()
}

// later runs fn against the store as [Memory.call] does, or, after
// [Memory.DeferWrites], keeps it for [Memory.Flush].
func (m *Memory) later(ctx context.Context, fn func(ctx context.Context, s *store.Store) error) {
	m.mu.Lock()
	if m.deferring {
		m.pending = append(m.pending, fn)
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	_ = m.call(context.WithoutCancel(ctx), fn)
}

// soon runs fn against the store now, as [Memory.call] does, except
// that after [Memory.DeferWrites] a failure neither counts against the
// store nor loses the write: it is kept for [Memory.Flush], to be made
// with more time once the call is answered. It serves the writes the next
// call looks for (the cache entry), which are best made before the answer
// but can still be made after it.
func (m *Memory) soon(ctx context.Context, fn func(ctx context.Context, s *store.Store) error) {
	m.mu.Lock()
	deferring := m.deferring
	m.mu.Unlock()
	if !deferring {
		_ = m.call(context.WithoutCancel(ctx), fn)
		return
	}
	if !m.live() {
		m.later(ctx, fn)
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.opts.OpTimeout)
	defer cancel()
	if err := fn(cctx, m.opts.Store); err != nil && store.Failed(err) {
		m.later(ctx, fn)
	}
}

// Flush runs the writes kept since [Memory.DeferWrites], in order (the
// call's count first, see [Memory.CountCall]), each within ctx's deadline
// and not within the per-call bound: no one waits for them. It runs them
// even when the store failed the call: a store that was slow was not
// broken, and the writes have more time here. At the first failure other
// than a timeout the rest are dropped: the store is broken. It returns
// the first failure.
func (m *Memory) Flush(ctx context.Context) error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	fns := m.pending
	m.pending = nil
	m.mu.Unlock()
	if len(fns) == 0 || m.opts.Store == nil {
		return nil
	}
	var first error
	for i, fn := range fns {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%d writes dropped: %w", len(fns)-i, err)
		}
		err := fn(ctx, m.opts.Store)
		if err != nil && store.Failed(err) {
			if first == nil {
				first = err
			}
			if !timedOut(err) {
				// Broken: the rest would fail too.
				return fmt.Errorf("%d writes dropped: %w", len(fns)-i, first)
			}
		}
	}
	return first
}

// Pending returns how many writes wait for [Memory.Flush].
func (m *Memory) Pending() int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pending)
}

// Store calls are counted per day (UTC) under
// "storecalls/<YYYY-MM-DD>/calls" and, for the calls that went on without
// the store, "storecalls/<YYYY-MM-DD>/skipped/<reason>"; kept for
// [usageTTL].
const storeCallsPrefix = "storecalls/"

// CountCall counts one hook call in the store's own figures, and why it
// went on without the store when skipped is not "" ([Memory.StoreCalls]).
// It is a write that can wait (see [Memory.DeferWrites]), and the first
// [Memory.Flush] makes: it is tried even when the store failed the call.
func (m *Memory) CountCall(ctx context.Context, skipped SkipReason) {
	if m == nil || m.opts.Store == nil {
		return
	}
	p := storeCallsPrefix + day(m.now()) + "/"
	deltas := map[string]int64{p + "calls": 1}
	if skipped != "" {
		deltas[p+"skipped/"+string(skipped)] = 1
	}
	fn := func(ctx context.Context, s *store.Store) error {
		_, err := s.IncrMany(ctx, deltas, usageTTL)
		return err
	}
	m.mu.Lock()
	if m.deferring {
		// First: a store that fails the call may still take the count.
		m.pending = append([]func(ctx context.Context, s *store.Store) error{fn}, m.pending...)
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.opts.OpTimeout)
	defer cancel()
	_ = fn(cctx, m.opts.Store)
}

// StoreDay is one day's (UTC) count of the hook calls and of those that
// went on without the store, by reason.
type StoreDay struct {
	// Day is the day, "2026-03-01".
	Day string `json:"day"`
	// Calls counts the hook calls that opened, or tried to open, the
	// store and lived to count themselves.
	Calls int64 `json:"calls"`
	// Skipped counts the calls that went on without the store, by
	// reason.
	Skipped map[SkipReason]int64 `json:"skipped,omitempty"`
}

// SkippedTotal returns how many of the day's calls went on without the
// store.
func (d StoreDay) SkippedTotal() int64 {
	var n int64
	for _, v := range d.Skipped {
		n += v
	}
	return n
}

// StoreCalls returns the hook calls counted per day since the given day
// (all kept when zero), oldest first ([Memory.CountCall]). It reads the
// store directly: errors are returned, not hidden.
func (m *Memory) StoreCalls(ctx context.Context, since time.Time) ([]StoreDay, error) {
	if m == nil || m.opts.Store == nil {
		return nil, nil
	}
	cs, err := m.opts.Store.Counters(ctx, storeCallsPrefix)
	if err != nil {
		return nil, err
	}
	from := ""
	if !since.IsZero() {
		from = day(since)
	}
	byDay := map[string]*StoreDay{}
	for name, v := range cs {
		d, field, ok := strings.Cut(strings.TrimPrefix(name, storeCallsPrefix), "/")
		if !ok || d < from {
			continue
		}
		sd := byDay[d]
		if sd == nil {
			sd = &StoreDay{Day: d}
			byDay[d] = sd
		}
		switch {
		case field == "calls":
			sd.Calls = v
		case strings.HasPrefix(field, "skipped/"):
			if sd.Skipped == nil {
				sd.Skipped = map[SkipReason]int64{}
			}
			sd.Skipped[SkipReason(strings.TrimPrefix(field, "skipped/"))] += v
		}
	}
	out := make([]StoreDay, 0, len(byDay))
	for _, sd := range byDay {
		out = append(out, *sd)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Day < out[j].Day })
	return out, nil
}
