package hookenv

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/webpage/browser"
)

// session is one hook call's use of the memory: the store opened for the
// call, the providers' outcomes observed, and what the call decided.
type session struct {
	mem      *memory.Memory
	kept     *warmKept // what the warm worker keeps between calls, or nil
	pooled   bool      // the store is the pool's: not closed after the call
	problem  string
	mu       sync.Mutex
	outcomes []memory.Outcome
}

// openMemory opens the configured store within the store's timeout (the
// hook goes on without it when it cannot), and never past ctx's deadline;
// from the stores a warm worker keeps, when kept is not nil.
func openMemory(ctx context.Context, cfg *config.Config, kept *warmKept) *session {
	s := &session{kept: kept}
	if cfg.StoreOff() {
		return s
	}
	octx, cancel := context.WithTimeout(ctx, openTimeout(cfg))
	defer cancel()
	open := store.Open
	if kept != nil && kept.stores != nil {
		open = func(ctx context.Context, url string, opts *store.Options) (*store.Store, error) {
			st, pooled, err := kept.stores.open(ctx, url, opts)
			s.pooled = pooled
			return st, err
		}
	}
	m, err := cfg.OpenMemoryWith(octx, open)
	if err != nil {
		s.problem = "the store is not usable, going on without it: " + oneLine(err.Error())
		return s
	}
	s.mem = m
	return s
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

// createTimeout bounds opening the default store when its file does not
// exist yet: creating the database and its schema is a one-time cost that
// a busy machine may not pay within the store's per-call timeout.
const createTimeout = time.Second

// openTimeout is how long the hook waits for the store to open: the
// store's timeout, or [createTimeout] when the default file is still to
// be created.
func openTimeout(cfg *config.Config) time.Duration {
	if strings.TrimSpace(cfg.Store.URL) == "" {
		if p := cfg.StorePath(); p != "" {
			if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
				return max(cfg.Store.Timeout, createTimeout)
			}
		}
	}
	return cfg.Store.Timeout
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
// with the call's query (or URL), and closes the store.
func (s *session) finish(ctx context.Context, in *hooks.Input, d hooks.Decision, query string, systemMessage bool) hooks.Decision {
	systemMessage = systemMessage && in.Runtime != hooks.CopilotCLI
	if s.problem != "" {
		d.Diagnostics = append(d.Diagnostics, s.problem)
	}
	if s.mem == nil {
		return d
	}
	if !s.pooled {
		defer s.mem.Store().Close()
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
	if a := afterOf(ctx); a != nil && s.pooled {
		// A warm worker writes the log after it has answered.
		a.add(func() { s.mem.Record(ctx, rec) })
		return d
	}
	s.mem.Record(ctx, rec)
	return d
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
