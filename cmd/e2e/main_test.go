package e2e

import (
	"fmt"
	"os"
	"testing"
)

// bins builds the hook and server programs the tests run, once per run.
var bins *Builder

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "webgate-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins = &Builder{Dir: dir}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
