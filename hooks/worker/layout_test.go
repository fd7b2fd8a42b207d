//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package worker

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func TestLayout_NamesEachWorkersFilesBesideItsSocket(t *testing.T) {
	l := StateLayout("/s")
	if l.Dir != "/s/run" || l.StartLock() != "/s/run/start.lock" {
		t.Errorf("layout %+v, start lock %q", l, l.StartLock())
	}
	f := l.Files("0123456789abcdef")
	if f.Socket != "/s/run/0123456789abcdef.sock" || f.Lock() != f.Socket+".lock" || f.PID() != f.Socket+".pid" || f.Starting() != f.Socket+".starting" {
		t.Errorf("files %+v: %q %q %q", f, f.Lock(), f.PID(), f.Starting())
	}
	if StateLayout("") != (Layout{}) || LayoutFor(envOf()) != (Layout{}) {
		t.Error("no state directory, yet a layout")
	}
	got := Layouts(envOf("WEBGATE_STATE_DIR=/s", "XDG_RUNTIME_DIR=/run/user/7"))
	if len(got) != 2 || got[0].Dir != "/s/run" || got[1].Dir != "/run/user/7/webgate" {
		t.Errorf("Layouts = %+v", got)
	}
}

func TestLayout_ListsWorkersByTheirFilesAndServingByALiveProcess(t *testing.T) {
	l := StateLayout(t.TempDir())
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	serving, starting, dead, stray := l.Files("a"), l.Files("b"), l.Files("c"), l.Files("d")
	write(serving.Socket, "")
	write(serving.Lock(), "")
	write(serving.PID(), strconv.Itoa(os.Getpid())+"\n")
	write(starting.Starting(), "")
	// A pid file whose process is gone, and one whose socket is gone.
	write(dead.Socket, "")
	write(dead.PID(), "999999999\n")
	write(stray.PID(), strconv.Itoa(os.Getpid()))
	write(filepath.Join(l.Dir, "other.pid"), "1")
	names := func(fs []Files) []string {
		var out []string
		for _, f := range fs {
			out = append(out, filepath.Base(f.Socket))
		}
		return out
	}
	if got := names(l.Starting()); !slices.Equal(got, []string{"b.sock"}) {
		t.Errorf("Starting = %v", got)
	}
	if got := names(l.Locked()); !slices.Equal(got, []string{"a.sock"}) {
		t.Errorf("Locked = %v", got)
	}
	if got := names(l.Announced()); !slices.Equal(got, []string{"a.sock", "c.sock", "d.sock"}) {
		t.Errorf("Announced = %v", got)
	}
	if got := l.Serving(); !slices.Equal(got, []int{os.Getpid()}) {
		t.Errorf("Serving = %v, want this process only", got)
	}
	if pid, ok := dead.ReadPID(); !ok || pid != 999999999 {
		t.Errorf("ReadPID = %d %v", pid, ok)
	}
	if _, ok := starting.ReadPID(); ok {
		t.Error("a pid without a pid file")
	}
}
