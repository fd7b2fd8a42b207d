package webtools

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/provider"
)

// deadlineGrace is how long a call whose deadline passed is given to
// return its own error, which names the providers that failed, before a
// plain timeout error is returned in its place.
const deadlineGrace = 500 * time.Millisecond

// deadlineSlack is how close to the deadline a failure counts as caused by
// it.
const deadlineSlack = 20 * time.Millisecond

// bound runs fn under a deadline of limit (def when limit is 0), or the
// caller's earlier one, and returns within deadlineGrace of it whatever fn
// does. When the deadline passed first, the error is an [*Error] with
// TimedOut set, whose message says what ran out of time and when; a panic
// in fn is an [*Error] of class unknown.
func bound[T any](ctx context.Context, limit, def time.Duration, what string, fn func(context.Context) (*T, error)) (*T, error) {
	if limit <= 0 {
		limit = def
	}
	if dl, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(dl))
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	deadline, _ := ctx.Deadline()

	type result struct {
		v   *T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{nil, &Error{Reason: ProviderFailed, Class: provider.ClassUnknown, Message: "internal error in webgate."}}
			}
		}()
		v, err := fn(ctx)
		done <- result{v, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		grace := time.NewTimer(deadlineGrace)
		select {
		case r = <-done:
		case <-grace.C:
			r.err = &Error{Reason: ProviderFailed, Class: provider.ClassTransientFailed}
		}
		grace.Stop()
	}
	if r.err == nil {
		if r.v == nil {
			return nil, &Error{Reason: ProviderFailed, Class: provider.ClassUnknown, Message: what + " returned nothing."}
		}
		return r.v, nil
	}
	// A provider stopped by a deadline derived from this one may answer a
	// moment before ctx itself reports it: the clock decides too.
	expired := errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		ctx.Err() == nil && time.Until(deadline) <= deadlineSlack
	if !expired {
		return nil, r.err
	}
	// The deadline passed: say so first, then what had failed by then.
	e, ok := r.err.(*Error)
	if !ok || e.Reason == BadInput || e.Reason == NotConfigured {
		// An answer that owes nothing to the deadline stands.
		if ok {
			return nil, e
		}
		e = &Error{Reason: ProviderFailed, Class: provider.ClassTransientFailed}
	}
	e.TimedOut = true
	e.Message = joinSentences(fmt.Sprintf("%s did not finish within its %v deadline.", what, roundDeadline(limit)), upperFirst(e.Message))
	return nil, e
}

// upperFirst returns s with its first letter in upper case, to follow
// another sentence.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// roundDeadline rounds a deadline for messages: whole seconds from 10s up,
// tenths of a second below.
func roundDeadline(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
