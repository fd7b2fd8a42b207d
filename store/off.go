package store

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/webgate-dev/webgate/store/driver"
)

// off is the backend of the URL "off": it remembers nothing. Reads find
// nothing, writes are accepted and dropped, counters return the delta
// alone, and logs have no records. Callers need no special case for a
// disabled store: they behave as on the first call of a fresh one.
type off struct {
	seq    atomic.Int64
	closed atomic.Bool
}

var (
	_ driver.Store = (*off)(nil)
	_ driver.Namer = (*off)(nil)
)

func (o *off) Name() string { return "off" }

func (o *off) check(ctx context.Context) error {
	if o.closed.Load() {
		return driver.ErrClosed
	}
	return ctx.Err()
}

func (o *off) Get(ctx context.Context, key string) (Entry, error) {
	if err := o.check(ctx); err != nil {
		return Entry{}, err
	}
	return Entry{}, driver.ErrNotFound
}

func (o *off) Put(ctx context.Context, key string, value []byte, ifVersion int64, opts driver.WriteOptions) (int64, error) {
	if err := o.check(ctx); err != nil {
		return 0, err
	}
	if ifVersion > 0 {
		return 0, driver.ErrConflict
	}
	return o.seq.Add(1), nil
}

func (o *off) Delete(ctx context.Context, key string) error { return o.check(ctx) }

func (o *off) Incr(ctx context.Context, deltas []driver.Delta, ttl time.Duration) ([]int64, error) {
	if err := o.check(ctx); err != nil {
		return nil, err
	}
	out := make([]int64, len(deltas))
	for i, d := range deltas {
		out[i] = d.N
	}
	return out, nil
}

func (o *off) Counters(ctx context.Context, prefix string) (map[string]int64, error) {
	return map[string]int64{}, o.check(ctx)
}

func (o *off) Append(ctx context.Context, log string, data []byte, keep Retention) (Record, error) {
	if err := o.check(ctx); err != nil {
		return Record{}, err
	}
	return Record{ID: o.seq.Add(1), Time: time.Now(), Data: append([]byte{}, data...)}, nil
}

func (o *off) List(ctx context.Context, log string, q ListQuery) ([]Record, error) {
	return nil, o.check(ctx)
}

func (o *off) Clear(ctx context.Context, prefix string) (int, error) { return 0, o.check(ctx) }

func (o *off) Close() error {
	o.closed.Store(true)
	return nil
}
