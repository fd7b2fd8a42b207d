package hookenv

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/internal/safefile"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/routing"
)

// Routes loads the routing rules cfg configures and builds their routers:
//
//   - docs databases: docs.databases, then the databases of the DocSearch
//     docsearch-config.json file named by docs.config (WEBGATE_DOCS_CONFIG);
//   - tool routes: routes.tool_routes, then the routes of the tool-routes.json
//     file named by routes.config (WEBGATE_TOOL_ROUTES), which apply to
//     WebFetch unless they name another tool.
//
// It never fails: an unreadable or malformed file, and each invalid entry
// (a missing field, an empty keyword list, a pattern that does not
// compile), is left out and reported in warnings, and the rest still
// works. The routers are never nil.
func Routes(cfg *config.Config) (docs *routing.DocsRouter, tools *routing.ToolRouter, warnings []error) {
	rs := LoadRoutes(cfg, true, true)
	return rs.Docs, rs.Tools, rs.Warnings
}

// LoadCached is the hook worker's [Loader]: [config.LoadFromOS] with the
// configuration cache on ([config.LoadOptions].Cache), so that a large
// configuration file (a thousand tool routes) is parsed once, not at
// every hook call.
func LoadCached() (*config.Config, error) {
	return config.LoadFromOSWith(&config.LoadOptions{Cache: true})
}

// RouteSet is the routing configuration as loaded by [LoadRoutes], with
// where each part came from, for diagnostics.
type RouteSet struct {
	Docs  *routing.DocsRouter
	Tools *routing.ToolRouter
	// ConfiguredDatabases and ConfiguredRoutes count the entries found,
	// invalid ones included.
	ConfiguredDatabases, ConfiguredRoutes int
	// DocsSources and RouteSources describe where the entries came from
	// ("/path/config.toml (2 inline)", "/path/tool-routes.json (3)").
	DocsSources, RouteSources []string
	// Warnings describe unreadable files and dropped entries.
	Warnings []error
}

// LoadRoutes loads the docs databases when withDocs is set and the tool
// routes when withTools is set, as [Routes] does; a router not asked for is
// empty.
func LoadRoutes(cfg *config.Config, withDocs, withTools bool) RouteSet {
	if cfg == nil {
		cfg = config.Default()
	}
	var rs RouteSet
	var dbs []routing.Database
	if withDocs {
		dbs = gather(&rs, &rs.DocsSources, cfg, cfg.Docs.Databases, "docs.databases", "docs.config", cfg.Docs.Config, routing.ParseDocsConfig)
	}
	var routes []routing.ToolRoute
	if withTools {
		routes = gather(&rs, &rs.RouteSources, cfg, cfg.Routes.ToolRoutes, "routes.tool_routes", "routes.config", cfg.Routes.Config, routing.ParseToolRoutes)
	}
	rs.ConfiguredDatabases, rs.ConfiguredRoutes = len(dbs), len(routes)
	var w []error
	rs.Docs, w = routing.NewDocsRouter(dbs)
	rs.Warnings = append(rs.Warnings, w...)
	rs.Tools, w = routing.NewToolRouter(routes)
	rs.Warnings = append(rs.Warnings, w...)
	return rs
}

// gather returns the entries of the setting inlineKey, inline, followed by
// those of the file at path (the setting fileKey; none when path is empty),
// read with parse, and says in *sources where they came from; a file that
// cannot be read is a warning of rs. inline is clipped, so that appending
// the file's entries copies it rather than writing into cfg.
func gather[T any](rs *RouteSet, sources *[]string, cfg *config.Config, inline []T, inlineKey, fileKey, path string, parse func([]byte) ([]T, error)) []T {
	out := slices.Clip(inline)
	if n := len(out); n > 0 {
		*sources = append(*sources, fmt.Sprintf("%s (%d inline)", originFile(cfg.Origin(inlineKey)), n))
	}
	if path == "" {
		return out
	}
	more, err := readFile(path, parse)
	if err != nil {
		rs.Warnings = append(rs.Warnings, fmt.Errorf("%s (%s): %s: %w", fileKey, cfg.Origin(fileKey), path, err))
	} else {
		*sources = append(*sources, fmt.Sprintf("%s (%d)", path, len(more)))
	}
	return append(out, more...)
}

// originFile reduces a setting's origin "file PATH key KEY" to PATH.
func originFile(origin string) string {
	path, _, _ := strings.Cut(strings.TrimPrefix(origin, "file "), " key ")
	return path
}

// readFile reads the file at p and parses it with parse.
func readFile[T any](p string, parse func([]byte) ([]T, error)) ([]T, error) {
	data, err := safefile.ReadFile(p, 0)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, err
	}
	return parse(data)
}

// HookRoutes returns the routes a hook applies for cfg ([Routes]): the
// docs databases when withDocs is set, the tool routes when withTools is
// set, with the docs routes' state in files ([RouteState] without a
// memory) and the warnings as text. A hook call whose store opened
// replaces the state with the store's.
func HookRoutes(cfg *config.Config, withDocs, withTools bool) hooks.Routes {
	if cfg == nil {
		cfg = config.Default()
	}
	return withFileState(cfg, loadHookRoutes(cfg, withDocs, withTools), withDocs)
}

// hookRoutes is [HookRoutes], with the routers a warm worker keeps for
// cfg when kept is not nil ([ConfigCache] builds them once per
// configuration it keeps).
func hookRoutes(kept *warmKept, cfg *config.Config, withDocs, withTools bool) hooks.Routes {
	if kept == nil || kept.configs == nil || cfg == nil {
		return HookRoutes(cfg, withDocs, withTools)
	}
	r, ok := kept.configs.routes(cfg, withDocs, withTools)
	if !ok {
		return HookRoutes(cfg, withDocs, withTools)
	}
	return withFileState(cfg, r, withDocs)
}

// loadHookRoutes builds the routers and the warnings of [HookRoutes].
func loadHookRoutes(cfg *config.Config, withDocs, withTools bool) hooks.Routes {
	rs := LoadRoutes(cfg, withDocs, withTools)
	r := hooks.Routes{Docs: rs.Docs, Tools: rs.Tools}
	for _, w := range rs.Warnings {
		r.Warnings = append(r.Warnings, w.Error())
	}
	return r
}

// withFileState gives the docs routes, when there are some, their state
// in files.
func withFileState(cfg *config.Config, r hooks.Routes, withDocs bool) hooks.Routes {
	if withDocs {
		r.State = RouteState(cfg, nil)
	}
	return r
}

// RouteState returns where the docs routes keep their escape hatch (the
// denials of each session, so that an identical retry within
// [routing.DefaultEscapeWindow] goes through):
//
//   - with m, a memory whose store opened and has not failed, in the store
//     ([memory.Memory.RouteState]): one record per session, under a keyed
//     fingerprint of the session id, changed atomically, so every hook
//     process, on this machine or sharing a Redis, sees one state;
//   - otherwise (the store is off, or could not be opened), in files in
//     cfg.StateDir ([routing.StateStore]): one file per session under a
//     lock, waited for at most 5% of the web search hook's budget and never
//     more than a second; so docs routes keep their escape hatch without a
//     store.
//
// With the store, the files stay the fallback: a denial the store fails
// to record is recorded in the files, and a retry is released from
// either, so a call whose store did not open (a busy machine, a store
// that is briefly locked) and its retry whose store did still find each
// other. The files are only read (a file that does not exist is not
// created) unless a denial is recorded or released there.
func RouteState(cfg *config.Config, m *memory.Memory) routing.State {
	if cfg == nil {
		cfg = config.Default()
	}
	files := &routing.StateStore{Dir: cfg.StateDir, LockWait: lockSlice(cfg.Hooks.WebSearch.Budget)}
	if m != nil && m.Store() != nil && m.Problem() == nil {
		return &fallbackState{primary: m.RouteState(routing.DefaultEscapeWindow), files: files}
	}
	return files
}

// fallbackState is the docs routes' state in the store (primary) with the
// files as the fallback; see [RouteState].
type fallbackState struct {
	primary routing.State
	files   *routing.StateStore
}

// Remember records the denial in the store, or in the files when the
// store fails.
func (f *fallbackState) Remember(sessionID string, c routing.Call) error {
	err := f.primary.Remember(sessionID, c)
	if err == nil {
		return nil
	}
	if ferr := f.files.Remember(sessionID, c); ferr != nil {
		return errors.Join(err, ferr)
	}
	return nil
}

// Release releases a denial recorded in the store, or else one recorded
// in the files.
func (f *fallbackState) Release(sessionID string, c routing.Call) (bool, error) {
	ok, err := f.primary.Release(sessionID, c)
	if ok {
		return true, nil
	}
	// Peek first: releasing takes the session's file lock, which creates
	// a lock file.
	if in, _ := f.files.Remembered(sessionID, c); in {
		return f.files.Release(sessionID, c)
	}
	return false, err
}

// Remembered reports whether the store or the files would release c; an
// error is the store's.
func (f *fallbackState) Remembered(sessionID string, c routing.Call) (bool, error) {
	ok, err := f.primary.Remembered(sessionID, c)
	if ok {
		return true, nil
	}
	// The files are the fallback: what is wrong with them matters only
	// when the store failed too.
	if in, _ := f.files.Remembered(sessionID, c); in {
		return true, nil
	}
	return false, err
}

// Window returns how long a denial is remembered.
func (f *fallbackState) Window() time.Duration { return f.primary.Window() }

// Describe names the store.
func (f *fallbackState) Describe() string { return f.primary.Describe() }
