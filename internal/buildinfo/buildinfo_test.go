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
	// In a git checkout the toolchain derives the module's version from the
	// commit (a pseudo-version, or the release tag's version): the version
	// must be that, not the dev fallback. Where the build recorded no
	// revision (a checkout the toolchain does not stamp, such as some
	// linked work trees), there is nothing to check.
	got := run("-buildvcs=true")
	info, err := exec.Command("go", "version", "-m", filepath.Join(dir, "v")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(info), "vcs.revision=") {
		t.Log("the build recorded no VCS revision: the VCS-stamped build is not checked")
		return
	}
	if !moduleVersion.MatchString(got[0]) || strings.HasPrefix(got[0], "v"+Release+"-dev") {
		t.Errorf("unstamped build in a git checkout reports %q, want the version derived from the commit", got[0])
	}
}

// moduleVersion matches a module version the Go toolchain derives from a
// commit: a release tag's, or a pseudo-version, with "+dirty" for
// uncommitted changes.
var moduleVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+dirty)?$`)

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
	bins := []string{"cmd/webgate", "cmd/websearch", "cmd/webfetch", "cmd/webgate-hook"}
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
