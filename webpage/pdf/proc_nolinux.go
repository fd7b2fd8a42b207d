//go:build !linux

package pdf

// memoryBounded reports whether [Options.MaxMemoryBytes] is enforced on
// this system: only Linux sets a limit on a running child process.
const memoryBounded = false

// limitMemory does nothing on this system.
func limitMemory(int, int64) error { return nil }
