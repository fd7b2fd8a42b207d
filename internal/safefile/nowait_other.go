//go:build !unix

package safefile

import "os"

// openNoWait opens path; systems other than Unix have no FIFOs in the file
// system that an open could wait on.
func openNoWait(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag, 0)
}

// linkCount returns 1: hard links are not counted on this system.
func linkCount(os.FileInfo) uint64 { return 1 }

// keepOwner does nothing: file ownership is not kept on this system.
func keepOwner(*os.File, os.FileInfo) error { return nil }

// FileOwner returns ok false: this system does not say.
func FileOwner(os.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
