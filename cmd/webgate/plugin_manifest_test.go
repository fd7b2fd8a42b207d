package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/buildinfo"
)

// The plugin's manifest describes the product as it is: its version is the
// release's, and it names every provider and local reading.
func TestPluginManifest_DescribesTheProductAsItIs(t *testing.T) {
	data, err := os.ReadFile("../../.claude-plugin/plugin.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Version     string   `json:"version"`
		Description string   `json:"description"`
		Keywords    []string `json:"keywords"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Version != buildinfo.Release {
		t.Errorf("version %q, want the release %q", m.Version, buildinfo.Release)
	}
	for _, n := range config.Providers().Names() {
		if !slices.Contains(m.Keywords, n) {
			t.Errorf("keywords %q lack the provider %s", m.Keywords, n)
		}
	}
	for _, want := range []string{"PDF", "headless browser", "no key"} {
		if !strings.Contains(m.Description, want) {
			t.Errorf("description lacks %q: %s", want, m.Description)
		}
	}
}
