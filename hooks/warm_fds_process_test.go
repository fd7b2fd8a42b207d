//go:build linux

package hooks_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/proctest"
)

// A warm worker keeps only what it opened itself: a descriptor of the
// call that started it would keep that call's caller waiting.

func TestWarmWorker_KeepsNoneOfItsCallersDescriptors(t *testing.T) {
	f := newTavilyFake(t)
	state := warmState(t)
	// The warm worker outlives the test's wait by far.
	env := warmEnv(t, state, f, workingKey, "WEBGATE_HOOKS_WORKER_IDLE=5m")
	pipe := func() (r, w *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	extraR, extraW := pipe()
	// As `x=$(websearch <payload 3>&1)` runs it: stdout a pipe its
	// caller reads to EOF, and a descriptor 3 left open.
	cmd := exec.Command(binary(t, "websearch"))
	cmd.Env = env
	cmd.Stdin, cmd.Stdout = inR, outW
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.ExtraFiles = []*os.File{extraW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	extraW.Close()
	if _, err := inW.Write(searchPayload("descriptors", goDomains, nil)); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	// Each pipe ends once every process holding its write end is gone:
	// the front and its worker exit at once, the warm worker must not
	// hold one.
	readAll := func(r *os.File) ([]byte, error) {
		_ = r.SetReadDeadline(time.Now().Add(30 * time.Second))
		return io.ReadAll(r)
	}
	stdout, err := readAll(outR)
	if err != nil {
		t.Errorf("stdout did not end: %v", err)
	}
	if _, err := readAll(extraR); err != nil {
		t.Errorf("descriptor 3 did not end: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the front: %v\n%s", err, errb.String())
	}
	if !bytes.Contains(stdout, []byte("Tavily: context package")) {
		t.Fatalf("not answered: %s\n%s", stdout, errb.String())
	}
	pid := warmPID(t, state, 0)
	if pid == 0 {
		t.Fatal("no warm worker started")
	}
	// It holds its standard streams on the null device, and none of the
	// caller's pipes (the front's standard input included).
	fds, err := proctest.Descriptors(pid)
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]string{}
	for name, r := range map[string]*os.File{"stdout": outR, "descriptor 3": extraR} {
		if target, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", r.Fd())); err == nil {
			ours[target] = name
		}
	}
	for fd, target := range fds {
		if fd <= 2 && target != "/dev/null" {
			t.Errorf("the warm worker's descriptor %d is %s, not the null device", fd, target)
		}
		if name, ok := ours[target]; ok {
			t.Errorf("the warm worker holds its caller's %s (descriptor %d, %s)", name, fd, target)
		}
		if strings.HasPrefix(target, "pipe:") {
			t.Errorf("the warm worker holds a pipe it did not open: descriptor %d, %s", fd, target)
		}
	}
}

// A warm worker started by something other than a hook worker (which
// marks what it inherited close-on-exec) still holds none of its
// starter's descriptors: serve closes them first thing.
func TestWarmWorker_ServeClosesWhatItInherited(t *testing.T) {
	state := shortDir(t)
	socket := filepath.Join(state, "run", "t.sock")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(binary(t, "webgate-hook"), "serve", "--idle", "1m", socket, "test-key")
	cmd.ExtraFiles = []*os.File{w} // descriptor 3, without close-on-exec
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	_ = r.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadAll(r); err != nil {
		t.Fatalf("the inherited descriptor did not end: %v", err)
	}
	if !proctest.Running(cmd.Process.Pid) {
		t.Fatal("the warm worker exited: its descriptors were not what ended the pipe")
	}
}
