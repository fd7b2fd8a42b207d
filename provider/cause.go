package provider

import (
	"crypto/x509"
	"errors"
	"net"
	"syscall"
)

// NetworkCause says in a few words why a request did not reach a
// provider, where err knows: "no such host api.example", "connection
// refused", "connection reset", "host unreachable", "TLS certificate not
// trusted", "DNS lookup of api.example failed". It returns "" for any
// other error, a timeout included (callers say that one themselves). The
// host name comes from the caller's configuration, not from the web;
// callers that show it still apply their terminal rule.
func NetworkCause(err error) string {
	if err == nil {
		return ""
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		switch {
		case dns.IsNotFound:
			return "no such host " + dns.Name
		case dns.IsTimeout:
			return ""
		}
		return "DNS lookup of " + dns.Name + " failed"
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
