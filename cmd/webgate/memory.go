package main

// Shared by cache, stats, log, doctor and explain: where the configured
// store lives, opening the memory for a command, and how the memory's
// health records read.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store"
)

// cliStoreTimeout bounds each store call of the commands that read the
// memory for a person (stats, log, cache clear, explain): unlike a hook,
// they are on no latency budget, so a slow store is waited for.
const cliStoreTimeout = 5 * time.Second

// storeLocation says where the configured store lives, for display: never
// a password, a query string or a fragment of its URL.
type storeLocation struct {
	// Driver is "sqlite", "redis", "memory", "off", or "unknown" for a
	// URL the store does not accept.
	Driver string `json:"driver"`
	// Where is the SQLite file or the Redis URL without credentials.
	Where string `json:"location,omitempty"`
	// Origin says where store.url came from: "default", "env …", "file …".
	Origin string `json:"origin"`
	// Path is the SQLite file ("" for other drivers).
	Path string `json:"-"`
}

// locateStore reads store.url (and the state directory) the way the store
// does, for display only: opening is left to the store itself.
func locateStore(cfg *config.Config) storeLocation {
	l := storeLocation{Origin: cfg.Origin("store.url")}
	raw := strings.TrimSpace(cfg.Store.URL)
	kind, target, err := store.ParseURL(raw, cfg.StorePath())
	switch {
	case cfg.StoreOff():
		l.Driver = "off"
	case err != nil && raw == "":
		l.Driver, l.Where = "sqlite", "(no path: the state directory is unknown)"
	case err != nil && kind == "":
		l.Driver, l.Where = "unknown", "(unrecognised URL)"
	case err != nil:
		l.Driver, l.Where = kind, "(invalid "+kind+" URL)"
	case kind == "memory":
		l.Driver, l.Where = "memory", "this process only"
	case kind == "sqlite":
		l.Driver, l.Path, l.Where = "sqlite", target, target
	case kind == "redis":
		l.Driver, l.Where = "redis", safeURL(raw)
	}
	return l
}

// String renders the location as "sqlite /path/webgate.db (default)".
func (l storeLocation) String() string {
	s := l.Driver
	if l.Where != "" {
		s += " " + l.Where
	}
	return s + " (store.url: " + l.Origin + ")"
}

// notCreated reports whether the store is a SQLite file that does not
// exist yet: there is nothing to read, and a reader must not create it.
func (l storeLocation) notCreated() bool {
	if l.Driver != "sqlite" || l.Path == "" {
		return false
	}
	_, err := os.Stat(l.Path)
	return errors.Is(err, os.ErrNotExist)
}

// openMemory opens the configured memory with opening and each store
// call bounded by timeout (at least the configured store.open_timeout and
// store.timeout). It returns nil, nil when the store is off. cfg is left
// as it was.
func openMemory(ctx context.Context, cfg *config.Config, timeout time.Duration) (*memory.Memory, error) {
	if cfg.StoreOff() {
		return nil, nil
	}
	c := *cfg
	c.Store.Timeout = max(cfg.Store.Timeout, timeout)
	c.Store.OpenTimeout = max(cfg.Store.OpenTimeout, timeout)
	octx, cancel := context.WithTimeout(ctx, c.Store.OpenTimeout)
	defer cancel()
	m, err := assemble.OpenMemory(octx, &c)
	if err == nil && m == nil {
		err = errors.New("the store did not open")
	}
	return m, err
}

// cliMemory is the memory a command reads in several places, opened once
// on first use ([openMemory] with [cliStoreTimeout]) and closed when the
// command ends. A store that is off or not created yet is not opened (and
// not created).
type cliMemory struct {
	cfg  *config.Config
	once sync.Once
	m    *memory.Memory
	err  error
}

func newCLIMemory(cfg *config.Config) *cliMemory { return &cliMemory{cfg: cfg} }

// get returns the memory; nil and no error when the store is off or not
// created yet.
func (c *cliMemory) get(ctx context.Context) (*memory.Memory, error) {
	c.once.Do(func() {
		if loc := locateStore(c.cfg); loc.Driver == "off" || loc.notCreated() {
			return
		}
		c.m, c.err = openMemory(ctx, c.cfg, cliStoreTimeout)
	})
	return c.m, c.err
}

// close closes the store, when it was opened.
func (c *cliMemory) close() {
	if c.m != nil {
		c.m.Store().Close()
	}
}

// storeError renders a store failure on one line, safe for a terminal.
func storeError(err error) string { return sanitize.Line(err.Error()) }

// healthView is one provider's health as stats and doctor print it.
type healthView struct {
	Provider string `json:"provider"`
	// ParkedKeys are the parked keys, soonest back first.
	ParkedKeys []parkedKey `json:"parked_keys,omitempty"`
	// Cooling is set while the provider itself cools down (a keyless
	// provider that was rate limited).
	Cooling *parkedKey `json:"cooling,omitempty"`
	// Failures counts transient failures in a row.
	Failures int `json:"failures_in_a_row,omitempty"`
	// BreakerOpenUntil is set while the circuit breaker is open.
	BreakerOpenUntil *time.Time `json:"breaker_open_until,omitempty"`
}

// parkedKey is a key (named by its fingerprint) or provider that is
// skipped, why, and until when.
type parkedKey struct {
	Fingerprint string        `json:"fingerprint,omitempty"`
	Kind        provider.Kind `json:"kind"`
	Until       time.Time     `json:"until"`
}

// healthViews turns the memory's health records into views.
func healthViews(sts []memory.Status) []healthView {
	out := make([]healthView, 0, len(sts))
	for _, st := range sts {
		v := healthView{Provider: sanitize.Line(st.Provider), Failures: st.Failures}
		for fp, p := range st.ParkedKeys {
			v.ParkedKeys = append(v.ParkedKeys, parkedKey{Fingerprint: sanitize.Line(fp), Kind: provider.Kind(sanitize.Line(string(p.Kind))), Until: p.Until.UTC()})
		}
		sort.Slice(v.ParkedKeys, func(i, j int) bool {
			a, b := v.ParkedKeys[i], v.ParkedKeys[j]
			if !a.Until.Equal(b.Until) {
				return a.Until.Before(b.Until)
			}
			return a.Fingerprint < b.Fingerprint
		})
		if st.Parked != nil {
			v.Cooling = &parkedKey{Kind: provider.Kind(sanitize.Line(string(st.Parked.Kind))), Until: st.Parked.Until.UTC()}
		}
		if !st.OpenUntil.IsZero() {
			t := st.OpenUntil.UTC()
			v.BreakerOpenUntil = &t
		}
		out = append(out, v)
	}
	return out
}

// lines renders a provider's health, one line each: parked keys, the
// provider cooling down, the breaker.
func (v healthView) lines() []string {
	var out []string
	for _, k := range v.ParkedKeys {
		out = append(out, fmt.Sprintf("key %s parked (%s) until %s", shortFingerprint(k.Fingerprint), k.Kind, localTime(k.Until)))
	}
	if v.Cooling != nil {
		out = append(out, fmt.Sprintf("cooling down (%s) until %s", v.Cooling.Kind, localTime(v.Cooling.Until)))
	}
	switch {
	case v.BreakerOpenUntil != nil:
		out = append(out, fmt.Sprintf("circuit breaker open until %s, after %s in a row", localTime(*v.BreakerOpenUntil), plural(v.Failures, "transient failure")))
	case v.Failures > 0:
		out = append(out, fmt.Sprintf("%s in a row (the circuit breaker is closed)", plural(v.Failures, "transient failure")))
	}
	return out
}

// shortFingerprint keeps the first 8 hex digits of a key's fingerprint:
// enough to tell a user's keys apart.
func shortFingerprint(fp string) string {
	if r := []rune(fp); len(r) > 8 {
		return string(r[:8]) + "…"
	}
	return fp
}

// localTime renders t in the local time zone, to the minute.
func localTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04 MST") }

// budgetView is a monthly budget as stats and doctor print it.
type budgetView struct {
	memory.Budget
	Percent int  `json:"percent"`
	Warn    bool `json:"warn"`
	Spent   bool `json:"spent"`
}

// budgetWarnPercent is the share of a monthly budget from which webgate
// warns (the memory's own notice fires at the same point).
const budgetWarnPercent = 80

func budgetViews(bs []memory.Budget) []budgetView {
	out := make([]budgetView, 0, len(bs))
	for _, b := range bs {
		b.Provider = sanitize.Line(b.Provider)
		out = append(out, budgetView{Budget: b, Percent: b.Percent(), Warn: b.Percent() >= budgetWarnPercent, Spent: b.Limit > 0 && b.Used >= b.Limit})
	}
	return out
}

// nextMonth returns when a budget's month ("2026-03", UTC) ends; the zero
// time when the month does not parse.
func nextMonth(month string) time.Time {
	t, err := time.Parse("2006-01", month)
	if err != nil {
		return time.Time{}
	}
	return t.AddDate(0, 1, 0)
}

// line renders a budget: "tavily  812/1000 (81 %) ⚠".
func (b budgetView) line() string {
	s := fmt.Sprintf("%d/%d (%d %%)", b.Used, b.Limit, b.Percent)
	switch {
	case b.Spent:
		s += " ⚠ spent: skipped until " + localTime(nextMonth(b.Month))
	case b.Warn:
		s += " ⚠"
	}
	return s
}

// memoryNote is what explain says of a provider the memory knows about:
// skipped without a request (parked keys, an open circuit breaker, a
// spent budget) and until when, or some of its keys parked.
type memoryNote struct {
	Provider string `json:"provider,omitempty"`
	// Skipped is true when the provider would be skipped without a
	// request.
	Skipped bool `json:"skipped"`
	// Until is when it is tried again; nil when unknown.
	Until *time.Time `json:"until,omitempty"`
	Why   string     `json:"why"`
}

// String renders the note: "tavily skipped until 2026-11-03 14:05 CET: …".
func (n memoryNote) String() string {
	switch {
	case n.Provider == "":
		return n.Why
	case n.Skipped && n.Until != nil:
		return n.Provider + " skipped until " + localTime(*n.Until) + ": " + n.Why
	case n.Skipped:
		return n.Provider + " skipped: " + n.Why
	}
	return n.Provider + ": " + n.Why
}

// memoryNotes says, for each provider plan p would call, whether the
// memory would skip it, as the guard around each provider decides: a
// spent monthly budget, the provider cooling down, every key parked, an
// open circuit breaker, in that order. It only reads the store, and not at
// all when it does not exist yet.
func memoryNotes(ctx context.Context, cfg *config.Config, p *hooks.Plan, mem *cliMemory) []memoryNote {
	if p.Routed() || len(p.Problems) > 0 || len(p.Providers) == 0 {
		return nil
	}
	m, err := mem.get(ctx)
	if err != nil {
		return []memoryNote{{Why: "the store was not read: " + storeError(err)}}
	}
	if m == nil {
		return nil
	}
	sts, err := m.Health(ctx, p.Providers)
	if err != nil {
		return []memoryNote{{Why: "the store was not read: " + storeError(err)}}
	}
	bs, err := m.Budgets(ctx)
	if err != nil {
		return []memoryNote{{Why: "the store was not read: " + storeError(err)}}
	}
	health := map[string]memory.Status{}
	for _, st := range sts {
		health[st.Provider] = st
	}
	var out []memoryNote
	for _, name := range p.Providers {
		// The memory's own judgement, as the guard would make it now.
		if se := m.Skip(ctx, assemble.MemoryBackend(cfg, name), "search"); se != nil {
			note := memoryNote{Provider: name, Skipped: true, Why: sanitize.Line(se.Why)}
			if !se.Until.IsZero() {
				until := se.Until
				note.Until = &until
			} else if b, ok := budgetOf(bs, name); ok {
				until := nextMonth(b.Month)
				note.Until = &until
			}
			out = append(out, note)
			continue
		}
		st, ok := health[name]
		if !ok {
			continue
		}
		if parked, keys := len(st.ParkedKeys), cfg.KeyCount(name); parked > 0 && keys > 0 {
			var soonest memory.Parked
			for _, pk := range st.ParkedKeys {
				if soonest.Until.IsZero() || pk.Until.Before(soonest.Until) {
					soonest = pk
				}
			}
			out = append(out, memoryNote{Provider: name, Until: &soonest.Until,
				Why: fmt.Sprintf("%d of %d keys parked (%s) until %s; the others are used", parked, keys, sanitize.Line(string(soonest.Kind)), localTime(soonest.Until))})
		}
	}
	skipped := 0
	for _, n := range out {
		if n.Skipped {
			skipped++
		}
	}
	if skipped == len(p.Providers) {
		out = append(out, memoryNote{Why: "every provider is skipped: the hook steps aside and the native tool runs"})
	}
	return out
}

// budgetOf returns the named provider's budget among bs.
func budgetOf(bs []memory.Budget, name string) (memory.Budget, bool) {
	for _, b := range bs {
		if b.Provider == name {
			return b, true
		}
	}
	return memory.Budget{}, false
}
