package e2e

import (
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Builder builds Go main packages (hooks, stub hooks, MCP servers) once per
// test binary run into Dir, and hands out the paths of the binaries.
// It is safe for concurrent use.
type Builder struct {
	// Dir receives the binaries; a test's TestMain usually creates it with
	// os.MkdirTemp and removes it after m.Run.
	Dir string

	mu    sync.Mutex
	built map[string]buildResult
}

type buildResult struct {
	path string
	err  error
}

// Build builds the main package pkg (an import path, or a path relative to
// the test's package directory such as "./testdata/stubhook") once and
// returns the binary's path. It fails the test when the build fails.
func (b *Builder) Build(t testing.TB, pkg string) string {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.built == nil {
		b.built = map[string]buildResult{}
	}
	r, ok := b.built[pkg]
	if !ok {
		r.path = filepath.Join(b.Dir, fmt.Sprintf("%d-%s", len(b.built), path.Base(filepath.ToSlash(pkg))))
		if runtime.GOOS == "windows" {
			r.path += ".exe"
		}
		r.err = goBuild(r.path, pkg)
		if r.err == nil && (pkg == hookPkgPrefix+"websearch" || pkg == hookPkgPrefix+"webfetch") {
			// A hook front runs the worker installed next to it.
			r.err = goBuild(filepath.Join(b.Dir, workerName()), workerPkg)
		}
		b.built[pkg] = r
	}
	if r.err != nil {
		t.Fatalf("build %s: %v", pkg, r.err)
	}
	return r.path
}

const (
	hookPkgPrefix = "github.com/webgate-dev/webgate/cmd/"
	workerPkg     = "github.com/webgate-dev/webgate/cmd/webgate-hook"
)

func workerName() string {
	if runtime.GOOS == "windows" {
		return "webgate-hook.exe"
	}
	return "webgate-hook"
}

func goBuild(out, pkg string) error {
	// go test puts its own GOROOT/bin first on PATH.
	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("go command not found: %w", err)
	}
	cmd := exec.Command(gobin, "build", "-o", out, pkg)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w\n%s", err, msg)
	}
	return nil
}
