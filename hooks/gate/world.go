package hookenv

import "strings"

// fileID names a file by its device and inode numbers; the zero fileID is
// a file that could not be read.
type fileID struct{ dev, ino uint64 }

// world is what a process resolves the paths and programs of a call in,
// and where its connections go: its user, mount, network and PID
// namespaces, its root directory and its working directory, each named by
// the file /proc shows for it (/proc/PID/ns/user, …, /proc/PID/root,
// /proc/PID/cwd). A warm worker serves only callers of its own world: a
// key file, a configuration file, a fetch.pdftotext program or a loopback
// address named by a call then means what it means to the caller.
type world struct {
	user, mnt, net, pid fileID
	root, cwd           fileID
}

// worldDiff returns what differs between the worker's world and a
// caller's, or "" when nothing does. A part that could not be read (the
// zero fileID) on either side counts as different.
func worldDiff(self, peer world) string {
	var diff []string
	for _, p := range []struct {
		name string
		a, b fileID
	}{
		{"user namespace", self.user, peer.user},
		{"mount namespace", self.mnt, peer.mnt},
		{"network namespace", self.net, peer.net},
		{"PID namespace", self.pid, peer.pid},
		{"root directory", self.root, peer.root},
		{"working directory", self.cwd, peer.cwd},
	} {
		if p.a != p.b || p.a == (fileID{}) {
			diff = append(diff, p.name)
		}
	}
	return strings.Join(diff, ", ")
}
