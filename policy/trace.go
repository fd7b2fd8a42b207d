package policy

import (
	"fmt"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// Observer is told how each call of a policy went: which providers were
// tried, how each attempt ended and how long it took. Frontends set one in
// debug mode to print a trace; policies never print anything themselves.
//
// A policy calls its Observer once per Search or Extract, synchronously,
// just before returning, from the calling goroutine. Calls on one policy
// may run concurrently, so an Observer must be safe for concurrent use. It
// must not keep the Trace's slices beyond the call unless it copies them.
type Observer func(Trace)

// Trace describes one call of a policy.
type Trace struct {
	// Policy is the policy's name ("fallback(tavily,exa)").
	Policy string
	// Op is "search" or "extract".
	Op string
	// Attempts lists the providers in the order they were started. A
	// provider that was never started is absent.
	Attempts []Attempt
	// Elapsed is how long the whole call took.
	Elapsed time.Duration
	// Err is the error the call returned, or nil.
	Err error
}

// Attempt describes one provider call inside a policy.
type Attempt struct {
	// Provider is the provider's name.
	Provider string
	// Kind is the failure's kind, or "" when the attempt succeeded or was
	// superseded.
	Kind provider.Kind
	// TimedOut is true when the provider did not answer within its own
	// deadline.
	TimedOut bool
	// Superseded is true when another provider answered first and this
	// attempt was canceled before it finished.
	Superseded bool
	// Results is how many search results the attempt contributed after
	// domain filtering, or 1 for an extracted page.
	Results int
	// Elapsed is how long the attempt ran (until the policy stopped
	// waiting for it, for timed-out and superseded attempts).
	Elapsed time.Duration
	// Err is the provider's error, or nil.
	Err error
}

// String renders the attempt on one line for debug output, for example
// "tavily: ok, 5 results, 812ms" or "exa: transient, timed out, 2s".
func (a Attempt) String() string {
	d := a.Elapsed.Round(time.Millisecond)
	switch {
	case a.Superseded:
		return fmt.Sprintf("%s: superseded, %v", a.Provider, d)
	case a.Kind != "" && a.TimedOut:
		return fmt.Sprintf("%s: %s, timed out, %v", a.Provider, a.Kind, d)
	case a.Kind != "":
		return fmt.Sprintf("%s: %s, %v", a.Provider, a.Kind, d)
	case a.Results == 1:
		return fmt.Sprintf("%s: ok, 1 result, %v", a.Provider, d)
	default:
		return fmt.Sprintf("%s: ok, %d results, %v", a.Provider, a.Results, d)
	}
}

// String renders the trace on one line for debug output, for example
// "fallback(tavily,exa) search in 930ms: tavily: rate-limited, 120ms; exa:
// ok, 5 results, 810ms".
func (t Trace) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s in %v", t.Policy, t.Op, t.Elapsed.Round(time.Millisecond))
	for i, a := range t.Attempts {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(a.String())
	}
	if t.Err != nil {
		fmt.Fprintf(&b, " => %s", provider.KindOf(t.Err))
	}
	return b.String()
}

// attemptOf turns a failure into its trace entry.
func attemptOf(f provider.Failure) Attempt {
	return Attempt{Provider: f.Provider, Kind: failureKind(f), TimedOut: f.TimedOut, Elapsed: f.Elapsed, Err: f.Err}
}

// observe reports one call of a policy to o, when o is set: the policy's
// name, the operation, the attempts made and the error returned (read
// when observe runs, deferred at the start of the call), and the time
// since start.
func (o Observer) observe(policy, op string, start time.Time, attempts *[]Attempt, err *error) {
	if o != nil {
		o(Trace{Policy: policy, Op: op, Attempts: *attempts, Elapsed: time.Since(start), Err: *err})
	}
}
