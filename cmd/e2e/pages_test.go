package e2e

import (
	"encoding/pem"
	"net/http"
	"path/filepath"
	"testing"
)

// PageServer is an HTTPS server on 127.0.0.1 for the native WebFetch path,
// which upgrades http:// to https:// even for loopback addresses.
type PageServer struct {
	// URL is the server's base URL, for example "https://127.0.0.1:40123".
	URL string
	// CAFile is a PEM file holding the server's self-signed certificate;
	// pass it to the CLI as NODE_EXTRA_CA_CERTS (see Env).
	CAFile string
}

// NewPageServer starts an HTTPS server on 127.0.0.1 serving h, closed when
// the test ends. Connections are closed after each response.
func NewPageServer(t testing.TB, h http.Handler) *PageServer {
	t.Helper()
	s := newLoopbackServerTLS(t, h)
	s.Config.SetKeepAlivesEnabled(false)
	t.Cleanup(s.Close)
	ca := filepath.Join(t.TempDir(), "page-ca.pem")
	writeFile(t, ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}))
	return &PageServer{URL: s.URL, CAFile: ca}
}

// Env returns the environment that makes the CLI trust the server.
func (p *PageServer) Env() map[string]string {
	return map[string]string{"NODE_EXTRA_CA_CERTS": p.CAFile}
}
