package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks/worker"
)

func TestCheckWarm_CountsTheWarmWorkersTheLayoutShowsServing(t *testing.T) {
	state := t.TempDir()
	layout := worker.StateLayout(state)
	if err := os.MkdirAll(layout.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	detail := func() string {
		t.Helper()
		d := &doctor{}
		d.f.host.Env = []string{"WEBGATE_STATE_DIR=" + state}
		d.checkWarm(config.Default())
		if len(d.checks) != 1 {
			t.Fatalf("checks %+v", d.checks)
		}
		return d.checks[0].Detail
	}
	if got := detail(); !strings.Contains(got, "none running") {
		t.Errorf("an empty directory: %q", got)
	}
	// One serving (this process stands in for it), one whose socket is
	// gone, and one whose process is gone.
	serving, stale, dead := layout.Files("a"), layout.Files("b"), layout.Files("c")
	for _, f := range []struct{ path, content string }{
		{serving.Socket, ""}, {serving.PID(), strconv.Itoa(os.Getpid())},
		{stale.PID(), strconv.Itoa(os.Getpid())},
		{dead.Socket, ""}, {dead.PID(), "999999999"},
	} {
		if err := os.WriteFile(f.path, []byte(f.content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := detail(), "1 running (pid "+strconv.Itoa(os.Getpid())+")"; !strings.Contains(got, want) {
		t.Errorf("got %q, want it to say %q", got, want)
	}
}
