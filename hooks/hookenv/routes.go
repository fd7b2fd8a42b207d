package hookenv

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/internal/safefile"
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
	return config.LoadFromOSWith(config.LoadOptions{Cache: true})
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
		// Clipped, so that appending the file's copies them rather than
		// writing into cfg.
		dbs = slices.Clip(cfg.Docs.Databases)
		if n := len(dbs); n > 0 {
			rs.DocsSources = append(rs.DocsSources, fmt.Sprintf("%s (%d inline)", originFile(cfg.Origin("docs.databases")), n))
		}
		if p := cfg.Docs.Config; p != "" {
			more, err := readFile(p, routing.ParseDocsConfig)
			if err != nil {
				rs.Warnings = append(rs.Warnings, fmt.Errorf("docs.config (%s): %s: %w", cfg.Origin("docs.config"), p, err))
			} else {
				rs.DocsSources = append(rs.DocsSources, fmt.Sprintf("%s (%d)", p, len(more)))
			}
			dbs = append(dbs, more...)
		}
	}
	var routes []routing.ToolRoute
	if withTools {
		routes = slices.Clip(cfg.Routes.ToolRoutes)
		if n := len(routes); n > 0 {
			rs.RouteSources = append(rs.RouteSources, fmt.Sprintf("%s (%d inline)", originFile(cfg.Origin("routes.tool_routes")), n))
		}
		if p := cfg.Routes.Config; p != "" {
			more, err := readFile(p, routing.ParseToolRoutes)
			if err != nil {
				rs.Warnings = append(rs.Warnings, fmt.Errorf("routes.config (%s): %s: %w", cfg.Origin("routes.config"), p, err))
			} else {
				rs.RouteSources = append(rs.RouteSources, fmt.Sprintf("%s (%d)", p, len(more)))
			}
			routes = append(routes, more...)
		}
	}
	rs.ConfiguredDatabases, rs.ConfiguredRoutes = len(dbs), len(routes)
	var w []error
	rs.Docs, w = routing.NewDocsRouter(dbs)
	rs.Warnings = append(rs.Warnings, w...)
	rs.Tools, w = routing.NewToolRouter(routes)
	rs.Warnings = append(rs.Warnings, w...)
	return rs
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
// set, with the docs routes' state kept in cfg.StateDir (one file per
// session; a lock another process holds is waited for at most 5% of the
// web search hook's budget, and never more than a second) and the
// warnings as text.
func HookRoutes(cfg *config.Config, withDocs, withTools bool) hooks.Routes {
	if cfg == nil {
		cfg = config.Default()
	}
	rs := LoadRoutes(cfg, withDocs, withTools)
	r := hooks.Routes{Docs: rs.Docs, Tools: rs.Tools}
	if withDocs {
		r.State = &routing.StateStore{Dir: cfg.StateDir, LockWait: lockSlice(cfg.Hooks.WebSearch.Budget)}
	}
	for _, w := range rs.Warnings {
		r.Warnings = append(r.Warnings, w.Error())
	}
	return r
}
