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
signals for a URL, and the final decision. It prints the hook handler's
own plan, the one the hook computes before it acts, and under the
providers, each one webgate's memory would skip (every key parked, the
provider cooling down, its circuit breaker open, its monthly budget spent)
and until when; the store is only read (and not opened when it does
not exist yet).

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

// explanation is explain's JSON output: the hook's plan, in the fields
// explain has always printed, with its steps and outcome.
type explanation struct {
	Runtime      string             `json:"runtime"`
	Event        string             `json:"event"`
	Tool         string             `json:"tool"`
	Hook         string             `json:"hook,omitempty"`
	Value        string             `json:"value,omitempty"`
	ToolRoute    *routing.ToolRoute `json:"tool_route,omitempty"`
	Docs         []routing.Database `json:"docs_routes,omitempty"`
	Escape       string             `json:"escape_hatch,omitempty"`
	Providers    []string           `json:"providers,omitempty"`
	Mode         string             `json:"mode,omitempty"`
	ClassifyNote string             `json:"classifier,omitempty"`
	Routed       bool               `json:"routed,omitempty"`
	// Decision is "deny", "add", "pass" or "depends"; Why explains it, and
	// Outcome is the plan's own decision.
	Decision   string        `json:"decision"`
	Why        string        `json:"why"`
	Outcome    hooks.Outcome `json:"outcome"`
	Steps      []hooks.Step  `json:"steps,omitempty"`
	Signals    []string      `json:"signals,omitempty"`
	LiveOutput any           `json:"live_output,omitempty"`
	LiveStderr []string      `json:"live_stderr,omitempty"`
	// Memory says which providers the memory would skip (parked keys,
	// an open circuit breaker, a spent budget) and until when.
	Memory []memoryNote `json:"memory,omitempty"`
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
	configFile := fs.String("config", "", configUsage)
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

	page := hooks.PageSource{}
	pageNote := "needs the page: use --html FILE, or --live to fetch it"
	switch {
	case *htmlFile != "":
		body, err := os.ReadFile(*htmlFile)
		if err != nil {
			fmt.Fprintf(stderr, "webgate explain: %v\n", err)
			return exitFail
		}
		page = hooks.PageSource{Saved: body, MediaType: "text/html"}
		pageNote = "from " + *htmlFile
	case *live:
		page = hooks.ProbePage
	}
	mem := newCLIMemory(cfg)
	defer mem.close()
	p := planCall(ctx, in, cfg, loadErr, page, mem)
	ex := explain(p, pageNote)
	ex.Memory = memoryNotes(ctx, cfg, p, mem)
	var liveOut, liveErr string
	if *live && (p.Hook == hooks.HookWebSearch || p.Hook == hooks.HookWebFetch) {
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
	printExplanation(out, p, ex, cfg, *live, liveOut)
	return exitOK
}

// explain renders plan p for explain's output; pageNote says where the
// page came from, or why it was not read.
func explain(p *hooks.Plan, pageNote string) explanation {
	ex := explanation{
		Runtime: string(p.Runtime), Event: string(p.Event), Tool: p.Tool, Hook: p.Hook, Value: p.Input,
		ToolRoute: p.ToolRoute, Docs: p.Docs, Providers: p.Providers, Mode: p.Mode, Routed: p.Routed(),
		Decision: decisionWord(p), Why: p.Why, Outcome: p.Decision, Steps: p.Steps,
	}
	for _, s := range p.Steps {
		switch s.Name {
		case "escape hatch":
			ex.Escape = s.Result
		case "page":
			ex.ClassifyNote = classifierNote(p, s.Result, pageNote)
		}
	}
	if p.Page != nil && p.Page.Verdict != nil {
		for _, s := range p.Page.Verdict.Signals {
			ex.Signals = append(ex.Signals, s.String())
		}
	}
	return ex
}

// classifierNote says how the page was classified: the verdict and where
// the page came from, or why there is none.
func classifierNote(p *hooks.Plan, read, pageNote string) string {
	switch {
	case p.Page == nil && read == "not read":
		return "not classified: " + pageNote
	case p.Page == nil || p.Page.Verdict == nil:
		return "not classified: the page " + read
	case strings.HasPrefix(read, "a saved copy"):
		return p.Page.Verdict.String() + ", page " + pageNote
	}
	return p.Page.Verdict.String() + ", page " + read
}

// providersRow says which providers the hook calls, and how.
func providersRow(p *hooks.Plan, cfg *config.Config, live bool) string {
	switch {
	case p.Routed():
		return "none called (a route answers)"
	case len(p.Problems) > 0:
		return "none called (invalid configuration)"
	case len(p.Providers) == 0:
		order := cfg.Search.Order()
		if p.Hook == hooks.HookWebFetch {
			order = cfg.Extract.Order()
		}
		return "none: no provider of the order (" + strings.Join(order, ", ") + ") has keys"
	}
	verb := "would call"
	if live {
		verb = "calls"
	}
	return fmt.Sprintf("%s %s (%s)", verb, strings.Join(p.Providers, ", "), p.Mode)
}

func printExplanation(w io.Writer, p *hooks.Plan, ex explanation, cfg *config.Config, live bool, liveOut string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("call", fmt.Sprintf("%s %s %s", p.Runtime, p.Event, p.Tool))
	switch p.Hook {
	case "":
		row("hook", "none: "+p.Why)
	case hooks.HookToolRoutes:
		row("hook", "tool routes (Bash)")
	default:
		row("hook", p.Hook)
	}
	if p.Input != "" {
		row("input", fmt.Sprintf("%q", p.Input))
	}
	for _, s := range p.Steps {
		switch s.Name {
		case "providers":
			row("providers", providersRow(p, cfg, live))
			for _, n := range ex.Memory {
				row("  memory", n.String())
			}
		case "page":
			row("classifier", ex.ClassifyNote)
			for _, sig := range ex.Signals {
				row("  signal", sig)
			}
		case "classifier":
			// Shown with the page.
		default:
			row(s.Name, s.Result)
		}
	}
	row("decision", ex.Decision+": "+p.Why)
	tw.Flush()
	if live && (p.Hook == hooks.HookWebSearch || p.Hook == hooks.HookWebFetch) {
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
