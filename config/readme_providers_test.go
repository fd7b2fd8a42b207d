package config

import (
	"os"
	"strings"
	"testing"
)

// TestReadme_ListsEveryRegisteredProvider keeps the README's providers
// table and its configuration reference in step with the registry: a
// backend registered in Providers has a row in the table (by its title)
// and its settings in the reference.
func TestReadme_ListsEveryRegisteredProvider(t *testing.T) {
	data, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "\n## Providers\n")
	if start < 0 {
		t.Fatal("README.md has no Providers section")
	}
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	for _, b := range Providers().All() {
		title := b.Title
		if i := strings.Index(title, " "); i > 0 && b.Name != WebSearchAPI {
			title = title[:i] // "Brave Search" is listed as "Brave Search", "Jina Reader and Search" as "Jina"
		}
		if !strings.Contains(section, "| ["+title) && !strings.Contains(section, "| "+title) {
			t.Errorf("the README's providers table has no row for %s (%s)", b.Name, b.Title)
		}
		if !strings.Contains(doc, "`providers."+b.Name+".") {
			t.Errorf("the configuration reference has no settings for %s", b.Name)
		}
	}
}
