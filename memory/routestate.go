package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/store"
)

// routePrefix starts the key of each session's docs-route state:
// "route/<fingerprint of the session id>".
const routePrefix = "route/"

// maxRouteDenials bounds the denials kept for one session; the oldest go
// first. A session denies a handful of calls within an escape window.
const maxRouteDenials = 1024

// RouteState is the docs routes' escape hatch ([routing.State]) kept in
// the Memory's store: each session's denied calls live under one key,
// "route/" followed by a keyed fingerprint of the session id, for the
// escape window after the last change. A denied call is kept as a keyed
// fingerprint of its canonical form ([routing.Call.Canonical]), never as
// text, with the time of the denial. Every change is one atomic
// [store.Store.Update], so concurrent hook processes of a session, on one
// machine or sharing a Redis, never lose a denial.
//
// It has the file state's semantics ([routing.StateStore]): a call is
// released when the same query with the same allowed and blocked domain
// sets was denied in the session within the window, and releasing clears
// that denial. A value that does not decode counts as no denial.
//
// Its calls are bounded by [Options.OpTimeout]. A store that fails makes
// them return the error (Remember's error keeps the route from denying)
// and, as for every other use, is left alone for the rest of the Memory's
// life. RouteState is safe for concurrent use.
type RouteState struct {
	m      *Memory
	window time.Duration
}

var _ routing.State = (*RouteState)(nil)

// RouteState returns the docs routes' state kept in the Memory's store,
// remembering a denial for window ([routing.DefaultEscapeWindow] when 0 or
// less). On a nil Memory, or one without a store, every call fails.
func (m *Memory) RouteState(window time.Duration) *RouteState {
	if window <= 0 {
		window = routing.DefaultEscapeWindow
	}
	return &RouteState{m: m, window: window}
}

// routeDenial is one denied call: the fingerprint of its canonical form
// and when it was denied.
type routeDenial struct {
	Call string    `json:"call"`
	At   time.Time `json:"at"`
}

// routeRecord is a session's state as stored.
type routeRecord struct {
	Denied []routeDenial `json:"denied"`
}

// Window returns how long a denial is remembered.
func (r *RouteState) Window() time.Duration { return r.window }

// Describe names the store: "the sqlite store", "the redis store".
func (r *RouteState) Describe() string {
	if r.m.Store() == nil {
		return "no store"
	}
	return "the " + r.m.Store().Driver() + " store"
}

// Remember records that c was denied in the session.
func (r *RouteState) Remember(sessionID string, c routing.Call) error {
	fp := r.callPrint(c)
	return r.update(sessionID, func(rec *routeRecord, now time.Time) bool {
		rec.Denied = append(rec.Denied, routeDenial{Call: fp, At: now.UTC()})
		if n := len(rec.Denied); n > maxRouteDenials {
			rec.Denied = slices.Delete(rec.Denied, 0, n-maxRouteDenials)
		}
		return true
	})
}

// Release reports whether c repeats a call denied in the session within
// the window; when it does, that denial is cleared.
func (r *RouteState) Release(sessionID string, c routing.Call) (bool, error) {
	fp := r.callPrint(c)
	found := false
	err := r.update(sessionID, func(rec *routeRecord, _ time.Time) bool {
		found = false // the update may run more than once
		if i := slices.IndexFunc(rec.Denied, func(d routeDenial) bool { return d.Call == fp }); i >= 0 {
			rec.Denied = slices.Delete(rec.Denied, i, i+1)
			found = true
		}
		return found
	})
	if err != nil {
		return false, err
	}
	return found, nil
}

// Remembered reports, reading only, whether Release would release c now.
func (r *RouteState) Remembered(sessionID string, c routing.Call) (bool, error) {
	fp := r.callPrint(c)
	var data []byte
	err := r.m.call(context.Background(), func(ctx context.Context, s *store.Store) error {
		e, err := s.Get(ctx, r.key(sessionID))
		data = e.Value
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%w: %w", routing.ErrState, err)
	}
	rec, _ := r.live(data, r.m.now())
	return slices.ContainsFunc(rec.Denied, func(d routeDenial) bool { return d.Call == fp }), nil
}

// key is where the session's state lives.
func (r *RouteState) key(sessionID string) string {
	return routePrefix + store.Fingerprint([]byte(sessionID), r.salt())
}

// salt is the Memory's fingerprint salt.
func (r *RouteState) salt() []byte {
	if r.m == nil {
		return nil
	}
	return r.m.opts.Salt
}

// callPrint is the fingerprint of c's canonical form.
func (r *RouteState) callPrint(c routing.Call) string {
	b, _ := json.Marshal(c.Canonical())
	return store.Fingerprint(b, r.salt())
}

// live decodes a stored record and drops the denials outside the window
// (and those dated more than a minute ahead, from a clock that was
// wrong); dropped reports whether any were. A value that does not decode
// is an empty record.
func (r *RouteState) live(data []byte, now time.Time) (rec routeRecord, dropped bool) {
	if len(data) > 0 && json.Unmarshal(data, &rec) != nil {
		return routeRecord{}, true
	}
	kept := rec.Denied[:0]
	for _, d := range rec.Denied {
		if now.Sub(d.At) <= r.window && !d.At.After(now.Add(time.Minute)) {
			kept = append(kept, d)
		}
	}
	dropped = len(kept) != len(rec.Denied)
	rec.Denied = kept
	return rec, dropped
}

// update runs fn on the session's live record in one atomic update, and
// writes the record back, to live for the window, when fn or the expiry
// changed it.
func (r *RouteState) update(sessionID string, fn func(rec *routeRecord, now time.Time) bool) error {
	key := r.key(sessionID)
	err := r.m.call(context.Background(), func(ctx context.Context, s *store.Store) error {
		return updateIfChanged(ctx, s, key, r.window, func(cur []byte, found bool) ([]byte, error) {
			now := r.m.now()
			rec, dropped := r.live(cur, now)
			if !fn(&rec, now) && !dropped {
				return nil, errUnchanged
			}
			return json.Marshal(rec)
		})
	})
	if err != nil {
		return fmt.Errorf("%w: %w", routing.ErrState, err)
	}
	return nil
}
