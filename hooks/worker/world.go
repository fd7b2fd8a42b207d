package worker

import "strings"

// FileID names a file by its device and inode numbers; the zero FileID is
// a file that could not be read.
type FileID struct{ Dev, Ino uint64 }

// World is what a process resolves the paths and programs of a hook call
// in, and where its connections go: its user, mount, network and PID
// namespaces, its root directory and its working directory, each named by
// the file /proc shows for it (/proc/PID/ns/user, …, /proc/PID/root,
// /proc/PID/cwd; see [ProcWorld]). A warm worker and a front deal only
// with each other in one world: a key file, a configuration file, a
// fetch.pdftotext program or a loopback address named by a call then means
// what it means to the caller, and a call's keys go to no other world.
type World struct {
	User, Mnt, Net, PID FileID
	Root, Cwd           FileID
	// Confinement is what the kernel holds the process to beyond its
	// namespaces: the NoNewPrivs, Seccomp and Seccomp_filters lines of
	// /proc/PID/status (a Landlock or seccomp sandbox sets them); "" when
	// unreadable.
	Confinement string
}

// Diff returns what differs between the world w and other, or "" when
// nothing does. A part that could not be read (the zero [FileID]) on
// either side counts as different.
func (w World) Diff(other World) string {
	var diff []string
	for _, p := range []struct {
		name string
		a, b FileID
	}{
		{"user namespace", w.User, other.User},
		{"mount namespace", w.Mnt, other.Mnt},
		{"network namespace", w.Net, other.Net},
		{"PID namespace", w.PID, other.PID},
		{"root directory", w.Root, other.Root},
		{"working directory", w.Cwd, other.Cwd},
	} {
		if p.a != p.b || p.a == (FileID{}) {
			diff = append(diff, p.name)
		}
	}
	if w.Confinement != other.Confinement || w.Confinement == "" {
		diff = append(diff, "confinement (no_new_privs, seccomp)")
	}
	return strings.Join(diff, ", ")
}
