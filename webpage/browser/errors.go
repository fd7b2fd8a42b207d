package browser

import (
	"errors"
	"fmt"
	"strings"
)

// Kind says in a word why [Render] gave no page.
type Kind string

// The kinds of [*Error].
const (
	// KindDisabled: Config.Path is "off".
	KindDisabled Kind = "disabled"
	// KindNotFound: no browser was found, or the configured path is not
	// an executable file.
	KindNotFound Kind = "not-found"
	// KindBadURL: the URL is not an absolute http or https URL with a
	// host and no credentials, or the configuration has no address rule.
	KindBadURL Kind = "bad-url"
	// KindBlocked: the page, a redirect or a navigation of the page's own
	// scripts went to a destination the address rule refused.
	KindBlocked Kind = "blocked-address"
	// KindStart: the browser did not start.
	KindStart Kind = "start-failed"
	// KindCrashed: the browser or the page's renderer died during the
	// render.
	KindCrashed Kind = "crashed"
	// KindMemory: the browser's processes grew past Config.MaxMemoryBytes
	// and were killed.
	KindMemory Kind = "memory-limit"
	// KindTimeout: the page did not load, or could not be read, within
	// the time allowed.
	KindTimeout Kind = "timed-out"
	// KindCanceled: the caller's context was canceled.
	KindCanceled Kind = "canceled"
	// KindNavigation: the page could not be loaded (a network error, an
	// error page, a download instead of a page) or navigated more than
	// Config.MaxNavigations times.
	KindNavigation Kind = "navigation-failed"
)

// Errors wrapped by [*Error], for errors.Is.
var (
	// ErrDisabled is wrapped by errors of kind [KindDisabled].
	ErrDisabled = errors.New("browser rendering is turned off")
	// ErrNotFound is wrapped by errors of kind [KindNotFound].
	ErrNotFound = errors.New("no browser found")
	// ErrNoAddressRule is returned when Config.CheckAddress is nil: the
	// renderer never runs a browser without an address rule.
	ErrNoAddressRule = errors.New("no address rule (Config.CheckAddress is nil)")
	// ErrBlocked is wrapped by errors of kind [KindBlocked]; the address
	// rule's own error is wrapped too.
	ErrBlocked = errors.New("destination refused")
	// ErrTooManyNavigations is wrapped by errors of kind [KindNavigation]
	// when the page navigated more than Config.MaxNavigations times.
	ErrTooManyNavigations = errors.New("too many navigations")
	// ErrMemoryLimit is wrapped by errors of kind [KindMemory].
	ErrMemoryLimit = errors.New("browser memory limit exceeded")
	// ErrCrashed is wrapped by errors of kind [KindCrashed].
	ErrCrashed = errors.New("browser crashed")
)

// Error is the error [Render] and [Find] return.
type Error struct {
	// Kind says what went wrong.
	Kind Kind
	// URL is the URL asked for; empty for [Find].
	URL string
	// Err is the underlying error.
	Err error
	// Decisions are the address decisions taken before the failure, in
	// order; see [Page.Decisions].
	Decisions []Decision
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("browser")
	if e.URL != "" {
		fmt.Fprintf(&b, " render of %s", e.URL)
	}
	fmt.Fprintf(&b, ": %s", e.Kind)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the [Kind] of err when it is an [*Error], and ""
// otherwise.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}
