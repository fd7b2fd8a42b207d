package routing

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/internal/safefile"
)

// Defaults of [StateStore].
const (
	DefaultEscapeWindow = 5 * time.Minute
	DefaultStaleAfter   = 24 * time.Hour
	// DefaultLockWait is how long an operation waits by default for a
	// session lock held elsewhere; hooks set a small slice of their budget
	// instead ([StateStore.LockWait]).
	DefaultLockWait = 2 * time.Second
)

// maxStateBytes caps how much of a state file is read; a longer file is
// treated as corrupt. A session's file holds the denials of a few minutes.
const maxStateBytes = 1 << 20

// maxStaleScan caps how many directory entries one cleanup of stale files
// looks at, so a directory holding a great many files cannot stall a hook;
// later cleanups see the rest.
const maxStaleScan = 512

// Call identifies a WebSearch call for the escape hatch: the query and the
// allowed and blocked domain lists, compared as sets.
type Call struct {
	Query          string   `json:"query"`
	AllowedDomains []string `json:"allowed_domains,omitempty"`
	BlockedDomains []string `json:"blocked_domains,omitempty"`
}

func normSet(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// key returns a canonical form of c: the query as given (only surrounding
// space trimmed) and the domain sets sorted and deduplicated.
func (c Call) key() Call {
	return Call{Query: strings.TrimSpace(c.Query), AllowedDomains: normSet(c.AllowedDomains), BlockedDomains: normSet(c.BlockedDomains)}
}

// Canonical returns c in the form [Call.Same] compares: the query with
// surrounding space trimmed, the domain lists lower-cased, sorted and
// without duplicates or empty entries. Two calls are the same exactly when
// their canonical forms are equal, so a [State] may keep a digest of the
// canonical form instead of the call.
func (c Call) Canonical() Call { return c.key() }

// Same reports whether c and o are the same call.
func (c Call) Same(o Call) bool {
	a, b := c.key(), o.key()
	return a.Query == b.Query && slices.Equal(a.AllowedDomains, b.AllowedDomains) && slices.Equal(a.BlockedDomains, b.BlockedDomains)
}

type deniedCall struct {
	Call
	At time.Time `json:"at"`
}

type sessionState struct {
	Denied []deniedCall `json:"denied"`
}

// State remembers, per session, the calls a docs route denied, for the
// escape hatch: an identical call ([Call.Same]) within the escape window
// is released once. [DocsRouter.Route] takes one; [StateStore] keeps it in
// files, and package memory keeps it in webgate's store. Implementations
// are safe for concurrent use, by goroutines and by processes sharing the
// state, and never lose a denial to a concurrent update.
type State interface {
	// Remember records that c was denied in the session. An error means
	// the denial could not be recorded; the caller must then not deny,
	// or the agent could never get past the route.
	Remember(sessionID string, c Call) error
	// Release reports whether c repeats a call denied in the session
	// within the escape window, and when it does clears the memory of
	// that call, so that a later identical call is routed again.
	Release(sessionID string, c Call) (bool, error)
	// Remembered reports, without changing anything, whether Release
	// would release c now; diagnostics call it freely.
	Remembered(sessionID string, c Call) (bool, error)
	// Window is how long a denial is remembered.
	Window() time.Duration
	// Describe says where the state is kept, for diagnostics: a
	// directory, or "the sqlite store".
	Describe() string
}

var _ State = (*StateStore)(nil)

// StateStore remembers, per session, the calls a docs route denied. It keeps
// one file per session in Dir, written atomically with mode 0600, under a
// per-session lock so that concurrent hook processes of one session do not
// lose updates. A corrupt file is treated as empty.
//
// State and lock files must be regular files: they are opened without
// following symbolic links and without blocking, so a symbolic link, a
// named pipe or a device where one is expected makes the operation fail
// with [ErrState] and is left alone.
type StateStore struct {
	// Dir is the state directory; it is created (mode 0700) when missing.
	Dir string
	// EscapeWindow is how long a denial is remembered; default 5 minutes.
	EscapeWindow time.Duration
	// StaleAfter is the age after which other sessions' files are removed;
	// default 24 hours.
	StaleAfter time.Duration
	// LockWait is how long an operation waits for a session lock held
	// elsewhere before it fails with [ErrState]; default
	// [DefaultLockWait]. Once such a wait has run out, the operations on
	// that session during the next LockWait try the lock once without
	// waiting, so a caller making several calls in a row (Release, then
	// Remember) waits LockWait in all.
	LockWait time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	// mu guards busy: per lock file, when operations may wait for it
	// again after a wait ran out.
	mu   sync.Mutex
	busy map[string]time.Time
}

func (s *StateStore) now() time.Time { return defaults.Now(s.Now) }

func (s *StateStore) lockWait() time.Duration {
	if s.LockWait > 0 {
		return s.LockWait
	}
	return DefaultLockWait
}

// errLockBusy is returned by lockFile when another process holds the lock
// past the wait.
var errLockBusy = errors.New("the state lock is held by another process")

// lockBusy is lockFile's error when the lock stayed held through wait.
func lockBusy(wait time.Duration) error {
	return fmt.Errorf("%w (waited %v)", errLockBusy, wait.Round(time.Millisecond))
}

// lock takes the lock file name, waiting at most LockWait, and not at all
// shortly after a wait for it ran out.
func (s *StateStore) lock(name string) (func(), error) {
	wait := s.lockWait()
	s.mu.Lock()
	if until, ok := s.busy[name]; ok {
		if time.Now().Before(until) {
			wait = 0
		} else {
			delete(s.busy, name)
		}
	}
	s.mu.Unlock()
	unlock, err := lockFile(name, wait)
	if errors.Is(err, errLockBusy) && wait > 0 {
		s.mu.Lock()
		if s.busy == nil {
			s.busy = map[string]time.Time{}
		}
		s.busy[name] = time.Now().Add(s.lockWait())
		s.mu.Unlock()
	}
	return unlock, err
}

func (s *StateStore) window() time.Duration {
	if s != nil && s.EscapeWindow > 0 {
		return s.EscapeWindow
	}
	return DefaultEscapeWindow
}

// Window returns how long a denial is remembered: EscapeWindow, or
// [DefaultEscapeWindow].
func (s *StateStore) Window() time.Duration { return s.window() }

// Describe returns the state directory.
func (s *StateStore) Describe() string {
	if s == nil {
		return ""
	}
	return s.Dir
}

const stateFilePrefix = "docs-route-"

// SessionFile returns the file name that holds a session's state: the
// session id reduced to [A-Za-z0-9_-], with a hash of the original appended
// whenever anything was changed or dropped, so two ids never share a file
// and no id can name a path outside the directory.
func SessionFile(sessionID string) string {
	var b strings.Builder
	for _, r := range sessionID {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	clean := b.String()
	if len(clean) > 64 {
		clean = clean[:64]
	}
	if clean != sessionID || clean == "" {
		sum := sha256.Sum256([]byte(sessionID))
		clean += "-" + hex.EncodeToString(sum[:6])
	}
	return stateFilePrefix + clean + ".json"
}

// ErrState wraps every failure to read or write the state directory.
var ErrState = errors.New("routing state")

// Remember records that c was denied in the session. An error means the
// denial could not be recorded; the caller must then not deny, or the agent
// could never get past the route.
func (s *StateStore) Remember(sessionID string, c Call) error {
	return s.update(sessionID, func(st *sessionState) bool {
		st.Denied = append(st.Denied, deniedCall{Call: c.key(), At: s.now().UTC()})
		return true
	})
}

// Release reports whether c repeats a call denied in the session within the
// escape window; when it does, the memory of that call is cleared so that a
// later identical call is routed again. Errors reading the state count as
// "not remembered".
func (s *StateStore) Release(sessionID string, c Call) (bool, error) {
	found := false
	err := s.update(sessionID, func(st *sessionState) bool {
		for i, d := range st.Denied {
			if d.Call.Same(c) {
				st.Denied = slices.Delete(st.Denied, i, i+1)
				found = true
				return true
			}
		}
		return false
	})
	return found, err
}

// update runs fn on the session's state under the session lock, dropping
// expired entries, and writes the state back when fn (or the expiry)
// changed it.
func (s *StateStore) update(sessionID string, fn func(*sessionState) bool) error {
	if s == nil || s.Dir == "" {
		return fmt.Errorf("%w: no state directory", ErrState)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("%w: %v", ErrState, err)
	}
	name := filepath.Join(s.Dir, SessionFile(sessionID))
	written, err := s.updateLocked(name, fn)
	if err != nil {
		return err
	}
	if written {
		// Other sessions' files: no need to hold this session's lock.
		s.removeStale(name)
	}
	return nil
}

// updateLocked is update's work under the session lock; written reports
// that the state file was rewritten.
func (s *StateStore) updateLocked(name string, fn func(*sessionState) bool) (written bool, err error) {
	unlock, err := s.lock(name + ".lock")
	if err != nil {
		return false, fmt.Errorf("%w: lock: %v", ErrState, err)
	}
	defer unlock()

	st, err := readState(name)
	if err != nil {
		return false, fmt.Errorf("%w: %v", ErrState, err)
	}
	now := s.now()
	changed := false
	kept := st.Denied[:0]
	for _, d := range st.Denied {
		if now.Sub(d.At) <= s.window() && !d.At.After(now.Add(time.Minute)) {
			kept = append(kept, d)
		} else {
			changed = true
		}
	}
	st.Denied = kept
	if fn(&st) {
		changed = true
	}
	if !changed {
		return false, nil
	}
	data, err := json.Marshal(st)
	if err != nil {
		return false, fmt.Errorf("%w: %v", ErrState, err)
	}
	if err := safefile.Replace(name, data, 0o600); err != nil {
		return false, fmt.Errorf("%w: %v", ErrState, err)
	}
	return true, nil
}

// readState reads the state file name: a missing, corrupt or oversized
// file is an empty state; a file that cannot be read, or that is not a
// regular file (a symbolic link, a named pipe, a device), is an error.
func readState(name string) (sessionState, error) {
	var st sessionState
	f, err := openRegular(name, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	if err != nil {
		return st, err
	}
	if len(data) > maxStateBytes || json.Unmarshal(data, &st) != nil {
		return sessionState{}, nil
	}
	return st, nil
}

// notRegular is the error for name, a file of mode m that is not a
// regular file.
func notRegular(name string, m fs.FileMode) error {
	return &fs.PathError{Op: "open", Path: name, Err: safefile.NotRegular(m)}
}

// removeStale deletes other sessions' state and lock files older than
// StaleAfter, looking at no more than maxStaleScan entries. Nothing is
// opened: a named pipe among them is removed like any other file. Failures
// are ignored: stale files are harmless.
func (s *StateStore) removeStale(current string) {
	stale := s.StaleAfter
	if stale <= 0 {
		stale = DefaultStaleAfter
	}
	entries, err := readDirSome(s.Dir, maxStaleScan)
	if err != nil {
		return
	}
	now := s.now()
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, stateFilePrefix) && !strings.HasPrefix(n, ".tmp-"+stateFilePrefix) {
			continue
		}
		full := filepath.Join(s.Dir, n)
		if full == current || full == current+".lock" {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > stale {
			os.Remove(full)
		}
	}
}

// Remembered reports, without changing anything, whether c repeats a call
// denied in the session within the escape window, that is whether
// [StateStore.Release] would release it now. It takes no lock and writes
// nothing, so diagnostics can ask it freely; a missing or corrupt state
// file counts as "not remembered", one that is not a regular file is an
// error.
func (s *StateStore) Remembered(sessionID string, c Call) (bool, error) {
	if s == nil || s.Dir == "" {
		return false, fmt.Errorf("%w: no state directory", ErrState)
	}
	st, err := readState(filepath.Join(s.Dir, SessionFile(sessionID)))
	if err != nil {
		return false, fmt.Errorf("%w: %v", ErrState, err)
	}
	now := s.now()
	for _, d := range st.Denied {
		if now.Sub(d.At) <= s.window() && !d.At.After(now.Add(time.Minute)) && d.Call.Same(c) {
			return true, nil
		}
	}
	return false, nil
}

// regularOnly returns f, opened from name, when it is a regular file; it
// closes it and returns an error otherwise.
func regularOnly(f *os.File, name string) (*os.File, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(name, fi.Mode())
	}
	return f, nil
}
