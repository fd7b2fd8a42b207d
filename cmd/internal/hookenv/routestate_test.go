package hookenv

import (
	"os"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/memstore"
)

// stateConfig is a configuration whose state directory is a new one.
func stateConfig(t *testing.T) *config.Config {
	cfg := config.Default()
	cfg.StateDir = t.TempDir()
	return cfg
}

// stateFiles lists the docs routes' files in dir.
func stateFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), "docs-route-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestRouteState_IsTheStoreWhenItOpenedAndTheFilesOtherwise(t *testing.T) {
	cfg := stateConfig(t)
	if st, ok := RouteState(cfg, nil).(*routing.StateStore); !ok || st.Dir != cfg.StateDir {
		t.Errorf("without a memory: %#v, want the files in the state directory", RouteState(cfg, nil))
	}
	st := store.New(memstore.New(nil), nil)
	defer st.Close()
	rs := RouteState(cfg, memory.New(&memory.Options{Store: st}))
	if _, ok := rs.(*routing.StateStore); ok || rs.Describe() != "the memory store" {
		t.Errorf("with a memory: %#v (%q), want the store", rs, rs.Describe())
	}
	call := routing.Call{Query: "kubectl apply"}
	if err := rs.Remember("s", call); err != nil {
		t.Fatal(err)
	}
	if ok, err := rs.Remembered("s", call); !ok || err != nil {
		t.Errorf("Remembered = %v, %v", ok, err)
	}
	if ok, err := rs.Release("s", call); !ok || err != nil {
		t.Errorf("Release = %v, %v", ok, err)
	}
	if files := stateFiles(t, cfg.StateDir); len(files) != 0 {
		t.Errorf("the store's state wrote files: %v", files)
	}

	// A memory whose store already failed gets the files.
	broken := store.New(memstore.New(nil), nil)
	m := memory.New(&memory.Options{Store: broken})
	broken.Close()
	_ = m.RouteState(0).Remember("s", call) // fails, and marks the store as failed
	if m.Problem() == nil {
		t.Fatal("the closed store did not fail")
	}
	if _, ok := RouteState(cfg, m).(*routing.StateStore); !ok {
		t.Errorf("with a failed store: %#v, want the files", RouteState(cfg, m))
	}
}

func TestRouteState_ADenialRecordedInTheFilesIsReleasedWhenTheStoreWorks(t *testing.T) {
	cfg := stateConfig(t)
	call := routing.Call{Query: "helm rollback", AllowedDomains: []string{"helm.sh"}}
	// A call whose store did not open: the denial is in the files.
	if err := RouteState(cfg, nil).Remember("s", call); err != nil {
		t.Fatal(err)
	}
	// Its retry, whose store opened, releases it once.
	st := store.New(memstore.New(nil), nil)
	defer st.Close()
	rs := RouteState(cfg, memory.New(&memory.Options{Store: st}))
	if ok, err := rs.Remembered("s", call); !ok || err != nil {
		t.Errorf("Remembered = %v, %v; want the files' denial", ok, err)
	}
	if ok, err := rs.Release("s", call); !ok || err != nil {
		t.Fatalf("Release = %v, %v; want the files' denial released", ok, err)
	}
	if ok, _ := rs.Release("s", call); ok {
		t.Error("released twice")
	}
	if ok, _ := RouteState(cfg, nil).Remembered("s", call); ok {
		t.Error("the files still hold the released denial")
	}
}

func TestRouteState_ADenialTheStoreCannotRecordGoesToTheFiles(t *testing.T) {
	cfg := stateConfig(t)
	st := store.New(memstore.New(nil), nil)
	m := memory.New(&memory.Options{Store: st})
	rs := RouteState(cfg, m) // chosen while the store works
	st.Close()               // and then it fails
	call := routing.Call{Query: "terraform import"}
	if err := rs.Remember("s", call); err != nil {
		t.Fatalf("Remember = %v, want the denial recorded in the files", err)
	}
	if files := stateFiles(t, cfg.StateDir); len(files) == 0 {
		t.Error("no file holds the denial")
	}
	// The next call has no store at all: it finds the denial in the files.
	if ok, err := RouteState(cfg, nil).Release("s", call); !ok || err != nil {
		t.Errorf("Release = %v, %v", ok, err)
	}

	// With neither, the denial is not recorded, and the route does not deny.
	cfg.StateDir = ""
	rs = RouteState(cfg, memory.New(&memory.Options{Store: st}))
	docs, _ := routing.NewDocsRouter([]routing.Database{{Keywords: []string{"terraform"}, Path: "/d", MCPToolName: "mcp__d__search", Description: "d"}})
	if _, _, deny, err := docs.Route(rs, "s", call); deny || err == nil {
		t.Errorf("Route deny = %v, err %v; want no denial and an error", deny, err)
	}
}
