package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks/gate"
)

// checkWarm reports the warm workers (hooks.worker): off, or which are
// running now, and a socket directory the fronts would not trust.
func (d *doctor) checkWarm(cfg *config.Config) {
	const sec = "State"
	if cfg.WorkerOff() {
		d.add(sec, "worker", statusInfo, "off (hooks.worker): every hook call runs the worker anew", "")
		return
	}
	env := gate.EnvList(d.f.host.Env)
	dir := gate.WarmDir(env)
	if dir == "" {
		d.add(sec, "worker", statusWarn, "no warm worker: no state directory to put its socket in", "set WEBGATE_STATE_DIR or HOME")
		return
	}
	if _, err := os.Lstat(dir); err == nil && !gate.PrivateDir(dir) {
		d.add(sec, "worker", statusWarn, dir+" is not a private directory of this user's: the hooks do not use a warm worker there, and every call runs the worker anew",
			"remove it (the hooks recreate it with mode 0700) or chmod 700 it")
		return
	}
	var pids []string
	files, _ := filepath.Glob(filepath.Join(dir, "*.sock.pid"))
	if rt := gate.RuntimeDir(env); rt != "" {
		// Where sockets go when the state directory's path is too long.
		more, _ := filepath.Glob(filepath.Join(rt, "*.sock.pid"))
		files = append(files, more...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 1 || !processAlive(pid) {
			continue
		}
		if _, err := os.Stat(strings.TrimSuffix(f, ".pid")); err != nil {
			continue
		}
		pids = append(pids, strconv.Itoa(pid))
	}
	if len(pids) == 0 {
		d.add(sec, "worker", statusInfo, fmt.Sprintf("warm: none running now; the next hook call that needs the worker starts one in %s, which exits after %v without a call", dir, cfg.Hooks.WorkerIdle), "")
		return
	}
	d.add(sec, "worker", statusOK, fmt.Sprintf("warm: %d running (pid %s) in %s; each exits after %v without a call", len(pids), strings.Join(pids, ", "), dir, cfg.Hooks.WorkerIdle), "")
}

// processAlive reports whether a process pid exists (signal 0 reaches
// it).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}
