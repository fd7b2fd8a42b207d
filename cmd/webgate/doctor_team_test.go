package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A Redis store shared by several machines without a shared salt file
// does not share key health: doctor says so and how to fix it; with one
// it says the file is shared. Port 1 on loopback refuses at once, so the
// store itself is unreachable here: the advice does not depend on it.
func TestDoctor_SharedStoreWithoutASaltFileWarns(t *testing.T) {
	h := newTestHost(t).withKey().register()
	h.env["WEBGATE_STORE"] = "redis://127.0.0.1:1/0"
	_, out, _ := h.run("", "doctor")
	line(t, out, `^  WARN\s+salt\s+store\.salt_file is not set: .*do not share key health`)
	line(t, out, `→ copy one salt file .* set store\.salt_file \(WEBGATE_STORE_SALT_FILE\)`)
	line(t, out, `^  INFO\s+log\.queries\s+full: `)

	salt := filepath.Join(h.dir, "team-salt")
	h.env["WEBGATE_STORE_SALT_FILE"] = salt
	h.env["WEBGATE_LOG_QUERIES"] = "hashed"
	_, out, _ = h.run("", "doctor")
	line(t, out, `^  OK\s+salt\s+store\.salt_file `+regexpQuote(salt)+` \(env WEBGATE_STORE_SALT_FILE\): machines that use the same file share key health`)
	if strings.Contains(out, "log.queries") {
		t.Errorf("hashed queries are not worth a line:\n%s", out)
	}
}

// A store on this machine alone needs neither line.
func TestDoctor_LocalStoreHasNoSharingAdvice(t *testing.T) {
	h := newTestHost(t).withKey().register()
	_, out, _ := h.run("", "doctor")
	if strings.Contains(out, "salt_file") || strings.Contains(out, "log.queries") {
		t.Errorf("sharing advice for a local store:\n%s", out)
	}
}
