//go:build linux

package hooks_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/proctest"
)

// "At most eight warm workers" holds when many first calls start them
// at once.

func TestWarmWorker_AtMostEightStartAtOnce(t *testing.T) {
	f := newTavilyFake(t)
	state := warmState(t)
	// Sixteen first calls at once, each with another process environment
	// (so another warm worker).
	var wg sync.WaitGroup
	for i := range 16 {
		env := warmEnv(t, state, f, workingKey, fmt.Sprintf("LANG=C.warm%d", i))
		wg.Go(func() {
			r := runBinary(t, "websearch", bytes.NewReader(searchPayload(fmt.Sprintf("parallel %d", i), goDomains, nil)), env)
			if !strings.Contains(r.stdout, "Tavily: context package") {
				t.Errorf("call %d not answered: %s\n%s", i, r.stdout, r.stderr)
			}
		})
	}
	wg.Wait()
	// The warm workers those calls started come up within moments.
	most := 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		most = max(most, len(proctest.WarmWorkers(worker.StateLayout(state).Serving())))
	}
	if most > 8 {
		t.Errorf("%d warm workers ran at once, want at most 8", most)
	}
	if most == 0 {
		t.Error("no warm worker started")
	}
	if locks, _ := filepath.Glob(filepath.Join(state, "run", "*.sock.lock")); len(locks) > 8 {
		t.Errorf("%d warm workers' lock files", len(locks))
	}
}
