package webpage

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/webgate-dev/webgate/provider"
)

// ProbeFailure says in a word why the probe could not read a page.
type ProbeFailure string

// The probe failures. They are decided from the error's type, never from
// its message.
const (
	// ProbeTimeout: the page did not answer within the probe's time.
	ProbeTimeout ProbeFailure = "timed out"
	// ProbeTLS: the TLS handshake failed (an untrusted or mismatched
	// certificate, an interception proxy, a protocol error).
	ProbeTLS ProbeFailure = "TLS error"
	// ProbeRedirects: the page redirected more than [MaxRedirects] times.
	ProbeRedirects ProbeFailure = "too many redirects"
	// ProbeDNS: the host name could not be resolved.
	ProbeDNS ProbeFailure = "DNS lookup failed"
	// ProbeRefused: the server refused or reset the connection.
	ProbeRefused ProbeFailure = "connection refused"
	// ProbeNetwork: any other network or protocol failure.
	ProbeNetwork ProbeFailure = "network error"
)

// ProbeError is the error [Probe] returns when the page could not be read
// at all (a refused address or URL is [ErrBlockedAddress] or
// [ErrUnsupportedURL] instead). Failure classifies it.
type ProbeError struct {
	// Failure says what went wrong, in a word.
	Failure ProbeFailure
	// Err is the underlying error.
	Err error
}

// Error implements error.
func (e *ProbeError) Error() string {
	return string(e.Failure) + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *ProbeError) Unwrap() error { return e.Err }

// errTooManyRedirects is returned by the probe's redirect check.
var errTooManyRedirects = fmt.Errorf("stopped after %d redirects", MaxRedirects)

// probeError classifies a transport error by its type.
func probeError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrBlockedAddress) || errors.Is(err, ErrUnsupportedURL) {
		return err
	}
	if pe := (*ProbeError)(nil); errors.As(err, &pe) {
		return err
	}
	return &ProbeError{Failure: probeFailure(err), Err: err}
}

func probeFailure(err error) ProbeFailure {
	var (
		netErr   net.Error
		dnsErr   *net.DNSError
		certErr  *tls.CertificateVerificationError
		alertErr tls.AlertError
		recErr   tls.RecordHeaderError
		unknown  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	switch {
	case errors.Is(err, errTooManyRedirects):
		return ProbeRedirects
	case errors.Is(err, context.DeadlineExceeded):
		return ProbeTimeout
	case errors.As(err, &certErr), errors.As(err, &alertErr), errors.As(err, &recErr),
		errors.As(err, &unknown), errors.As(err, &hostErr), errors.As(err, &invalid):
		return ProbeTLS
	case errors.As(err, &dnsErr):
		if dnsErr.IsTimeout {
			return ProbeTimeout
		}
		return ProbeDNS
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return ProbeRefused
	case errors.As(err, &netErr) && netErr.Timeout():
		return ProbeTimeout
	}
	return ProbeNetwork
}

// FailureOf returns the [ProbeFailure] of an error [Probe] returned, or ""
// when err is nil or not a probe failure.
func FailureOf(err error) ProbeFailure {
	var pe *ProbeError
	if errors.As(err, &pe) {
		return pe.Failure
	}
	return ""
}

// ErrorKind says why [Reader.Read] gave no content.
type ErrorKind string

// The kinds of [*Error].
const (
	// KindBadURL: the URL is not an absolute http or https URL with a host
	// and no credentials.
	KindBadURL ErrorKind = "bad-url"
	// KindBlocked: the URL's host, a redirect or a resolved address is a
	// refused destination (loopback, private, metadata, …).
	KindBlocked ErrorKind = "blocked-address"
	// KindHTTPStatus: the page answered with an error status that does not
	// mean the reader was refused (404, 410, …); no provider is asked.
	KindHTTPStatus ErrorKind = "http-status"
	// KindNoProvider: the page needs an extraction provider, none is
	// configured, and the page's own text was not enough.
	KindNoProvider ErrorKind = "no-provider"
	// KindExtraction: every extraction provider failed and the page's own
	// text was not enough; Failures says how each failed.
	KindExtraction ErrorKind = "extraction-failed"
	// KindPrivate: the page needs an extraction provider, but its host
	// is, or resolves to, a private address (loopback, private,
	// link-local, cloud metadata, …), so it is not sent to one, and no
	// local tier could read it; Err says which address.
	KindPrivate ErrorKind = "private-address"
	// KindCanceled: the caller's context ended before the page was read.
	KindCanceled ErrorKind = "canceled"
)

// Error is the error [Reader.Read] and its steps return.
type Error struct {
	// Kind says what went wrong.
	Kind ErrorKind
	// URL is the URL asked for.
	URL string
	// Status is the page's HTTP status for [KindHTTPStatus].
	Status int
	// Why says, for [KindNoProvider], [KindExtraction] and [KindPrivate],
	// why the page
	// could not be used as served ("is mostly navigation and page
	// template").
	Why string
	// Failures lists each extraction provider that failed.
	Failures []provider.Failure
	// Misses says why each local tier could not read the page.
	Misses []string
	// LocalOnly says, for [KindNoProvider], that an extraction provider
	// is configured but the reading order ([LocalOnly]) sends it no page:
	// the configuration kept the page from it, no key is missing.
	LocalOnly bool
	// Err is the underlying error, when there is one.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	switch e.Kind {
	case KindBadURL:
		fmt.Fprintf(&b, "cannot read %s", e.URL)
	case KindBlocked:
		fmt.Fprintf(&b, "refusing to read %s", e.URL)
	case KindHTTPStatus:
		fmt.Fprintf(&b, "%s answered HTTP %d", e.URL, e.Status)
	case KindNoProvider:
		fmt.Fprintf(&b, "the page %s, and %s", e.Why, noProviderReason(e.LocalOnly))
	case KindExtraction:
		fmt.Fprintf(&b, "the page %s, and extraction failed: %s", e.Why, FailureSummary(e.Failures))
	case KindPrivate:
		if e.Why != "" {
			fmt.Fprintf(&b, "the page %s, no local reader could read it, and ", e.Why)
		}
		b.WriteString("a page at a private address is not sent to an extraction provider")
	case KindCanceled:
		b.WriteString("the read was canceled or ran out of time")
	default:
		b.WriteString(string(e.Kind))
	}
	if e.Err != nil && e.Kind != KindExtraction {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the [ErrorKind] of err when it is an [*Error], and ""
// otherwise.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// FailureSummary renders failures as "tavily (auth-failed), exa
// (transient-provider-failed, timed out)".
func FailureSummary(fails []provider.Failure) string {
	parts := make([]string, 0, len(fails))
	for _, f := range fails {
		parts = append(parts, f.String())
	}
	return strings.Join(parts, ", ")
}

// unwrapURL returns the cause inside a *url.Error.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
