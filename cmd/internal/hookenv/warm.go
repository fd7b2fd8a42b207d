package hookenv

import (
	"bytes"
	"context"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/hooks/worker"
)

// Warm is the hooks' [worker.Handler]: what a warm worker (and any other
// server of the warm worker's protocol) answers a hook call with. It
// answers a call as the worker process would answer it, with the call's
// environment and its budget counted from the caller's start, and keeps
// between calls what the worker process builds anew each time: the loaded
// configuration ([ConfigCache]), the stores and the local browsers. Close
// releases them.
type Warm struct {
	kept *warmKept
}

// NewWarm returns a [Warm] with nothing kept yet.
func NewWarm() *Warm {
	return &Warm{kept: newWarmKept()}
}

// Configs is the cache of the configurations w has loaded.
func (w *Warm) Configs() *ConfigCache { return w.kept.configs }

// Close closes the stores kept and stops the browsers.
func (w *Warm) Close() { w.kept.close() }

// ServeCall answers one hook call: once the configuration is loaded it
// tells the caller the hook's budget ([worker.Call.SetBudget]), then runs
// the hook on the payload. The writes that can wait are left for after
// the answer is delivered. The answer asks the warm worker to retire when
// the call's configuration turns it off (hooks.worker = off), or when the
// call was given up at its budget while something in it went on (a
// worker process would have exited).
func (w *Warm) ServeCall(ctx context.Context, c *worker.Call) worker.Answer {
	var body hookBody
	var kind hookKind
	switch c.Hook {
	case gate.WebSearch:
		body, kind = webSearchBody(w.kept), searchHook
	case gate.WebFetch:
		body, kind = webFetchBody(w.kept), fetchHook
	default:
		return worker.Answer{Refused: "unknown hook"}
	}
	start := c.Start
	if base, token := Gateway(worker.EnvList(c.Env)); base != "" {
		// The team gateway answers: forwarded as it is, within the
		// hook's configured budget.
		budget := Budget(ctx, c.Hook, func() (*config.Config, error) { return w.kept.configs.Load(c.Env) }, start)
		if err := c.SetBudget(budget); err != nil {
			return worker.Answer{}
		}
		out, diag := Forward(ctx, c.Hook, c.Payload, base, token, start, budget)
		return worker.Answer{Stdout: out, Stderr: []byte(diag)}
	}
	load := func() (*config.Config, error) { return w.kept.configs.Load(c.Env) }
	l, budget, stepAside := kind.load(ctx, load, start)
	if err := c.SetBudget(budget); err != nil {
		return worker.Answer{}
	}
	h := func(context.Context, *hooks.Input) hooks.Decision { return *stepAside }
	if stepAside == nil {
		// The configuration is loaded once, above, for the budget the
		// caller waits by and for the call.
		h = func(ctx context.Context, in *hooks.Input) hooks.Decision {
			return kind.within(ctx, start, budget, func(ctx context.Context) hooks.Decision { return body(ctx, in, l.cfg, l.err) })
		}
	}
	actx, after := withAfter(ctx)
	var out, errs bytes.Buffer
	code := hooks.Run(hooks.WithStart(actx, start), bytes.NewReader(c.Payload), &out, &errs, h)
	a := worker.Answer{Stdout: out.Bytes(), Stderr: errs.Bytes(), Exit: code, After: after.run}
	switch {
	case stepAside == nil && l.cfg.WorkerOff():
		a.Retire = true // the call's configuration turns the warm worker off
	case time.Since(start) > budget+guardSlack:
		a.Retire = true
	}
	return a
}

// Drain is how long a warm worker serving [Warm] waits for the calls
// under way when it exits: the longest a call may take.
const Drain = drainWait
