package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/webgate-dev/webgate/config"
)

func routesCommand() command {
	return command{
		name:    "routes",
		summary: "List the docs databases and tool routes, or run the routes' inline tests",
		run:     runRoutes,
	}
}

const routesDescription = `
Routes works on the configured docs databases (docs.databases in the
config file and the file docs.config names) and tool routes
(routes.tool_routes in the config file and the tool-routes.json that
routes.config or WEBGATE_TOOL_ROUTES names).

  webgate routes test   print a warning for each invalid database or route,
                        run every inline route test (first match wins, as in
                        a real call), print each failure and a summary
                        "N passed, M failed"
  webgate routes list   print the loaded databases and routes, one line each

Exit status: 0 on success, 1 when a route test failed (or, with --strict,
when an entry was invalid), 2 for a bad command line.`

const routesExamples = `  webgate routes test
  WEBGATE_TOOL_ROUTES=~/.claude/tool-routes.json webgate routes test --strict
  webgate routes list
  webgate routes list --config ./webgate.toml`

func runRoutes(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("routes", "test|list [flags]", routesDescription, routesExamples, stderr)
	configFile := fs.String("config", "", configUsage)
	strict := fs.Bool("strict", false, "test: also fail when a database or route is invalid")
	rest, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	if len(rest) != 1 || (rest[0] != "test" && rest[0] != "list") {
		fmt.Fprintln(stderr, "webgate routes: want one of: test, list")
		fs.Usage()
		return exitUsage
	}
	cfg, loadErr := currentHost().loadConfig(*configFile)
	for _, p := range config.Problems(loadErr) {
		fmt.Fprintf(stderr, "webgate routes: config: %s\n", p)
	}
	rs := loadRouteSet(cfg)
	for _, w := range rs.Warnings {
		fmt.Fprintf(stderr, "webgate routes: warning: %s\n", w)
	}
	if rest[0] == "list" {
		listRoutes(rs, stdout)
		return exitOK
	}
	ran, failures := rs.Tools.RunTests()
	for _, f := range failures {
		fmt.Fprintf(stdout, "FAIL  %s\n", f)
	}
	if ran == 0 {
		fmt.Fprintf(stdout, "no inline route tests (%s loaded)\n", plural(len(rs.Tools.Routes()), "route"))
	} else {
		fmt.Fprintf(stdout, "%d passed, %d failed\n", ran-len(failures), len(failures))
	}
	if len(failures) > 0 || *strict && len(rs.Warnings) > 0 {
		return exitFail
	}
	return exitOK
}

// listRoutes prints one line per database and per route.
func listRoutes(rs routeSet, w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	dbs := rs.Docs.Databases()
	routes := rs.Tools.Routes()
	if len(dbs) == 0 && len(routes) == 0 {
		fmt.Fprintln(w, "no docs databases and no tool routes configured")
		return
	}
	for _, d := range dbs {
		fmt.Fprintf(tw, "docs\t%s\t%s %s\tkeywords: %s\n", oneLineText(d.Description), d.MCPToolName, d.Path, strings.Join(d.Keywords, ", "))
	}
	for _, rt := range routes {
		tests := ""
		if n := len(rt.Tests); n > 0 {
			tests = " (" + plural(n, "test") + ")"
		}
		fmt.Fprintf(tw, "route\t%s\t%s /%s/\t%s%s\n", rt.Name, rt.Tool, rt.Pattern, oneLineText(rt.Message), tests)
	}
	tw.Flush()
}
