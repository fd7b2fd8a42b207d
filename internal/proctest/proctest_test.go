//go:build linux

package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestProcesses(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "held"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	me := os.Getpid()
	if !Running(me) || !Holds(me, f.Name()) || Holds(me, f.Name()+"x") {
		t.Error("this process: running and holding its file")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	pid := cmd.Process.Pid
	// Start returns once the child is forked; its command line is the
	// new program's only once the exec is done.
	for deadline := time.Now().Add(5 * time.Second); !Runs(pid, "sleep", "30") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if !Running(pid) || !Runs(pid, "sleep", "30") || Runs(pid, "sleep", "31") {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		t.Errorf("sleep 30: running %v, command line %q", Running(pid), cmdline)
	}
	_ = cmd.Process.Kill()
	_, _ = cmd.Process.Wait()
	if Running(pid) {
		t.Error("a reaped process still runs")
	}
}
