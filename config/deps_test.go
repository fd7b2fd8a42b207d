package config

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDeps_ReadingASettingLinksNoBrowser keeps building out of config: a
// program that only reads settings must not link what assemble builds
// with: not the local browser's driver, not SQLite, not Redis.
func TestDeps_ReadingASettingLinksNoBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{
			"github.com/chromedp/", "modernc.org/sqlite", "github.com/redis/go-redis/",
			"github.com/webgate-dev/webgate/webpage/browser", "github.com/webgate-dev/webgate/assemble",
			"github.com/webgate-dev/webgate/store/sqlitestore", "github.com/webgate-dev/webgate/store/redisstore",
			"github.com/webgate-dev/webgate/store/storeurl",
		} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("config links %s", dep)
			}
		}
	}
}
