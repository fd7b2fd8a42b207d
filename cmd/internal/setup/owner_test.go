//go:build unix

package setup

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestApply_KeepsTheSettingsOwner: an install run as root (sudo -E) into
// another user's settings leaves the file and its backup that user's, with
// their mode, and so does the uninstall.
func TestApply_KeepsTheSettingsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	path := e.settingsPath()
	mustWrite(t, path, []byte(userSettings), 0o640)
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Skip("chown:", err)
	}
	owner := func(what, p string) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != 65534 || st.Gid != 65534 || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: uid %d gid %d mode %v, want 65534 65534 -rw-r-----", what, st.Uid, st.Gid, fi.Mode().Perm())
		}
	}
	for _, plan := range []func(Options) (*Plan, error){PlanInstall, PlanUninstall} {
		p, err := plan(o)
		if err != nil {
			t.Fatal(err)
		}
		backup, err := p.Apply(o.Now)
		if err != nil {
			t.Fatal(err)
		}
		owner("settings", path)
		owner("backup", backup)
		prev := o.Now
		o.Now = func() time.Time { return prev().Add(time.Second) }
	}
}
