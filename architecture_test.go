package webgate_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// module is the module path every package of webgate starts with.
const module = "github.com/webgate-dev/webgate"

// layer is one row of ARCHITECTURE.md's layer table: its name and its
// packages, relative to the module ("." for the module root).
type layer struct {
	name     string
	packages []string
}

// readLayers parses the layer table of ARCHITECTURE.md: the rows of the
// first table under "## Layers", top to bottom, each package named in
// backquotes in the second column.
func readLayers(t *testing.T) []layer {
	t.Helper()
	f, err := os.Open("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var layers []layer
	in, header := false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			if in && len(layers) > 0 {
				return layers
			}
			in = line == "## Layers"
		case !in || !strings.HasPrefix(line, "|"):
			if in && len(layers) > 0 {
				return layers
			}
		case header < 2: // the header row and the separator
			header++
		default:
			cells := strings.Split(line, "|")
			if len(cells) < 4 {
				t.Fatalf("ARCHITECTURE.md: a layer row has too few cells: %q", line)
			}
			l := layer{name: strings.TrimSpace(cells[1])}
			for _, p := range strings.Split(cells[2], ",") {
				p = strings.TrimSpace(p)
				if !strings.HasPrefix(p, "`") || !strings.HasSuffix(p, "`") || len(p) < 3 {
					t.Fatalf("ARCHITECTURE.md: layer %q names %q, not a `package`", l.name, p)
				}
				l.packages = append(l.packages, strings.Trim(p, "`"))
			}
			layers = append(layers, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(layers) == 0 {
		t.Fatal("ARCHITECTURE.md: no layer table under ## Layers")
	}
	return layers
}

// goPackage is what the test reads of `go list -json`.
type goPackage struct {
	ImportPath string
	Imports    []string
}

// listPackages returns every package of the module with its imports (not
// its tests'), by path relative to the module.
func listPackages(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "./...")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		var mine []string
		for _, imp := range p.Imports {
			if rel, ok := relative(imp); ok {
				mine = append(mine, rel)
			}
		}
		rel, _ := relative(p.ImportPath)
		pkgs[rel] = mine
	}
	return pkgs
}

// relative returns path relative to the module, and whether it is the
// module's.
func relative(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// TestArchitecture_LayerTableIsTrue holds ARCHITECTURE.md's layer table
// against the code: every package of the module is in exactly one layer,
// every package the table names exists, and no package imports one of a
// layer above its own. Imports within a layer are allowed (the compiler
// refuses cycles); tests' own imports are not checked.
func TestArchitecture_LayerTableIsTrue(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	layers := readLayers(t)
	pkgs := listPackages(t)

	rank := map[string]int{} // package → its layer's index, 0 on top
	for i, l := range layers {
		for _, p := range l.packages {
			if j, dup := rank[p]; dup {
				t.Errorf("ARCHITECTURE.md: %s is in two layers, %s and %s", p, layers[j].name, l.name)
			}
			rank[p] = i
			if _, ok := pkgs[p]; !ok {
				t.Errorf("ARCHITECTURE.md: layer %s lists %s, which is not a package of the module", l.name, p)
			}
		}
	}
	for p := range pkgs {
		if _, ok := rank[p]; !ok {
			t.Errorf("ARCHITECTURE.md: %s is in no layer", p)
		}
	}
	for p, imports := range pkgs {
		from, ok := rank[p]
		if !ok {
			continue
		}
		for _, imp := range imports {
			if to, ok := rank[imp]; ok && to < from {
				t.Errorf("%s (%s) imports %s, of the higher layer %s", p, layers[from].name, imp, layers[to].name)
			}
		}
	}
}
