// Package memstore is a store backend that keeps everything in the
// process's memory: for tests, and for embedders that want webgate's
// memory for the life of one process. Nothing survives the process, and
// nothing is shared with other processes.
//
// Use it through package store: store.New(memstore.New(nil), nil), or the
// URL "memory:" with storeurl.Open.
package memstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/store/driver"
)

// Config configures a [Store]. The zero value is valid.
type Config struct {
	// Now is the clock for expiry and log timestamps; nil means
	// time.Now. Tests inject a fake clock.
	Now func() time.Time `koanf:"-"`
}

// Store is the in-memory backend. It is safe for concurrent use.
type Store struct {
	now func() time.Time

	mu     sync.Mutex
	closed bool
	ver    int64
	vals   map[string]*item
	ctrs   map[string]*counter
	logs   map[string][]driver.Record
	seq    int64
}

type item struct {
	value []byte
	ver   int64
	exp   time.Time
}

type counter struct {
	n   int64
	exp time.Time
}

var (
	_ driver.Store   = (*Store)(nil)
	_ driver.Updater = (*Store)(nil)
	_ driver.Namer   = (*Store)(nil)
)

// New returns an empty store. A nil cfg means the defaults.
func New(cfg *Config) *Store {
	s := &Store{
		now:  time.Now,
		vals: map[string]*item{},
		ctrs: map[string]*counter{},
		logs: map[string][]driver.Record{},
	}
	if cfg != nil && cfg.Now != nil {
		s.now = cfg.Now
	}
	return s
}

// Name returns "memory".
func (s *Store) Name() string { return "memory" }

// lock takes the store's lock after checking ctx and that the store is
// open; the caller unlocks.
func (s *Store) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return driver.ErrClosed
	}
	return nil
}

func live(exp, now time.Time) bool { return exp.IsZero() || now.Before(exp) }

func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}

// Get implements [driver.Store].
func (s *Store) Get(ctx context.Context, key string) (driver.Entry, error) {
	if err := s.lock(ctx); err != nil {
		return driver.Entry{}, err
	}
	defer s.mu.Unlock()
	it, ok := s.vals[key]
	if !ok || !live(it.exp, s.now()) {
		return driver.Entry{}, driver.ErrNotFound
	}
	return driver.Entry{Value: slices.Clone(it.value), Version: it.ver, Expires: it.exp}, nil
}

// Put implements [driver.Store].
func (s *Store) Put(ctx context.Context, key string, value []byte, ifVersion int64, opts driver.WriteOptions) (int64, error) {
	if err := s.lock(ctx); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	now := s.now()
	if ifVersion != driver.AnyVersion {
		var have int64
		if it, ok := s.vals[key]; ok && live(it.exp, now) {
			have = it.ver
		}
		if have != ifVersion {
			return 0, driver.ErrConflict
		}
	}
	return s.write(key, value, opts, now).ver, nil
}

// write stores value at key and enforces opts.Bound; s.mu is held.
func (s *Store) write(key string, value []byte, opts driver.WriteOptions, now time.Time) *item {
	s.ver++
	it := &item{value: slices.Clone(value), ver: s.ver, exp: expiry(now, opts.TTL)}
	if it.value == nil {
		it.value = []byte{}
	}
	s.vals[key] = it
	if b := opts.Bound; b != nil && b.MaxEntries > 0 {
		s.trim(b, now)
	}
	return it
}

// trim enforces b: expired values first, then the oldest writes.
func (s *Store) trim(b *driver.Bound, now time.Time) {
	type kv struct {
		key string
		ver int64
	}
	var in []kv
	for k, it := range s.vals {
		if !strings.HasPrefix(k, b.Prefix) {
			continue
		}
		if !live(it.exp, now) {
			delete(s.vals, k)
			continue
		}
		in = append(in, kv{k, it.ver})
	}
	if len(in) <= b.MaxEntries {
		return
	}
	slices.SortFunc(in, func(a, b kv) int { return cmp.Compare(a.ver, b.ver) })
	for _, e := range in[:len(in)-b.MaxEntries] {
		delete(s.vals, e.key)
	}
}

// Update implements [driver.Updater]: fn runs under the store's lock.
func (s *Store) Update(ctx context.Context, key string, opts driver.WriteOptions, fn driver.UpdateFunc) (driver.Entry, error) {
	if err := s.lock(ctx); err != nil {
		return driver.Entry{}, err
	}
	defer s.mu.Unlock()
	now := s.now()
	var cur []byte
	found := false
	if it, ok := s.vals[key]; ok && live(it.exp, now) {
		cur, found = slices.Clone(it.value), true
	}
	next, err := fn(cur, found)
	if err != nil {
		return driver.Entry{}, err
	}
	it := s.write(key, next, opts, now)
	return driver.Entry{Value: slices.Clone(it.value), Version: it.ver, Expires: it.exp}, nil
}

// Delete implements [driver.Store].
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	delete(s.vals, key)
	return nil
}

// Incr implements [driver.Store].
func (s *Store) Incr(ctx context.Context, deltas []driver.Delta, ttl time.Duration) ([]int64, error) {
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	now := s.now()
	out := make([]int64, len(deltas))
	for i, d := range deltas {
		c, ok := s.ctrs[d.Name]
		if !ok || !live(c.exp, now) {
			c = &counter{}
			s.ctrs[d.Name] = c
		}
		c.n += d.N
		if c.exp.IsZero() {
			c.exp = expiry(now, ttl)
		}
		out[i] = c.n
	}
	return out, nil
}

// Counters implements [driver.Store].
func (s *Store) Counters(ctx context.Context, prefix string) (map[string]int64, error) {
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	now := s.now()
	out := map[string]int64{}
	for k, c := range s.ctrs {
		if strings.HasPrefix(k, prefix) && live(c.exp, now) {
			out[k] = c.n
		}
	}
	return out, nil
}

// Append implements [driver.Store].
func (s *Store) Append(ctx context.Context, log string, data []byte, keep driver.Retention) (driver.Record, error) {
	if err := s.lock(ctx); err != nil {
		return driver.Record{}, err
	}
	defer s.mu.Unlock()
	now := s.now()
	s.seq++
	r := driver.Record{ID: s.seq, Time: now, Data: slices.Clone(data)}
	recs := append(s.logs[log], r)
	if keep.MaxAge > 0 {
		cut := now.Add(-keep.MaxAge)
		i := 0
		for i < len(recs) && recs[i].Time.Before(cut) {
			i++
		}
		recs = recs[i:]
	}
	if keep.MaxRecords > 0 && len(recs) > keep.MaxRecords {
		recs = recs[len(recs)-keep.MaxRecords:]
	}
	s.logs[log] = recs
	r.Data = slices.Clone(r.Data)
	return r, nil
}

// List implements [driver.Store].
func (s *Store) List(ctx context.Context, log string, q driver.ListQuery) ([]driver.Record, error) {
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []driver.Record
	for _, r := range s.logs[log] {
		if r.ID > q.After && !r.Time.Before(q.Since) {
			out = append(out, r)
		}
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[len(out)-q.Limit:]
	}
	// out is a slice of its own; the records' data are the store's.
	for i := range out {
		out[i].Data = slices.Clone(out[i].Data)
	}
	return out, nil
}

// Clear implements [driver.Store].
func (s *Store) Clear(ctx context.Context, prefix string) (int, error) {
	if err := s.lock(ctx); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	now := s.now()
	n := 0
	for k, it := range s.vals {
		if strings.HasPrefix(k, prefix) {
			if live(it.exp, now) {
				n++
			}
			delete(s.vals, k)
		}
	}
	for k, c := range s.ctrs {
		if strings.HasPrefix(k, prefix) {
			if live(c.exp, now) {
				n++
			}
			delete(s.ctrs, k)
		}
	}
	for k, recs := range s.logs {
		if strings.HasPrefix(k, prefix) {
			if len(recs) > 0 {
				n++
			}
			delete(s.logs, k)
		}
	}
	return n, nil
}

// Close implements [driver.Store]; it drops everything.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.vals, s.ctrs, s.logs = nil, nil, nil
	return nil
}
