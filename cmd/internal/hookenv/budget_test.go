package hookenv

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/routing"
)

func TestHandlers_StepAsideWhenTheConfigurationCannotBeLoaded(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	stalled := func() (*config.Config, error) { <-release; return config.Default(), nil }
	in, _ := hooks.ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"abc"}}`))
	for _, h := range []hooks.Handler{WebSearchHandler(stalled), WebFetchHandler(stalled)} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		d := h(ctx, in)
		cancel()
		if d.Action != hooks.Pass || d.Output(in) != nil || !strings.Contains(strings.Join(d.Diagnostics, "\n"), "the configuration could not be loaded in time") {
			t.Errorf("decision = %+v", d)
		}
	}
	// Without a deadline of its own, the wait for the configuration ends
	// with the default budget, counted from the hook's start.
	ctx := hooks.WithStart(context.Background(), time.Now().Add(-config.Default().Hooks.WebSearch.Budget))
	d := WebSearchHandler(stalled)(ctx, in)
	if !strings.Contains(strings.Join(d.Diagnostics, "\n"), "default budget is 25s") {
		t.Errorf("decision = %+v", d)
	}
}

func TestBudgeted_CountsTheBudgetFromTheHooksStart(t *testing.T) {
	cfg := config.Default()
	cfg.Hooks.WebSearch.Budget = time.Second
	load := func() (*config.Config, error) { return cfg, nil }
	start := time.Now().Add(-900 * time.Millisecond)
	ctx := hooks.WithStart(context.Background(), start)
	deadlines := make(chan time.Time, 1)
	d := budgeted(ctx, load, searchHook, func(ctx context.Context, _ *config.Config, _ error) hooks.Decision {
		deadline, _ := ctx.Deadline()
		deadlines <- deadline
		// A call that ignores its context.
		time.Sleep(time.Hour)
		return hooks.Decision{Action: hooks.Deny, Reason: "late"}
	})
	if deadline := <-deadlines; !deadline.Equal(start.Add(time.Second)) {
		t.Errorf("body deadline = %v, want the start plus the budget (%v)", deadline, start.Add(time.Second))
	}
	if d.Action != hooks.Pass || !strings.Contains(strings.Join(d.Diagnostics, "\n"), "the web search hook's 1s budget ran out") {
		t.Errorf("decision = %+v", d)
	}
}

func TestLockSlice_IsASmallPartOfTheBudget(t *testing.T) {
	for budget, want := range map[time.Duration]time.Duration{
		0:                      time.Second,
		25 * time.Second:       time.Second,
		10 * time.Second:       500 * time.Millisecond,
		2 * time.Second:        100 * time.Millisecond,
		700 * time.Millisecond: 35 * time.Millisecond,
	} {
		if got := lockSlice(budget); got != want {
			t.Errorf("lockSlice(%v) = %v, want %v", budget, got, want)
		}
	}
	cfg := config.Default()
	cfg.StateDir = t.TempDir()
	cfg.Hooks.WebSearch.Budget = 3 * time.Second
	r := HookRoutes(cfg, true, false)
	if st, _ := r.State.(*routing.StateStore); st == nil || st.LockWait != 150*time.Millisecond {
		t.Errorf("state = %+v", r.State)
	}
}
