package worker

import "testing"

func TestWorldDiff_AnyPartThatDiffersOrIsUnknownCounts(t *testing.T) {
	self := World{
		User: FileID{4, 4026531837}, Mnt: FileID{4, 4026531841}, Net: FileID{4, 4026531840},
		PID: FileID{4, 4026531836}, Root: FileID{2049, 2}, Cwd: FileID{2049, 1234},
		Confinement: "NoNewPrivs=0 Seccomp=0 Seccomp_filters=0",
	}
	with := func(f func(w *World)) World { w := self; f(&w); return w }
	cases := []struct {
		name  string
		other World
		want  string
	}{
		{"the same world", self, ""},
		{"another user namespace", with(func(w *World) { w.User.Ino++ }), "user namespace"},
		{"another mount namespace", with(func(w *World) { w.Mnt.Ino++ }), "mount namespace"},
		{"another network namespace", with(func(w *World) { w.Net.Ino++ }), "network namespace"},
		{"another PID namespace", with(func(w *World) { w.PID.Ino++ }), "PID namespace"},
		{"a chroot", with(func(w *World) { w.Root.Ino = 99 }), "root directory"},
		{"a root on another device", with(func(w *World) { w.Root.Dev = 7 }), "root directory"},
		{"another working directory", with(func(w *World) { w.Cwd.Ino = 99 }), "working directory"},
		{"a sandbox", with(func(w *World) { w.User.Ino++; w.Net.Ino++ }), "user namespace, network namespace"},
		{"no_new_privs (a Landlock sandbox)", with(func(w *World) { w.Confinement = "NoNewPrivs=1 Seccomp=0 Seccomp_filters=0" }), "confinement (no_new_privs, seccomp)"},
		{"a seccomp filter", with(func(w *World) { w.Confinement = "NoNewPrivs=1 Seccomp=2 Seccomp_filters=1" }), "confinement (no_new_privs, seccomp)"},
		{"unknown confinement", with(func(w *World) { w.Confinement = "" }), "confinement (no_new_privs, seccomp)"},
		{"unreadable", World{}, "user namespace, mount namespace, network namespace, PID namespace, root directory, working directory, confinement (no_new_privs, seccomp)"},
		{"one part unreadable", with(func(w *World) { w.PID = FileID{} }), "PID namespace"},
	}
	for _, c := range cases {
		if got := self.Diff(c.other); got != c.want {
			t.Errorf("%s: Diff = %q, want %q", c.name, got, c.want)
		}
		if got := c.other.Diff(self); got != c.want {
			t.Errorf("%s, the other way round: Diff = %q, want %q", c.name, got, c.want)
		}
	}
	// Two worlds that cannot be read are not taken for the same.
	if got := (World{}).Diff(World{}); got == "" {
		t.Error("two unknown worlds were taken for the same")
	}
}
