package providertest

import "testing"

// RefusedAddr returns a loopback host:port that refuses connections until
// the test ends. On Unix the port stays bound (but not listening) for the
// whole test, so a server started by a parallel test cannot take it over
// and answer in its place.
func RefusedAddr(t testing.TB) string {
	t.Helper()
	addr, release, err := refusedAddr()
	if err != nil {
		t.Fatalf("providertest: reserving a refusing port: %v", err)
	}
	t.Cleanup(release)
	return addr
}
