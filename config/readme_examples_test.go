package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeTOMLBlocks returns the bodies of the ```toml blocks in README.md.
func readmeTOMLBlocks(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	rest := string(data)
	for {
		_, after, ok := strings.Cut(rest, "```toml\n")
		if !ok {
			return blocks
		}
		body, tail, ok := strings.Cut(after, "```")
		if !ok {
			t.Fatal("README.md: unterminated toml block")
		}
		blocks = append(blocks, body)
		rest = tail
	}
}

func TestReadmeExamples_EveryTOMLBlockLoadsWithoutProblems(t *testing.T) {
	blocks := readmeTOMLBlocks(t)
	if len(blocks) < 3 {
		t.Fatalf("found %d toml blocks in README.md, want the configuration, docs route and tool route examples", len(blocks))
	}
	home := t.TempDir()
	// The configuration example names a key file; a real one must exist.
	keyFile := filepath.Join(home, ".config", "webgate", "tavily-keys.txt")
	if err := os.MkdirAll(filepath.Dir(keyFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, []byte("# Tavily keys\ntvly-one\ntvly-two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, b := range blocks {
		file := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(file, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(&LoadOptions{HomeDir: home, ConfigFile: file})
		if err != nil {
			t.Errorf("toml block %d:\n%s\nproblems: %v", i+1, b, Problems(err))
			continue
		}
		if cfg == nil {
			t.Errorf("toml block %d: no configuration", i+1)
		}
	}
}
