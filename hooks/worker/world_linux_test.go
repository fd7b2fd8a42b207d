package worker

import (
	"os"
	"strconv"
	"testing"
)

func TestProcWorld_ThisProcessIsInItsOwnWorld(t *testing.T) {
	self, err := ProcWorld("/proc/self")
	if err != nil {
		t.Fatal(err)
	}
	byPID, err := ProcWorld("/proc/" + strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	if d := self.Diff(byPID); d != "" {
		t.Errorf("this process differs from itself in its %s", d)
	}
	if _, err := ProcWorld("/proc/0"); err == nil {
		t.Error("a process that does not exist has a world")
	}
}

// BenchmarkListenerCheck is what a front spends per warm call on the
// listener's world: its own and the listener's read through /proc.
func BenchmarkListenerCheck(b *testing.B) {
	dir := "/proc/" + strconv.Itoa(os.Getpid())
	for b.Loop() {
		a, _ := ProcWorld("/proc/self")
		c, _ := ProcWorld(dir)
		if a.Diff(c) != "" {
			b.Fatal("differs")
		}
	}
}
