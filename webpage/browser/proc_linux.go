//go:build linux

package browser

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// memoryWatched reports whether [Config.MaxMemoryBytes] is enforced on this
// system.
const memoryWatched = true

// setDeathSignal makes the kernel kill the browser if the thread that
// started it ends, for example when the calling process dies.
func setDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// procInfo is what one /proc/<pid>/stat line says about a process.
type procInfo struct {
	pid   int
	pgrp  int
	state byte
}

// readProc parses /proc/<pid>/stat.
func readProc(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	// The command name is in parentheses and may hold spaces and
	// parentheses itself; the fields after the last ')' are fixed.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procInfo{}, false
	}
	f := bytes.Fields(b[i+2:])
	// state ppid pgrp ...
	if len(f) < 3 || len(f[0]) == 0 {
		return procInfo{}, false
	}
	pgrp, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return procInfo{}, false
	}
	return procInfo{pid: pid, pgrp: pgrp, state: f[0][0]}, true
}

// allPIDs lists the processes in /proc.
func allPIDs() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer func() { _ = d.Close() }()
	names, _ := d.Readdirnames(-1)
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// groupProcs returns the live (not zombie) processes of the process group
// pgid.
func groupProcs(pgid int) []procInfo {
	if pgid <= 1 {
		return nil
	}
	var out []procInfo
	for _, pid := range allPIDs() {
		p, ok := readProc(pid)
		if ok && p.pgrp == pgid && p.state != 'Z' && p.state != 'X' {
			out = append(out, p)
		}
	}
	return out
}

// processMemory returns the anonymous and shared-memory resident pages
// of a process (RssAnon + RssShmem of /proc/<pid>/status), in bytes: the
// memory a page can make the browser allocate. File-backed pages, mostly
// the browser's own binary mapped in each of its processes, are left out.
func processMemory(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	var sum int64
	found := false
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		name, rest, ok := bytes.Cut(line, []byte{':'})
		if !ok || !(bytes.Equal(name, []byte("RssAnon")) || bytes.Equal(name, []byte("RssShmem"))) {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || !bytes.Equal(f[1], []byte("kB")) {
			continue
		}
		if kb, err := strconv.ParseInt(string(f[0]), 10, 64); err == nil {
			sum += kb << 10
			found = true
		}
	}
	return sum, found
}

// groupMemory sums [processMemory] over procs, and reports whether any
// could be measured.
func groupMemory(procs []procInfo) (int64, bool) {
	var sum int64
	ok := false
	for _, p := range procs {
		if m, found := processMemory(p.pid); found {
			sum += m
			ok = true
		}
	}
	return sum, ok
}

// procsUsing returns the live processes started with the user data
// directory dir, wherever their process group is.
func procsUsing(dir string) []int {
	if dir == "" {
		return nil
	}
	want := []byte("--user-data-dir=" + dir)
	self := os.Getpid()
	var out []int
	for _, pid := range allPIDs() {
		if pid == self {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			continue
		}
		for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
			if bytes.Equal(arg, want) {
				if p, ok := readProc(pid); ok && p.state != 'Z' && p.state != 'X' {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}

// groupsUsing returns the process groups of the live processes started
// with the user data directory dir: the groups the renderer created for
// its browser, found even when the browser never answered and its group
// is not known otherwise. The caller's own group is never returned.
func groupsUsing(dir string) []int {
	own := syscall.Getpgrp()
	seen := map[int]bool{}
	var out []int
	for _, pid := range procsUsing(dir) {
		p, ok := readProc(pid)
		if !ok || p.pgrp <= 1 || p.pgrp == own || seen[p.pgrp] {
			continue
		}
		seen[p.pgrp] = true
		out = append(out, p.pgrp)
	}
	return out
}
