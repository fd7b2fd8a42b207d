package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/hookenv"
	"github.com/webgate-dev/webgate/routing"
)

func explainCommand() command {
	return command{
		name:    "explain",
		summary: "Show the decision path the hooks would take for a payload, query, URL or command",
		run:     runExplain,
	}
}

const explainDescription = `
Explain shows, step by step, what webgate's hooks would do with one tool
call: the runtime, event and tool recognised, the tool routes and docs
routes that match (and whether the per-session escape hatch would release
a docs-routed search; the state is only read, never written), the
providers that would be called and how, the page classifier's verdict and
signals for a URL, and the final decision.

The call is a hook payload (a FILE, or - for standard input), or is built
from --query (a WebSearch), --url with --prompt (a WebFetch) or --command
(a Bash call).

Explain is offline: it calls no provider and fetches no page. A URL's
verdict needs the page: give a saved copy with --html FILE, or use --live,
which probes the page as the hook does and then runs the real hook
handler in-process, within its budget, and prints the JSON it answers.

Exit status: 0 when the call was explained, 1 when the payload or the
--html file cannot be read, 2 for a bad command line.`

const explainExamples = `  webgate explain --query "kubectl rollout restart"
  webgate explain --url https://github.com/golang/go/issues --prompt "open issues"
  webgate explain --url https://example.org/app --html saved-page.html
  webgate explain --command "curl https://api.github.com/repos/golang/go"
  webgate explain payload.json
  echo '{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"go 1.26"}}' | webgate explain -
  webgate explain --live --query "go 1.26 release notes"`

// explanation is explain's JSON output.
type explanation struct {
	plan
	Signals    []string `json:"signals,omitempty"`
	LiveOutput any      `json:"live_output,omitempty"`
	LiveStderr []string `json:"live_stderr,omitempty"`
}

func runExplain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("explain", "[flags] [PAYLOAD-FILE | -]", explainDescription, explainExamples, stderr)
	query := fs.String("query", "", "explain a WebSearch for this `query`")
	urlFlag := fs.String("url", "", "explain a WebFetch of this `URL`")
	prompt := fs.String("prompt", "", "the WebFetch `prompt` (with --url)")
	command := fs.String("command", "", "explain a Bash call running this `command`")
	session := fs.String("session", "", "the session `id` whose escape-hatch state is read (default: the payload's, else none)")
	htmlFile := fs.String("html", "", "classify this saved `page` instead of fetching the URL")
	live := fs.Bool("live", false, "probe the page and run the real hook handler: calls the providers")
	asJSON := fs.Bool("json", false, "print the explanation as JSON")
	configFile := fs.String("config", "", "read this configuration `file` instead of WEBGATE_CONFIG or the default location")
	rest, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	given := 0
	for _, s := range []string{*query, *urlFlag, *command} {
		if s != "" {
			given++
		}
	}
	switch {
	case len(rest) > 1:
		fmt.Fprintf(stderr, "webgate explain: unexpected argument %q\n", rest[1])
		return exitUsage
	case given+len(rest) == 0:
		fmt.Fprintln(stderr, "webgate explain: give a payload file (or - for stdin), --query, --url or --command")
		fs.Usage()
		return exitUsage
	case given+len(rest) > 1:
		fmt.Fprintln(stderr, "webgate explain: give only one of: a payload file, --query, --url, --command")
		return exitUsage
	case *prompt != "" && *urlFlag == "":
		fmt.Fprintln(stderr, "webgate explain: --prompt goes with --url")
		return exitUsage
	}

	var payload []byte
	switch {
	case *query != "":
		payload = syntheticPayload("WebSearch", map[string]string{"query": *query}, *session)
	case *urlFlag != "":
		in := map[string]string{"url": *urlFlag}
		if *prompt != "" {
			in["prompt"] = *prompt
		}
		payload = syntheticPayload("WebFetch", in, *session)
	case *command != "":
		payload = syntheticPayload("Bash", map[string]string{"command": *command}, *session)
	default:
		r := stdin
		if rest[0] != "-" {
			f, err := os.Open(rest[0])
			if err != nil {
				fmt.Fprintf(stderr, "webgate explain: %v\n", err)
				return exitFail
			}
			defer f.Close()
			r = f
		}
		payload, err = io.ReadAll(io.LimitReader(r, hooks.DefaultMaxInputBytes+1))
		if err != nil {
			fmt.Fprintf(stderr, "webgate explain: reading the payload: %v\n", err)
			return exitFail
		}
	}
	in, err := hooks.ParseInput(payload)
	if err != nil {
		fmt.Fprintf(stderr, "webgate explain: %v (the hook would pass through)\n", err)
		return exitFail
	}
	if *session != "" {
		in.SessionID = *session
	}

	cfg, loadErr := currentHost().loadConfig(*configFile)
	if cfg == nil {
		cfg = config.Default()
	}
	out := &scrubWriter{w: stdout, secrets: cfg.Secrets()}
	defer out.flush()

	pi := planInput{cfg: cfg, loadErr: loadErr, routes: loadRouteSet(cfg), pageNote: "needs the page: use --html FILE, or --live to fetch it"}
	if *htmlFile != "" {
		pi.page, err = os.ReadFile(*htmlFile)
		if err != nil {
			fmt.Fprintf(stderr, "webgate explain: %v\n", err)
			return exitFail
		}
		pi.pageNote = "from " + *htmlFile
	}
	p := planFor(in, pi)
	if *live && p.Decision == "depends" && pi.page == nil {
		pi.page, pi.pageNote = probePage(ctx, cfg, p.Value)
		p = planFor(in, pi)
		if pi.page == nil {
			p.Decision, p.Why = "pass", "the probe did not get an HTML page ("+pi.pageNote+"): the hook passes through, or extracts when the site refused the read"
		}
	}

	ex := explanation{plan: p}
	if p.Classification != nil {
		for _, s := range p.Classification.Signals {
			ex.Signals = append(ex.Signals, s.String())
		}
	}
	var liveOut, liveErr string
	if *live && (p.Hook == "websearch" || p.Hook == "webfetch") {
		liveOut, liveErr = liveRun(ctx, p.Hook, cfg, loadErr, payload)
		if strings.TrimSpace(liveOut) != "" {
			var v any
			if json.Unmarshal([]byte(liveOut), &v) == nil {
				ex.LiveOutput = v
			} else {
				ex.LiveOutput = liveOut
			}
		}
		for _, l := range strings.Split(strings.TrimSpace(liveErr), "\n") {
			if l != "" {
				ex.LiveStderr = append(ex.LiveStderr, l)
			}
		}
	}

	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(ex)
		return exitOK
	}
	printExplanation(out, ex, cfg, pi.routes, *live, liveOut)
	return exitOK
}

// probePage reads the page with the web fetch hook's probe and settings,
// within the hook's budget. It returns nil and the reason when the result
// is not an HTML page.
func probePage(ctx context.Context, cfg *config.Config, rawURL string) ([]byte, string) {
	env := hookenv.WebFetch(cfg, nil)
	budget := cfg.Hooks.WebFetch.Budget
	if budget <= 0 {
		budget = hooks.DefaultFetchBudget
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	res, err := hooks.Probe(ctx, rawURL, env.Probe)
	switch {
	case err != nil:
		return nil, "probe failed: " + oneLineText(err.Error())
	case res.Status < 200 || res.Status > 299:
		return nil, fmt.Sprintf("probe: HTTP %d", res.Status)
	case !res.HTML():
		return nil, "probe: not HTML (" + res.ContentType + ")"
	}
	note := fmt.Sprintf("probed: HTTP %d, %d bytes", res.Status, len(res.Body))
	if res.Truncated {
		note += ", truncated"
	}
	return res.Body, note
}

func printExplanation(w io.Writer, ex explanation, cfg *config.Config, rs routeSet, live bool, liveOut string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	p := ex.plan
	call := fmt.Sprintf("%s %s %s", p.Runtime, p.Event, p.Tool)
	row("call", call)
	switch p.Hook {
	case "":
		row("hook", "none: "+p.Why)
	case "tool routes":
		row("hook", "tool routes (Bash)")
	default:
		row("hook", p.Hook)
	}
	if p.Value != "" {
		row("input", fmt.Sprintf("%q", p.Value))
	}
	if p.Hook != "" {
		switch {
		case p.ToolRoute != nil:
			row("tool routes", fmt.Sprintf("matched %s (%s /%s/): %s", p.ToolRoute.Name, p.ToolRoute.Tool, p.ToolRoute.Pattern, oneLineText(p.ToolRoute.Message)))
		case p.Hook == "websearch":
			row("tool routes", "not applicable (they apply to WebFetch URLs and Bash commands)")
		default:
			tool := routing.ToolWebFetch
			if p.Hook == "tool routes" {
				tool = routing.ToolBash
			}
			row("tool routes", fmt.Sprintf("none of %d %s route(s) matched", countRoutes(rs.Tools, tool), tool))
		}
	}
	if p.Hook == "websearch" {
		if len(p.Docs) == 0 {
			row("docs routes", fmt.Sprintf("none of %d database(s) matched", len(rs.Docs.Databases())))
		}
		for _, d := range p.Docs {
			row("docs routes", fmt.Sprintf("matched %s: MCP tool %s, path %s", oneLineText(d.Description), d.MCPToolName, d.Path))
		}
		if p.Escape != "" {
			row("escape hatch", p.Escape)
		}
	}
	if p.Hook == "websearch" || p.Hook == "webfetch" {
		switch {
		case p.Routed:
			row("providers", "none called (a route answers)")
		case p.Providers == nil && p.Decision == "pass" && strings.Contains(p.Why, "configuration"):
			row("providers", "none called (invalid configuration)")
		case len(p.Providers) == 0:
			order := cfg.Search.Order()
			if p.Hook == "webfetch" {
				order = cfg.Extract.Order()
			}
			row("providers", "none: no provider of the order ("+strings.Join(order, ", ")+") has keys")
		default:
			verb := "would call"
			if live {
				verb = "calls"
			}
			row("providers", fmt.Sprintf("%s %s (%s)", verb, strings.Join(p.Providers, ", "), p.Mode))
		}
	}
	if p.ClassifyNote != "" {
		row("classifier", p.ClassifyNote)
		for _, s := range ex.Signals {
			row("  signal", s)
		}
	}
	row("decision", p.Decision+": "+p.Why)
	tw.Flush()
	if live && (p.Hook == "websearch" || p.Hook == "webfetch") {
		fmt.Fprintln(w, "\nlive run (the real hook handler, in-process, within its budget):")
		if strings.TrimSpace(liveOut) == "" {
			fmt.Fprintln(w, "  stdout: (nothing: the hook passes through)")
		} else {
			var buf bytes.Buffer
			if json.Indent(&buf, []byte(strings.TrimSpace(liveOut)), "  ", "  ") == nil {
				fmt.Fprintf(w, "  stdout: %s\n", buf.String())
			} else {
				fmt.Fprintf(w, "  stdout: %s\n", strings.TrimSpace(liveOut))
			}
		}
		for _, l := range ex.LiveStderr {
			fmt.Fprintf(w, "  stderr: %s\n", l)
		}
	}
}
