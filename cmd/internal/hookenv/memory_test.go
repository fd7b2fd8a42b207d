package hookenv

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/memory"
)

// lockStore creates the default SQLite store of cfg as another program
// would and holds an exclusive lock on it, so that opening it waits
// (SQLite's busy handler) until the returned function releases the lock.
func lockStore(t *testing.T, cfg *config.Config) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", cfg.StorePath())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA journal_mode = DELETE; CREATE TABLE other (x); PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; INSERT INTO other VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return func() { db.Close() }
}

func storeConfig(t *testing.T, timeout, openTimeout time.Duration) *config.Config {
	cfg := config.Default()
	cfg.StateDir = t.TempDir()
	cfg.Store.Timeout, cfg.Store.OpenTimeout = timeout, openTimeout
	return cfg
}

// readMemory opens cfg's memory as a person's command would, unhurried.
func readMemory(t *testing.T, cfg *config.Config) *memory.Memory {
	t.Helper()
	c := *cfg
	c.Store.Timeout, c.Store.OpenTimeout = 30*time.Second, 30*time.Second
	m, err := assemble.OpenMemory(context.Background(), &c)
	if err != nil || m == nil {
		t.Fatalf("open the store to read it: %v", err)
	}
	t.Cleanup(func() { m.Store().Close() })
	return m
}

func TestOpenMemory_AStoreSlowerToOpenThanACallIsStillUsed(t *testing.T) {
	cfg := storeConfig(t, 20*time.Millisecond, 30*time.Second)
	release := lockStore(t, cfg)
	// The lock goes after longer than a store call may take (the old
	// bound of opening too), well within the open bound.
	time.AfterFunc(300*time.Millisecond, release)
	sess := openMemory(context.Background(), cfg, nil)
	if sess.mem == nil {
		t.Fatalf("a store that opens within store.open_timeout was not used: %s", sess.problem)
	}
	sess.mem.Store().Close()
}

var searchCall = []byte(`{"hook_event_name":"PreToolUse","session_id":"s1","tool_name":"WebSearch","tool_input":{"query":"go generics"}}`)

func TestHandler_WritesTheDecisionLogAfterTheAnswer(t *testing.T) {
	cfg := storeConfig(t, time.Second, 30*time.Second)
	load := func() (*config.Config, error) { return cfg, nil }
	in, err := hooks.ParseInput(searchCall)
	if err != nil {
		t.Fatal(err)
	}
	ctx, afterAnswer := AfterAnswer(context.Background())
	WebSearchHandler(load)(ctx, in)

	// Answered: the log and the call count wait.
	m := readMemory(t, cfg)
	if ds, err := m.Decisions(context.Background(), 0, time.Time{}); err != nil || len(ds) != 0 {
		t.Errorf("decisions written before the answer was out: %+v, %v", ds, err)
	}
	afterAnswer()
	ds, err := m.Decisions(context.Background(), 0, time.Time{})
	if err != nil || len(ds) != 1 || ds[0].Tool != "WebSearch" {
		t.Fatalf("decisions after the answer: %+v, %v", ds, err)
	}
	days, err := m.StoreCalls(context.Background(), time.Time{})
	if err != nil || len(days) != 1 || days[0].Calls != 1 || days[0].SkippedTotal() != 0 {
		t.Errorf("store calls: %+v, %v", days, err)
	}

	// Without AfterAnswer, the writes are made before the handler returns.
	WebSearchHandler(load)(context.Background(), in)
	if ds, err := m.Decisions(context.Background(), 0, time.Time{}); err != nil || len(ds) != 2 {
		t.Errorf("decisions of a call without AfterAnswer: %+v, %v", ds, err)
	}
}

func TestHandler_CountsACallThatWentOnWithoutTheStore(t *testing.T) {
	cfg := storeConfig(t, 20*time.Millisecond, 50*time.Millisecond)
	release := lockStore(t, cfg)
	load := func() (*config.Config, error) { return cfg, nil }
	in, err := hooks.ParseInput(searchCall)
	if err != nil {
		t.Fatal(err)
	}
	ctx, afterAnswer := AfterAnswer(context.Background())
	d := WebSearchHandler(load)(ctx, in)
	if !strings.Contains(strings.Join(d.Diagnostics, "\n"), "the store is not usable, going on without it") {
		t.Fatalf("the store opened under a held lock: %+v", d)
	}
	release()
	cfg.Store.OpenTimeout = 30 * time.Second // the lock is gone; opening again may take its time
	afterAnswer()
	days, err := readMemory(t, cfg).StoreCalls(context.Background(), time.Time{})
	if err != nil || len(days) != 1 || days[0].Calls != 1 || days[0].Skipped[memory.SkipOpenTimeout] != 1 {
		t.Errorf("store calls: %+v, %v", days, err)
	}
}

func TestHandler_WritesAfterTheAnswerHaveTheOpenBoundNotTheCallBound(t *testing.T) {
	// No call on the way to an answer could make it in 1ns; the writes
	// after the answer have store.open_timeout.
	cfg := storeConfig(t, time.Nanosecond, 30*time.Second)
	load := func() (*config.Config, error) { return cfg, nil }
	in, err := hooks.ParseInput(searchCall)
	if err != nil {
		t.Fatal(err)
	}
	ctx, afterAnswer := AfterAnswer(context.Background())
	WebSearchHandler(load)(ctx, in)
	afterAnswer()
	m := readMemory(t, cfg)
	if ds, err := m.Decisions(context.Background(), 0, time.Time{}); err != nil || len(ds) != 1 {
		t.Errorf("decisions: %+v, %v", ds, err)
	}
	if days, err := m.StoreCalls(context.Background(), time.Time{}); err != nil || len(days) != 1 || days[0].Calls != 1 {
		t.Errorf("store calls: %+v, %v", days, err)
	}
}

// In a hook process the agent waits for the exit, and kills the process at
// the hook's timeout: the writes left for after the answer end soon after
// the call's budget, however patient store.open_timeout is.
func TestHandler_WritesAfterTheAnswerEndSoonAfterTheBudget(t *testing.T) {
	cfg := storeConfig(t, time.Second, 30*time.Second)
	load := func() (*config.Config, error) { return cfg, nil }
	in, err := hooks.ParseInput(searchCall)
	if err != nil {
		t.Fatal(err)
	}
	// A call answered within its budget, whose after-answer work starts
	// longer than the grace after the budget ended.
	end := time.Now().Add(2 * time.Second)
	ctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	ctx, afterAnswer := AfterAnswer(ctx)
	WebSearchHandler(load)(ctx, in)
	time.Sleep(time.Until(end.Add(afterAnswerGrace + 200*time.Millisecond)))
	afterAnswer()
	if ds, err := readMemory(t, cfg).Decisions(context.Background(), 0, time.Time{}); err != nil || len(ds) != 0 {
		t.Errorf("writes made past the budget and its grace: %+v, %v", ds, err)
	}

	// Within the budget they are made.
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(10*time.Second))
	defer cancel()
	ctx, afterAnswer = AfterAnswer(ctx)
	WebSearchHandler(load)(ctx, in)
	afterAnswer()
	if ds, err := readMemory(t, cfg).Decisions(context.Background(), 0, time.Time{}); err != nil || len(ds) != 1 {
		t.Errorf("writes within the budget: %+v, %v", ds, err)
	}
}
