package policy

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// AllFailedError is returned by a policy when every provider it tried
// failed. It carries one [provider.Failure] per provider, in the policy's
// provider order.
//
// [provider.KindOf] and [provider.ClassOf] of an AllFailedError give its
// overall [AllFailedError.Kind]; errors.Is and errors.As reach each
// provider's own error through Unwrap.
type AllFailedError struct {
	// Policy is the name of the policy that failed ("parallel(tavily,exa)").
	Policy string
	// Op is the operation: "search" or "extract".
	Op string
	// Failures lists every provider's failure.
	Failures []provider.Failure
}

// kindPriority orders kinds from most to least actionable for
// [AllFailedError.Kind]: a failure that may pass on its own comes first,
// then those a user can fix by waiting, paying or changing a key, then
// those that need a different request.
var kindPriority = []provider.Kind{
	provider.KindTransient,
	provider.KindRateLimited,
	provider.KindQuota,
	provider.KindAuth,
	provider.KindBadRequest,
	provider.KindUnsupported,
	provider.KindUnknown,
	provider.KindCanceled,
}

// Kind returns the overall kind of the failure: when every provider failed
// with the same kind, that kind; otherwise the first kind present in the
// order transient, rate-limited, quota, auth, bad-request, unsupported,
// unknown, canceled. The order puts first what is most worth acting on: a
// transient failure anywhere means that trying again may succeed, which is
// better advice than any single provider's permanent failure.
func (e *AllFailedError) Kind() provider.Kind {
	if len(e.Failures) == 0 {
		return provider.KindUnknown
	}
	seen := make(map[provider.Kind]bool, len(e.Failures))
	for _, f := range e.Failures {
		seen[failureKind(f)] = true
	}
	if len(seen) == 1 {
		return failureKind(e.Failures[0])
	}
	for _, k := range kindPriority {
		if seen[k] {
			return k
		}
	}
	return provider.KindUnknown
}

func failureKind(f provider.Failure) provider.Kind {
	if f.Kind != "" {
		return f.Kind
	}
	if k := provider.KindOf(f.Err); k != "" {
		return k
	}
	return provider.KindUnknown
}

// Error lists every provider with its kind and error, for example
// "parallel(tavily,exa) search: all 2 providers failed: tavily: rate-limited
// (tavily search: rate-limited (HTTP 429)); exa: transient, timed out after
// 2s (…)". Provider errors never contain API keys, so neither does this.
func (e *AllFailedError) Error() string {
	var b strings.Builder
	b.WriteString(e.Policy)
	if e.Op != "" {
		b.WriteString(" ")
		b.WriteString(e.Op)
	}
	fmt.Fprintf(&b, ": all %d providers failed", len(e.Failures))
	for i, f := range e.Failures {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(f.Provider)
		b.WriteString(": ")
		b.WriteString(string(failureKind(f)))
		if f.TimedOut {
			fmt.Fprintf(&b, ", timed out after %v", f.Elapsed.Round(time.Millisecond))
		}
		if f.Err != nil {
			b.WriteString(" (")
			b.WriteString(f.Err.Error())
			b.WriteString(")")
		}
	}
	return b.String()
}

// Unwrap returns every provider's error, so that errors.Is and errors.As
// see them.
func (e *AllFailedError) Unwrap() []error {
	errs := make([]error, 0, len(e.Failures))
	for _, f := range e.Failures {
		if f.Err != nil {
			errs = append(errs, f.Err)
		}
	}
	return errs
}

// ProviderFailures returns Failures; [provider.FailuresOf] finds it in an
// error chain through this method.
func (e *AllFailedError) ProviderFailures() []provider.Failure { return e.Failures }

// canceledError is what a policy returns when its caller's context is
// canceled: kind canceled, wrapping the context's error.
func canceledError(policy, op string, ctx context.Context) error {
	return &provider.Error{Provider: policy, Op: op, Kind: provider.KindCanceled, Message: "canceled", Err: ctx.Err()}
}

// timeoutError is the error recorded for a provider that did not answer
// within its deadline.
func timeoutError(name, op string, after time.Duration) error {
	return &provider.Error{
		Provider: name, Op: op, Kind: provider.KindTransient,
		Message: fmt.Sprintf("no answer within %v", after.Round(time.Millisecond)),
		Err:     context.DeadlineExceeded,
	}
}

// panicError is the error recorded for a provider that panicked: the policy
// recovers so that one faulty provider cannot bring the process down. The
// panic value is left out of the message, as it could hold anything.
func panicError(name, op string) error {
	return &provider.Error{Provider: name, Op: op, Kind: provider.KindUnknown, Message: "provider panicked"}
}

// Failures returns the per-provider failures err carries; see
// [provider.FailuresOf].
//
// Deprecated: use [provider.FailuresOf], its one home.
func Failures(err error) []provider.Failure { return provider.FailuresOf(err) }
