package hookenv

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
	"github.com/webgate-dev/webgate/webpage/browser"
)

// session is one hook call's use of the memory: the store opened for the
// call, the providers' outcomes observed, and what the call decided.
type session struct {
	mem      *memory.Memory
	kept     *warmKept // what the warm worker keeps between calls, or nil
	pooled   bool      // the store is the pool's: not closed after the call
	cfg      *config.Config
	problem  string
	skipped  memory.SkipReason // why the call went on without the store
	mu       sync.Mutex
	outcomes []memory.Outcome
}

// openMemory opens the configured store within store.open_timeout (the
// hook goes on without it when it cannot), and never past ctx's deadline;
// from the stores a warm worker keeps, when kept is not nil. The memory
// keeps the writes that can wait until the call is answered (see
// [session.finish]).
func openMemory(ctx context.Context, cfg *config.Config, kept *warmKept) *session {
	s := &session{kept: kept, cfg: cfg}
	if cfg.StoreOff() {
		return s
	}
	m, pooled, err := openStore(ctx, cfg, kept)
	s.pooled = pooled
	if err != nil {
		s.problem = "the store is not usable, going on without it: " + oneLine(err.Error())
		s.skipped = memory.OpenSkipReason(err)
		return s
	}
	m.DeferWrites()
	s.mem = m
	return s
}

// openStore opens the memory within store.open_timeout and ctx's
// deadline, from the stores a warm worker keeps when kept is not nil, and
// says whether the store is the pool's (not closed after the call).
func openStore(ctx context.Context, cfg *config.Config, kept *warmKept) (m *memory.Memory, pooled bool, err error) {
	octx, cancel := context.WithTimeout(ctx, cfg.Store.OpenTimeout)
	defer cancel()
	open := storeurl.Open
	if kept != nil && kept.stores != nil {
		open = func(ctx context.Context, url string, opts *store.Options) (*store.Store, error) {
			st, p, err := kept.stores.open(ctx, url, opts)
			pooled = p
			return st, err
		}
	}
	m, err = assemble.OpenMemoryWith(octx, cfg, open)
	if err == nil && m == nil {
		err = errors.New("the store did not open")
	}
	return m, pooled, err
}

// keptOrNil returns what the warm worker keeps, or nil.
func (s *session) keptOrNil() *warmKept {
	if s == nil {
		return nil
	}
	return s.kept
}

// browsersKept returns the browsers a warm worker keeps, or nil.
func (s *session) browsersKept() *browser.Pool {
	if s == nil || s.kept == nil {
		return nil
	}
	return s.kept.browsers
}

// answers returns where the call keeps answers for its next event (the
// replace answer style), or nil (no [hooks.Answers]) without a store.
func (s *session) answers() hooks.Answers {
	if s == nil {
		return nil
	}
	if a := s.mem.Answers(); a != nil {
		return a
	}
	return nil
}

// observe records the providers' outcomes of each policy call for the
// decision log, and passes the trace on to next.
func (s *session) observe(next policy.Observer) policy.Observer {
	return func(t policy.Trace) {
		s.mu.Lock()
		for _, a := range t.Attempts {
			o := "ok"
			switch {
			case a.Superseded:
				o = "superseded"
			case a.Kind != "":
				o = string(a.Kind)
				if memory.IsSkip(a.Err) {
					o = "skipped (" + o + ")"
				}
			}
			s.outcomes = append(s.outcomes, memory.Outcome{Provider: a.Provider, Outcome: o})
		}
		s.mu.Unlock()
		if next != nil {
			next(t)
		}
	}
}

// finish adds the memory's notices (a budget passing 80 %) and problems to
// d (to its systemMessage too when systemMessage, the setting, is on and
// the runtime shows one: not Copilot CLI), records d in the decision log
// with the call's query (or URL), counts the call in the store's figures
// (and why it went on without the store, when it did), and closes the
// store. The writes that can wait, the log's among them, are made once
// the call is answered when ctx carries [AfterAnswer]'s list, and before
// finish returns otherwise; either way within store.open_timeout.
func (s *session) finish(ctx context.Context, in *hooks.Input, d hooks.Decision, query string, systemMessage bool) hooks.Decision {
	systemMessage = systemMessage && in.Runtime != hooks.CopilotCLI
	if s.problem != "" {
		d.Diagnostics = append(d.Diagnostics, s.problem)
	}
	if s.mem == nil {
		if s.skipped != "" {
			s.afterAnswer(ctx, s.countSkippedOpen)
		}
		return d
	}
	for _, n := range s.mem.Notices() {
		d.Diagnostics = append(d.Diagnostics, n)
		if !systemMessage {
			continue
		}
		if d.SystemMessage == "" {
			d.SystemMessage = "webgate: " + n
		} else {
			d.SystemMessage += "; " + n
		}
	}
	if err := s.mem.Problem(); err != nil {
		d.Diagnostics = append(d.Diagnostics, oneLine(err.Error()))
	}
	rec := memory.Decision{
		Tool: in.ToolName, Query: query, Decision: decisionName(d),
		Cached: s.mem.CacheHits() > 0, Latency: time.Since(hooks.Started(ctx)),
	}
	rec.Runtime, rec.Event, rec.Session = string(in.Runtime), string(in.Event), in.SessionID
	s.mu.Lock()
	rec.Providers = append(rec.Providers, s.outcomes...)
	s.mu.Unlock()
	if len(d.Diagnostics) > 0 && d.Action == hooks.Pass {
		rec.Note = d.Diagnostics[0]
	}
	s.mem.Record(ctx, rec)
	s.mem.CountCall(ctx, s.mem.Skipped())
	s.afterAnswer(ctx, s.flush)
	return d
}

// afterAnswerGrace is how long past its budget a hook process may go on
// with the writes it left for after its answer. The agent waits for the
// process to exit and kills it at the hook's registered timeout, which
// webgate install sets 5 s or more past the budget; a process killed then
// would lose the answer it already wrote.
const afterAnswerGrace = 2 * time.Second

// afterAnswer runs f once the call is answered when ctx carries
// [AfterAnswer]'s list, and now otherwise, with a context of its own
// bounded by store.open_timeout: the call's may be over. In a hook process
// (not a warm worker, whose caller has its reply already) the work also
// ends [afterAnswerGrace] past the call's budget, and what is left by then
// is dropped: the agent is waiting for the process to exit.
func (s *session) afterAnswer(ctx context.Context, f func(ctx context.Context)) {
	run := func() {
		timeout := s.cfg.Store.OpenTimeout
		if end, ok := ctx.Deadline(); ok && s.kept == nil {
			timeout = min(timeout, time.Until(end.Add(afterAnswerGrace)))
		}
		if timeout <= 0 {
			return
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		f(fctx)
	}
	if a := afterOf(ctx); a != nil {
		a.add(run)
		return
	}
	run()
}

// flush makes the memory's deferred writes and closes the store unless
// the pool keeps it.
func (s *session) flush(ctx context.Context) {
	_ = s.mem.Flush(ctx)
	if !s.pooled {
		s.mem.Store().Close()
	}
}

// countSkippedOpen counts a call that went on without a store that did
// not open: the store is opened again, off the call's path, only for
// that (and when it still does not open, the count is lost with it).
func (s *session) countSkippedOpen(ctx context.Context) {
	m, pooled, err := openStore(ctx, s.cfg, s.kept)
	if err != nil {
		return
	}
	m.DeferWrites()
	m.CountCall(ctx, s.skipped)
	_ = m.Flush(ctx)
	if !pooled {
		m.Store().Close()
	}
}

// afterKey carries, in a warm worker's call, what to do once the call is
// answered.
type afterKey struct{}

// afterList is what a call leaves for after its answer.
type afterList struct {
	mu  sync.Mutex
	fns []func()
}

// withAfter returns ctx carrying a new afterList, and the list.
func withAfter(ctx context.Context) (context.Context, *afterList) {
	a := &afterList{}
	return context.WithValue(ctx, afterKey{}, a), a
}

// AfterAnswer returns ctx carrying the list of what the hook calls made
// with it leave for after their answer (the writes to the store that can
// wait: the decision log, usage, key health, the cache), and the function
// that does it. A hook process calls that function once its answer is
// written and before it exits; each piece of the work is bounded by
// store.open_timeout. Without it the work is done before the answer.
func AfterAnswer(ctx context.Context) (context.Context, func()) {
	ctx, a := withAfter(ctx)
	return ctx, a.run
}

func afterOf(ctx context.Context) *afterList {
	a, _ := ctx.Value(afterKey{}).(*afterList)
	return a
}

func (a *afterList) add(f func()) {
	a.mu.Lock()
	a.fns = append(a.fns, f)
	a.mu.Unlock()
}

// run does what was left, in order.
func (a *afterList) run() {
	a.mu.Lock()
	fns := a.fns
	a.fns = nil
	a.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// decisionName names a decision for the log: "pass", "deny", "context", …
func decisionName(d hooks.Decision) string {
	return strings.ToLower(d.Action.String())
}

// oneLine keeps the first line of s.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
