package worker

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDeps_TheFrontsLinkTheStandardLibraryAndThisPackageOnly keeps the
// front binaries small: they link this package, and so must it stay
// standard-library only, and without package net, whose start-up made a
// pass-through 1.29 times slower when it was linked.
func TestDeps_TheFrontsLinkTheStandardLibraryAndThisPackageOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/webgate-dev/webgate/"
	allowed := map[string]bool{}
	for _, p := range []string{"cmd/websearch", "cmd/webfetch", "hooks/gate", "hooks/worker", "internal/safefile", "internal/buildinfo"} {
		allowed[mod+p] = true
	}
	cmd := exec.Command("go", "list", "-deps", mod+"cmd/websearch", mod+"cmd/webfetch")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		stdlib := !strings.Contains(strings.SplitN(dep, "/", 2)[0], ".")
		switch {
		case dep == "net" || strings.HasPrefix(dep, "net/") || strings.HasPrefix(dep, "vendor/golang.org/x/net/"):
			t.Errorf("a front links %s", dep)
		case !stdlib && !allowed[dep]:
			t.Errorf("a front links %s, which is not the standard library", dep)
		}
	}
}

func envOf(kv ...string) Env { return EnvList(kv) }
