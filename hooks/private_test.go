package hooks

import "testing"

func TestPrivateOnly_IsWhatAllowPrivateLifts(t *testing.T) {
	for u, want := range map[string]bool{
		"http://127.0.0.1:8080/a":          true,
		"http://127.1/":                    true,
		"http://[::1]/":                    true,
		"http://10.0.0.7/":                 true,
		"http://192.168.1.1/":              true,
		"http://app.localhost:3000/":       true,
		"http://db.internal/":              true,
		"http://169.254.169.254/latest/":   false,
		"http://metadata.google.internal/": false,
		"http://[fd00:ec2::254]/":          false,
		"http://224.0.0.1/":                false,
		"https://example.com/":             false,
		"file:///etc/passwd":               false,
		"not a url \x7f":                   false,
	} {
		if got := PrivateOnly(u); got != want {
			t.Errorf("PrivateOnly(%q) = %v, want %v", u, got, want)
		}
	}
}
