package memory_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/driver"
	"github.com/webgate-dev/webgate/store/memstore"
)

// flakyDriver is a memory backend whose reads and writes fail as a busy
// store's do while down is set.
type flakyDriver struct {
	driver.Store
	down  atomic.Bool
	calls atomic.Int32
}

func (f *flakyDriver) fail() error {
	f.calls.Add(1)
	if f.down.Load() {
		return driver.Wrap(driver.ErrBusy, errors.New("the write lock stayed taken"))
	}
	return nil
}

func (f *flakyDriver) Get(ctx context.Context, key string) (driver.Entry, error) {
	if err := f.fail(); err != nil {
		return driver.Entry{}, err
	}
	return f.Store.Get(ctx, key)
}

func (f *flakyDriver) Put(ctx context.Context, key string, value []byte, ifVersion int64, opts driver.WriteOptions) (int64, error) {
	if err := f.fail(); err != nil {
		return 0, err
	}
	return f.Store.Put(ctx, key, value, ifVersion, opts)
}

func TestFailOpen_ALongLivedMemoryComesBackToTheStoreAfterStoreRetry(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	d := &flakyDriver{Store: memstore.New(&memstore.Config{Now: c.now})}
	st := store.New(d, nil)
	defer st.Close()
	m := memory.New(&memory.Options{Store: st, Now: c.now})
	rs := m.RouteState(time.Hour)
	call := routing.Call{Query: "kubectl drain"}

	d.down.Store(true)
	if err := rs.Remember("s", call); err == nil {
		t.Fatal("Remember succeeded on a busy store")
	}
	first := m.Problem()
	if first == nil || !errors.Is(first, store.ErrBusy) {
		t.Fatalf("Problem() = %v, want the busy failure", first)
	}
	d.down.Store(false)

	// Within StoreRetry the store is left alone: no call reaches it.
	c.add(memory.StoreRetry - time.Second)
	before := d.calls.Load()
	if err := rs.Remember("s", call); err == nil {
		t.Error("the store was used again within StoreRetry")
	}
	if d.calls.Load() != before {
		t.Errorf("%d calls reached the store within StoreRetry", d.calls.Load()-before)
	}

	// After it, the store is used again, and Problem still names the
	// first failure.
	c.add(time.Second)
	if err := rs.Remember("s", call); err != nil {
		t.Fatalf("after StoreRetry: %v", err)
	}
	if ok, err := rs.Remembered("s", call); !ok || err != nil {
		t.Errorf("Remembered = %v, %v", ok, err)
	}
	if m.Problem() != first {
		t.Errorf("Problem() = %v, want the first failure %v", m.Problem(), first)
	}
}
