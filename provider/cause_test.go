package provider_test

import (
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/provider"
)

func TestNetworkCause_NamesWhatStoppedTheRequest(t *testing.T) {
	addr := fakeweb.RefusedAddr(t)
	_, refused := http.Get("http://" + addr + "/")
	for want, err := range map[string]error{
		"connection refused":               &provider.Error{Provider: "p", Kind: provider.KindTransient, Err: refused},
		"no such host api.example":         fmt.Errorf("search: %w", &net.DNSError{Err: "no such host", Name: "api.example", IsNotFound: true}),
		"DNS lookup of api.example failed": &net.DNSError{Err: "server misbehaving", Name: "api.example"},
		"":                                 &net.DNSError{Err: "i/o timeout", Name: "api.example", IsTimeout: true},
		"TLS certificate not trusted":      fmt.Errorf("tls: %w", x509.UnknownAuthorityError{}),
	} {
		if got := provider.NetworkCause(err); got != want {
			t.Errorf("NetworkCause(%v) = %q, want %q", err, got, want)
		}
	}
	if got := provider.NetworkCause(&provider.Error{Provider: "p", Kind: provider.KindAuth, Status: 401}); got != "" {
		t.Errorf("an HTTP error has a network cause: %q", got)
	}
}
