package config

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad_LargeFile times Load with a file of 100 docs databases and
// 1,000 tool routes: parsed each time, from the cache, from the cache
// without the tables, and a file of one route for comparison.
func BenchmarkLoad_LargeFile(b *testing.B) {
	saved := cacheRacyWindow
	cacheRacyWindow = 0
	b.Cleanup(func() { cacheRacyWindow = saved })
	dir := b.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			b.Fatal(err)
		}
		return p
	}
	state := "WEBGATE_STATE_DIR=" + filepath.Join(dir, "state")
	large := []string{"WEBGATE_CONFIG=" + write("large.toml", largeFile(100, 1000)), state}
	small := []string{"WEBGATE_CONFIG=" + write("small.toml", largeFile(0, 1)), state}
	for _, c := range []struct {
		name string
		opts LoadOptions
	}{
		{"parsed", LoadOptions{Env: large}},
		{"parsed-skipping-tables", LoadOptions{Env: large, SkipTables: []string{"docs.databases", "routes.tool_routes"}}},
		{"cached", LoadOptions{Env: large, Cache: true}},
		{"cached-skipping-docs", LoadOptions{Env: large, Cache: true, SkipTables: []string{"docs.databases"}}},
		{"cached-skipping-tables", LoadOptions{Env: large, Cache: true, SkipTables: []string{"docs.databases", "routes.tool_routes"}}},
		{"one-route", LoadOptions{Env: small}},
	} {
		b.Run(c.name, func(b *testing.B) {
			Load(&c.opts) // writes the cache
			for b.Loop() {
				Load(&c.opts)
			}
		})
	}
}
