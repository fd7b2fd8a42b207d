// Package storetest is the conformance suite every store backend runs.
//
// A backend's test describes how to open a fresh, empty instance in a
// [Harness] and calls [Run]:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Harness{
//			Open: func(t *testing.T, now func() time.Time) driver.Store {
//				return memstore.New(&memstore.Config{Now: now})
//			},
//		})
//	}
//
// # Cases
//
// Run drives the backend through package store, as callers do, and
// checks:
//
//   - values: a miss is ErrNotFound; values round-trip byte for byte
//     (empty ones too) and are copied in and out; every write gets a
//     greater version; Delete; expiry, with the injected clock or, for
//     backends that expire on their own clock, short real TTLs;
//   - CompareAndSwap: create-only, stale and current versions, on expired
//     values too;
//   - Update: creates and modifies, an error from the function writes
//     nothing and is returned as is, the TTL applies; 24 goroutines
//     updating one key lose no update, both through the backend's own
//     Updater and through the compare-and-swap loop;
//   - counters: running values, negative deltas, a space apart from
//     values, 24 goroutines incrementing lose no increment, IncrMany is
//     atomic, expiry is set once and never extended, listing by prefix;
//   - logs: IDs increase and are never reused (not even after Clear),
//     List by After, Since and Limit, retention by count and by age,
//     Follow delivers new records in order and ends with its context;
//   - Clear by prefix removes exactly the values, counters and logs under
//     it (prefixes holding glob characters included) and reports how many;
//   - Bounds: a bounded prefix keeps at most its bound of values, the
//     newest; other prefixes are untouched; the longest prefix wins;
//   - limits and validation: oversized values and records, malformed keys;
//   - contexts: a canceled context and a passed deadline fail the call
//     at once, with context.Canceled and ErrTimeout, and write nothing;
//   - a closed store (and a closed backend, called directly) returns
//     ErrClosed; closing twice is fine;
//   - concurrent mixed use, for the race detector.
//
// [Benchmark] measures Get, Set, Update, Incr and Append.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/driver"
)

// Harness describes a backend to the suite.
type Harness struct {
	// Open returns a new, empty backend for one test. It must take the
	// time from now wherever it can (expiry, log timestamps), and release
	// what it holds in t.Cleanup; the suite closes the backend itself too.
	Open func(t *testing.T, now func() time.Time) driver.Store
	// ServerClock says the backend expires values and counters on a clock
	// of its own rather than now (Redis); the suite then waits out short
	// real TTLs instead of advancing the clock.
	ServerClock bool
}

// Clock is a manual clock for backends that accept one.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock set to a fixed time.
func NewClock() *Clock {
	return &Clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is one case's store, clock and the way to let a TTL pass.
type env struct {
	t     *testing.T
	h     Harness
	clock *Clock
	d     driver.Store
	s     *store.Store
	ctx   context.Context
}

func (h Harness) env(t *testing.T, opts *store.Options) *env {
	t.Helper()
	c := NewClock()
	d := h.Open(t, c.Now)
	if d == nil {
		t.Fatal("Harness.Open returned nil")
	}
	// Calls get a generous per-call timeout: the suite checks behaviour,
	// not speed, and runs its cases in parallel, under the race detector
	// and on loaded machines. The cases about deadlines set their own.
	var o store.Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout == 0 {
		o.Timeout = time.Minute
	}
	s := store.New(d, &o)
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return &env{t: t, h: h, clock: c, d: d, s: s, ctx: ctx}
}

// ttl returns a TTL the case can wait out: long on the manual clock, short
// on a server's clock. The cases check a value still there after half of
// it, so on a server's clock it is long enough that a busy machine's
// delays (the cases run in parallel, under the race detector) stay well
// inside that half.
func (e *env) ttl() time.Duration {
	if e.h.ServerClock {
		return time.Second
	}
	return time.Hour
}

// pass lets d go by, on the manual clock or, for a server clock, in real
// time.
func (e *env) pass(d time.Duration) {
	e.clock.Advance(d)
	if e.h.ServerClock {
		time.Sleep(d)
	}
}

func (e *env) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) get(key string) ([]byte, bool) {
	e.t.Helper()
	ent, err := e.s.Get(e.ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false
	}
	e.must(err)
	return ent.Value, true
}

func (e *env) wantValue(key, want string) {
	e.t.Helper()
	got, ok := e.get(key)
	if !ok {
		e.t.Fatalf("Get(%q): not found, want %q", key, want)
	}
	if string(got) != want {
		e.t.Fatalf("Get(%q) = %q, want %q", key, got, want)
	}
}

func (e *env) wantMissing(key string) {
	e.t.Helper()
	if got, ok := e.get(key); ok {
		e.t.Fatalf("Get(%q) = %q, want not found", key, got)
	}
}

// Run runs the conformance suite against the backend h describes.
func Run(t *testing.T, h Harness) {
	if h.Open == nil {
		t.Fatal("storetest: Harness.Open is nil")
	}
	cases := []struct {
		name string
		f    func(t *testing.T, h Harness)
	}{
		{"GetOfMissingKeyIsNotFound", testGetMissing},
		{"ValuesRoundTripByteForByte", testRoundTrip},
		{"ValuesAreCopiedInAndOut", testCopies},
		{"EveryWriteGetsAGreaterVersion", testVersions},
		{"DeleteRemovesAndIgnoresMissingKeys", testDelete},
		{"ValuesExpireAfterTheirTTL", testTTL},
		{"CompareAndSwapChecksTheVersion", testCAS},
		{"UpdateCreatesAndModifies", testUpdate},
		{"UpdateFunctionErrorWritesNothing", testUpdateFnError},
		{"UpdateGivesTheTTL", testUpdateTTL},
		{"ConcurrentUpdatesLoseNothing", testUpdateConcurrent(false)},
		{"ConcurrentCompareAndSwapUpdatesLoseNothing", testUpdateConcurrent(true)},
		{"CountersCountAndLiveApartFromValues", testCounters},
		{"ConcurrentIncrementsLoseNothing", testIncrConcurrent},
		{"CounterExpiryIsSetOnceAndNeverExtended", testCounterTTL},
		{"CountersAreListedByPrefix", testCountersPrefix},
		{"LogListsByAfterSinceAndLimit", testLogList},
		{"LogKeepsTheNewestRecordsByCount", testLogRetentionCount},
		{"LogDropsRecordsByAge", testLogRetentionAge},
		{"LogIDsAreNeverReused", testLogIDs},
		{"FollowDeliversNewRecordsInOrder", testFollow},
		{"ClearRemovesExactlyThePrefix", testClear},
		{"ClearTreatsGlobCharactersLiterally", testClearGlob},
		{"BoundKeepsTheNewestValues", testBound},
		{"BoundAppliesToUpdates", testBoundUpdate},
		{"OversizedValuesAreRejected", testTooLarge},
		{"MalformedKeysAreRejected", testBadKeys},
		{"CanceledContextFailsAtOnceAndWritesNothing", testCanceled},
		{"PassedDeadlineFailsAtOnceWithTimeout", testDeadline},
		{"ClosedStoreReturnsErrClosed", testClosed},
		{"ConcurrentMixedUse", testMixed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.f(t, h)
		})
	}
}

func testGetMissing(t *testing.T, h Harness) {
	e := h.env(t, nil)
	_, err := e.s.Get(e.ctx, "missing")
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get of a missing key: %v, want ErrNotFound", err)
	}
	if store.Failed(err) {
		t.Fatal("Failed(ErrNotFound) = true; a miss is an answer")
	}
}

func testRoundTrip(t *testing.T, h Harness) {
	e := h.env(t, nil)
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	values := map[string][]byte{
		"bin":           all,
		"empty":         {},
		"text":          []byte(`{"status":"cooldown","until":"2026-03-01T12:30:00Z"}`),
		"ünïcode/key:1": []byte("value"),
		"big":           bytes.Repeat([]byte("0123456789abcdef"), 4096),
	}
	for k, v := range values {
		e.must(e.s.Set(e.ctx, k, v, 0))
	}
	for k, v := range values {
		ent, err := e.s.Get(e.ctx, k)
		e.must(err)
		if !bytes.Equal(ent.Value, v) {
			t.Fatalf("Get(%q): %d bytes differ from the %d written", k, len(ent.Value), len(v))
		}
		if ent.Version <= 0 {
			t.Fatalf("Get(%q).Version = %d, want > 0", k, ent.Version)
		}
		if !ent.Expires.IsZero() {
			t.Fatalf("Get(%q).Expires = %v for a value without TTL", k, ent.Expires)
		}
	}
	ttl := e.ttl()
	e.must(e.s.Set(e.ctx, "ttl", []byte("x"), ttl))
	ent, err := e.s.Get(e.ctx, "ttl")
	e.must(err)
	if want := e.clock.Now().Add(ttl); ent.Expires.IsZero() || ent.Expires.After(want.Add(time.Second)) || ent.Expires.Before(want.Add(-time.Second)) {
		if !e.h.ServerClock {
			t.Fatalf("Expires = %v, want about %v", ent.Expires, want)
		}
		if ent.Expires.IsZero() {
			t.Fatal("Expires is zero for a value with a TTL")
		}
	}
}

func testCopies(t *testing.T, h Harness) {
	e := h.env(t, nil)
	v := []byte("original")
	e.must(e.s.Set(e.ctx, "k", v, 0))
	copy(v, "XXXXXXXX")
	got, _ := e.get("k")
	if string(got) != "original" {
		t.Fatalf("the store kept the caller's slice: %q", got)
	}
	copy(got, "YYYYYYYY")
	e.wantValue("k", "original")
}

func testVersions(t *testing.T, h Harness) {
	e := h.env(t, nil)
	var last int64
	for i := range 10 {
		key := fmt.Sprintf("k%d", i%3)
		e.must(e.s.Set(e.ctx, key, []byte(strconv.Itoa(i)), 0))
		ent, err := e.s.Get(e.ctx, key)
		e.must(err)
		if ent.Version <= last {
			t.Fatalf("write %d got version %d after %d", i, ent.Version, last)
		}
		last = ent.Version
	}
}

func testDelete(t *testing.T, h Harness) {
	e := h.env(t, nil)
	e.must(e.s.Set(e.ctx, "a", []byte("1"), 0))
	e.must(e.s.Set(e.ctx, "b", []byte("2"), 0))
	e.must(e.s.Delete(e.ctx, "a"))
	e.wantMissing("a")
	e.wantValue("b", "2")
	e.must(e.s.Delete(e.ctx, "never-written"))
}

func testTTL(t *testing.T, h Harness) {
	e := h.env(t, nil)
	ttl := e.ttl()
	e.must(e.s.Set(e.ctx, "short", []byte("v"), ttl))
	e.must(e.s.Set(e.ctx, "forever", []byte("v"), 0))
	e.must(e.s.Set(e.ctx, "longer", []byte("v"), 100*ttl))
	e.wantValue("short", "v")
	e.pass(ttl + ttl/2)
	e.wantMissing("short")
	e.wantValue("forever", "v")
	e.wantValue("longer", "v")
	// An expired value is gone for conditional writes too.
	if _, err := e.s.CompareAndSwap(e.ctx, "short", 0, []byte("new"), 0); err != nil {
		t.Fatalf("create-only write over an expired value: %v", err)
	}
	e.wantValue("short", "new")
}

func testCAS(t *testing.T, h Harness) {
	e := h.env(t, nil)
	v1, err := e.s.CompareAndSwap(e.ctx, "k", 0, []byte("one"), 0)
	e.must(err)
	if _, err := e.s.CompareAndSwap(e.ctx, "k", 0, []byte("again"), 0); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("create-only write over a live value: %v, want ErrConflict", err)
	} else if store.Failed(err) {
		t.Fatal("Failed(ErrConflict) = true; a conflict is an answer")
	}
	v2, err := e.s.CompareAndSwap(e.ctx, "k", v1, []byte("two"), 0)
	e.must(err)
	if v2 <= v1 {
		t.Fatalf("new version %d not above %d", v2, v1)
	}
	if _, err := e.s.CompareAndSwap(e.ctx, "k", v1, []byte("stale"), 0); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("write with a stale version: %v, want ErrConflict", err)
	}
	if _, err := e.s.CompareAndSwap(e.ctx, "other", v2, []byte("x"), 0); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("write with a version to a missing key: %v, want ErrConflict", err)
	}
	e.wantValue("k", "two")
	e.wantMissing("other")
	ent, err := e.s.Get(e.ctx, "k")
	e.must(err)
	if ent.Version != v2 {
		t.Fatalf("Get version %d, CompareAndSwap returned %d", ent.Version, v2)
	}
	e.must(e.s.Delete(e.ctx, "k"))
	if _, err := e.s.CompareAndSwap(e.ctx, "k", v2, []byte("x"), 0); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("write with the version of a deleted value: %v, want ErrConflict", err)
	}
}

func testUpdate(t *testing.T, h Harness) {
	e := h.env(t, nil)
	calls := 0
	got, err := e.s.Update(e.ctx, "k", 0, func(cur []byte, found bool) ([]byte, error) {
		calls++
		if found || cur != nil {
			t.Errorf("first update saw found=%v cur=%q", found, cur)
		}
		return []byte("1"), nil
	})
	e.must(err)
	if string(got) != "1" || calls == 0 {
		t.Fatalf("Update returned %q after %d calls", got, calls)
	}
	got, err = e.s.Update(e.ctx, "k", 0, func(cur []byte, found bool) ([]byte, error) {
		if !found || string(cur) != "1" {
			t.Errorf("second update saw found=%v cur=%q", found, cur)
		}
		return append(cur, '2'), nil
	})
	e.must(err)
	if string(got) != "12" {
		t.Fatalf("Update returned %q, want 12", got)
	}
	e.wantValue("k", "12")
}

func testUpdateFnError(t *testing.T, h Harness) {
	e := h.env(t, nil)
	e.must(e.s.Set(e.ctx, "k", []byte("keep"), 0))
	abort := errors.New("not now")
	_, err := e.s.Update(e.ctx, "k", 0, func([]byte, bool) ([]byte, error) { return []byte("changed"), abort })
	if err != abort {
		t.Fatalf("Update returned %v, want the function's own error", err)
	}
	e.wantValue("k", "keep")
	_, err = e.s.Update(e.ctx, "new", 0, func([]byte, bool) ([]byte, error) { return nil, abort })
	if err != abort {
		t.Fatalf("Update returned %v, want the function's own error", err)
	}
	e.wantMissing("new")
}

func testUpdateTTL(t *testing.T, h Harness) {
	e := h.env(t, nil)
	ttl := e.ttl()
	_, err := e.s.Update(e.ctx, "k", ttl, func([]byte, bool) ([]byte, error) { return []byte("v"), nil })
	e.must(err)
	e.wantValue("k", "v")
	e.pass(ttl + ttl/2)
	e.wantMissing("k")
}

// casOnly hides a backend's Updater, so that Update takes the
// compare-and-swap path.
type casOnly struct{ driver.Store }

func testUpdateConcurrent(viaCAS bool) func(t *testing.T, h Harness) {
	return func(t *testing.T, h Harness) {
		if viaCAS {
			open := h.Open
			h.Open = func(t *testing.T, now func() time.Time) driver.Store { return casOnly{open(t, now)} }
		}
		// The compare-and-swap path does more work per update under
		// contention (every loser retries), so it does fewer.
		e := h.env(t, nil)
		const workers = 24
		each := 10
		if viaCAS {
			each = 4
		}
		var wg sync.WaitGroup
		errs := make(chan error, workers*each)
		for range workers {
			wg.Go(func() {
				for range each {
					_, err := e.s.Update(e.ctx, "n", 0, func(cur []byte, found bool) ([]byte, error) {
						n := 0
						if found {
							var err error
							if n, err = strconv.Atoi(string(cur)); err != nil {
								return nil, err
							}
						}
						return []byte(strconv.Itoa(n + 1)), nil
					})
					if err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("Update: %v", err)
		}
		e.wantValue("n", strconv.Itoa(workers*each))
	}
}

func testCounters(t *testing.T, h Harness) {
	e := h.env(t, nil)
	for i, want := range []int64{1, 2, 3} {
		n, err := e.s.Incr(e.ctx, "usage/requests", 1, 0)
		e.must(err)
		if n != want {
			t.Fatalf("increment %d returned %d, want %d", i, n, want)
		}
	}
	n, err := e.s.Incr(e.ctx, "usage/requests", -5, 0)
	e.must(err)
	if n != -2 {
		t.Fatalf("negative delta: %d, want -2", n)
	}
	n, err = e.s.Incr(e.ctx, "usage/zero", 0, 0)
	e.must(err)
	if n != 0 {
		t.Fatalf("zero delta on a new counter: %d", n)
	}
	// Counters and values are separate spaces.
	e.wantMissing("usage/requests")
	e.must(e.s.Set(e.ctx, "usage/requests", []byte("value"), 0))
	n, err = e.s.Incr(e.ctx, "usage/requests", 2, 0)
	e.must(err)
	if n != 0 {
		t.Fatalf("a value write changed the counter: %d, want 0", n)
	}
	e.wantValue("usage/requests", "value")
	got, err := e.s.IncrMany(e.ctx, map[string]int64{"usage/requests": 10, "usage/results": 7, "usage/latency_ms": 1234}, 0)
	e.must(err)
	want := map[string]int64{"usage/requests": 10, "usage/results": 7, "usage/latency_ms": 1234}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("IncrMany = %v, want %v", got, want)
	}
	got, err = e.s.IncrMany(e.ctx, nil, 0)
	e.must(err)
	if len(got) != 0 {
		t.Fatalf("IncrMany(nil) = %v", got)
	}
}

func testIncrConcurrent(t *testing.T, h Harness) {
	e := h.env(t, nil)
	const workers, each = 24, 10
	var wg sync.WaitGroup
	errs := make(chan error, 2*workers*each)
	for range workers {
		wg.Go(func() {
			for range each {
				if _, err := e.s.Incr(e.ctx, "hits", 1, time.Hour); err != nil {
					errs <- err
				}
				if _, err := e.s.IncrMany(e.ctx, map[string]int64{"pair/a": 1, "pair/b": 2}, 0); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Incr: %v", err)
	}
	got, err := e.s.Counters(e.ctx, "")
	e.must(err)
	want := map[string]int64{"hits": workers * each, "pair/a": workers * each, "pair/b": 2 * workers * each}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("counters = %v, want %v", got, want)
	}
}

func testCounterTTL(t *testing.T, h Harness) {
	e := h.env(t, nil)
	ttl := e.ttl()
	_, err := e.s.Incr(e.ctx, "day", 5, ttl)
	e.must(err)
	e.pass(ttl / 2)
	// A later increment with a TTL does not push the expiry back.
	n, err := e.s.Incr(e.ctx, "day", 1, ttl)
	e.must(err)
	if n != 6 {
		t.Fatalf("Incr = %d, want 6", n)
	}
	_, err = e.s.Incr(e.ctx, "forever", 1, 0)
	e.must(err)
	e.pass(ttl/2 + ttl/4)
	got, err := e.s.Counters(e.ctx, "")
	e.must(err)
	if _, ok := got["day"]; ok || got["forever"] != 1 {
		t.Fatalf("after the TTL: %v, want only forever=1", got)
	}
	n, err = e.s.Incr(e.ctx, "day", 3, ttl)
	e.must(err)
	if n != 3 {
		t.Fatalf("an expired counter restarted at %d, want 3", n)
	}
	// A counter without expiry gets one from the first increment that
	// carries a TTL.
	_, err = e.s.Incr(e.ctx, "forever", 1, ttl)
	e.must(err)
	e.pass(ttl + ttl/2)
	got, err = e.s.Counters(e.ctx, "")
	e.must(err)
	if len(got) != 0 {
		t.Fatalf("after every TTL: %v, want none", got)
	}
}

func testCountersPrefix(t *testing.T, h Harness) {
	e := h.env(t, nil)
	_, err := e.s.IncrMany(e.ctx, map[string]int64{
		"usage/2026-03-01/tavily/requests": 3,
		"usage/2026-03-01/tavily/failures": 1,
		"usage/2026-03-01/exa/requests":    2,
		"usage/2026-03-02/tavily/requests": 9,
		"budget/tavily":                    100,
	}, 0)
	e.must(err)
	got, err := e.s.Counters(e.ctx, "usage/2026-03-01/tavily/")
	e.must(err)
	want := map[string]int64{"usage/2026-03-01/tavily/requests": 3, "usage/2026-03-01/tavily/failures": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Counters = %v, want %v", got, want)
	}
	got, err = e.s.Counters(e.ctx, "nothing/")
	e.must(err)
	if got == nil || len(got) != 0 {
		t.Fatalf("Counters of an empty prefix = %#v, want an empty map", got)
	}
}

func ids(recs []store.Record) []int64 {
	out := make([]int64, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

func datas(recs []store.Record) string {
	var parts []string
	for _, r := range recs {
		parts = append(parts, string(r.Data))
	}
	return strings.Join(parts, ",")
}

func testLogList(t *testing.T, h Harness) {
	e := h.env(t, nil)
	var recs []store.Record
	for i := range 6 {
		r, err := e.s.Append(e.ctx, "decisions", []byte(fmt.Sprintf("d%d", i)), store.Retention{})
		e.must(err)
		if len(recs) > 0 && r.ID <= recs[len(recs)-1].ID {
			t.Fatalf("record %d got ID %d after %d", i, r.ID, recs[len(recs)-1].ID)
		}
		if !r.Time.Equal(e.clock.Now().Truncate(time.Millisecond)) && !r.Time.Equal(e.clock.Now()) {
			t.Fatalf("record time %v, want the clock's %v", r.Time, e.clock.Now())
		}
		recs = append(recs, r)
		e.clock.Advance(time.Minute)
	}
	_, err := e.s.Append(e.ctx, "other", []byte("x"), store.Retention{})
	e.must(err)

	all, err := e.s.List(e.ctx, "decisions", store.ListQuery{})
	e.must(err)
	if got := datas(all); got != "d0,d1,d2,d3,d4,d5" {
		t.Fatalf("List = %s", got)
	}
	if fmt.Sprint(ids(all)) != fmt.Sprint(ids(recs)) {
		t.Fatalf("List IDs %v, Append returned %v", ids(all), ids(recs))
	}
	last, err := e.s.List(e.ctx, "decisions", store.ListQuery{Limit: 2})
	e.must(err)
	if got := datas(last); got != "d4,d5" {
		t.Fatalf("List(Limit 2) = %s, want the newest two, oldest first", got)
	}
	after, err := e.s.List(e.ctx, "decisions", store.ListQuery{After: recs[3].ID})
	e.must(err)
	if got := datas(after); got != "d4,d5" {
		t.Fatalf("List(After d3) = %s", got)
	}
	since, err := e.s.List(e.ctx, "decisions", store.ListQuery{Since: recs[2].Time})
	e.must(err)
	if got := datas(since); got != "d2,d3,d4,d5" {
		t.Fatalf("List(Since d2) = %s", got)
	}
	both, err := e.s.List(e.ctx, "decisions", store.ListQuery{Since: recs[1].Time, After: recs[0].ID, Limit: 3})
	e.must(err)
	if got := datas(both); got != "d3,d4,d5" {
		t.Fatalf("List(Since, After, Limit) = %s", got)
	}
	none, err := e.s.List(e.ctx, "no-such-log", store.ListQuery{})
	e.must(err)
	if len(none) != 0 {
		t.Fatalf("List of a missing log = %v", none)
	}
	empty, err := e.s.Append(e.ctx, "decisions", nil, store.Retention{})
	e.must(err)
	got, err := e.s.List(e.ctx, "decisions", store.ListQuery{After: recs[5].ID})
	e.must(err)
	if len(got) != 1 || got[0].ID != empty.ID || len(got[0].Data) != 0 {
		t.Fatalf("an empty record came back as %+v", got)
	}
}

func testLogRetentionCount(t *testing.T, h Harness) {
	e := h.env(t, nil)
	var last []int64
	for i := range 12 {
		r, err := e.s.Append(e.ctx, "log", []byte(strconv.Itoa(i)), store.Retention{MaxRecords: 5})
		e.must(err)
		last = append(last, r.ID)
	}
	got, err := e.s.List(e.ctx, "log", store.ListQuery{})
	e.must(err)
	if fmt.Sprint(ids(got)) != fmt.Sprint(last[7:]) || datas(got) != "7,8,9,10,11" {
		t.Fatalf("kept %v (%s), want the newest five %v", ids(got), datas(got), last[7:])
	}
}

func testLogRetentionAge(t *testing.T, h Harness) {
	e := h.env(t, nil)
	keep := store.Retention{MaxAge: time.Hour}
	for i := range 3 {
		_, err := e.s.Append(e.ctx, "log", []byte(fmt.Sprintf("old%d", i)), keep)
		e.must(err)
		e.clock.Advance(time.Minute)
	}
	e.clock.Advance(30 * time.Minute)
	_, err := e.s.Append(e.ctx, "log", []byte("mid"), keep)
	e.must(err)
	e.clock.Advance(40 * time.Minute) // old* are now 72 to 70 minutes old, mid 40
	_, err = e.s.Append(e.ctx, "log", []byte("new"), keep)
	e.must(err)
	got, err := e.s.List(e.ctx, "log", store.ListQuery{})
	e.must(err)
	if datas(got) != "mid,new" {
		t.Fatalf("kept %s, want mid,new", datas(got))
	}
}

func testLogIDs(t *testing.T, h Harness) {
	e := h.env(t, nil)
	var maxID int64
	for range 3 {
		r, err := e.s.Append(e.ctx, "log", []byte("x"), store.Retention{MaxRecords: 1})
		e.must(err)
		maxID = r.ID
	}
	_, err := e.s.Clear(e.ctx, "")
	e.must(err)
	r, err := e.s.Append(e.ctx, "log", []byte("y"), store.Retention{})
	e.must(err)
	if r.ID <= maxID {
		t.Fatalf("ID %d after Clear reuses one at or below %d", r.ID, maxID)
	}
}

func testFollow(t *testing.T, h Harness) {
	e := h.env(t, nil)
	first, err := e.s.Append(e.ctx, "log", []byte("before"), store.Retention{})
	e.must(err)
	ctx, cancel := context.WithCancel(e.ctx)
	got := make(chan string, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for r, err := range e.s.Follow(ctx, "log", first.ID, 5*time.Millisecond) {
			if err != nil {
				got <- "error: " + err.Error()
				continue
			}
			got <- string(r.Data)
		}
	}()
	for i := range 3 {
		_, err := e.s.Append(e.ctx, "log", []byte(fmt.Sprintf("r%d", i)), store.Retention{})
		e.must(err)
		time.Sleep(10 * time.Millisecond)
	}
	var seen []string
	timeout := time.After(5 * time.Second)
	for len(seen) < 3 {
		select {
		case s := <-got:
			seen = append(seen, s)
		case <-timeout:
			t.Fatalf("Follow delivered %v, want r0 r1 r2", seen)
		}
	}
	if strings.Join(seen, " ") != "r0 r1 r2" {
		t.Fatalf("Follow delivered %v, want r0 r1 r2", seen)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Follow did not end when its context was canceled")
	}
}

func testClear(t *testing.T, h Harness) {
	e := h.env(t, nil)
	for _, k := range []string{"cache/a", "cache/b", "cache/c", "cached", "health/tavily"} {
		e.must(e.s.Set(e.ctx, k, []byte("v"), 0))
	}
	_, err := e.s.IncrMany(e.ctx, map[string]int64{"cache/hits": 1, "usage/x": 1}, 0)
	e.must(err)
	_, err = e.s.Append(e.ctx, "cache/log", []byte("x"), store.Retention{})
	e.must(err)
	_, err = e.s.Append(e.ctx, "decisions", []byte("x"), store.Retention{})
	e.must(err)

	n, err := e.s.Clear(e.ctx, "cache/")
	e.must(err)
	if n != 5 {
		t.Fatalf("Clear(cache/) removed %d, want 5 (3 values, 1 counter, 1 log)", n)
	}
	for _, k := range []string{"cache/a", "cache/b", "cache/c"} {
		e.wantMissing(k)
	}
	e.wantValue("cached", "v")
	e.wantValue("health/tavily", "v")
	cs, err := e.s.Counters(e.ctx, "")
	e.must(err)
	if fmt.Sprint(cs) != "map[usage/x:1]" {
		t.Fatalf("counters after Clear: %v", cs)
	}
	if recs, err := e.s.List(e.ctx, "cache/log", store.ListQuery{}); err != nil || len(recs) != 0 {
		t.Fatalf("cleared log: %v, %v", recs, err)
	}
	if recs, err := e.s.List(e.ctx, "decisions", store.ListQuery{}); err != nil || len(recs) != 1 {
		t.Fatalf("other log: %v, %v", recs, err)
	}
	n, err = e.s.Clear(e.ctx, "")
	e.must(err)
	if n != 4 {
		t.Fatalf("Clear() removed %d, want 4 (2 values, 1 counter, 1 log)", n)
	}
	e.wantMissing("cached")
	n, err = e.s.Clear(e.ctx, "")
	e.must(err)
	if n != 0 {
		t.Fatalf("Clear of an empty store removed %d", n)
	}
}

func testClearGlob(t *testing.T, h Harness) {
	e := h.env(t, nil)
	for _, k := range []string{"a*b/1", "a*b/2", "axb/1", "a?c", "abc", "[x]1", "x1", `back\slash`, "back"} {
		e.must(e.s.Set(e.ctx, k, []byte("v"), 0))
	}
	for prefix, want := range map[string]int{"a*b/": 2, "a?": 1, "[x]": 1, `back\`: 1} {
		n, err := e.s.Clear(e.ctx, prefix)
		e.must(err)
		if n != want {
			t.Errorf("Clear(%q) removed %d, want %d", prefix, n, want)
		}
	}
	for _, k := range []string{"axb/1", "abc", "x1", "back"} {
		e.wantValue(k, "v")
	}
}

func testBound(t *testing.T, h Harness) {
	e := h.env(t, &store.Options{Bounds: []store.Bound{
		{Prefix: "cache/", MaxEntries: 5},
		{Prefix: "cache/big/", MaxEntries: 8},
		{Prefix: "ignored/", MaxEntries: 0},
	}})
	for i := range 12 {
		e.must(e.s.Set(e.ctx, fmt.Sprintf("cache/%02d", i), []byte("v"), 0))
		e.must(e.s.Set(e.ctx, fmt.Sprintf("other/%02d", i), []byte("v"), 0))
		e.must(e.s.Set(e.ctx, fmt.Sprintf("ignored/%02d", i), []byte("v"), 0))
	}
	for i := range 12 {
		_, ok := e.get(fmt.Sprintf("cache/%02d", i))
		if want := i >= 7; ok != want {
			t.Errorf("cache/%02d present=%v, want %v (the newest five stay)", i, ok, want)
		}
		e.wantValue(fmt.Sprintf("other/%02d", i), "v")
		e.wantValue(fmt.Sprintf("ignored/%02d", i), "v")
	}
	// Rewriting an old entry makes it the newest.
	e.must(e.s.Set(e.ctx, "cache/07", []byte("again"), 0))
	e.must(e.s.Set(e.ctx, "cache/12", []byte("v"), 0))
	e.wantValue("cache/07", "again")
	e.wantMissing("cache/08")
	// The longest prefix wins: cache/big/ keeps eight.
	for i := range 10 {
		e.must(e.s.Set(e.ctx, fmt.Sprintf("cache/big/%02d", i), []byte("v"), 0))
	}
	n := 0
	for i := range 10 {
		if _, ok := e.get(fmt.Sprintf("cache/big/%02d", i)); ok {
			n++
		}
	}
	if n != 8 {
		t.Fatalf("cache/big/ holds %d values, want 8", n)
	}
}

func testBoundUpdate(t *testing.T, h Harness) {
	e := h.env(t, &store.Options{Bounds: []store.Bound{{Prefix: "s/", MaxEntries: 3}}})
	for i := range 6 {
		_, err := e.s.Update(e.ctx, fmt.Sprintf("s/%d", i), 0, func([]byte, bool) ([]byte, error) { return []byte("v"), nil })
		e.must(err)
		if i%2 == 0 {
			_, err := e.s.CompareAndSwap(e.ctx, fmt.Sprintf("s/x%d", i), 0, []byte("v"), 0)
			e.must(err)
		}
	}
	n := 0
	for _, k := range []string{"s/0", "s/1", "s/2", "s/3", "s/4", "s/5", "s/x0", "s/x2", "s/x4"} {
		if _, ok := e.get(k); ok {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("s/ holds %d values, want 3", n)
	}
	e.wantValue("s/5", "v")
	e.wantValue("s/x4", "v")
}

func testTooLarge(t *testing.T, h Harness) {
	e := h.env(t, &store.Options{MaxValueBytes: 1024})
	big := make([]byte, 1025)
	if err := e.s.Set(e.ctx, "k", big, 0); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("Set of an oversized value: %v, want ErrInvalid", err)
	}
	if _, err := e.s.CompareAndSwap(e.ctx, "k", 0, big, 0); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("CompareAndSwap of an oversized value: %v, want ErrInvalid", err)
	}
	if _, err := e.s.Update(e.ctx, "k", 0, func([]byte, bool) ([]byte, error) { return big, nil }); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("Update to an oversized value: %v, want ErrInvalid", err)
	}
	if _, err := e.s.Append(e.ctx, "log", big, store.Retention{}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("Append of an oversized record: %v, want ErrInvalid", err)
	}
	e.wantMissing("k")
	e.must(e.s.Set(e.ctx, "k", big[:1024], 0))
}

func testBadKeys(t *testing.T, h Harness) {
	e := h.env(t, nil)
	for _, k := range []string{"", "nul\x00", "new\nline", "tab\t", "bad\xffutf8", "del\x7f", strings.Repeat("k", store.MaxKeyBytes+1)} {
		checks := map[string]error{
			"Get":    func() error { _, err := e.s.Get(e.ctx, k); return err }(),
			"Set":    e.s.Set(e.ctx, k, []byte("v"), 0),
			"Delete": e.s.Delete(e.ctx, k),
			"Update": func() error {
				_, err := e.s.Update(e.ctx, k, 0, func([]byte, bool) ([]byte, error) { return nil, nil })
				return err
			}(),
			"Incr":   func() error { _, err := e.s.Incr(e.ctx, k, 1, 0); return err }(),
			"Append": func() error { _, err := e.s.Append(e.ctx, k, nil, store.Retention{}); return err }(),
			"List":   func() error { _, err := e.s.List(e.ctx, k, store.ListQuery{}); return err }(),
		}
		if k != "" {
			checks["Clear"] = func() error { _, err := e.s.Clear(e.ctx, k); return err }()
			checks["Counters"] = func() error { _, err := e.s.Counters(e.ctx, k); return err }()
		}
		for op, err := range checks {
			if !errors.Is(err, store.ErrInvalid) {
				t.Errorf("%s(%q): %v, want ErrInvalid", op, k, err)
			}
		}
	}
	if _, err := e.s.Update(e.ctx, "k", 0, nil); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("Update with a nil function: %v, want ErrInvalid", err)
	}
}

// ops returns one call of every operation, for the context and closed
// cases.
func ops(s *store.Store) map[string]func(ctx context.Context) error {
	return map[string]func(ctx context.Context) error{
		"Get":            func(ctx context.Context) error { _, err := s.Get(ctx, "k"); return err },
		"Set":            func(ctx context.Context) error { return s.Set(ctx, "k", []byte("v"), 0) },
		"CompareAndSwap": func(ctx context.Context) error { _, err := s.CompareAndSwap(ctx, "k", 0, []byte("v"), 0); return err },
		"Delete":         func(ctx context.Context) error { return s.Delete(ctx, "k") },
		"Update": func(ctx context.Context) error {
			_, err := s.Update(ctx, "k", 0, func([]byte, bool) ([]byte, error) { return []byte("v"), nil })
			return err
		},
		"Incr":     func(ctx context.Context) error { _, err := s.Incr(ctx, "c", 1, 0); return err },
		"IncrMany": func(ctx context.Context) error { _, err := s.IncrMany(ctx, map[string]int64{"c": 1}, 0); return err },
		"Counters": func(ctx context.Context) error { _, err := s.Counters(ctx, ""); return err },
		"Append": func(ctx context.Context) error {
			_, err := s.Append(ctx, "log", []byte("r"), store.Retention{})
			return err
		},
		"List":  func(ctx context.Context) error { _, err := s.List(ctx, "log", store.ListQuery{}); return err },
		"Clear": func(ctx context.Context) error { _, err := s.Clear(ctx, "x/"); return err },
	}
}

func (e *env) wantUntouched() {
	e.t.Helper()
	e.wantMissing("k")
	cs, err := e.s.Counters(e.ctx, "")
	e.must(err)
	recs, err := e.s.List(e.ctx, "log", store.ListQuery{})
	e.must(err)
	if len(cs) != 0 || len(recs) != 0 {
		e.t.Fatalf("a failed call wrote: counters %v, log %v", cs, recs)
	}
}

func testCanceled(t *testing.T, h Harness) {
	testDone(t, h, "with a canceled context", "context.Canceled",
		func(parent context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(parent)
			cancel()
			return ctx, cancel
		},
		func(err error) bool { return errors.Is(err, context.Canceled) && store.Failed(err) })
}

func testDeadline(t *testing.T, h Harness) {
	testDone(t, h, "past its deadline", "ErrTimeout",
		func(parent context.Context) (context.Context, context.CancelFunc) {
			return context.WithDeadline(parent, time.Now().Add(-time.Second))
		},
		func(err error) bool {
			return errors.Is(err, store.ErrTimeout) && errors.Is(err, context.DeadlineExceeded)
		})
}

// testDone checks that every operation fails at once, as ok accepts (want
// names it), under a context that done makes and that is already done, and
// leaves the store untouched.
func testDone(t *testing.T, h Harness, what, want string, done func(context.Context) (context.Context, context.CancelFunc), ok func(error) bool) {
	e := h.env(t, nil)
	ctx, cancel := done(e.ctx)
	defer cancel()
	for op, f := range ops(e.s) {
		start := time.Now()
		if err := f(ctx); !ok(err) {
			t.Errorf("%s %s: %v, want %s", op, what, err, want)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("%s %s took %v", op, what, d)
		}
	}
	e.wantUntouched()
}

func testClosed(t *testing.T, h Harness) {
	e := h.env(t, nil)
	e.must(e.s.Set(e.ctx, "k", []byte("v"), 0))
	e.must(e.s.Close())
	e.must(e.s.Close())
	for op, f := range ops(e.s) {
		if err := f(e.ctx); !errors.Is(err, store.ErrClosed) {
			t.Errorf("%s on a closed store: %v, want ErrClosed", op, err)
		}
	}
	// The backend itself, called directly after its Close.
	d := e.d
	ctx := e.ctx
	direct := map[string]error{
		"Get": func() error { _, err := d.Get(ctx, "k"); return err }(),
		"Put": func() error {
			_, err := d.Put(ctx, "k", []byte("v"), driver.AnyVersion, driver.WriteOptions{})
			return err
		}(),
		"Delete":   d.Delete(ctx, "k"),
		"Incr":     func() error { _, err := d.Incr(ctx, []driver.Delta{{Name: "c", N: 1}}, 0); return err }(),
		"Counters": func() error { _, err := d.Counters(ctx, ""); return err }(),
		"Append":   func() error { _, err := d.Append(ctx, "log", []byte("r"), driver.Retention{}); return err }(),
		"List":     func() error { _, err := d.List(ctx, "log", driver.ListQuery{}); return err }(),
		"Clear":    func() error { _, err := d.Clear(ctx, ""); return err }(),
	}
	if u, ok := d.(driver.Updater); ok {
		_, err := u.Update(ctx, "k", driver.WriteOptions{}, func([]byte, bool) ([]byte, error) { return []byte("v"), nil })
		direct["Update"] = err
	}
	for op, err := range direct {
		if !errors.Is(err, driver.ErrClosed) {
			t.Errorf("backend %s after Close: %v, want ErrClosed", op, err)
		}
	}
	if err := d.Close(); err != nil {
		t.Errorf("closing the backend twice: %v", err)
	}
}

func testMixed(t *testing.T, h Harness) {
	e := h.env(t, &store.Options{Bounds: []store.Bound{{Prefix: "cache/", MaxEntries: 10}}})
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for w := range 8 {
		wg.Go(func() {
			for i := range 15 {
				key := fmt.Sprintf("cache/%d", (w+i)%13)
				var err error
				switch i % 6 {
				case 0:
					err = e.s.Set(e.ctx, key, []byte("v"), time.Hour)
				case 1:
					_, err = e.s.Get(e.ctx, key)
					if errors.Is(err, store.ErrNotFound) {
						err = nil
					}
				case 2:
					err = e.s.Delete(e.ctx, key)
				case 3:
					_, err = e.s.Incr(e.ctx, "mixed", 1, 0)
				case 4:
					_, err = e.s.Append(e.ctx, "mixed", []byte(key), store.Retention{MaxRecords: 20})
				case 5:
					_, err = e.s.List(e.ctx, "mixed", store.ListQuery{Limit: 5})
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
