package browser

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/webpage"
)

// Renderer is a page reader's render tier as it is: an app shell, which
// shows its text only after its script ran, is read rendered.
func TestRenderer_IsTheReadersRenderTier(t *testing.T) {
	needBrowser(t)
	body := strings.Repeat("The ice is thin near the weir. ", 12)
	reader := &webpage.Reader{
		Probe:    webpage.ProbeConfig{AllowPrivate: true, Timeout: 10 * time.Second},
		Renderer: Renderer{Config: testConfig()},
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := reader.Read(ctx, webpage.Request{URL: fakeweb.AppShell(t, body), NoFallback: true})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if res.Source != webpage.SourceRendered || !strings.Contains(res.Content, "The ice is thin near the weir.") {
		t.Errorf("Read = source %q, content %.120q; want the rendered page", res.Source, res.Content)
	}
}

// Renderer returns the errors of Render as they are, so that their kind
// and decisions reach the reader; a refused address starts no browser.
func TestRenderer_ReturnsRendersErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		url  string
		want Kind
	}{
		{"no address rule", Config{}, "http://127.0.0.1:9/", KindBadURL},
		{"refused address", Config{CheckAddress: func(netip.Addr) error { return errors.New("refused") }}, "http://127.0.0.1:9/", KindBlocked},
		{"bad URL", Config{CheckAddress: testRule}, "file:///etc/passwd", KindBadURL},
		{"browser off", Config{CheckAddress: testRule, Path: "off"}, "http://127.0.0.1:9/", KindDisabled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := Renderer{Config: tc.cfg}.Render(context.Background(), tc.url)
			var e *Error
			if page != nil || !errors.As(err, &e) || e.Kind != tc.want {
				t.Errorf("Render = %v, %v; want a %s *Error", page, err, tc.want)
			}
		})
	}
}
