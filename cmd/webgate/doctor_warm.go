package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks/worker"
)

// checkWarm reports the warm workers (hooks.worker): off, or which are
// running now, and a socket directory the fronts would not trust.
func (d *doctor) checkWarm(cfg *config.Config) {
	const sec = "State"
	if cfg.WorkerOff() {
		d.add(sec, "worker", statusInfo, "off (hooks.worker): every hook call runs the worker anew", "")
		return
	}
	env := worker.EnvList(d.f.host.Env)
	layout := worker.LayoutFor(env)
	dir := layout.Dir
	if dir == "" {
		d.add(sec, "worker", statusWarn, "no warm worker: no state directory to put its socket in", "set WEBGATE_STATE_DIR or HOME")
		return
	}
	if _, err := os.Lstat(dir); err == nil && !worker.PrivateDir(dir) {
		d.add(sec, "worker", statusWarn, dir+" is not a private directory of this user's: the hooks do not use a warm worker there, and every call runs the worker anew",
			"remove it (the hooks recreate it with mode 0700) or chmod 700 it")
		return
	}
	var pids []string
	// The runtime directory too: sockets go there when the state
	// directory's path is too long.
	for _, l := range worker.Layouts(env) {
		for _, pid := range l.Serving() {
			pids = append(pids, strconv.Itoa(pid))
		}
	}
	if len(pids) == 0 {
		d.add(sec, "worker", statusInfo, fmt.Sprintf("warm: none running now; the next hook call that needs the worker starts one in %s, which exits after %v without a call", dir, cfg.Hooks.WorkerIdle), "")
		return
	}
	d.add(sec, "worker", statusOK, fmt.Sprintf("warm: %d running (pid %s) in %s; each exits after %v without a call", len(pids), strings.Join(pids, ", "), dir, cfg.Hooks.WorkerIdle), "")
}
