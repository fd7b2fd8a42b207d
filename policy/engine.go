package policy

import (
	"context"
	"errors"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// sequence is the ordered-fallback engine shared by [Fallback] and
// [Extraction]: it starts providers one after another, moves on after a
// failure, optionally hedges a slow provider by starting the next one, and
// stops at the first success.
type sequence[T any] struct {
	policy string
	op     string
	names  []string // by provider index
	budget time.Duration
	per    time.Duration // 0: an even share of the remaining budget
	hedge  time.Duration // 0: no hedging
	// acceptEmpty makes an empty answer end the sequence.
	acceptEmpty bool
	// try calls provider i.
	try func(ctx context.Context, i int) (T, error)
	// check validates and trims provider i's answer: it returns the value
	// to keep, how many results it holds, and an error when the answer is
	// to be treated as a failure.
	check func(i int, v T) (T, int, error)
}

// attemptState tracks one started attempt.
type attemptState struct {
	prov     int
	started  time.Time
	deadline time.Time
	cancel   context.CancelFunc
	finished bool
	attempt  Attempt
	failure  *provider.Failure
}

// outcome is what an attempt's goroutine reports.
type outcome[T any] struct {
	slot int
	v    T
	err  error
	end  time.Time
}

// run tries the providers in order (indices into names) and returns the
// first success, or the first empty answer when no provider found anything,
// with the failures of the providers tried before. It returns an
// [*AllFailedError] when every provider failed and a canceled error when
// ctx is canceled. It never waits for an attempt beyond that attempt's
// deadline, even if the provider ignores its context.
func (s *sequence[T]) run(ctx context.Context, order []int) (v T, failures []provider.Failure, attempts []Attempt, err error) {
	var zero T
	bctx, cancelBudget := context.WithTimeout(ctx, s.budget)
	defer cancelBudget()
	budgetDeadline, _ := bctx.Deadline()
	// budgetLeft also reads the clock: a timer may fire just before the
	// budget's context notices its own deadline.
	budgetLeft := func() bool { return bctx.Err() == nil && time.Now().Before(budgetDeadline) }

	n := len(order)
	outcomes := make(chan outcome[T], n) // buffered: late answers never block
	states := make([]*attemptState, 0, n)
	running := 0
	var lastLaunch time.Time

	launch := func() {
		slot := len(states)
		prov := order[slot]
		remaining := time.Until(budgetDeadline)
		per := s.per
		if per <= 0 {
			per = remaining / time.Duration(n-slot)
		}
		per = min(per, remaining)
		now := time.Now()
		actx, cancel := context.WithDeadline(bctx, now.Add(per))
		states = append(states, &attemptState{prov: prov, started: now, deadline: now.Add(per), cancel: cancel})
		running++
		lastLaunch = now
		go func() {
			v, err := s.try(actx, prov)
			outcomes <- outcome[T]{slot: slot, v: v, err: err, end: time.Now()}
		}()
	}
	fail := func(st *attemptState, f provider.Failure) {
		st.failure = &f
		st.attempt = attemptOf(f)
	}
	// collect gathers failures and attempts in start order.
	collect := func() {
		for _, st := range states {
			if st.failure != nil {
				failures = append(failures, *st.failure)
			}
			attempts = append(attempts, st.attempt)
		}
	}
	// stopAll cancels the attempts still running: superseded by a winner,
	// or canceled with the caller.
	stopAll := func(superseded bool) {
		for _, st := range states {
			if !st.finished {
				st.finished = true
				st.cancel()
				st.attempt = Attempt{Provider: s.names[st.prov], Superseded: superseded, Elapsed: time.Since(st.started)}
				if !superseded {
					st.attempt.Kind, st.attempt.Err = provider.KindCanceled, context.Canceled
				}
			}
		}
	}
	defer func() {
		for _, st := range states {
			st.cancel()
		}
	}()

	var (
		empty     T
		haveEmpty bool
		stop      bool
	)
	for !stop {
		if errors.Is(ctx.Err(), context.Canceled) {
			stopAll(false)
			collect()
			return zero, failures, attempts, canceledError(s.policy, s.op, ctx)
		}
		if !budgetLeft() {
			// The budget is used up: whatever still runs has timed out, and
			// the providers not yet started are skipped.
			for _, st := range states {
				if !st.finished {
					st.finished = true
					st.cancel()
					fail(st, provider.Failure{
						Provider: s.names[st.prov], Kind: provider.KindTransient, TimedOut: true,
						Err: timeoutError(s.names[st.prov], s.op, time.Since(st.started)), Elapsed: time.Since(st.started),
					})
				}
			}
			for len(states) < n {
				prov := order[len(states)]
				st := &attemptState{prov: prov, started: time.Now(), finished: true, cancel: func() {}}
				states = append(states, st)
				fail(st, provider.Failure{
					Provider: s.names[prov], Kind: provider.KindTransient, TimedOut: true,
					Err: &provider.Error{Provider: s.names[prov], Op: s.op, Kind: provider.KindTransient, Message: "not tried: time budget used up", Err: context.DeadlineExceeded},
				})
			}
			break
		}
		if running == 0 {
			if len(states) >= n {
				break
			}
			launch()
			continue
		}

		var watch time.Time
		for _, st := range states {
			if !st.finished && (watch.IsZero() || st.deadline.Before(watch)) {
				watch = st.deadline
			}
		}
		watchdog := time.NewTimer(time.Until(watch))
		var hedgeC <-chan time.Time
		var hedgeTimer *time.Timer
		if s.hedge > 0 && len(states) < n {
			hedgeTimer = time.NewTimer(time.Until(lastLaunch.Add(s.hedge)))
			hedgeC = hedgeTimer.C
		}
		select {
		case o := <-outcomes:
			st := states[o.slot]
			if st.finished {
				break // the watchdog already gave up on it
			}
			st.finished = true
			running--
			st.cancel()
			name := s.names[st.prov]
			elapsed := o.end.Sub(st.started)
			if o.err == nil {
				kept, count, cerr := s.check(st.prov, o.v)
				if cerr == nil {
					st.attempt = Attempt{Provider: name, Results: count, Elapsed: elapsed}
					if count > 0 || s.acceptEmpty {
						stopAll(true)
						collect()
						return kept, failures, attempts, nil
					}
					if !haveEmpty {
						empty, haveEmpty = kept, true
					}
					if len(states) < n {
						launch()
					}
					break
				}
				o.err = cerr
			}
			if errors.Is(ctx.Err(), context.Canceled) {
				break // reported at the top of the loop
			}
			f := provider.Failure{Provider: name, Kind: provider.KindOf(o.err), Err: o.err, Elapsed: elapsed}
			if errors.Is(o.err, context.DeadlineExceeded) || !o.end.Before(st.deadline) {
				f.TimedOut, f.Kind = true, provider.KindTransient
			}
			fail(st, f)
			if f.Kind == provider.KindCanceled {
				stopAll(false)
				stop = true
				break
			}
			if len(states) < n && budgetLeft() {
				launch()
			}
		case <-watchdog.C:
			now := time.Now()
			expired := false
			for _, st := range states {
				if !st.finished && !now.Before(st.deadline) {
					expired = true
					st.finished = true
					running--
					st.cancel()
					fail(st, provider.Failure{
						Provider: s.names[st.prov], Kind: provider.KindTransient, TimedOut: true,
						Err: timeoutError(s.names[st.prov], s.op, st.deadline.Sub(st.started)), Elapsed: now.Sub(st.started),
					})
				}
			}
			if expired && len(states) < n && budgetLeft() {
				launch()
			}
		case <-hedgeC:
			launch()
		case <-bctx.Done():
			// Handled at the top of the loop.
		}
		watchdog.Stop()
		if hedgeTimer != nil {
			hedgeTimer.Stop()
		}
	}
	collect()
	if haveEmpty {
		return empty, failures, attempts, nil
	}
	return zero, failures, attempts, &AllFailedError{Policy: s.policy, Op: s.op, Failures: failures}
}
