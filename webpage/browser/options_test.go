package browser

import (
	"context"
	"errors"
	"testing"
)

// TestRender_NilConfigMeansDefaults: a nil *Config renders with the
// defaults and the probe's default address rule, so a literal private or
// metadata address is refused before any browser starts.
func TestRender_NilConfigMeansDefaults(t *testing.T) {
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:9/", "http://[::1]:9/"} {
		p, err := Render(context.Background(), u, nil)
		if p != nil || KindOf(err) != KindBlocked || !errors.Is(err, ErrBlocked) {
			t.Errorf("Render(%s, nil) = %v, %v; want blocked", u, p, err)
		}
	}
	if _, err := Render(context.Background(), "file:///etc/passwd", nil); KindOf(err) != KindBadURL {
		t.Errorf("Render(file URL, nil) = %v; want a bad URL", err)
	}
}
