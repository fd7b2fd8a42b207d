//go:build linux

package proctest

import (
	"github.com/webgate-dev/webgate/hooks/worker"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
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
	if Stopped(pid) {
		t.Error("a running process counts as stopped")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if !WaitStopped(pid, 5*time.Second) {
		t.Error("a process sent SIGSTOP is not seen stopped")
	}
	_ = syscall.Kill(pid, syscall.SIGCONT)
	_ = cmd.Process.Kill()
	_, _ = cmd.Process.Wait()
	if Running(pid) || Stopped(pid) {
		t.Error("a reaped process still runs")
	}
}

func TestWarmWorker(t *testing.T) {
	state := t.TempDir()
	run := filepath.Join(state, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	// A process whose command line holds "webgate-hook serve", as a warm
	// worker's does.
	// Two commands, so that the shell stays and keeps its arguments.
	cmd := exec.Command("sh", "-c", "sleep 30; :", "webgate-hook", "serve")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skip("no sh:", err)
	}
	pid := cmd.Process.Pid
	stop := func() { _ = syscall.Kill(-pid, syscall.SIGKILL); _, _ = cmd.Process.Wait() }
	defer stop()
	for deadline := time.Now().Add(5 * time.Second); !Runs(pid, "webgate-hook", "serve") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	sock := filepath.Join(run, "0123456789abcdef.sock")
	if err := os.WriteFile(sock+".pid", []byte(strconv.Itoa(pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := WarmWorker(worker.StateLayout(state).Serving(), 0); got != 0 {
		t.Errorf("without its socket: %d, want 0", got)
	}
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := WarmWorker(worker.StateLayout(state).Serving(), 0); got != pid {
		t.Errorf("with its socket: %d, want %d", got, pid)
	}
	if got := WarmWorker(worker.StateLayout(state).Serving(), pid); got != 0 {
		t.Errorf("with its pid excepted: %d, want 0", got)
	}
	if got := WarmWorkers(worker.StateLayout(state).Serving()); len(got) != 1 || got[0] != pid {
		t.Errorf("WarmWorkers = %v, want [%d]", got, pid)
	}
	if err := os.WriteFile(sock+".pid", []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := WarmWorker(worker.StateLayout(state).Serving(), 0); got != 0 {
		t.Errorf("a pid file naming another program: %d, want 0", got)
	}
	stop()
	if !WaitGone(pid, 5*time.Second) {
		t.Errorf("process %d still runs after it was killed and reaped", pid)
	}
}

func TestDescriptors(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fds, err := Descriptors(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(r.Fd())))
	if got := fds[int(r.Fd())]; got == "" || got != want || got[:5] != "pipe:" {
		t.Errorf("the pipe's read end: %q, want %q", got, want)
	}
	if _, err := Descriptors(-1); err == nil {
		t.Error("a process that does not exist has descriptors")
	}
}
