package gate

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The warm worker: a worker process that stays up between hook calls and
// answers them over a Unix socket, so that a call pays for the front's
// start-up and a round trip instead of the whole worker's start-up (the
// providers, the page reader, the store and the configuration loader it
// links). The first call of a kind runs the worker by exec as always; that
// worker starts the warm one in the background, and later calls find it.
// It serves one working directory, one worker binary and one PATH, TMPDIR
// and HOME (they select its socket, [WarmSocket]); every call brings its
// own environment, from which the warm worker loads the configuration, so
// an answer is the one the exec'd worker would give. Front and warm worker
// deal only with each other in one [World] (user, namespaces, root and
// working directory, confinement): a front sends a call to no listener of another, and
// the warm worker refuses a caller of another, whose front then runs the
// worker itself in its own world. It exits when idle
// (hooks.worker_idle), when its socket is removed, or when the worker
// binary changes; hooks.worker = off (WEBGATE_HOOKS_WORKER=off) turns it
// off.

// WarmEnv is the environment variable (and hooks.worker the setting) that
// turns the warm worker off ("off") or on ("warm", the default).
const WarmEnv = "WEBGATE_HOOKS_WORKER"

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

// WarmOff reports whether the environment turns the warm worker off.
func WarmOff(env Env) bool {
	v, ok := env(WarmEnv)
	return ok && strings.EqualFold(strings.TrimSpace(v), "off")
}

// WarmVersion is the protocol's version; a request of another version is
// refused, and the front runs the worker itself.
const WarmVersion = 1

// maxWarmFrame bounds one frame: a payload of [MaxInputBytes], an
// environment and the worker's output, with room for their JSON encoding.
const maxWarmFrame = 32 << 20

// maxSocketPath is the longest socket path used: sun_path holds 104 bytes
// on macOS and the BSDs, 108 on Linux, the terminating zero included.
const maxSocketPath = 100

// WarmFirstWait bounds the front's wait for the warm worker's first
// answer, the budget, which it sends as soon as it has loaded the
// configuration (a millisecond or so). A request older than that is no
// longer waited for, and the warm worker drops it.
const WarmFirstWait = 2 * time.Second

// WarmRequest is what the front sends the warm worker: the hook, the
// moment the front started (the budget counts from it) and the moment it
// sent the request (Unix nanoseconds), the front's environment and the
// payload.
type WarmRequest struct {
	Version int      `json:"v"`
	Key     string   `json:"key"`
	Hook    string   `json:"hook"`
	Start   int64    `json:"start"`
	Sent    int64    `json:"sent"`
	Env     []string `json:"env"`
	Payload []byte   `json:"payload"`
}

// WarmReply is one of the warm worker's two answers to a request: first
// the hook's budget (or Refused, when the front should run the worker
// itself), then, with Final set, what the worker wrote.
type WarmReply struct {
	Budget  time.Duration `json:"budget,omitempty"`
	Refused string        `json:"refused,omitempty"`
	Final   bool          `json:"final,omitempty"`
	Stdout  []byte        `json:"stdout,omitempty"`
	Stderr  []byte        `json:"stderr,omitempty"`
}

// WriteFrame writes v as one frame: a 4-byte big-endian length, then v in
// JSON.
func WriteFrame(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(body) > maxWarmFrame {
		return fmt.Errorf("warm worker frame of %d bytes is too large", len(body))
	}
	buf := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(buf, uint32(len(body)))
	copy(buf[4:], body)
	_, err = w.Write(buf)
	return err
}

// ReadFrame reads one frame written by [WriteFrame] into v.
func ReadFrame(r io.Reader, v any) error {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxWarmFrame {
		return fmt.Errorf("warm worker frame of %d bytes is too large", size)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}

// WarmDir returns the directory of the warm workers' sockets: "run" in
// the state directory as the environment gives it (WEBGATE_STATE_DIR, else
// $XDG_STATE_HOME/webgate, else ~/.local/state/webgate), or "" when none
// is known.
func WarmDir(env Env) string {
	if v, ok := env("WEBGATE_STATE_DIR"); ok && filepath.IsAbs(strings.TrimSpace(v)) {
		return filepath.Join(strings.TrimSpace(v), "run")
	}
	x, _ := env("XDG_STATE_HOME")
	h, _ := env("HOME")
	if !filepath.IsAbs(h) {
		h = ""
	}
	if dir := DefaultStateDir(x, h); dir != "" {
		return filepath.Join(dir, "run")
	}
	return ""
}

// DefaultStateDir is webgate's state directory when none is set:
// $XDG_STATE_HOME/webgate (an absolute XDG_STATE_HOME only), else
// ~/.local/state/webgate in home, else "". The configuration (package
// config) and the warm worker's sockets ([WarmDir]) both derive it here.
func DefaultStateDir(xdgStateHome, home string) string {
	if filepath.IsAbs(xdgStateHome) {
		return filepath.Join(xdgStateHome, "webgate")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "webgate")
}

// RuntimeDir returns $XDG_RUNTIME_DIR/webgate, where a socket goes when
// the state directory's path is too long for one, or "".
func RuntimeDir(env Env) string {
	if x, ok := env("XDG_RUNTIME_DIR"); ok && filepath.IsAbs(x) {
		return filepath.Join(x, "webgate")
	}
	return ""
}

// ProcessEnv are the environment variables a process reads for itself
// rather than per call: where programs are found and temporary files go,
// the proxy and certificate roots of its HTTP clients, its time zone and
// runtime settings. They select a warm worker ([WarmSocket]), which is
// started with them and with nothing else of the caller's environment.
var ProcessEnv = []string{
	"PATH", "TMPDIR", "HOME",
	"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "TZ", "GODEBUG", "GOMAXPROCS", "GOMEMLIMIT", "GOGC",
	"XDG_RUNTIME_DIR", "LANG", "LC_ALL",
}

// WarmSocket returns the socket path of the warm worker that may answer
// for worker run in the directory cwd with env, and its key (which the
// worker checks on every request). The key covers what a warm worker
// cannot take from a request because it is the process's own: the worker
// binary (its path, size, modification time and inode, so that a new
// build gets a new worker), the working directory, and [ProcessEnv]. The socket is in [WarmDir], or in $XDG_RUNTIME_DIR/webgate when
// that path would be too long for a socket (about 100 bytes). It fails
// when there is no state directory or no short enough path.
func WarmSocket(worker, cwd string, env Env) (socket, key string, err error) {
	dir := WarmDir(env)
	if dir == "" {
		return "", "", errors.New("no state directory")
	}
	fi, err := os.Stat(worker)
	if err != nil {
		return "", "", err
	}
	h := fnv.New128a()
	write := func(s string) {
		_, _ = io.WriteString(h, s)
		_, _ = h.Write([]byte{0})
	}
	write("webgate warm worker " + strconv.Itoa(WarmVersion))
	write(worker)
	write(strconv.FormatInt(fi.Size(), 10))
	write(strconv.FormatInt(fi.ModTime().UnixNano(), 10))
	write(strconv.FormatUint(FileIno(fi), 10))
	write(cwd)
	for _, k := range ProcessEnv {
		v, _ := env(k)
		write(k + "=" + v)
	}
	key = hex.EncodeToString(h.Sum(nil))
	socket = filepath.Join(dir, key[:16]+".sock")
	if len(socket) > maxSocketPath {
		if rt := RuntimeDir(env); rt != "" && len(rt)+len(key[:16])+6 <= maxSocketPath {
			return filepath.Join(rt, key[:16]+".sock"), key, nil
		}
		return "", "", fmt.Errorf("socket path %d bytes long", len(socket))
	}
	return socket, key, nil
}
