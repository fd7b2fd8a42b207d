package webpage

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestProbe_NilConfigMeansDefaults: a nil *ProbeConfig probes with the
// defaults, private addresses refused.
func TestProbe_NilConfigMeansDefaults(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>hi</body></html>"))
	}))
	defer s.Close()
	if _, err := Probe(context.Background(), s.URL, nil); !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("Probe(loopback, nil) = %v, want ErrBlockedAddress", err)
	}
	if _, err := Probe(context.Background(), "ftp://example.com/", nil); !errors.Is(err, ErrUnsupportedURL) {
		t.Fatalf("Probe(ftp, nil) = %v, want ErrUnsupportedURL", err)
	}
}
