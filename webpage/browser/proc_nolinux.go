//go:build !linux

package browser

// memoryWatched reports whether [Config.MaxMemoryBytes] is enforced on this
// system.
const memoryWatched = false

// procInfo describes a process of the browser.
type procInfo struct {
	pid int
}

// groupProcs cannot list a process group on this system.
func groupProcs(int) []procInfo { return nil }

// groupMemory cannot measure memory on this system.
func groupMemory([]procInfo) (int64, bool) { return 0, false }

// procsUsing cannot list processes on this system.
func procsUsing(string) []int { return nil }

// groupsUsing cannot list processes on this system.
func groupsUsing(string) []int { return nil }
