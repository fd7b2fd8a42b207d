package webtools

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/webgate-dev/webgate/memory"
)

// maxCause caps a failure's cause, in runes.
const maxCause = 160

// causeOf says in a few words why a provider failed, where the error
// knows: the memory skipped it (a circuit breaker open until a time, every
// key parked, the monthly budget spent), the provider's host does not
// resolve or refuses connections, or its certificate is not trusted. It
// returns "" when the failure class (and its hint) says all there is: an
// HTTP error the provider classified, a timeout, an unknown error. The text is on one line with
// the terminal rule applied; [Tools] scrubs the secrets from it.
func causeOf(err error) string {
	if err == nil {
		return ""
	}
	var skip *memory.SkipError
	if errors.As(err, &skip) {
		if skip.Until.IsZero() {
			return shorten("skipped: "+skip.Why, maxCause)
		}
		return shorten(fmt.Sprintf("skipped until %s: %s", skip.Until.Local().Format("15:04:05"), skip.Why), maxCause)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		if dns.IsNotFound {
			return shorten("no such host "+dns.Name, maxCause)
		}
		if dns.IsTimeout {
			return ""
		}
		return shorten("DNS lookup of "+dns.Name+" failed", maxCause)
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	}
	var unknownCA x509.UnknownAuthorityError
	var badCert x509.CertificateInvalidError
	var badName x509.HostnameError
	if errors.As(err, &unknownCA) || errors.As(err, &badCert) || errors.As(err, &badName) {
		return "TLS certificate not trusted"
	}
	return ""
}
