//go:build linux

package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
	if !Running(pid) || !Runs(pid, "sleep", "30") || Runs(pid, "sleep", "31") {
		t.Error("sleep 30: running, and its command line")
	}
	_ = cmd.Process.Kill()
	_, _ = cmd.Process.Wait()
	if Running(pid) {
		t.Error("a reaped process still runs")
	}
}
