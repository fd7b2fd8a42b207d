package hooks

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRun_RecordsTheHooksStartForItsHandler(t *testing.T) {
	payload := `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{}}`
	var got time.Time
	h := func(ctx context.Context, _ *Input) Decision { got = Started(ctx); return Decision{} }
	before := time.Now()
	Run(context.Background(), strings.NewReader(payload), io.Discard, io.Discard, h)
	if got.Before(before) || got.After(time.Now()) {
		t.Errorf("Started = %v, want the moment Run was called (after %v)", got, before)
	}
	// A start already recorded, by a binary's main, is kept.
	start := time.Now().Add(-time.Minute)
	Run(WithStart(context.Background(), start), strings.NewReader(payload), io.Discard, io.Discard, h)
	if !got.Equal(start) {
		t.Errorf("Started = %v, want %v", got, start)
	}
}
