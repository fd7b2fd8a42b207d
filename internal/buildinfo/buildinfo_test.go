package buildinfo

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRelease_AgreesWithThePluginManifest keeps the one version in step
// with the version the Claude Code plugin announces.
func TestRelease_AgreesWithThePluginManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".claude-plugin", "plugin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Version != Release {
		t.Errorf("plugin.json says version %q, buildinfo.Release %q", m.Version, Release)
	}
}

// TestVersion_IsStampedByTheLinker builds a small program with the version
// stamped as make install stamps it, one without a stamp or VCS
// information, and, in a git checkout, one with the VCS information the Go
// toolchain records by default, and runs each. Every build names its
// -buildvcs mode and clears GOFLAGS, so the result does not depend on the
// Go environment of the machine running the test.
func TestVersion_IsStampedByTheLinker(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	dir := t.TempDir()
	run := func(args ...string) []string {
		t.Helper()
		bin := filepath.Join(dir, "v")
		cmd := exec.Command("go", append(append([]string{"build", "-o", bin}, args...), "./testdata/printversion")...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", args, err, out)
		}
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	for _, vcs := range []string{"-buildvcs=false", "-buildvcs=auto"} {
		got := run(vcs, "-ldflags", "-X github.com/webgate-dev/webgate/internal/buildinfo.version=v9.8.7-3-gabcdef0")
		if got[0] != "v9.8.7-3-gabcdef0" || got[1] != "webgate/v9.8.7-3-gabcdef0 (+https://github.com/webgate-dev/webgate)" {
			t.Errorf("stamped build (%s) reports %q", vcs, got)
		}
	}
	if got := run("-buildvcs=false"); got[0] != "v"+Release+"-dev" {
		t.Errorf("unstamped build without VCS information reports %q, want v%s-dev", got[0], Release)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("no git: the VCS-stamped build is not checked")
		return
	}
	if err := exec.Command("git", "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Log("not a git checkout: the VCS-stamped build is not checked")
		return
	}
	// In a git checkout the toolchain derives a pseudo-version from the
	// commit; the version must be that, not the dev fallback.
	got := run("-buildvcs=true")
	if !pseudoVersion.MatchString(got[0]) {
		t.Errorf("unstamped build in a git checkout reports %q, want a pseudo-version v0.0.0-<time>-<commit>", got[0])
	}
}

// pseudoVersion matches the version the Go toolchain derives from a commit
// with no release tag, with "+dirty" for uncommitted changes.
var pseudoVersion = regexp.MustCompile(`^v0\.0\.0-\d{14}-[0-9a-f]{12}(\+dirty)?$`)

// TestBinaries_ReportTheStampedVersion builds webgate's four binaries as
// make install does, with the version stamped, and checks that each one's
// --version reports that version: there is one version, not one per
// binary.
func TestBinaries_ReportTheStampedVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	const stamp = "v9.8.7-test"
	dir := t.TempDir()
	bins := []string{"cmd/webgate", "hooks/websearch", "hooks/webfetch", "hooks/webgate-hook"}
	args := []string{"build", "-buildvcs=false", "-trimpath", "-ldflags", "-X github.com/webgate-dev/webgate/internal/buildinfo.version=" + stamp, "-o", dir + string(filepath.Separator)}
	for _, b := range bins {
		args = append(args, "./"+b)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, b := range bins {
		name := filepath.Base(b)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, filepath.Join(dir, name), "--version")
		// A fresh home and an empty stdin: --version reads neither.
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Errorf("%s --version: %v", name, err)
			continue
		}
		line := strings.TrimSpace(string(out))
		if fields := strings.Fields(line); !strings.HasPrefix(line, name+" ") || len(fields) == 0 || fields[len(fields)-1] != stamp {
			t.Errorf("%s --version printed %q, want %q ending in %s", name, line, name+" …", stamp)
		}
	}
}
