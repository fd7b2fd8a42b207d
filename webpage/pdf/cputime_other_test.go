//go:build !unix

package pdf_test

import "time"

// cpuTime is not measured on this system.
func cpuTime() time.Duration { return 0 }
