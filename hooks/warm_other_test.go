//go:build !linux

package hooks_test

import "testing"

// The warm worker's process tests read /proc; elsewhere they are skipped.

func warmState(t *testing.T) string {
	t.Skip("the warm worker's process tests run on Linux")
	return ""
}

func warmEnv(t *testing.T, state string, f *tavilyFake, keys string, extra ...string) []string {
	return nil
}

func waitWarm(t *testing.T, state string) {}

// warmHelper runs the test binary as a helper of the warm worker's tests,
// on Linux only.
func warmHelper() (int, bool) { return 0, false }
