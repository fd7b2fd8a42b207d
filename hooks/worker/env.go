package worker

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Env looks up an environment variable; os.LookupEnv in the binaries.
type Env func(string) (string, bool)

// EnvList returns the [Env] of an environment given as "NAME=value"
// strings, the last one of a name winning, as it does for a process.
func EnvList(env []string) Env {
	return func(name string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
}

// OffEnv is the environment variable (and hooks.worker the setting) that
// turns the warm worker off ("off") or on ("warm", the default).
const OffEnv = "WEBGATE_HOOKS_WORKER"

// Off reports whether the environment turns the warm worker off.
func Off(env Env) bool {
	v, ok := env(OffEnv)
	return ok && strings.EqualFold(strings.TrimSpace(v), "off")
}

// DefaultIdle is how long a warm worker waits for a call before it exits
// (the default of hooks.worker_idle).
const DefaultIdle = 10 * time.Minute

// FrontEnv is set in the environment of a worker a front runs, to the
// moment the front started (Unix nanoseconds): the worker counts its
// budget from it, and knows that a front may use the warm worker it
// starts.
const FrontEnv = "WEBGATE_HOOK_FRONT"

// FrontStart returns the front's start recorded in the environment
// ([FrontEnv]) when it lies within the last minute, and whether there is
// one.
func FrontStart(env Env) (time.Time, bool) {
	v, ok := env(FrontEnv)
	if !ok {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return time.Time{}, true
	}
	t := time.Unix(0, ns)
	if d := time.Since(t); d < 0 || d > time.Minute {
		return time.Time{}, true
	}
	return t, true
}

// ProcessEnv are the environment variables a process reads for itself
// rather than per call: where programs are found and temporary files go,
// the proxy and certificate roots of its HTTP clients, its time zone and
// runtime settings. They select a warm worker ([SocketFor]), which is
// started with them and with nothing else of the caller's environment.
var ProcessEnv = []string{
	"PATH", "TMPDIR", "HOME",
	"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "TZ", "GODEBUG", "GOMAXPROCS", "GOMEMLIMIT", "GOGC",
	"XDG_RUNTIME_DIR", "LANG", "LC_ALL",
}

// DefaultStateDir is webgate's state directory when none is set:
// $XDG_STATE_HOME/webgate (an absolute XDG_STATE_HOME only), else
// ~/.local/state/webgate in home, else "". The configuration (package
// config) and the warm workers' files ([LayoutFor]) both derive it here.
func DefaultStateDir(xdgStateHome, home string) string {
	if filepath.IsAbs(xdgStateHome) {
		return filepath.Join(xdgStateHome, "webgate")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "webgate")
}

// StateDir returns the state directory as the environment gives it
// (WEBGATE_STATE_DIR, else $XDG_STATE_HOME/webgate, else
// ~/.local/state/webgate), or "" when none is known.
func StateDir(env Env) string {
	if v, ok := env("WEBGATE_STATE_DIR"); ok && filepath.IsAbs(strings.TrimSpace(v)) {
		return strings.TrimSpace(v)
	}
	x, _ := env("XDG_STATE_HOME")
	h, _ := env("HOME")
	if !filepath.IsAbs(h) {
		h = ""
	}
	return DefaultStateDir(x, h)
}
