package buildinfo

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
// stamped as make install stamps it, and one without, and runs both.
func TestVersion_IsStampedByTheLinker(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	dir := t.TempDir()
	run := func(ldflags string) []string {
		bin := filepath.Join(dir, "v")
		args := []string{"build", "-o", bin}
		if ldflags != "" {
			args = append(args, "-ldflags", ldflags)
		}
		cmd := exec.Command("go", append(args, "./testdata/printversion")...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	got := run("-X github.com/webgate-dev/webgate/internal/buildinfo.version=v9.8.7-3-gabcdef0")
	if got[0] != "v9.8.7-3-gabcdef0" || got[1] != "webgate/v9.8.7-3-gabcdef0 (+https://github.com/webgate-dev/webgate)" {
		t.Errorf("stamped build reports %q", got)
	}
	got = run("")
	if !strings.HasPrefix(got[0], "v"+Release+"-dev") {
		t.Errorf("unstamped build reports %q, want v%s-dev…", got[0], Release)
	}
}
