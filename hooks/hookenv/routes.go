package hookenv

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
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
	return loadRoutes(cfg, true, true)
}

// loadRoutes loads the docs databases when withDocs is set and the tool
// routes when withTools is set; a router not asked for is empty.
func loadRoutes(cfg *config.Config, withDocs, withTools bool) (docs *routing.DocsRouter, tools *routing.ToolRouter, warnings []error) {
	if cfg == nil {
		cfg = config.Default()
	}
	var dbs []routing.Database
	if withDocs {
		dbs = slices.Clone(cfg.Docs.Databases)
		if p := cfg.Docs.Config; p != "" {
			more, err := readFile(p, routing.ParseDocsConfig)
			if err != nil {
				warnings = append(warnings, fmt.Errorf("docs.config %s: %w", p, err))
			}
			dbs = append(dbs, more...)
		}
	}
	var routes []routing.ToolRoute
	if withTools {
		routes = slices.Clone(cfg.Routes.ToolRoutes)
		if p := cfg.Routes.Config; p != "" {
			more, err := readFile(p, routing.ParseToolRoutes)
			if err != nil {
				warnings = append(warnings, fmt.Errorf("routes.config %s: %w", p, err))
			}
			routes = append(routes, more...)
		}
	}
	docs, w := routing.NewDocsRouter(dbs)
	warnings = append(warnings, w...)
	tools, w = routing.NewToolRouter(routes)
	warnings = append(warnings, w...)
	return docs, tools, warnings
}

// readFile reads the file at p and parses it with parse.
func readFile[T any](p string, parse func([]byte) ([]T, error)) ([]T, error) {
	data, err := os.ReadFile(p)
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
// session) and the warnings as text.
func HookRoutes(cfg *config.Config, withDocs, withTools bool) hooks.Routes {
	if cfg == nil {
		cfg = config.Default()
	}
	docs, tools, warns := loadRoutes(cfg, withDocs, withTools)
	r := hooks.Routes{Docs: docs, Tools: tools}
	if withDocs {
		r.State = &routing.StateStore{Dir: cfg.StateDir}
	}
	for _, w := range warns {
		r.Warnings = append(r.Warnings, w.Error())
	}
	return r
}
