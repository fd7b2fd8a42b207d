package webtools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/webgate-dev/webgate/provider"
)

// Reason says why a search or fetch gave no answer. Frontends map it to
// their own signal: an exit code, a tool error.
type Reason string

// The reasons of an [*Error].
const (
	// BadInput: the request itself is unusable (no query, a URL that is
	// not http or https, a refused destination address).
	BadInput Reason = "bad-input"
	// NotConfigured: no provider has an API key for what was needed.
	NotConfigured Reason = "not-configured"
	// ProviderFailed: every provider that was tried failed; Class says
	// how.
	ProviderFailed Reason = "provider-failed"
	// PageUnavailable: the page could not be read and no provider was
	// asked (a 404, for example).
	PageUnavailable Reason = "page-unavailable"
)

// Error is the error [Tools.Search] and [Tools.Fetch] return. Its message is
// meant for the agent or user as is: it names the user-facing failure class
// of every provider that failed and never contains an API key.
type Error struct {
	Reason Reason
	// Class is the overall user-facing failure class when Reason is
	// [ProviderFailed]; empty otherwise.
	Class provider.Class
	// Failures lists each provider that failed, with its class.
	Failures []Failure
	// Message says what went wrong, in one or two sentences.
	Message string
	// TimedOut is set when the call ran out of time: its deadline passed
	// before it could answer ([Tools.SearchTimeout], [Tools.FetchTimeout]
	// or the caller's own), and Message then starts by saying so; or every
	// provider that was asked timed out.
	TimedOut bool
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// MessageUnder returns the message for a frontend that states class itself
// just before it, as an MCP tool error's label does: a provider whose own
// class is that class is named without it ("tavily" rather than "tavily
// (credit-or-quota-failed)"), so that the class is said once.
func (e *Error) MessageUnder(class provider.Class) string {
	msg := e.Message
	for _, f := range e.Failures {
		if f.Class != class {
			continue
		}
		short := f.Provider
		if d := f.detail(false); d != "" {
			short += " (" + d + ")"
		}
		msg = strings.Replace(msg, f.String(), short, 1)
	}
	return msg
}

// ReasonOf returns the [Reason] of err when it is an [*Error], and "" for
// nil or any other error.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// Failure is one provider that failed, as shown to users.
type Failure struct {
	// Provider is the provider's name.
	Provider string `json:"provider"`
	// Class is the user-facing failure class ([provider.Kind.Class]).
	Class provider.Class `json:"class"`
	// LegacyClass is the older name of Class ([provider.Class.Legacy]),
	// for scripts written against it; empty when the names agree.
	LegacyClass provider.Class `json:"legacy_class,omitempty"`
	// TimedOut is set when the provider ran out of time.
	TimedOut bool `json:"timed_out,omitempty"`
	// Cause says why, where it is known ("connection refused", "no such
	// host api.example", "skipped until 15:04:05: circuit open after 5
	// transient failures"); empty otherwise.
	Cause string `json:"cause,omitempty"`
}

// String renders the failure as "tavily (auth-failed)", with the cause
// when it is known: "tavily (transient-provider-failed: connection
// refused)".
func (f Failure) String() string {
	return f.Provider + " (" + f.detail(true) + ")"
}

// detail is what String puts in parentheses; withClass false leaves the
// class out (a frontend that states it once itself).
func (f Failure) detail(withClass bool) string {
	var parts []string
	if withClass {
		parts = append(parts, string(f.Class))
	}
	if f.TimedOut {
		parts = append(parts, "timed out")
	}
	s := strings.Join(parts, ", ")
	if f.Cause != "" {
		if s != "" {
			s += ": "
		}
		s += f.Cause
	}
	return s
}

func failureList(fs []Failure) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, ", ")
}

func failuresFrom(fs []provider.Failure) []Failure {
	out := make([]Failure, 0, len(fs))
	for _, f := range fs {
		k := f.Kind
		if k == "" {
			k = provider.KindOf(f.Err)
		}
		name := f.Provider
		if name == "" {
			name = "provider"
		}
		out = append(out, Failure{Provider: name, Class: k.Class(), LegacyClass: LegacyClass(k.Class()), TimedOut: f.TimedOut, Cause: causeOf(f.Err)})
	}
	return out
}

// LegacyClass returns the older name of c ([provider.Class.Legacy]) when it
// differs from c, and "" otherwise: the value of a legacy_class field.
func LegacyClass(c provider.Class) provider.Class {
	if l := c.Legacy(); l != c {
		return l
	}
	return ""
}

// failuresOf returns the per-provider failures carried by err: those of a
// policy's [policy.AllFailedError], else one per [*provider.Error] in err's
// tree, else one for err itself.
func failuresOf(err error, fallbackName string) []Failure {
	return failuresFrom(provider.FailuresOr(err, fallbackName))
}

// searchError builds the [ProviderFailed] error of a failed search. The
// message names each provider with its class; frontends state the overall
// class themselves (it is the Error's Class).
func searchError(err error, fallbackName string) *Error {
	fails := failuresOf(err, fallbackName)
	class := provider.ClassOf(err)
	msg := fmt.Sprintf("every provider failed: %s.", failureList(fails))
	if hint := classHint(class); hint != "" {
		msg += " " + hint
	}
	return &Error{Reason: ProviderFailed, Class: class, Failures: fails, Message: msg, TimedOut: allTimedOut(fails)}
}

// allTimedOut reports whether there are failures and every one timed out.
func allTimedOut(fails []Failure) bool {
	for _, f := range fails {
		if !f.TimedOut {
			return false
		}
	}
	return len(fails) > 0
}

// classHint says what a user can do about a failure class.
func classHint(c provider.Class) string {
	switch c {
	case provider.ClassAuthFailed:
		return "Check the API keys: the provider rejected them."
	case provider.ClassCreditOrQuota:
		return "The provider account is out of credits or over its quota."
	case provider.ClassRateLimited:
		return "The provider is rate limiting; wait a little or add another key."
	case provider.ClassTransientFailed:
		return "This may pass; try again shortly."
	}
	return ""
}
