package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store"
)

// withoutMemory is what a store that does not work means for the hooks.
const withoutMemory = "the hooks work without memory (no cache, no key health, no usage or budgets, no decision log)"

// doctorProbePrefix starts the key of the value doctor writes, reads
// back and deletes; the rest is unique to the run, so that doctors run at
// once against a shared store do not read each other's value.
const doctorProbePrefix = "doctor/probe/"

// checkStore checks webgate's memory: which store, whether it opens
// within store.open_timeout and answers a read and a write within
// store.timeout as the hooks need, and
// what it remembers that needs attention: parked keys, providers cooling
// down, open circuit breakers, monthly budgets from 80 %. A store file
// that does not exist yet is not created.
func (d *doctor) checkStore(ctx context.Context, cfg *config.Config) {
	const sec = "Store"
	loc := locateStore(cfg)
	switch {
	case loc.Driver == "off":
		d.add(sec, "store", statusInfo, "off (store.url: "+loc.Origin+"): webgate remembers nothing across calls: no cache, no key health, no usage or budgets, no decision log", "")
		return
	case loc.Driver == "memory":
		d.add(sec, "store", statusWarn, loc.String()+": each hook process starts empty, so nothing is remembered across calls", "unset store.url for SQLite in the state directory, or point it at a Redis server")
	default:
		d.add(sec, "store", statusInfo, loc.String(), "")
	}
	if loc.notCreated() {
		d.add(sec, "open", statusInfo, "not created yet: the first hook call creates it", "")
		return
	}

	// The probe waits as long as a person would, and its figures are
	// held against the bounds the hooks use: a store that answers, but
	// slower than they wait, is one the hooks go on without.
	p, err := probeStore(ctx, cfg, cliStoreTimeout)
	if err != nil {
		d.add(sec, "open", statusFail, storeError(err)+": "+withoutMemory, storeFix(loc, err))
		return
	}
	openBound, opBound := cfg.Store.OpenTimeout, cfg.Store.Timeout
	summary := fmt.Sprintf("opens in %s (store.open_timeout %v), answers a read and a write in %s, the slowest round trip %s (store.timeout %v)",
		latencyText(p.open), openBound, latencyText(p.rw), latencyText(p.slowest), opBound)
	switch {
	case p.open > openBound:
		d.add(sec, "open", statusWarn, summary+": opening takes longer than store.open_timeout, so hook calls go on without the store",
			"raise store.open_timeout (WEBGATE_STORE_OPEN_TIMEOUT) above "+latencyText(p.open)+", or find what keeps the store busy")
	case p.slowest > opBound:
		d.add(sec, "open", statusWarn, summary+": a round trip takes longer than store.timeout, so hook calls go on without the store",
			"raise store.timeout (WEBGATE_STORE_TIMEOUT) above "+latencyText(p.slowest)+", or find what keeps the store busy")
	default:
		d.add(sec, "open", statusOK, summary, "")
	}

	m, err := d.mem.get(ctx)
	if err == nil && m == nil {
		err = errors.New("the store did not open")
	}
	if err != nil {
		d.add(sec, "memory", statusWarn, "not read: "+storeError(err), "")
		return
	}
	d.checkMemory(ctx, cfg, m)
}

// checkMemory reports what the memory holds that needs attention.
func (d *doctor) checkMemory(ctx context.Context, cfg *config.Config, m *memory.Memory) {
	const sec = "Store"
	sts, err := m.Health(ctx, cfg.Registry().Names())
	if err != nil {
		d.add(sec, "health", statusWarn, "not read: "+storeError(err), "")
		return
	}
	bs, err := m.Budgets(ctx)
	if err != nil {
		d.add(sec, "budgets", statusWarn, "not read: "+storeError(err), "")
		return
	}
	quiet := true
	for _, h := range healthViews(sts) {
		for _, k := range h.ParkedKeys {
			quiet = false
			d.add(sec, h.Provider, statusWarn, fmt.Sprintf("key %s parked (%s) until %s", shortFingerprint(k.Fingerprint), k.Kind, localTime(k.Until)), parkFix(k.Kind))
		}
		if h.Cooling != nil {
			quiet = false
			d.add(sec, h.Provider, statusWarn, fmt.Sprintf("skipped while it cools down (%s) until %s", h.Cooling.Kind, localTime(h.Cooling.Until)), "")
		}
		if h.BreakerOpenUntil != nil {
			quiet = false
			d.add(sec, h.Provider, statusWarn, fmt.Sprintf("circuit breaker open until %s, after %s in a row: skipped until then", localTime(*h.BreakerOpenUntil), plural(h.Failures, "transient failure")),
				"'webgate log' shows the failed calls; the provider is tried again when the breaker closes")
		}
	}
	for _, b := range budgetViews(bs) {
		if b.Warn {
			quiet = false
			d.add(sec, b.Provider+" budget", statusWarn, b.Month+": "+b.line(), "raise providers."+b.Provider+".budget.monthly, or wait for the next month")
		}
	}
	if quiet {
		d.add(sec, "health", statusOK, "no parked keys, no open circuit breakers, no monthly budget at 80 % or more", "")
	}
}

// storeProbe is what probeStore measured: how long opening took, the
// read and write together, and the slowest of their round trips.
type storeProbe struct {
	open, rw, slowest time.Duration
}

// probeStore opens the store, writes a value, reads it back and deletes
// it, each step within timeout, and says how long each took.
func probeStore(ctx context.Context, cfg *config.Config, timeout time.Duration) (storeProbe, error) {
	var p storeProbe
	start := time.Now()
	m, err := openMemory(ctx, cfg, timeout)
	p.open = time.Since(start)
	if err != nil {
		return p, err
	}
	st := m.Store()
	defer st.Close()
	key := fmt.Sprintf("%s%d-%d", doctorProbePrefix, os.Getpid(), time.Now().UnixNano())
	want := []byte(time.Now().UTC().Format(time.RFC3339Nano))
	step := func(f func(ctx context.Context) error) error {
		sctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		t := time.Now()
		err := f(sctx)
		p.slowest = max(p.slowest, time.Since(t))
		return err
	}
	start = time.Now()
	err = step(func(ctx context.Context) error { return st.Set(ctx, key, want, time.Minute) })
	if err == nil {
		err = step(func(ctx context.Context) error {
			e, err := st.Get(ctx, key)
			if err == nil && !bytes.Equal(e.Value, want) {
				err = errors.New("the store read back another value than it was given")
			}
			return err
		})
	}
	if err == nil {
		err = step(func(ctx context.Context) error { return st.Delete(ctx, key) })
	}
	p.rw = time.Since(start)
	return p, err
}

// storeFix says what to do about a store that fails.
func storeFix(loc storeLocation, err error) string {
	switch {
	case errors.Is(err, store.ErrCorrupt) && loc.Path != "":
		return "move the file aside (mv " + loc.Path + " " + loc.Path + ".broken): the next hook call creates a new, empty one"
	case errors.Is(err, store.ErrCorrupt):
		return "the store's data is damaged: clear it, or point store.url at another store"
	case errors.Is(err, store.ErrBusy):
		return "another process holds the store's lock; if it lasts, find that process"
	case errors.Is(err, store.ErrInvalid):
		return "correct store.url (see store.url under Settings in the README)"
	case errors.Is(err, store.ErrFull):
		return "free some space where the store lives"
	case loc.Driver == "redis":
		return "check that the Redis server is up and reachable from here, and the URL's credentials"
	case loc.Path != "":
		return "check that " + loc.Path + " and its directory are readable and writable by you"
	}
	return "set store.url (WEBGATE_STORE) to a store that works, or to off"
}

// parkFix says what a parked key of kind means for its user.
func parkFix(kind provider.Kind) string {
	switch kind {
	case provider.KindAuth:
		return "the provider refused this key: check or replace it (a new value is tried at once)"
	case provider.KindQuota:
		return "its credits or plan ran out: top them up, or wait until then"
	}
	return ""
}
