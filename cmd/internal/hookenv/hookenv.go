// Package hookenv builds the environments of webgate's hook handlers from
// the configuration (package config): settings, tool names, the docs and
// tool routes ([Routes], [HookRoutes]), and, through the one construction
// path [assemble.Build], the search policy and the page reader with
// its extraction policy over every provider that has keys.
//
// It is what the hook worker cmd/webgate-hook runs for the websearch and
// webfetch fronts:
// [WebSearchHandler] and [WebFetchHandler] return a [hooks.Handler] that
// loads the configuration, ignores tools and events the hook does not
// handle before building any provider, and calls the hooks package's
// handler. Package hooks itself stays free of configuration loading.
//
// For the warm worker (package hooks/worker, which serves calls and knows
// nothing of hooks), [Warm] is the [worker.Handler]: it answers a call as
// the worker process would, and keeps between calls the configuration
// ([ConfigCache]), the stores and the local browsers.
package hookenv

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/policy"
)

// Loader loads the configuration; [config.LoadFromOS] in the binaries. It
// returns a usable Config even with an error (see [config.Load]).
type Loader func() (*config.Config, error)

// WebSearchHandler returns the web search hook's handler: it loads the
// configuration with load, and for events [hooks.WantsWebSearch] accepts
// builds the docs routes and the search policy and calls
// [hooks.HandleWebSearch]. SessionStart is answered with the routes' index
// when hooks.session_start is on, and ignored otherwise.
//
// Everything, loading included, runs within the hook's budget
// (hooks.websearch.budget) counted from [hooks.Started]: past it the
// handler passes through with the reason in its diagnostics, whatever is
// still running. Until the configuration is loaded, the default budget
// bounds the wait.
func WebSearchHandler(load Loader) hooks.Handler {
	return searchHook.handler(load, webSearchBody(nil))
}

// hookBody is what a hook does with a call once its configuration is
// loaded, within its budget.
type hookBody func(ctx context.Context, in *hooks.Input, cfg *config.Config, err error) hooks.Decision

// webSearchBody is the web search hook's body, with what a warm worker
// keeps between calls (nil: each call opens its own store).
func webSearchBody(kept *warmKept) hookBody {
	return func(ctx context.Context, in *hooks.Input, cfg *config.Config, err error) hooks.Decision {
		s := Settings(cfg, cfg.Hooks.WebSearch.Budget, cfg.Hooks.WebSearch.ToolNames, nil)
		s.Tools.MCPSearch = cfg.Hooks.WebSearch.MCPToolNames
		if in != nil && in.Event == hooks.SessionStart {
			if !cfg.Hooks.SessionStart {
				return hooks.Decision{}
			}
			s.Secrets = cfg.Secrets()
			return hooks.HandleWebSearch(ctx, in, &hooks.WebSearchEnv{Settings: s, Routes: hookRoutes(kept, cfg, true, true), SessionStart: true})
		}
		search, answer := hooks.WantsWebSearch(in, s.Tools), hooks.WantsAnswer(in, s, false)
		if !search && !answer {
			return hooks.Decision{}
		}
		sess := openMemory(ctx, cfg, kept)
		var env *hooks.WebSearchEnv
		if answer && !search && len(config.Problems(err)) == 0 {
			// The native tool ran, or failed: only an answer kept on
			// PreToolUse is given, so no provider is built.
			env = &hooks.WebSearchEnv{Settings: s}
			env.Settings.Secrets = cfg.Secrets()
			env.Answers = sess.answers()
		} else {
			env = webSearch(cfg, err, sess)
		}
		return sess.finish(ctx, in, hooks.HandleWebSearch(ctx, in, env), in.SearchArgs().Query, s.SystemMessage)
	}
}

// WebFetchHandler returns the web fetch hook's handler: it loads the
// configuration with load, and for events [hooks.WantsWebFetch] accepts
// builds the tool routes and the page reader and calls
// [hooks.HandleWebFetch]. PreToolUse on the shell tool
// ([hooks.WantsShell]) gets the tool routes alone, without any provider.
// Like [WebSearchHandler], it keeps the hook's budget
// (hooks.webfetch.budget) from [hooks.Started], loading included.
func WebFetchHandler(load Loader) hooks.Handler {
	return fetchHook.handler(load, webFetchBody(nil))
}

// webFetchBody is the web fetch hook's body, with what a warm worker
// keeps between calls (nil: each call opens its own store and starts its
// own browser).
func webFetchBody(kept *warmKept) hookBody {
	return func(ctx context.Context, in *hooks.Input, cfg *config.Config, err error) hooks.Decision {
		s := Settings(cfg, cfg.Hooks.WebFetch.Budget, nil, cfg.Hooks.WebFetch.ToolNames)
		if hooks.WantsShell(in) {
			s.Secrets = cfg.Secrets()
			return hooks.HandleWebFetch(ctx, in, &hooks.WebFetchEnv{Settings: s, Routes: hookRoutes(kept, cfg, false, true)})
		}
		fetch, answer := hooks.WantsWebFetch(in, s.Tools), hooks.WantsAnswer(in, s, true)
		if !fetch && !answer {
			return hooks.Decision{}
		}
		sess := openMemory(ctx, cfg, kept)
		var env *hooks.WebFetchEnv
		if in.Event == hooks.PostToolUse && answer && len(config.Problems(err)) == 0 {
			// The native tool ran: only an answer kept on PreToolUse
			// replaces its output, so no page reader is built.
			env = &hooks.WebFetchEnv{Settings: s}
			env.Settings.Secrets = cfg.Secrets()
			env.Answers = sess.answers()
		} else {
			env = webFetch(cfg, err, sess)
		}
		return sess.finish(ctx, in, hooks.HandleWebFetch(ctx, in, env), in.FetchArgs().URL, s.SystemMessage)
	}
}

// guardSlack is how long past its budget a handler is given to step aside
// on its own (with its own message) before [budgeted] steps aside for it.
const guardSlack = 100 * time.Millisecond

// hookKind is what tells the two hooks apart when the configuration is
// loaded: the name their messages use, their default budget, and which
// configured budget is theirs.
type hookKind struct {
	name     string
	fallback time.Duration
	budget   func(*config.Config) time.Duration
}

var (
	searchHook = hookKind{"web search", gate.DefaultBudget(gate.WebSearch), func(c *config.Config) time.Duration { return c.Hooks.WebSearch.Budget }}
	fetchHook  = hookKind{"web fetch", gate.DefaultBudget(gate.WebFetch), func(c *config.Config) time.Duration { return c.Hooks.WebFetch.Budget }}
)

// handler returns the hook's handler: it loads the configuration with load
// and runs body within the budget ([budgeted]).
func (k hookKind) handler(load Loader, body hookBody) hooks.Handler {
	return func(ctx context.Context, in *hooks.Input) hooks.Decision {
		return budgeted(ctx, load, k, func(ctx context.Context, cfg *config.Config, err error) hooks.Decision {
			return body(ctx, in, cfg, err)
		})
	}
}

// load loads the configuration, giving up at the hook's default budget
// counted from start (the configured one is not known yet), and returns
// it with the hook's budget. When nothing could be loaded, stepAside is
// the decision to pass through with the reason.
func (k hookKind) load(ctx context.Context, load Loader, start time.Time) (l loaded, budget time.Duration, stepAside *hooks.Decision) {
	fallback := k.fallback
	l = loadWithin(ctx, load, start.Add(fallback))
	if l.problem != "" {
		return l, fallback, &hooks.Decision{Action: hooks.Pass, Diagnostics: []string{fmt.Sprintf("%s (the %s hook's default budget is %v); passing through", l.problem, k.name, fallback)}}
	}
	budget = k.budget(l.cfg)
	if budget <= 0 {
		budget = fallback
	}
	return l, budget, nil
}

// budgeted loads the configuration and runs body within the hook's
// budget, both counted from [hooks.Started] ([hookKind.load]): body gets a
// context that ends when the configured budget runs out. When either
// does not finish in time, the hook passes through with the reason in the
// diagnostics; what still runs is abandoned, and the process exits.
func budgeted(ctx context.Context, load Loader, k hookKind, body func(context.Context, *config.Config, error) hooks.Decision) hooks.Decision {
	start := hooks.Started(ctx)
	l, budget, stepAside := k.load(ctx, load, start)
	if stepAside != nil {
		return *stepAside
	}
	return k.within(ctx, start, budget, func(ctx context.Context) hooks.Decision { return body(ctx, l.cfg, l.err) })
}

// within runs body with a context that ends at start plus budget; when
// body does not finish by then (and a short slack to step aside on its
// own), the hook passes through with the reason in the diagnostics.
func (k hookKind) within(ctx context.Context, start time.Time, budget time.Duration, body func(context.Context) hooks.Decision) hooks.Decision {
	deadline := start.Add(budget)
	cause := budgetError{hook: k.name, budget: budget}
	guardCtx, cancel := context.WithDeadlineCause(ctx, deadline.Add(guardSlack), cause)
	defer cancel()
	workCtx, cancelWork := context.WithDeadlineCause(guardCtx, deadline, cause)
	defer cancelWork()
	return hooks.Guard(guardCtx, func(context.Context) hooks.Decision { return body(workCtx) })
}

// budgetError is the cause of a hook's context ending with its budget. It
// is a deadline, as context.DeadlineExceeded is, for whoever classifies
// the errors it ends up in.
type budgetError struct {
	hook   string
	budget time.Duration
}

// Error says which hook's budget ran out.
func (e budgetError) Error() string {
	return fmt.Sprintf("the %s hook's %v budget ran out", e.hook, e.budget)
}

// Is makes errors.Is(err, context.DeadlineExceeded) true.
func (e budgetError) Is(target error) bool { return target == context.DeadlineExceeded }

// Timeout reports true, as context.DeadlineExceeded's does.
func (e budgetError) Timeout() bool { return true }

// Temporary reports true, as context.DeadlineExceeded's does.
func (e budgetError) Temporary() bool { return true }

// loaded is what [loadWithin] got: the configuration (the default one when
// the loader returned none) and the loader's error, or a problem when there
// is no configuration at all.
type loaded struct {
	cfg     *config.Config
	err     error
	problem string
}

// loadWithin calls load, giving up when it has not returned by deadline or
// the end of ctx.
func loadWithin(ctx context.Context, load Loader, deadline time.Time) loaded {
	done := make(chan loaded, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- loaded{problem: fmt.Sprintf("internal error loading the configuration: %v", r)}
			}
		}()
		cfg, err := load()
		if cfg == nil {
			cfg = config.Default()
		}
		done <- loaded{cfg: cfg, err: err}
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case l := <-done:
		return l
	case <-t.C:
		return loaded{problem: "the configuration could not be loaded in time"}
	case <-ctx.Done():
		return loaded{problem: fmt.Sprintf("the configuration could not be loaded in time (%v)", context.Cause(ctx))}
	}
}

// maxLockWait is the longest the docs routes' state waits for a session
// lock another hook process holds.
const maxLockWait = time.Second

// lockSlice is how long the docs routes' state waits for a session lock
// another hook process holds: 5% of the budget, at most [maxLockWait].
// Past it, the hook goes on without the state (and so without denying).
// Parallel calls of one session queue for the lock, each holding it for
// a few milliseconds.
func lockSlice(budget time.Duration) time.Duration {
	if budget <= 0 {
		return maxLockWait
	}
	return min(budget/20, maxLockWait)
}

// Settings maps the configuration's hook settings to [hooks.Settings]:
// debug, the budget, the reason cap, the system message switch, the tool
// names and the configuration sources for the debug trace. Secrets are not
// filled in; [WebSearch] and [WebFetch] do that.
func Settings(cfg *config.Config, budget time.Duration, searchTools, fetchTools []string) hooks.Settings {
	s := hooks.Settings{
		Answer:         hooks.AnswerStyle(cfg.AnswerStyle()),
		Debug:          cfg.Debug,
		Budget:         budget,
		MaxReasonChars: cfg.Hooks.MaxReasonChars,
		SystemMessage:  cfg.Hooks.SystemMessage,
		Tools:          hooks.ToolNames{WebSearch: searchTools, WebFetch: fetchTools},
	}
	s.ClaudeConfigDir, s.ClaudeProjectDir = cfg.ClaudeDirs()
	if cfg.Debug {
		s.Trace = append(s.Trace, "configuration: "+strings.Join(cfg.Sources, ", "))
	}
	return s
}

// WebSearch returns the web search hook's environment for cfg; loadErr is
// the error config.Load returned with it. Its Routes hold the docs routes
// ([HookRoutes]; the hook's own call keeps their state in the store when
// it opened, see [RouteState]); its Searcher is the search policy [assemble.Build]
// makes, observed for the debug trace. Without search keys the environment
// has no Searcher (the hook steps aside after the routes).
func WebSearch(cfg *config.Config, loadErr error) *hooks.WebSearchEnv {
	return webSearch(cfg, loadErr, nil)
}

// webSearch is [WebSearch] with the call's memory, when it has one.
func webSearch(cfg *config.Config, loadErr error, sess *session) *hooks.WebSearchEnv {
	env := &hooks.WebSearchEnv{
		Settings:   Settings(cfg, cfg.Hooks.WebSearch.Budget, cfg.Hooks.WebSearch.ToolNames, nil),
		MaxResults: cfg.Search.MaxResults,
		Problems:   config.Problems(loadErr),
	}
	env.Settings.Tools.MCPSearch = cfg.Hooks.WebSearch.MCPToolNames
	env.Settings.Secrets = cfg.Secrets()
	env.Routes = hookRoutes(sess.keptOrNil(), cfg, true, false)
	if sess != nil && sess.mem != nil {
		env.Routes.State = RouteState(cfg, sess.mem)
	}
	if len(env.Problems) > 0 {
		return env
	}
	// The search hook builds no extraction provider and no page reader.
	env.Answers = sess.answers()
	st, err := build(cfg, &env.Settings, &env.DebugLines, sess, &assemble.Options{ExtractProviders: []string{}, NoReader: true})
	if env.Settings.Debug {
		env.Settings.Trace = append(env.Settings.Trace, "search providers with keys: "+describe(cfg, st.SearchProviders)+"; mode "+cfg.Search.Mode)
	}
	if err != nil {
		env.Problems = append(env.Problems, err.Error())
		return env
	}
	if st.Searcher != nil {
		env.Searcher, env.Providers, env.Mode = st.Searcher, st.SearchProviders, cfg.Search.Mode
	}
	return env
}

// WebFetch returns the web fetch hook's environment for cfg; loadErr is
// the error config.Load returned with it. Its Routes hold the tool routes
// ([HookRoutes]); its Reader is the page reader [assemble.Build]
// makes (the probe and classifier settings, and the extraction policy,
// observed for the debug trace). Without extraction keys the Reader has no
// Extractor (PreToolUse steps aside after the routes).
func WebFetch(cfg *config.Config, loadErr error) *hooks.WebFetchEnv {
	return webFetch(cfg, loadErr, nil)
}

// webFetch is [WebFetch] with the call's memory, when it has one.
func webFetch(cfg *config.Config, loadErr error, sess *session) *hooks.WebFetchEnv {
	env := &hooks.WebFetchEnv{
		Settings: Settings(cfg, cfg.Hooks.WebFetch.Budget, nil, cfg.Hooks.WebFetch.ToolNames),
		Problems: config.Problems(loadErr),
	}
	env.Settings.Secrets = cfg.Secrets()
	env.Routes = hookRoutes(sess.keptOrNil(), cfg, false, true)
	if len(env.Problems) > 0 {
		return env
	}
	// The fetch hook builds no search provider.
	env.Answers = sess.answers()
	st, err := build(cfg, &env.Settings, &env.DebugLines, sess, &assemble.Options{SearchProviders: []string{}, Browsers: sess.browsersKept()})
	env.Reader = st.Reader
	if env.Settings.Debug {
		env.Settings.Trace = append(env.Settings.Trace, "extraction providers with keys: "+describe(cfg, st.ExtractProviders))
	}
	if err != nil {
		env.Problems = append(env.Problems, err.Error())
		return env
	}
	if st.Extractor != nil {
		env.Providers, env.Mode = st.ExtractProviders, extractionOrder(cfg, st.ExtractProviders)
	}
	return env
}

// build builds the providers of cfg ([assemble.Build]) with opts and
// the call's memory; in debug mode the policies' traces are collected into
// debugLines.
func build(cfg *config.Config, s *hooks.Settings, debugLines *func() []string, sess *session, opts *assemble.Options) (*assemble.Stack, error) {
	if s.Debug {
		var t traces
		opts.Observer = t.observe
		*debugLines = t.lines
	}
	if sess != nil && sess.mem != nil {
		opts.Memory = sess.mem
		opts.Observer = sess.observe(opts.Observer)
	}
	return assemble.Build(cfg, opts)
}

// extractionOrder says in which order the extraction policy tries names:
// the configured primary first, or a random first provider.
func extractionOrder(cfg *config.Config, names []string) string {
	if cfg.Extract.Primary != "" && len(names) > 0 {
		return "in order, " + names[0] + " first"
	}
	return "in order, starting from a random provider"
}

// describe renders "tavily (2 keys), exa (1 key)" or "none".
func describe(cfg *config.Config, names []string) string {
	if len(names) == 0 {
		return "none"
	}
	parts := make([]string, len(names))
	for i, n := range names {
		k := cfg.KeyCount(n)
		unit := "keys"
		if k == 1 {
			unit = "key"
		}
		parts[i] = fmt.Sprintf("%s (%d %s)", n, k, unit)
	}
	return strings.Join(parts, ", ")
}

// traces collects a policy observer's traces for the debug output.
type traces struct {
	mu  sync.Mutex
	out []string
}

func (t *traces) observe(tr policy.Trace) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out = append(t.out, "policy: "+tr.String())
	for _, a := range tr.Attempts {
		if a.Err != nil {
			t.out = append(t.out, fmt.Sprintf("  %s: %v", a.Provider, a.Err))
		}
	}
}

func (t *traces) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.out...)
}
