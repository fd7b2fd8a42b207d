package memory_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/driver"
	"github.com/webgate-dev/webgate/store/memstore"
)

func TestDeferWrites_KeepsTheWritesThatCanWaitUntilFlush(t *testing.T) {
	m, _ := newMemory(t, memory.Options{Cache: memory.CacheConfig{SearchTTL: 10 * time.Minute}})
	m.DeferWrites()
	ctx := context.Background()
	s := &searcher{name: "tavily"}
	cs := m.CacheSearcher(m.Searcher(memory.Backend{Name: "tavily", Keys: []string{"k1"}}, s), []string{"tavily"})
	if _, err := cs.Search(ctx, provider.Query{Text: "go generics"}); err != nil {
		t.Fatal(err)
	}
	m.Record(ctx, memory.Decision{Tool: "WebSearch", Decision: "deny", Query: "go generics"})
	m.CountCall(ctx, "")

	// The answer is given: only the cache entry, which the next call
	// looks for, is written yet.
	if n := m.Pending(); n != 3 {
		t.Errorf("%d writes pending, want usage, the log and the call count", n)
	}
	if _, err := m.Store().Get(ctx, memory.SearchKey(provider.Query{Text: "go generics"}, []string{"tavily"})); err != nil {
		t.Errorf("the cache entry was not written on the way to the answer: %v", err)
	}
	if us, _ := m.Usage(ctx, time.Time{}); len(us) != 0 {
		t.Errorf("usage written before Flush: %+v", us)
	}
	if ds, _ := m.Decisions(ctx, 0, time.Time{}); len(ds) != 0 {
		t.Errorf("decision written before Flush: %+v", ds)
	}

	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if m.Pending() != 0 {
		t.Errorf("%d writes still pending after Flush", m.Pending())
	}
	if us, err := m.Usage(ctx, time.Time{}); err != nil || len(us) != 1 || us[0].Requests != 1 {
		t.Errorf("usage after Flush: %+v, %v", us, err)
	}
	if ds, err := m.Decisions(ctx, 0, time.Time{}); err != nil || len(ds) != 1 {
		t.Errorf("decisions after Flush: %+v, %v", ds, err)
	}
	if days, err := m.StoreCalls(ctx, time.Time{}); err != nil || len(days) != 1 || days[0].Calls != 1 || days[0].SkippedTotal() != 0 {
		t.Errorf("store calls after Flush: %+v, %v", days, err)
	}
	// The next call (another Memory over the same store) hits the cache.
	next := memory.New(&memory.Options{Store: m.Store(), Cache: memory.CacheConfig{SearchTTL: 10 * time.Minute}})
	if _, err := next.CacheSearcher(s, []string{"tavily"}).Search(ctx, provider.Query{Text: "go generics"}); err != nil || s.calls.Load() != 1 || next.CacheHits() != 1 {
		t.Errorf("the next call: provider asked %d times, %d cache hits, %v", s.calls.Load(), next.CacheHits(), err)
	}
}

func TestDeferWrites_ABudgetIsCountedAtOnceSoItsWarningReachesTheAnswer(t *testing.T) {
	m, _ := newMemory(t, memory.Options{Budgets: map[string]int64{"tavily": 5}})
	m.DeferWrites()
	ctx := context.Background()
	g := m.Searcher(memory.Backend{Name: "tavily", Keys: []string{"k1"}}, &searcher{name: "tavily"})
	for range 4 {
		if _, err := g.Search(ctx, provider.Query{Text: "q"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := m.Notices(); len(n) != 1 {
		t.Errorf("notices before Flush: %q, want the 80 %% warning", n)
	}
	if bs, err := m.Budgets(ctx); err != nil || len(bs) != 1 || bs[0].Used != 4 {
		t.Errorf("budgets before Flush: %+v, %v", bs, err)
	}
}

// slowGets is a backend whose reads wait for their deadline, as a store
// on a busy machine does, or fail with err when it is set.
type slowGets struct {
	driver.Store
	err            error
	incrs, appends atomic.Int32
}

func (s *slowGets) Get(ctx context.Context, key string) (driver.Entry, error) {
	if s.err != nil {
		return driver.Entry{}, s.err
	}
	<-ctx.Done()
	return driver.Entry{}, ctx.Err()
}

// Incr and Append fail with err too, when it is set: a broken store.
func (s *slowGets) Incr(ctx context.Context, deltas []driver.Delta, ttl time.Duration) ([]int64, error) {
	if s.err != nil {
		s.incrs.Add(1)
		return nil, s.err
	}
	return s.Store.Incr(ctx, deltas, ttl)
}

func (s *slowGets) Append(ctx context.Context, log string, data []byte, keep driver.Retention) (driver.Record, error) {
	if s.err != nil {
		s.appends.Add(1)
		return driver.Record{}, s.err
	}
	return s.Store.Append(ctx, log, data, keep)
}

func TestFlush_WritesAfterATimeoutAndStopsAtABrokenStore(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		err     error
		reason  memory.SkipReason
		written bool
	}{
		{"a read that timed out", nil, memory.SkipOpTimeout, true},
		{"a corrupt store", driver.Wrap(driver.ErrCorrupt, errors.New("bad page")), memory.SkipFailed, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &slowGets{Store: memstore.New(nil), err: c.err}
			st := store.New(d, nil)
			defer st.Close()
			m := memory.New(&memory.Options{Store: st, OpTimeout: 5 * time.Millisecond, Cache: memory.CacheConfig{SearchTTL: time.Minute}})
			m.DeferWrites()
			s := &searcher{name: "tavily"}
			if _, err := m.CacheSearcher(s, []string{"tavily"}).Search(ctx, provider.Query{Text: "q"}); err != nil || s.calls.Load() != 1 {
				t.Fatalf("search without the store: %v, %d provider calls", err, s.calls.Load())
			}
			if got := m.Skipped(); got != c.reason {
				t.Errorf("Skipped() = %q, want %q", got, c.reason)
			}
			m.Record(ctx, memory.Decision{Tool: "WebSearch", Decision: "deny"})
			m.CountCall(ctx, m.Skipped())
			err := m.Flush(ctx)
			ds, _ := m.Decisions(ctx, 0, time.Time{})
			days, _ := m.StoreCalls(ctx, time.Time{})
			if written := len(ds) == 1 && len(days) == 1 && days[0].Skipped[c.reason] == 1; written != c.written {
				t.Errorf("written after Flush = %v, want %v (decisions %+v, calls %+v, flush %v)", written, c.written, ds, days, err)
			}
			if !c.written {
				// The call's count is tried first; the log, after it
				// failed, is not.
				if err == nil || d.incrs.Load() != 1 || d.appends.Load() != 0 {
					t.Errorf("a broken store: flush %v after %d counter and %d log writes; want the count tried alone, and the failure", err, d.incrs.Load(), d.appends.Load())
				}
			}
		})
	}
}

func TestStoreCalls_CountsTheCallsAndWhyTheyWentOnWithoutTheStore(t *testing.T) {
	m, c := newMemory(t, memory.Options{})
	ctx := context.Background()
	for _, r := range []memory.SkipReason{"", "", memory.SkipOpenTimeout, memory.SkipOpTimeout, memory.SkipOpenTimeout} {
		m.CountCall(ctx, r)
	}
	c.add(24 * time.Hour)
	m.CountCall(ctx, memory.SkipFailed)
	days, err := m.StoreCalls(ctx, time.Time{})
	if err != nil || len(days) != 2 {
		t.Fatalf("StoreCalls: %+v, %v", days, err)
	}
	first, second := days[0], days[1]
	if first.Day != "2026-03-10" || first.Calls != 5 || first.SkippedTotal() != 3 || first.Skipped[memory.SkipOpenTimeout] != 2 || first.Skipped[memory.SkipOpTimeout] != 1 {
		t.Errorf("first day: %+v", first)
	}
	if second.Day != "2026-03-11" || second.Calls != 1 || second.Skipped[memory.SkipFailed] != 1 {
		t.Errorf("second day: %+v", second)
	}
	if days, _ := m.StoreCalls(ctx, c.now()); len(days) != 1 || days[0].Day != "2026-03-11" {
		t.Errorf("since the second day: %+v", days)
	}
	if us, _ := m.Usage(ctx, time.Time{}); len(us) != 0 {
		t.Errorf("the store's figures show as a provider's usage: %+v", us)
	}
}

func TestOpenSkipReason_TellsATimeoutFromAFailure(t *testing.T) {
	if r := memory.OpenSkipReason(&store.Error{Op: "open", Err: driver.ErrTimeout}); r != memory.SkipOpenTimeout {
		t.Errorf("timeout: %q", r)
	}
	if r := memory.OpenSkipReason(&store.Error{Op: "open", Err: driver.Wrap(driver.ErrBusy, driver.Wrap(context.DeadlineExceeded, errors.New("locked")))}); r != memory.SkipOpenTimeout {
		t.Errorf("a lock wait the deadline ended: %q", r)
	}
	if r := memory.OpenSkipReason(&store.Error{Op: "open", Err: driver.ErrCorrupt}); r != memory.SkipFailed {
		t.Errorf("corrupt: %q", r)
	}
}

// slowFirstPut is a backend whose first write waits for its deadline, as
// a store on a busy machine may.
type slowFirstPut struct {
	driver.Store
	puts atomic.Int32
}

func (s *slowFirstPut) Put(ctx context.Context, key string, value []byte, ifVersion int64, opts driver.WriteOptions) (int64, error) {
	if s.puts.Add(1) == 1 {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	return s.Store.Put(ctx, key, value, ifVersion, opts)
}

func TestDeferWrites_ACacheEntryTheStoreIsTooSlowForIsWrittenAfterTheAnswer(t *testing.T) {
	ctx := context.Background()
	st := store.New(&slowFirstPut{Store: memstore.New(nil)}, nil)
	defer st.Close()
	m := memory.New(&memory.Options{Store: st, OpTimeout: 5 * time.Millisecond, Cache: memory.CacheConfig{SearchTTL: time.Minute}})
	m.DeferWrites()
	s := &searcher{name: "tavily"}
	if _, err := m.CacheSearcher(s, []string{"tavily"}).Search(ctx, provider.Query{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	if m.Skipped() != "" || m.Problem() != nil || m.Pending() != 1 {
		t.Fatalf("a slow cache write: skipped %q, problem %v, %d pending; want the write kept for later and the store still used", m.Skipped(), m.Problem(), m.Pending())
	}
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	next := memory.New(&memory.Options{Store: st, Cache: memory.CacheConfig{SearchTTL: time.Minute}})
	if _, err := next.CacheSearcher(s, []string{"tavily"}).Search(ctx, provider.Query{Text: "q"}); err != nil || next.CacheHits() != 1 {
		t.Errorf("the next call: %d cache hits, %v", next.CacheHits(), err)
	}
}
