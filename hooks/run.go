package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/hooks/gate"
)

// Handler answers one decoded hook event. It must honour ctx; [Run] steps
// aside when ctx ends before the handler returns.
type Handler func(ctx context.Context, in *Input) Decision

// readStdin reads and decodes the payload as [gate.ReadPayload] reads it:
// without waiting forever for a stdin that stays open, nor past the
// deadline ctx may hold ([WithInputDeadline]).
func readStdin(ctx context.Context, stdin io.Reader) (*Input, error) {
	wait := gate.StdinWait
	if t, ok := ctx.Value(inputDeadlineKey{}).(time.Time); ok {
		wait = max(min(wait, time.Until(t)), 0)
	}
	data, err := gate.ReadPayload(stdin, DefaultMaxInputBytes, wait, gate.StdinQuiet)
	if errors.Is(err, gate.ErrPayloadTooLarge) {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrInputTooLarge, DefaultMaxInputBytes)
	}
	if err != nil {
		return nil, err
	}
	return ParseInput(data)
}

// inputDeadlineKey is the context key of the moment past which [Run] no
// longer waits for its stdin.
type inputDeadlineKey struct{}

// WithInputDeadline returns a copy of ctx that makes [Run] stop waiting
// for a stdin left open at t (the end of the hook's budget, say), if that
// comes before [gate.StdinWait] has passed.
func WithInputDeadline(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, inputDeadlineKey{}, t)
}

// startKey is the context key of the moment a hook started.
type startKey struct{}

// WithStart returns a copy of ctx recording t as the moment the hook
// started, for handlers that count their budget from the start of the
// process ([Started]). [Run] records the moment it is called when ctx
// holds none.
func WithStart(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, startKey{}, t)
}

// Started returns the moment recorded in ctx by [WithStart], or the
// current time when ctx holds none.
func Started(ctx context.Context) time.Time {
	if t, ok := ctx.Value(startKey{}).(time.Time); ok {
		return t
	}
	return time.Now()
}

// Run is the body of a hook binary. It reads one payload from stdin (at most
// [DefaultMaxInputBytes]; a stdin left open is not waited for past
// [gate.StdinWait] or the deadline set by [WithInputDeadline], nor past
// [gate.StdinQuiet] once a complete JSON object has arrived), decodes it with [ParseInput], calls h, and writes
// h's decision to stdout as exactly one JSON object, or nothing. Every
// diagnostic goes to stderr, prefixed "webgate: ".
//
// Run always returns 0, the exit code for the process: a hook never blocks
// by exit code. Empty, malformed or oversized input, a panic in h, or ctx
// ending before h returns all pass through (no output) with a note on
// stderr. Unless ctx already holds one, Run records the moment it is
// called as the hook's start ([WithStart]), before reading stdin.
func Run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, h Handler) (code int) {
	logf := func(format string, args ...any) {
		_, _ = fmt.Fprintf(stderr, "webgate: "+format+"\n", args...)
	}
	defer func() {
		if r := recover(); r != nil {
			logf("internal error, passing through: %v\n%s", r, debug.Stack())
			code = 0
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	if _, ok := ctx.Value(startKey{}).(time.Time); !ok {
		ctx = WithStart(ctx, time.Now())
	}
	in, err := readStdin(ctx, stdin)
	if err != nil {
		logf("%v; passing through", err)
		return 0
	}
	d := Guard(ctx, func(ctx context.Context) Decision { return h(ctx, in) })
	for _, line := range d.Diagnostics {
		for _, l := range strings.Split(strings.TrimRight(line, "\n"), "\n") {
			logf("%s", l)
		}
	}
	if err := d.Write(stdout, in); err != nil {
		logf("writing the decision: %v", err)
	}
	return 0
}

// budgetGrace is how long Guard waits past the end of ctx for fn to return
// on its own (and so keep its diagnostics) before stepping aside.
const budgetGrace = 25 * time.Millisecond

// Guard runs fn and returns its decision, or a pass-through decision when fn
// panics or ctx ends before fn returns. It is how a hook keeps its overall
// budget even when a call inside fn ignores its context: fn keeps running in
// the background, but the hook answers and the process exits.
func Guard(ctx context.Context, fn func(ctx context.Context) Decision) Decision {
	done := make(chan Decision, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- passWith(fmt.Sprintf("internal error, passing through: %v\n%s", r, debug.Stack()))
			}
		}()
		done <- fn(ctx)
	}()
	select {
	case d := <-done:
		return d
	case <-ctx.Done():
	}
	t := time.NewTimer(budgetGrace)
	defer t.Stop()
	select {
	case d := <-done:
		return d
	case <-t.C:
		return passWith(fmt.Sprintf("time budget exhausted (%v); passing through", context.Cause(ctx)))
	}
}

// bounded calls fn and returns its results, or finished == false when ctx
// ends (plus a short grace) before fn returns. A panic in fn becomes an
// error.
func bounded[T any](ctx context.Context, fn func(ctx context.Context) (T, error)) (v T, finished bool, err error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				var zero T
				done <- result{zero, fmt.Errorf("internal error: %v", r)}
			}
		}()
		v, err := fn(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, true, r.err
	case <-ctx.Done():
	}
	t := time.NewTimer(budgetGrace)
	defer t.Stop()
	select {
	case r := <-done:
		return r.v, true, r.err
	case <-t.C:
		return v, false, context.Cause(ctx)
	}
}
