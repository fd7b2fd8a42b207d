package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store"
)

// Defaults of [HealthConfig].
const (
	DefaultAuthPark          = 24 * time.Hour
	DefaultQuotaPark         = time.Hour
	DefaultRateLimitCooldown = 30 * time.Second
	DefaultBreakerFailures   = 5
	DefaultBreakerCooldown   = 30 * time.Second
	// MaxCooldown caps a wait a provider asks for (Retry-After).
	MaxCooldown = 24 * time.Hour
)

// HealthConfig configures how long keys are parked and how the per-provider
// circuit breaker behaves. Zero fields mean the defaults.
type HealthConfig struct {
	// AuthPark is how long a key the provider refused (invalid or revoked)
	// is parked; a new value of the key is a new key and is tried at once.
	AuthPark time.Duration `koanf:"auth_park"`
	// QuotaPark is how long a key whose credits or plan are exhausted is
	// parked.
	QuotaPark time.Duration `koanf:"quota_park"`
	// RateLimitCooldown is how long a rate-limited key (or keyless
	// provider) cools down when the provider did not say (Retry-After).
	RateLimitCooldown time.Duration `koanf:"rate_limit_cooldown"`
	// BreakerFailures is how many transient failures in a row open a
	// provider's circuit breaker.
	BreakerFailures int `koanf:"breaker_failures"`
	// BreakerCooldown is how long an open breaker skips the provider
	// before one probe call is let through.
	BreakerCooldown time.Duration `koanf:"breaker_cooldown"`
}

func (h HealthConfig) withDefaults() HealthConfig {
	h.AuthPark = defaults.Positive(h.AuthPark, DefaultAuthPark)
	h.QuotaPark = defaults.Positive(h.QuotaPark, DefaultQuotaPark)
	h.RateLimitCooldown = defaults.Positive(h.RateLimitCooldown, DefaultRateLimitCooldown)
	h.BreakerFailures = defaults.Positive(h.BreakerFailures, DefaultBreakerFailures)
	h.BreakerCooldown = defaults.Positive(h.BreakerCooldown, DefaultBreakerCooldown)
	return h
}

// health is a provider's record in the store, at "health/<provider>".
type health struct {
	// Keys are the parked keys, by fingerprint.
	Keys map[string]park `json:"keys,omitempty"`
	// Parked is the provider itself cooling down (a keyless provider that
	// was rate limited).
	Parked *park `json:"parked,omitempty"`
	// Failures counts transient failures in a row.
	Failures int `json:"failures,omitempty"`
	// OpenUntil is when an open breaker lets a probe through.
	OpenUntil time.Time `json:"open_until,omitzero"`
	// ProbeUntil is when a probe that was let through is given up on.
	ProbeUntil time.Time `json:"probe_until,omitzero"`
}

// park is why and until when a key or provider is skipped.
type park struct {
	Until time.Time     `json:"until"`
	Kind  provider.Kind `json:"kind"`
}

func healthKey(name string) string { return "health/" + name }

// Status is what the memory knows of a provider's health, for doctor and
// explain.
type Status struct {
	// Provider is the provider's name.
	Provider string
	// ParkedKeys maps each parked key's fingerprint to why and until when.
	ParkedKeys map[string]Parked
	// Parked is set when the provider itself cools down.
	Parked *Parked
	// Failures is how many transient failures in a row were seen.
	Failures int
	// OpenUntil is set while the circuit breaker is open.
	OpenUntil time.Time
	// ProbeUntil is set while a half-open breaker lets one call probe
	// the provider.
	ProbeUntil time.Time
}

// Parked says why and until when a key or a provider is skipped.
type Parked struct {
	Kind  provider.Kind
	Until time.Time
}

// Health returns what the memory knows of the named providers' health;
// providers with nothing to report are left out.
func (m *Memory) Health(ctx context.Context, names []string) ([]Status, error) {
	var out []Status
	now := m.now()
	for _, n := range names {
		h, err := m.readHealth(ctx, n)
		if err != nil {
			return out, err
		}
		st := Status{Provider: n, Failures: h.Failures}
		for fp, p := range h.Keys {
			if p.Until.After(now) {
				if st.ParkedKeys == nil {
					st.ParkedKeys = map[string]Parked{}
				}
				st.ParkedKeys[fp] = Parked{Kind: p.Kind, Until: p.Until}
			}
		}
		if h.Parked != nil && h.Parked.Until.After(now) {
			st.Parked = &Parked{Kind: h.Parked.Kind, Until: h.Parked.Until}
		}
		if h.OpenUntil.After(now) {
			st.OpenUntil = h.OpenUntil
		}
		if h.ProbeUntil.After(now) {
			st.ProbeUntil = h.ProbeUntil
		}
		if st.ParkedKeys != nil || st.Parked != nil || st.Failures > 0 || !st.OpenUntil.IsZero() || !st.ProbeUntil.IsZero() {
			out = append(out, st)
		}
	}
	return out, nil
}

func (m *Memory) readHealth(ctx context.Context, name string) (health, error) {
	var h health
	err := m.call(ctx, func(ctx context.Context, s *store.Store) error {
		e, err := s.Get(ctx, healthKey(name))
		if err != nil {
			return err
		}
		return json.Unmarshal(e.Value, &h)
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) && store.Failed(err) {
		return health{}, err
	}
	m.mu.Lock()
	if m.seen == nil {
		m.seen = map[string]seenHealth{}
	}
	m.seen[name] = seenHealth{h: h, at: m.now()}
	m.mu.Unlock()
	return h, nil
}

// reuseWithin is how old a record this Memory read may be to serve again
// instead of a new read: the guard reads it just before the key source
// asks, within one call.
const reuseWithin = 250 * time.Millisecond

// recentHealth is readHealth, answered from the record this Memory read
// within [reuseWithin].
func (m *Memory) recentHealth(ctx context.Context, name string) (health, error) {
	m.mu.Lock()
	s, ok := m.seen[name]
	m.mu.Unlock()
	if ok && m.now().Sub(s.at) <= reuseWithin {
		return s.h, nil
	}
	return m.readHealth(ctx, name)
}

// seenHealth is a provider's record as this Memory last read it.
type seenHealth struct {
	h  health
	at time.Time
}

// seenFresh is how long a record read by this Memory is trusted to skip
// a write that would change nothing: the length of one call.
const seenFresh = 2 * time.Second

// clean reports whether the provider's record, as read moments ago, holds
// nothing a success would clear (for the key with fingerprint fp, when
// fp is not empty): then a success needs no write.
func (m *Memory) clean(name, fp string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.seen[name]
	if !ok || m.now().Sub(s.at) > seenFresh {
		return false
	}
	if fp != "" {
		_, parked := s.h.Keys[fp]
		return !parked
	}
	return s.h.Failures == 0 && s.h.OpenUntil.IsZero() && s.h.Parked == nil
}

// updateHealth applies fn to the provider's record atomically. The record
// lives as long as the longest park it holds, at least a day.
func (m *Memory) updateHealth(ctx context.Context, name string, fn func(h *health, now time.Time) bool) {
	now := m.now()
	m.later(ctx, func(ctx context.Context, s *store.Store) error {
		return updateIfChanged(ctx, s, healthKey(name), 0, func(cur []byte, found bool) ([]byte, error) {
			var h health
			if found {
				_ = json.Unmarshal(cur, &h)
			}
			if !fn(&h, now) {
				return nil, errUnchanged
			}
			for fp, p := range h.Keys {
				if !p.Until.After(now) {
					delete(h.Keys, fp)
				}
			}
			return json.Marshal(h)
		})
	})
}

// errUnchanged aborts an update that would write back what it read.
var errUnchanged = errors.New("memory: unchanged")

// updateIfChanged is s.Update, for which fn returning errUnchanged means
// that nothing is written and nothing failed.
func updateIfChanged(ctx context.Context, s *store.Store, key string, ttl time.Duration, fn store.UpdateFunc) error {
	_, err := s.Update(ctx, key, ttl, fn)
	if errors.Is(err, errUnchanged) {
		return nil
	}
	return err
}

// cooldown is how long a failure of kind parks a key or provider; 0 for
// failures that do not park.
func (m *Memory) cooldown(kind provider.Kind, retryAfter time.Duration) time.Duration {
	h := m.opts.Health
	switch kind {
	case provider.KindAuth:
		return h.AuthPark
	case provider.KindQuota:
		if retryAfter > 0 {
			return min(retryAfter, MaxCooldown)
		}
		return h.QuotaPark
	case provider.KindRateLimited:
		if retryAfter > 0 {
			return min(retryAfter, MaxCooldown)
		}
		return h.RateLimitCooldown
	}
	return 0
}

// Keys wraps a provider's key source: parked keys are not offered, and
// every attempt's outcome is recorded (see the package documentation).
// A nil Memory, or a nil src, returns src.
func (m *Memory) Keys(name string, src provider.KeySource) provider.KeySource {
	if m == nil || m.opts.Store == nil || src == nil {
		return src
	}
	return &keySource{m: m, name: name, src: src}
}

type keySource struct {
	m    *Memory
	name string
	src  provider.KeySource
}

func (k *keySource) fingerprint(key provider.Key) string {
	return store.Fingerprint([]byte(key.Secret()), k.m.opts.Salt)
}

// Keys offers the source's keys less the parked ones, in the source's
// order. When every key is parked it offers them all: the guard around the
// provider skips it before a request in that case, and a key source must
// not invent "no key configured".
func (k *keySource) Keys(ctx context.Context) []provider.Key {
	keys := k.src.Keys(ctx)
	if len(keys) == 0 {
		return keys
	}
	h, err := k.m.recentHealth(ctx, k.name)
	if err != nil || len(h.Keys) == 0 {
		return keys
	}
	now := k.m.now()
	var ok []provider.Key
	for _, key := range keys {
		if p, parked := h.Keys[k.fingerprint(key)]; !parked || !p.Until.After(now) {
			ok = append(ok, key)
		}
	}
	if len(ok) == 0 {
		return keys
	}
	return ok
}

// Report records a success (which unparks the key) or a bare kind.
func (k *keySource) Report(key provider.Key, kind provider.Kind) {
	k.src.Report(key, kind)
	if kind == "" {
		fp := k.fingerprint(key)
		if k.m.clean(k.name, fp) {
			return
		}
		k.m.updateHealth(context.Background(), k.name, func(h *health, _ time.Time) bool {
			if _, ok := h.Keys[fp]; !ok {
				return false
			}
			delete(h.Keys, fp)
			return true
		})
		return
	}
	k.park(key, kind, 0)
}

// ReportError records a failed attempt with the provider's requested wait.
func (k *keySource) ReportError(key provider.Key, err *provider.Error) {
	k.src.Report(key, err.Kind)
	k.park(key, err.Kind, err.RetryAfter)
}

func (k *keySource) park(key provider.Key, kind provider.Kind, retryAfter time.Duration) {
	d := k.m.cooldown(kind, retryAfter)
	if d <= 0 {
		return
	}
	fp := k.fingerprint(key)
	k.m.updateHealth(context.Background(), k.name, func(h *health, now time.Time) bool {
		if h.Keys == nil {
			h.Keys = map[string]park{}
		}
		h.Keys[fp] = park{Until: now.Add(d), Kind: kind}
		return true
	})
}

// SkipError is the cause of the error a guarded provider fails with when
// the memory skips it without a request.
type SkipError struct {
	// Provider is the provider skipped.
	Provider string
	// Why says why: "every key is parked (quota)", "circuit open after 5
	// transient failures", "monthly budget of 1000 requests reached".
	Why string
	// Until is when the provider will be tried again; zero when unknown
	// (a budget waits for the next month).
	Until time.Time
}

// Error implements error.
func (e *SkipError) Error() string {
	if e.Until.IsZero() {
		return fmt.Sprintf("%s skipped: %s", e.Provider, e.Why)
	}
	return fmt.Sprintf("%s skipped until %s: %s", e.Provider, e.Until.Local().Format("15:04:05"), e.Why)
}

// message is the error's text without the provider's name, for the
// provider error that wraps it.
func (e *SkipError) message() string {
	if e.Until.IsZero() {
		return "skipped: " + e.Why
	}
	return "skipped until " + e.Until.Local().Format("15:04:05") + ": " + e.Why
}

// admit decides whether a guarded call of the provider may go ahead: it
// returns a *provider.Error wrapping a [*SkipError] when the provider must
// be skipped. keys are the fingerprints of the provider's keys (none for a
// keyless provider). A call let through as the breaker's probe claims the
// probe in the store, so that only one process probes.
func (m *Memory) admit(ctx context.Context, name, op string, keys []string) *provider.Error {
	return m.judge(ctx, name, op, keys, true)
}

// Skip says whether a call of the provider would be skipped now, and why,
// without changing anything (a half-open breaker's probe is not claimed):
// for explain and doctor. It returns nil when the call would go ahead, or
// when the memory cannot tell.
func (m *Memory) Skip(ctx context.Context, b Backend, op string) *SkipError {
	if m == nil || m.opts.Store == nil {
		return nil
	}
	pe := m.budgetSpent(ctx, b.Name, op)
	if pe == nil {
		pe = m.judge(ctx, b.Name, op, m.fingerprints(b.Keys), false)
	}
	var se *SkipError
	if pe != nil && errors.As(pe, &se) {
		return se
	}
	return nil
}

// judge is admit; claim says whether a call let through as a half-open
// breaker's probe claims the probe.
func (m *Memory) judge(ctx context.Context, name, op string, keys []string, claim bool) *provider.Error {
	h, err := m.readHealth(ctx, name)
	if err != nil {
		return nil
	}
	now := m.now()
	skip := func(kind provider.Kind, why string, until time.Time) *provider.Error {
		se := &SkipError{Provider: name, Why: why, Until: until}
		var wait time.Duration
		if !until.IsZero() {
			wait = until.Sub(now)
		}
		return &provider.Error{Provider: name, Op: op, Kind: kind, RetryAfter: wait, Message: se.message(), Err: se}
	}
	if h.Parked != nil && h.Parked.Until.After(now) {
		return skip(h.Parked.Kind, fmt.Sprintf("cooling down (%s)", h.Parked.Kind), h.Parked.Until)
	}
	if len(keys) > 0 && len(h.Keys) > 0 {
		var soonest park
		all := true
		for _, fp := range keys {
			p, ok := h.Keys[fp]
			if !ok || !p.Until.After(now) {
				all = false
				break
			}
			if soonest.Until.IsZero() || p.Until.Before(soonest.Until) {
				soonest = p
			}
		}
		if all {
			why := "the key is parked"
			if len(keys) > 1 {
				why = fmt.Sprintf("all %d keys are parked", len(keys))
			}
			return skip(soonest.Kind, fmt.Sprintf("%s (%s)", why, soonest.Kind), soonest.Until)
		}
	}
	if !h.OpenUntil.IsZero() {
		if h.OpenUntil.After(now) {
			return skip(provider.KindTransient, fmt.Sprintf("circuit open after %d transient failures in a row", h.Failures), h.OpenUntil)
		}
		// Half-open: one probe at a time, across processes.
		if h.ProbeUntil.After(now) {
			return skip(provider.KindTransient, "circuit half-open, another call is probing", h.ProbeUntil)
		}
		if !claim {
			return nil
		}
		claimed := false
		m.updateHealth(ctx, name, func(h *health, now time.Time) bool {
			if h.OpenUntil.IsZero() || h.OpenUntil.After(now) || h.ProbeUntil.After(now) {
				return false
			}
			h.ProbeUntil = now.Add(m.opts.Health.BreakerCooldown)
			claimed = true
			return true
		})
		if !claimed && m.live() {
			return skip(provider.KindTransient, "circuit half-open, another call is probing", now.Add(m.opts.Health.BreakerCooldown))
		}
	}
	return nil
}

// settle records the outcome of a guarded call in the provider's record:
// a success closes the breaker; a transient failure counts towards opening
// it (a failed probe opens it again at once); a rate limit of a keyless
// provider cools the provider down.
func (m *Memory) settle(ctx context.Context, name string, keyless bool, err error) {
	kind := provider.KindOf(err)
	var pe *provider.Error
	errors.As(err, &pe)
	switch {
	case err == nil:
		if m.clean(name, "") {
			return
		}
		m.updateHealth(ctx, name, func(h *health, _ time.Time) bool {
			if h.Failures == 0 && h.OpenUntil.IsZero() && h.Parked == nil {
				return false
			}
			h.Failures, h.OpenUntil, h.ProbeUntil, h.Parked = 0, time.Time{}, time.Time{}, nil
			return true
		})
	case kind == provider.KindTransient:
		if errors.Is(err, context.Canceled) {
			return
		}
		n := m.opts.Health.BreakerFailures
		cool := m.opts.Health.BreakerCooldown
		m.updateHealth(ctx, name, func(h *health, now time.Time) bool {
			h.Failures++
			if !h.ProbeUntil.IsZero() || h.Failures >= n {
				h.OpenUntil, h.ProbeUntil = now.Add(cool), time.Time{}
			}
			return true
		})
	case keyless && (kind == provider.KindRateLimited || kind == provider.KindQuota):
		var ra time.Duration
		if pe != nil {
			ra = pe.RetryAfter
		}
		d := m.cooldown(kind, ra)
		m.updateHealth(ctx, name, func(h *health, now time.Time) bool {
			h.Parked = &park{Until: now.Add(d), Kind: kind}
			return true
		})
	}
}
