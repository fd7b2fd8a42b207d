package worker

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The suffixes of a warm worker's files, after its socket's name.
const (
	lockSuffix     = ".lock"
	pidSuffix      = ".pid"
	startingSuffix = ".starting"
	socketSuffix   = ".sock"
)

// Layout names the files of the warm workers whose sockets are in one
// directory: "run" in the state directory ([LayoutFor]), or
// $XDG_RUNTIME_DIR/webgate when the state directory's path is too long
// for a socket ([RuntimeLayout]). Each warm worker has a [Files] there,
// and the directory one start lock ([Layout.StartLock]) under which warm
// workers are counted and started. The zero Layout names no directory.
type Layout struct {
	// Dir is the directory.
	Dir string
}

// StateLayout returns the layout of the warm workers of the state
// directory state: its "run" directory.
func StateLayout(state string) Layout {
	if state == "" {
		return Layout{}
	}
	return Layout{Dir: filepath.Join(state, "run")}
}

// LayoutFor returns the layout of the state directory the environment
// gives ([StateDir]), or the zero Layout when none is known.
func LayoutFor(env Env) Layout { return StateLayout(StateDir(env)) }

// RuntimeLayout returns the layout of $XDG_RUNTIME_DIR/webgate, where a
// socket goes when the state directory's path is too long for one, or the
// zero Layout.
func RuntimeLayout(env Env) Layout {
	if x, ok := env("XDG_RUNTIME_DIR"); ok && filepath.IsAbs(x) {
		return Layout{Dir: filepath.Join(x, "webgate")}
	}
	return Layout{}
}

// Layouts returns every layout a warm worker of the environment may use:
// [LayoutFor] and [RuntimeLayout], those that name a directory.
func Layouts(env Env) []Layout {
	var out []Layout
	for _, l := range []Layout{LayoutFor(env), RuntimeLayout(env)} {
		if l.Dir != "" {
			out = append(out, l)
		}
	}
	return out
}

// StartLock is the file under which warm workers are counted and
// started.
func (l Layout) StartLock() string { return filepath.Join(l.Dir, "start.lock") }

// Files returns the files of the warm worker named name (the first 16
// hexadecimal digits of its key, see [SocketFor]).
func (l Layout) Files(name string) Files {
	return Files{Socket: filepath.Join(l.Dir, name+socketSuffix)}
}

// Starting lists the warm workers that have a start marker.
func (l Layout) Starting() []Files { return l.with(startingSuffix) }

// Locked lists the warm workers that have a lock file (held or left
// behind).
func (l Layout) Locked() []Files { return l.with(lockSuffix) }

// Announced lists the warm workers that have a pid file.
func (l Layout) Announced() []Files { return l.with(pidSuffix) }

// with lists the warm workers that have the file of suffix, as the
// directory holds them now.
func (l Layout) with(suffix string) []Files {
	if l.Dir == "" {
		return nil
	}
	names, _ := filepath.Glob(filepath.Join(l.Dir, "*"+socketSuffix+suffix))
	out := make([]Files, 0, len(names))
	for _, n := range names {
		out = append(out, Files{Socket: strings.TrimSuffix(n, suffix)})
	}
	return out
}

// Serving returns the process ids of the warm workers serving in the
// directory: those whose pid file names a running process and whose
// socket is there.
func (l Layout) Serving() []int {
	var pids []int
	for _, f := range l.Announced() {
		pid, ok := f.ReadPID()
		if !ok || !alive(pid) {
			continue
		}
		if _, err := os.Lstat(f.Socket); err != nil {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// alive reports whether a process pid exists (signal 0 reaches it).
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// Files names the files of one warm worker, all beside its socket: the
// lock file it holds while it serves (Lock), the file holding its process
// id (PID), and the marker of a start under way (Starting).
type Files struct {
	// Socket is the Unix socket's path.
	Socket string
}

// Lock is the lock file a warm worker holds (flock) while it serves.
func (f Files) Lock() string { return f.Socket + lockSuffix }

// PID is the file holding the warm worker's process id.
func (f Files) PID() string { return f.Socket + pidSuffix }

// Starting is the marker of a start of this warm worker under way.
func (f Files) Starting() string { return f.Socket + startingSuffix }

// ReadPID returns the process id in the pid file, and whether it holds
// one (above 1).
func (f Files) ReadPID() (int, bool) {
	b, err := os.ReadFile(f.PID())
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil && pid > 1
}
