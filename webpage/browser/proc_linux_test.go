package browser

import (
	"fmt"
	"os"
	"strings"
)

// processesWith returns the live processes whose command line holds s.
func processesWith(s string) []int {
	var out []int
	for _, pid := range allPIDs() {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		if p, ok := readProc(pid); ok && p.state != 'Z' {
			out = append(out, pid)
		}
	}
	return out
}
