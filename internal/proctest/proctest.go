//go:build linux

// Package proctest reads what tests need to know of processes from
// /proc: whether one still runs, and what it runs, so that a test stops
// only the processes it started.
package proctest

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Running reports whether process pid exists and is not a zombie waiting
// to be reaped.
func Running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
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
