package config

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"

	"github.com/webgate-dev/webgate/routing"
)

// genericDecode decodes raw as the key's list of tables the way the loader
// did before tables were taken out: through koanf and its decoder.
func genericDecode(key string, raw any, t reflect.Type) (reflect.Value, error) {
	k := koanf.New(".")
	m := map[string]any{}
	parts := strings.Split(key, ".")
	cur := m
	for _, p := range parts[:len(parts)-1] {
		next := map[string]any{}
		cur[p] = next
		cur = next
	}
	cur[parts[len(parts)-1]] = raw
	if err := k.Load(confmap.Provider(m, ""), nil); err != nil {
		return reflect.Value{}, err
	}
	out := reflect.New(t)
	err := k.UnmarshalWithConf(key, out.Interface(), koanf.UnmarshalConf{Tag: "koanf"})
	return out.Elem(), err
}

// randomRaw returns a value as a file parser could produce it for a list
// of tables: mostly plain data, sometimes numbers, booleans, nulls,
// single strings for lists, field names in another case.
func randomRaw(rng *rand.Rand, t reflect.Type, depth int) any {
	odd := rng.IntN(12) == 0
	switch t.Kind() {
	case reflect.String:
		if odd {
			return []any{int64(7), 2.5, true, nil, "x"}[rng.IntN(5)]
		}
		return []string{"", "a", "Bash", "WebFetch", "^https?://x\\.example/", "ünïcode"}[rng.IntN(6)]
	case reflect.Slice:
		if odd {
			return []any{"single", nil, map[string]any{}}[rng.IntN(3)]
		}
		n := rng.IntN(4)
		if depth > 2 {
			n = 0
		}
		items := make([]any, n)
		for i := range items {
			items[i] = randomRaw(rng, t.Elem(), depth+1)
		}
		return items
	case reflect.Struct:
		m := map[string]any{}
		for i := range t.NumField() {
			if rng.IntN(3) == 0 {
				continue
			}
			name := t.Field(i).Tag.Get("koanf")
			if rng.IntN(15) == 0 {
				name = strings.ToUpper(name)
			}
			m[name] = randomRaw(rng, t.Field(i).Type, depth+1)
		}
		return m
	}
	return nil
}

// TestDecodePlain_AgreesWithTheGenericDecoder checks, on generated lists
// of tables, that whatever decodePlain accepts it decodes exactly as
// koanf's decoder does, and that it accepts the plain ones.
func TestDecodePlain_AgreesWithTheGenericDecoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	accepted := 0
	for _, s := range settingsList {
		if s.Kind != KindTable {
			continue
		}
		for range 2000 {
			raw := randomRaw(rng, s.typ, 0)
			got, ok := decodePlain(raw, s.typ)
			if !ok {
				continue
			}
			accepted++
			want, err := genericDecode(s.Key, raw, s.typ)
			if err != nil {
				t.Fatalf("%s: decodePlain accepted %#v, which the generic decoder refuses: %v", s.Key, raw, err)
			}
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Fatalf("%s: %#v decoded as\n%#v\nwant\n%#v", s.Key, raw, got.Interface(), want.Interface())
			}
		}
	}
	if accepted < 1000 {
		t.Errorf("only %d generated values were plain", accepted)
	}
}

// largeFile returns a TOML configuration with n docs databases and m tool
// routes, and a few scalar settings.
func largeFile(n, m int) string {
	var b strings.Builder
	b.WriteString("debug = true\n[search]\nmode = \"fallback\"\n[hooks.webfetch]\nbudget = \"20s\"\n[routes]\nconfig = \"/nonexistent/routes.json\"\n\n")
	for i := range n {
		fmt.Fprintf(&b, "[[docs.databases]]\ndescription = \"Docs set %d\"\nkeywords = [\"kw%da\", \"framework%d\"]\nmcp_tool_name = \"mcp__docs%d__search\"\npath = \"/srv/docs/%d\"\n\n", i, i, i, i, i)
	}
	for i := range m {
		tool := "WebFetch"
		if i%2 == 1 {
			tool = "Bash"
		}
		fmt.Fprintf(&b, "[[routes.tool_routes]]\nname = \"route%d\"\ntool = \"%s\"\npattern = \"^https?://(www\\\\.)?site%d\\\\.example/\"\nmessage = \"Use the site%d MCP server instead.\"\n", i, tool, i, i)
		if i%10 == 0 {
			fmt.Fprintf(&b, "tests = [{input = \"https://site%d.example/\", expect = \"block\"}]\n", i)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestLoad_SkipTablesLeavesThemOutAndTheirProblemsWithThem(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "config.toml"), "bogus = 1\n"+largeFile(3, 4)+"[[docs.databases]]\npaht = \"/typo\"\n")
	full, err := Load(&LoadOptions{ConfigFile: file})
	if len(full.Docs.Databases) != 0 || len(full.Routes.ToolRoutes) != 4 {
		t.Fatalf("full load: %d databases, %d routes", len(full.Docs.Databases), len(full.Routes.ToolRoutes))
	}
	if msg := fmt.Sprint(err); !strings.Contains(msg, "docs.databases") || !strings.Contains(msg, "bogus (file") {
		t.Fatalf("full load error: %v", err)
	}
	c, err := Load(&LoadOptions{ConfigFile: file, SkipTables: []string{"docs.databases"}})
	if len(c.Docs.Databases) != 0 || len(c.Routes.ToolRoutes) != 4 || c.Routes.Config != "/nonexistent/routes.json" || !c.Debug {
		t.Errorf("skipping docs: %+v", c.Routes)
	}
	if msg := fmt.Sprint(err); strings.Contains(msg, "docs.databases") || !strings.Contains(msg, "bogus (file") {
		t.Errorf("skipping docs, error: %v", err)
	}
	if c.Origin("docs.databases") != "default" || !strings.HasPrefix(c.Origin("routes.tool_routes"), "file ") {
		t.Errorf("origins: %q, %q", c.Origin("docs.databases"), c.Origin("routes.tool_routes"))
	}
	c, _ = Load(&LoadOptions{ConfigFile: file, SkipTables: []string{"routes.tool_routes", "docs.databases"}})
	if len(c.Routes.ToolRoutes) != 0 || c.Routes.Config != "/nonexistent/routes.json" || c.Search.Mode != "fallback" {
		t.Errorf("skipping both: %+v", c.Routes)
	}
}

// TestLoad_TakesPlainTablesOutWithoutChangingTheResult compares loads of
// the same content in TOML, YAML and JSON, plain and not: every table
// must come out as the generic decoder made it, problems included.
func TestLoad_TakesPlainTablesOutWithoutChangingTheResult(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"plain.toml":   largeFile(5, 20),
		"numbers.toml": "[[routes.tool_routes]]\nname = 5\ntool = \"Bash\"\npattern = \"x\"\nmessage = \"m\"\n",
		"single.yaml":  "docs:\n  databases:\n    - keywords: k8s\n      path: /p\n      mcp_tool_name: t\n      description: d\n",
		"case.json":    `{"routes":{"tool_routes":[{"name":"a","pattern":"x","message":"m","tests":[{"INPUT":"x","expect":"block"}]}]}}`,
		"bad.toml":     "[[routes.tool_routes]]\nname = \"a\"\ntests = \"nope\"\n",
		"notlist.toml": "[docs.databases]\npath = \"/p\"\n",
		"empty.json":   `{"docs":{"databases":[]},"routes":{"tool_routes":[{"name":"a","tests":[]}]}}`,
	}
	want := map[string]func(*Config) bool{
		"numbers.toml": func(c *Config) bool { return len(c.Routes.ToolRoutes) == 1 && c.Routes.ToolRoutes[0].Name == "5" },
		"single.yaml": func(c *Config) bool {
			return len(c.Docs.Databases) == 1 && slices.Equal(c.Docs.Databases[0].Keywords, []string{"k8s"})
		},
		"case.json": func(c *Config) bool {
			return len(c.Routes.ToolRoutes) == 1 && c.Routes.ToolRoutes[0].Tests[0].Input == "x"
		},
		"empty.json": func(c *Config) bool {
			return c.Docs.Databases != nil && len(c.Docs.Databases) == 0 && c.Routes.ToolRoutes[0].Tests != nil
		},
		"plain.toml": func(c *Config) bool {
			return len(c.Docs.Databases) == 5 && len(c.Routes.ToolRoutes) == 20 && len(c.Routes.ToolRoutes[10].Tests) == 1 && c.Routes.ToolRoutes[1].Tool == routing.ToolBash
		},
	}
	for name, content := range cases {
		file := writeFile(t, filepath.Join(dir, name), content)
		c, err := Load(&LoadOptions{ConfigFile: file})
		if check, ok := want[name]; ok && !check(c) {
			t.Errorf("%s: docs %+v routes %+v (%v)", name, c.Docs.Databases, c.Routes.ToolRoutes, err)
		}
		switch name {
		case "bad.toml", "notlist.toml":
			if err == nil {
				t.Errorf("%s: no problem reported", name)
			}
		default:
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
}
