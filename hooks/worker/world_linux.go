package worker

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ProcWorld reads the [World] of the process whose /proc directory is dir
// ("/proc/self", "/proc/1234"): the namespaces' links and the root and
// working directories, stat'ed through /proc (a namespace's link leads to
// a file whose inode number is the namespace's, as in
// "net:[4026531840]"). Reading another process's needs the right to
// inspect it (the same user, and it not made undumpable).
func ProcWorld(dir string) (World, error) {
	var w World
	for _, p := range []struct {
		name string
		to   *FileID
	}{
		{"ns/user", &w.User}, {"ns/mnt", &w.Mnt}, {"ns/net", &w.Net}, {"ns/pid", &w.PID},
		{"root", &w.Root}, {"cwd", &w.Cwd},
	} {
		fi, err := os.Stat(dir + "/" + p.name)
		if err != nil {
			return World{}, err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || st.Ino == 0 {
			return World{}, fmt.Errorf("%s/%s: no inode number", dir, p.name)
		}
		*p.to = FileID{Dev: uint64(st.Dev), Ino: st.Ino}
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return World{}, err
	}
	w.Confinement = confinement(string(status))
	if w.Confinement == "" {
		return World{}, fmt.Errorf("%s/status: no NoNewPrivs or Seccomp line", dir)
	}
	return w, nil
}

// confinement picks the NoNewPrivs, Seccomp and Seccomp_filters lines of a
// /proc/PID/status text, as one string; "" when it has none of them.
func confinement(status string) string {
	var parts []string
	for _, line := range strings.Split(status, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if ok && (name == "NoNewPrivs" || name == "Seccomp" || name == "Seccomp_filters") {
			parts = append(parts, name+"="+strings.TrimSpace(value))
		}
	}
	return strings.Join(parts, " ")
}

// listenerInOurWorld reports whether the process listening at the other
// end of the socket fd lives in this process's [World]: a call's keys go
// to no warm worker of another namespace (a sandbox sharing the state
// directory could listen on the socket's path). The listener is named by
// the pid it had when it listened (SO_PEERCRED); one this process's PID
// namespace does not show, or whose world cannot be read, is not ours.
func listenerInOurWorld(fd int) bool {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil || cred == nil || cred.Pid <= 0 {
		return false
	}
	theirs, err := ProcWorld("/proc/" + strconv.Itoa(int(cred.Pid)))
	if err != nil {
		return false
	}
	ours, err := ProcWorld("/proc/self")
	return err == nil && ours.Diff(theirs) == ""
}
