package worker

import (
	"context"
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
	"time"
)

// Version is the protocol's version; a request of another version is
// refused, and the front runs the worker itself. It is part of every
// socket's key ([SocketFor]), so that fronts and warm workers of
// different versions never meet.
const Version = 2

// MaxFrame bounds one frame: a payload of the hooks' input cap (4 MiB),
// an environment and the worker's output, with room for their JSON
// encoding.
const MaxFrame = 32 << 20

// maxSocketPath is the longest socket path used: sun_path holds 104 bytes
// on macOS and the BSDs, 108 on Linux, the terminating zero included.
const maxSocketPath = 100

// FirstWait bounds the front's wait for the warm worker's first reply,
// the budget, which it sends as soon as it has loaded the configuration
// (a millisecond or so). A request older than that is no longer waited
// for, and the warm worker drops it.
const FirstWait = 2 * time.Second

// Request is what a front sends a warm worker: the runtime's hook
// payload and the caller's context, namely the hook, the moment the front
// started (the budget counts from it) and the moment it sent the request
// (Unix nanoseconds), the front's environment and working directory. Key
// is the socket's key ([SocketFor]), which the warm worker checks.
type Request struct {
	Version int      `json:"v"`
	Key     string   `json:"key"`
	Hook    string   `json:"hook"`
	Start   int64    `json:"start"`
	Sent    int64    `json:"sent"`
	Env     []string `json:"env"`
	Cwd     string   `json:"cwd,omitempty"`
	Payload []byte   `json:"payload"`
}

// Reply is one of the warm worker's two replies to a request: first the
// hook's budget (or Refused, when the front should run the worker
// itself), then, with Final set, what the hook wrote and its exit code.
type Reply struct {
	Budget  time.Duration `json:"budget,omitempty"`
	Refused string        `json:"refused,omitempty"`
	Final   bool          `json:"final,omitempty"`
	Stdout  []byte        `json:"stdout,omitempty"`
	Stderr  []byte        `json:"stderr,omitempty"`
	Exit    int           `json:"exit,omitempty"`
}

// WriteFrame writes v as one frame: a 4-byte big-endian length, then v in
// JSON.
func WriteFrame(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(body) > MaxFrame {
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
	if size > MaxFrame {
		return fmt.Errorf("warm worker frame of %d bytes is too large", size)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}

// Call is one hook call as a [Handler] sees it, whatever the transport:
// the runtime's hook payload and the caller's context.
type Call struct {
	// Hook is the hook called ("websearch", "webfetch").
	Hook string
	// Payload is the runtime's hook payload, as the front read it.
	Payload []byte
	// Env is the caller's environment ("NAME=value"), from which the
	// configuration is loaded; Cwd its working directory.
	Env []string
	Cwd string
	// Start is when the caller started: the hook's budget counts from it.
	Start time.Time
	// World is the caller's world when the transport checked it (the Unix
	// socket on Linux serves only callers of its own world), nil when it
	// does not know it.
	World *World

	// budget sends the hook's budget to the caller; nil when the
	// transport has no use for it.
	budget func(time.Duration) error
	// budgetSent records that it did.
	budgetSent bool
}

// SetBudget tells the caller the hook's budget (counted from Start), as
// soon as the handler knows it: a front waits for the answer that long.
// It returns an error when the caller can no longer be told (it went
// away), and the handler may then stop. A transport without a use for it
// ignores it.
func (c *Call) SetBudget(d time.Duration) error {
	if c.budget == nil || c.budgetSent {
		return nil
	}
	c.budgetSent = true
	return c.budget(d)
}

// Answer is a [Handler]'s answer to a call.
type Answer struct {
	// Stdout, Stderr and Exit are what the hook writes and exits with.
	Stdout, Stderr []byte
	Exit           int
	// Refused, when not empty, says why the handler does not answer the
	// call (an unknown hook): the caller answers it otherwise (the front
	// runs the worker itself).
	Refused string
	// After, when not nil, runs once the answer is delivered: the writes
	// that can wait (the decision log, usage, the cache).
	After func()
	// Retire asks the server to stop taking calls and exit once the calls
	// under way are over: the call's configuration turns the warm worker
	// off, or the call was given up at its budget while something of it
	// went on.
	Retire bool
}

// Handler answers hook calls. A server ([Serve]) calls it for every call
// it admits, from as many goroutines as there are calls under way.
type Handler interface {
	ServeCall(ctx context.Context, c *Call) Answer
}

// HandlerFunc is a function that is a [Handler].
type HandlerFunc func(ctx context.Context, c *Call) Answer

// ServeCall calls f.
func (f HandlerFunc) ServeCall(ctx context.Context, c *Call) Answer { return f(ctx, c) }

// SocketFor returns the files of the warm worker that may answer for the
// worker binary worker run in the directory cwd with env, and its key
// (which the warm worker checks on every request). The key covers what a
// warm worker cannot take from a request because it is the process's own:
// the worker binary (its path, size, modification time and inode, so that
// a new build gets a new warm worker), the working directory, and
// [ProcessEnv]. The socket is in [LayoutFor]'s directory, or in
// [RuntimeLayout]'s when that path would be too long for a socket (about
// 100 bytes). It fails when there is no state directory or no short
// enough path.
func SocketFor(worker, cwd string, env Env) (files Files, key string, err error) {
	layout := LayoutFor(env)
	if layout.Dir == "" {
		return Files{}, "", errors.New("no state directory")
	}
	fi, err := os.Stat(worker)
	if err != nil {
		return Files{}, "", err
	}
	h := fnv.New128a()
	write := func(s string) {
		_, _ = io.WriteString(h, s)
		_, _ = h.Write([]byte{0})
	}
	write("webgate warm worker " + strconv.Itoa(Version))
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
	name := key[:16]
	files = layout.Files(name)
	if len(files.Socket) > maxSocketPath {
		rt := RuntimeLayout(env)
		if rt.Dir != "" && len(rt.Dir)+len(name)+len(socketSuffix)+1 <= maxSocketPath {
			return rt.Files(name), key, nil
		}
		return Files{}, "", fmt.Errorf("socket path %d bytes long", len(files.Socket))
	}
	return files, key, nil
}

// socketDir is the directory of a warm worker's files.
func (f Files) dir() string { return filepath.Dir(f.Socket) }
