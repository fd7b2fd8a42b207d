package gateway

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultAfterQueue is how many calls' settlements and audit entries may
// wait to be written after their answers, unless [Options].AfterQueue
// says otherwise.
const DefaultAfterQueue = 4096

// maxAfterBatch is the most calls written in one batch.
const maxAfterBatch = 256

// afterLinger is how long the writer waits for more calls once one is
// queued, so that a batch holds the calls of a few milliseconds, not one:
// a batch costs the same four store round trips (the settlements'
// increment, the chain's head read and moved, the entries' record)
// whatever its size.
const afterLinger = 5 * time.Millisecond

// afterWork is what a call leaves to write once it has been answered:
// its reservation to settle and its audit entry.
type afterWork struct {
	res   *Reservation // nil: nothing to settle
	used  int64
	entry *AuditEntry // nil: no audit log
	// hit names the cache-hit counter to count the call in; "" for none.
	hit string
}

// after writes, off the request path, what calls leave behind: one
// goroutine takes the queued calls in batches (what comes within
// afterLinger of the first, up to maxAfterBatch), settles their
// reservations with one increment of the counters and appends their
// audit entries with one move of the chain's head. A full queue, or a
// closed one, makes the caller write its own work before it answers, so
// nothing is dropped and the queue stays bounded.
type after struct {
	s       *Server
	mu      sync.RWMutex
	closed  bool
	ch      chan afterWork
	pending atomic.Int64
	done    chan struct{}
}

func newAfter(s *Server, size int) *after {
	a := &after{s: s, ch: make(chan afterWork, size), done: make(chan struct{})}
	go a.run()
	return a
}

// add queues w, or writes it at once when the queue is full or closed.
func (a *after) add(w afterWork) {
	if w.res == nil && w.entry == nil && w.hit == "" && a.s.o.AfterWrites == nil {
		return
	}
	a.mu.RLock()
	if !a.closed {
		a.pending.Add(1)
		select {
		case a.ch <- w:
			a.mu.RUnlock()
			return
		default:
			a.pending.Add(-1)
		}
	}
	a.mu.RUnlock()
	a.s.metrics.add("webgate_gateway_after_inline_total", "Calls whose settlement and audit entry were written before the answer (queue full or closed).", series{}, 1)
	a.write([]afterWork{w})
}

func (a *after) run() {
	defer close(a.done)
	linger := time.NewTimer(afterLinger)
	linger.Stop()
	for w := range a.ch {
		batch := []afterWork{w}
		linger.Reset(afterLinger)
	more:
		for len(batch) < maxAfterBatch {
			select {
			case w, ok := <-a.ch:
				if !ok {
					break more // closed: write what is here
				}
				batch = append(batch, w)
			case <-linger.C:
				break more
			}
		}
		linger.Stop()
		a.write(batch)
		a.pending.Add(-int64(len(batch)))
	}
}

// write settles the batch's reservations, records its audit entries and
// writes what the tools left ([Options].AfterWrites).
func (a *after) write(batch []afterWork) {
	ctx := context.Background()
	deltas := map[string]int64{}
	var entries []AuditEntry
	for _, w := range batch {
		for k, v := range w.res.settleDeltas(w.used) {
			deltas[k] += v
		}
		if w.hit != "" {
			deltas[w.hit]++
		}
		if w.entry != nil {
			entries = append(entries, *w.entry)
		}
	}
	if l := a.s.o.Limiter; l != nil && len(deltas) > 0 {
		if _, err := l.Store.IncrMany(ctx, deltas, budgetTTL); err != nil {
			a.s.metrics.add("webgate_gateway_store_errors_total", "Store failures seen by the gateway.", series{}, 1)
			a.s.logError("settle", err)
		}
	}
	if len(entries) > 0 && a.s.o.Audit != nil {
		if _, err := a.s.o.Audit.RecordBatch(ctx, entries); err != nil {
			a.s.metrics.add("webgate_gateway_audit_errors_total", "Audit entries that could not be written.", series{}, float64(len(entries)))
			a.s.logError("audit", err)
		}
	}
	if f := a.s.o.AfterWrites; f != nil {
		if err := f(ctx); err != nil {
			a.s.metrics.add("webgate_gateway_store_errors_total", "Store failures seen by the gateway.", series{}, 1)
			a.s.logError("tools' writes", err)
		}
	}
}

// flush waits until every call queued so far is written, or ctx is done.
func (a *after) flush(ctx context.Context) error {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for a.pending.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// close stops queueing (later calls write their own work) and waits
// until what was queued is written, or ctx is done.
func (a *after) close(ctx context.Context) error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.ch)
	}
	a.mu.Unlock()
	select {
	case <-a.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Flush waits until the settlements and audit entries of every call
// answered so far are written to the store, or ctx is done.
func (s *Server) Flush(ctx context.Context) error { return s.after.flush(ctx) }

// Close writes what the calls answered so far left to write (their
// settlements and audit entries) and returns when it is written or ctx
// is done. Call it after http.Server.Shutdown; a call served after Close
// writes its own before it answers.
func (s *Server) Close(ctx context.Context) error { return s.after.close(ctx) }

func (s *Server) logError(what string, err error) {
	if s.o.Logger != nil {
		s.o.Logger.Error(what, slog.String("error", err.Error()))
	}
}
