//go:build linux

// Package proctest reads what tests need to know of processes from
// /proc: whether one still runs, and what it runs, so that a test stops
// only the processes it started; and which warm hook worker serves a
// state directory.
package proctest

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// Running reports whether process pid exists and is not a zombie waiting
// to be reaped.
func Running(pid int) bool {
	st, ok := state("/proc/" + strconv.Itoa(pid) + "/stat")
	return ok && st != 'Z'
}

// state returns the state letter of the stat file at path (R, S, T, Z,
// …); 0 when the file is there but its state cannot be read, and false
// when it cannot be read at all.
func state(path string) (byte, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	// The state follows the command's closing parenthesis.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2], true
	}
	return 0, true
}

// Runs reports whether process pid's command line holds args, in order
// and next to each other (for example "webgate-hook", "serve"): a check
// that the pid was not taken over by another program.
func Runs(pid int, args ...string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	want := []byte(strings.Join(args, "\x00"))
	return bytes.Contains(b, want)
}

// Holds reports whether process pid has the file path open.
func Holds(pid int, path string) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if target, err := os.Readlink(dir + "/" + fd.Name()); err == nil && target == path {
			return true
		}
	}
	return false
}

// Stopped reports whether every thread of process pid is stopped by a
// signal (state T): a SIGSTOP takes effect thread by thread as each is
// next scheduled, so on a busy machine a thread can still run for a
// moment after kill returns.
func Stopped(pid int) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		if st, _ := state(dir + "/" + task.Name() + "/stat"); st != 'T' {
			return false
		}
	}
	return true
}

// WaitStopped waits up to d for every thread of process pid to be
// stopped, and reports whether they were.
func WaitStopped(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); !Stopped(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// WaitGone waits up to d for process pid to end, and reports whether it
// did.
func WaitGone(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); Running(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// WarmWorker returns, of serving (the pids a warm worker's layout shows
// serving a state directory: worker.StateLayout(state).Serving()), the
// first other than except whose process runs "webgate-hook serve"; 0 when
// there is none.
func WarmWorker(serving []int, except int) int {
	for _, pid := range WarmWorkers(serving) {
		if pid != except {
			return pid
		}
	}
	return 0
}

// WarmWorkers returns those of serving (see [WarmWorker]) whose process
// runs "webgate-hook serve".
func WarmWorkers(serving []int) []int {
	var pids []int
	for _, pid := range serving {
		if Running(pid) && Runs(pid, "webgate-hook", "serve") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Descriptors returns what process pid's open descriptors lead to, by
// number ("/dev/null", "pipe:[1234]", "socket:[5678]", a path).
func Descriptors(pid int) (map[int]string, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[int]string, len(ents))
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink(dir + "/" + e.Name()); err == nil {
			out[n] = target
		}
	}
	return out, nil
}
