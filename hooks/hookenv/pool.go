package hookenv

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/store"
)

// drainWait bounds how long a warm worker waits for the calls under way:
// when it exits, and before it closes a store it no longer hands out.
const drainWait = gate.DefaultSearchBudget + 5*time.Second

// storePool keeps the stores a warm worker's calls open, so that a call
// does not pay for opening one: a SQLite file or a Redis server per store
// URL and settings. A SQLite file replaced on disk (removed, restored
// from a backup) is opened anew; the store of the old file is closed once
// the calls that may still use it are over.
type storePool struct {
	mu     sync.Mutex
	stores map[string]*pooledStore
}

type pooledStore struct {
	st   *store.Store
	path string      // the SQLite file, or "" for Redis
	file os.FileInfo // what path was when opened
}

func newStorePool() *storePool { return &storePool{stores: map[string]*pooledStore{}} }

// open returns the store for url and opts, opened now or kept from an
// earlier call, and whether it is kept (and so must not be closed by the
// caller). Stores in memory are not kept: each call has its own, as each
// hook process has.
func (p *storePool) open(ctx context.Context, url string, opts *store.Options) (st *store.Store, kept bool, err error) {
	kind, target, err := store.ParseURL(url, opts.DefaultPath)
	if err != nil || (kind != "sqlite" && !strings.HasPrefix(kind, "redis")) {
		st, err := store.Open(ctx, url, opts)
		return st, false, err
	}
	key := fmt.Sprintf("%s\x00%s\x00%v\x00%v", url, opts.DefaultPath, opts.Timeout, opts.Bounds)
	p.mu.Lock()
	e := p.stores[key]
	p.mu.Unlock()
	if e != nil {
		if e.path == "" {
			return e.st, true, nil
		}
		if fi, err := os.Stat(e.path); err == nil && os.SameFile(fi, e.file) {
			return e.st, true, nil
		}
	}
	st, err = store.Open(ctx, url, opts)
	if err != nil {
		return nil, false, err
	}
	n := &pooledStore{st: st}
	if kind == "sqlite" {
		fi, err := os.Stat(target)
		if err != nil {
			return st, false, nil // not kept: the caller closes it
		}
		n.path, n.file = target, fi
	}
	p.mu.Lock()
	old := p.stores[key]
	p.stores[key] = n
	p.mu.Unlock()
	if old != nil {
		// Calls under way may still use it; none outlasts its budget.
		time.AfterFunc(drainWait, func() { old.st.Close() })
	}
	return st, true, nil
}

// close closes every store kept.
func (p *storePool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, e := range p.stores {
		e.st.Close()
		delete(p.stores, k)
	}
}
