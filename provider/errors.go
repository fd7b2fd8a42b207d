package provider

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// Kind classifies a provider failure. The set is closed: every error a
// backend returns has exactly one of these kinds, and policies decide what
// to do from the kind alone.
type Kind string

// The kinds of failure.
const (
	// KindAuth: the key is missing, invalid or revoked (HTTP 401, a 403 that
	// names the key).
	KindAuth Kind = "auth"
	// KindQuota: credits or the plan are exhausted (Tavily 432/433, Exa 402
	// with NO_MORE_CREDITS or a budget tag, WebSearchAPI.ai 402). Not
	// retried with the same key.
	KindQuota Kind = "quota"
	// KindRateLimited: too many requests right now (HTTP 429); retried after
	// Retry-After, or with another key.
	KindRateLimited Kind = "rate-limited"
	// KindTransient: the provider or the network failed in a way that may
	// pass (5xx, connection errors, timeouts).
	KindTransient Kind = "transient"
	// KindBadRequest: the provider rejected the request itself (HTTP 400,
	// 404, 422 on a request field).
	KindBadRequest Kind = "bad-request"
	// KindUnsupported: the URL cannot be extracted (the provider reported it
	// as failed, not found, prohibited, or returned no content).
	KindUnsupported Kind = "unsupported"
	// KindCanceled: the caller canceled the request.
	KindCanceled Kind = "canceled"
	// KindUnknown: anything else, including malformed or oversized
	// responses.
	KindUnknown Kind = "unknown"
)

// Kinds lists every kind, in a stable order.
var Kinds = []Kind{KindAuth, KindQuota, KindRateLimited, KindTransient, KindBadRequest, KindUnsupported, KindCanceled, KindUnknown}

// Retryable reports whether a request that failed with kind k may succeed
// when repeated with the same key: true for [KindTransient] and
// [KindRateLimited].
func (k Kind) Retryable() bool { return k == KindTransient || k == KindRateLimited }

// Rotatable reports whether a request that failed with kind k may succeed
// with another key of the same provider: true for [KindAuth], [KindQuota]
// and [KindRateLimited].
func (k Kind) Rotatable() bool { return k == KindAuth || k == KindQuota || k == KindRateLimited }

// Class is the user-facing failure class shown in hook output and
// diagnostics. Four of the names are the ones users of the older Node
// hooks know; [ClassRateLimited] tells a temporary limit apart from
// exhausted credits, and [Class.Legacy] gives the older name for it.
type Class string

// The user-facing failure classes.
const (
	ClassAuthFailed      Class = "auth-failed"
	ClassCreditOrQuota   Class = "credit-or-quota-failed"
	ClassRateLimited     Class = "rate-limited"
	ClassTransientFailed Class = "transient-provider-failed"
	ClassUnknown         Class = "unknown"
)

// Class maps k to its user-facing class: a rate limit is "rate-limited"
// (wait, or use another key), exhausted credits or plan
// "credit-or-quota-failed" (top up or change the plan).
func (k Kind) Class() Class {
	switch k {
	case KindAuth:
		return ClassAuthFailed
	case KindQuota:
		return ClassCreditOrQuota
	case KindRateLimited:
		return ClassRateLimited
	case KindTransient:
		return ClassTransientFailed
	}
	return ClassUnknown
}

// Legacy returns the name the older Node hooks used for c: rate limits were
// reported as credit-or-quota-failed. Output meant for scripts written
// against those hooks shows it alongside c.
func (c Class) Legacy() Class {
	if c == ClassRateLimited {
		return ClassCreditOrQuota
	}
	return c
}

// ClassOf returns the user-facing class of err; see [Kind.Class].
func ClassOf(err error) Class { return KindOf(err).Class() }

// Error is the one error type backends return. Its message never contains
// an API key or a response body beyond a short provider message.
type Error struct {
	// Provider is the backend's name ("tavily").
	Provider string
	// Op is the operation ("search", "extract").
	Op string
	// Status is the HTTP status, or 0 when no response was received.
	Status int
	// Kind classifies the failure.
	Kind Kind
	// RetryAfter is the wait the provider asked for (Retry-After), or 0.
	RetryAfter time.Duration
	// RequestID is the provider's request id, when it sent one.
	RequestID string
	// Tag is the provider's machine-readable error tag, when it sent one
	// (Exa "NO_MORE_CREDITS").
	Tag string
	// Message is a short human-readable description, scrubbed of secrets.
	Message string
	// Attempts is how many HTTP attempts were made, including retries and
	// key rotation.
	Attempts int
	// Err is the underlying cause, if any.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.Op != "" {
		b.WriteString(" ")
		b.WriteString(e.Op)
	}
	b.WriteString(": ")
	b.WriteString(string(e.Kind))
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.Status)
		if e.Tag != "" {
			b.WriteString(" ")
			b.WriteString(e.Tag)
		}
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	} else if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.RequestID != "" {
		b.WriteString(" [request ")
		b.WriteString(e.RequestID)
		b.WriteString("]")
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// KindOf classifies any error: "" for nil; the kind of the first error in
// the chain that knows its own — an [*Error], or an error with a
// Kind() Kind method, such as a policy's summary of several providers'
// failures; [KindCanceled] for context.Canceled; [KindTransient] for
// deadlines, timeouts and network failures; [KindUnknown] otherwise.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var k kinded
	if errors.As(err, &k) {
		if kind := k.Kind(); kind != "" {
			return kind
		}
	}
	var pe *Error
	if errors.As(err, &pe) && pe.Kind != "" {
		return pe.Kind
	}
	return transportKind(err)
}

// kinded is an error that classifies itself, such as a policy's summary of
// several providers' failures.
type kinded interface {
	error
	Kind() Kind
}

// transportKind classifies an error that carries no HTTP status by its
// type: the context's own errors, then network, TLS and connection errors.
// Every error net/http returns from a request is a *url.Error, which is a
// net.Error, so no message text is read.
func transportKind(err error) Kind {
	switch {
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return KindTransient
	case errors.Is(err, errBodyTooLarge):
		return KindUnknown
	}
	var (
		netErr  net.Error
		certErr *tls.CertificateVerificationError
		alert   tls.AlertError
		record  tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &netErr), errors.As(err, &certErr), errors.As(err, &alert), errors.As(err, &record):
		return KindTransient
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, http.ErrHandlerTimeout):
		return KindTransient
	}
	return KindUnknown
}

// FailuresOf returns the per-provider failures err carries: those of an
// error that lists them (a policy's summary, see ProviderFailures) anywhere
// in its chain, else one for each [*Error] in its tree (errors.Join and
// friends). It returns nil when err carries no provider failure.
func FailuresOf(err error) []Failure {
	var l failureLister
	if errors.As(err, &l) {
		if fs := l.ProviderFailures(); len(fs) > 0 {
			return fs
		}
	}
	var out []Failure
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, c := range j.Unwrap() {
				walk(c)
			}
			return
		}
		var pe *Error
		if errors.As(e, &pe) {
			out = append(out, Failure{Provider: pe.Provider, Kind: KindOf(e), Err: e})
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

// FailuresOr returns the per-provider failures err carries
// ([FailuresOf]), or, when it carries none, one failure of err itself
// named name.
func FailuresOr(err error, name string) []Failure {
	if out := FailuresOf(err); len(out) > 0 {
		return out
	}
	return []Failure{{Provider: name, Kind: KindOf(err), Err: err}}
}

// failureLister is an error that lists several providers' failures.
type failureLister interface {
	error
	ProviderFailures() []Failure
}
