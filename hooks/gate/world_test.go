package hookenv

import "testing"

func TestWorldDiff_AnyPartThatDiffersOrIsUnknownRefuses(t *testing.T) {
	self := world{
		user: fileID{4, 4026531837}, mnt: fileID{4, 4026531841}, net: fileID{4, 4026531840},
		pid: fileID{4, 4026531836}, root: fileID{2049, 2}, cwd: fileID{2049, 1234},
	}
	with := func(f func(w *world)) world { w := self; f(&w); return w }
	cases := []struct {
		name string
		peer world
		want string
	}{
		{"the same world", self, ""},
		{"another user namespace", with(func(w *world) { w.user.ino++ }), "user namespace"},
		{"another mount namespace", with(func(w *world) { w.mnt.ino++ }), "mount namespace"},
		{"another network namespace", with(func(w *world) { w.net.ino++ }), "network namespace"},
		{"another PID namespace", with(func(w *world) { w.pid.ino++ }), "PID namespace"},
		{"a chroot", with(func(w *world) { w.root.ino = 99 }), "root directory"},
		{"a root on another device", with(func(w *world) { w.root.dev = 7 }), "root directory"},
		{"another working directory", with(func(w *world) { w.cwd.ino = 99 }), "working directory"},
		{"a sandbox", with(func(w *world) { w.user.ino++; w.net.ino++ }), "user namespace, network namespace"},
		{"unreadable", world{}, "user namespace, mount namespace, network namespace, PID namespace, root directory, working directory"},
		{"one part unreadable", with(func(w *world) { w.pid = fileID{} }), "PID namespace"},
	}
	for _, c := range cases {
		if got := worldDiff(self, c.peer); got != c.want {
			t.Errorf("%s: worldDiff = %q, want %q", c.name, got, c.want)
		}
	}
	// A worker that cannot read its own world serves no one.
	if got := worldDiff(world{}, world{}); got == "" {
		t.Error("two unknown worlds were taken for the same")
	}
}
