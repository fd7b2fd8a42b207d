package provider_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/webgate-dev/webgate/provider"
)

// TestNewHTTP_NilConfigMeansDefaults: a nil *HTTPConfig is an HTTP with
// the defaults that performs requests.
func TestNewHTTP_NilConfigMeansDefaults(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	resp, err := provider.NewHTTP(nil).Do(context.Background(), nil, provider.Request{Provider: "fake", Method: http.MethodGet, URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != `{"ok":true}` {
		t.Fatalf("body = %q", resp.Body)
	}
}
