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
	"github.com/webgate-dev/webgate/store/storeurl"
	"github.com/webgate-dev/webgate/webpage/browser"
)

// drainWait bounds how long a warm worker waits for the calls under way:
// when it exits, and before it closes a store it no longer hands out.
const drainWait = gate.DefaultSearchBudget + 5*time.Second

// warmKept is what a warm worker keeps between calls: the
// configurations (and the routers built from them), the stores, and the
// local browser.
type warmKept struct {
	configs  *ConfigCache
	stores   *storePool
	browsers *browser.Pool
}

func newWarmKept() *warmKept {
	return &warmKept{configs: NewConfigCache(nil), stores: newStorePool(), browsers: browser.NewPool(browser.DefaultPoolIdle)}
}

// close closes the stores and kills the browsers.
func (k *warmKept) close() {
	k.stores.close()
	k.browsers.Close()
}

// storePool keeps the stores a warm worker's calls open, so that a call
// does not pay for opening one: a SQLite file or a Redis server per store
// URL and settings. A SQLite file removed or replaced by another file
// (moved over it, or removed and created anew) is opened anew; the store
// of the old file is closed once the calls that may still use it are
// over.
type storePool struct {
	mu     sync.Mutex
	stores map[string]*pooledStore
}

type pooledStore struct {
	st   *store.Store
	path string   // the SQLite file, or "" for Redis
	file *os.File // the file path named when the store was opened
}

// current reports whether path still names the file the store has open,
// and that file is not removed.
func (e *pooledStore) current() bool {
	held, err := e.file.Stat()
	if err != nil || !linked(held) {
		return false
	}
	fi, err := os.Stat(e.path)
	return err == nil && os.SameFile(fi, held)
}

func newStorePool() *storePool { return &storePool{stores: map[string]*pooledStore{}} }

// open returns the store for url and opts, opened now or kept from an
// earlier call, and whether it is kept (and so must not be closed by the
// caller). Stores in memory are not kept: each call has its own, as each
// hook process has.
func (p *storePool) open(ctx context.Context, url string, opts *store.Options) (st *store.Store, kept bool, err error) {
	kind, target, err := store.ParseURL(url, opts.DefaultPath)
	if err != nil || (kind != "sqlite" && !strings.HasPrefix(kind, "redis")) {
		st, err := storeurl.Open(ctx, url, opts)
		return st, false, err
	}
	key := fmt.Sprintf("%s\x00%s\x00%v\x00%v\x00%v", url, opts.DefaultPath, opts.Timeout, opts.OpenTimeout, opts.Bounds)
	p.mu.Lock()
	e := p.stores[key]
	p.mu.Unlock()
	if e != nil {
		if e.path == "" {
			return e.st, true, nil
		}
		if e.current() {
			return e.st, true, nil
		}
	}
	st, err = storeurl.Open(ctx, url, opts)
	if err != nil {
		return nil, false, err
	}
	n := &pooledStore{st: st}
	if kind == "sqlite" {
		f, err := os.Open(target)
		if err != nil {
			return st, false, nil // not kept: the caller closes it
		}
		n.path, n.file = target, f
	}
	p.mu.Lock()
	old := p.stores[key]
	p.stores[key] = n
	p.mu.Unlock()
	if old != nil {
		// Calls under way may still use it; none outlasts its budget.
		time.AfterFunc(drainWait, old.close)
	}
	return st, true, nil
}

// close closes every store kept.
func (p *storePool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, e := range p.stores {
		e.close()
		delete(p.stores, k)
	}
}

func (e *pooledStore) close() {
	e.st.Close()
	if e.file != nil {
		e.file.Close()
	}
}
