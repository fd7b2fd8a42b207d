package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/memory"
)

// TestNew_NilOptionsMeansDefaults: a nil *Options is a Memory over no
// store, which remembers nothing and fails no call.
func TestNew_NilOptionsMeansDefaults(t *testing.T) {
	m := memory.New(nil)
	if m == nil {
		t.Fatal("New(nil) = nil")
	}
	if m.Store() != nil || m.CacheHits() != 0 {
		t.Fatalf("New(nil): store %v, cache hits %d; want none", m.Store(), m.CacheHits())
	}
	ctx := context.Background()
	m.Record(ctx, memory.Decision{Tool: "WebSearch"})
	if got, _ := m.Decisions(ctx, 10, time.Time{}); len(got) != 0 {
		t.Fatalf("New(nil) remembered %d decisions", len(got))
	}
}
