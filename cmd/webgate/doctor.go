package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/gateway"
	"github.com/webgate-dev/webgate/cmd/internal/setup"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/internal/redact"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/routing"
)

func doctorCommand() command {
	return command{
		name:    "doctor",
		summary: "Check configuration, keys, hook registration, binaries, state and routes",
		run:     runDoctor,
	}
}

const doctorDescription = `
Doctor checks everything webgate needs and prints one line per check,
marked OK, INFO, WARN or FAIL, with the fix for anything wrong:

  configuration   where it came from (defaults, the file, the names of the
                  environment variables used) and every invalid setting
  gateway         when WEBGATE_GATEWAY_URL is set or HTTP hooks post to a
                  team gateway: which of them use it, that it answers
                  (/healthz), is ready (/readyz) and accepts the token
                  (a free call the hooks ignore)
  keys            per provider, how many keys (never a key) and whether it
                  is in the search and extraction orders; non-default base
                  URLs
  hooks           registration in Claude Code (user and project settings,
                  which VS Code agent hooks also read, and webgate's Claude
                  Code plugin, installed or run with --plugin-dir) and
                  Copilot CLI: registered, missing, duplicated, pointing at
                  a missing binary, older Node hooks present
  binaries        the websearch and webfetch hooks and their webgate-hook
                  worker: where, executable, version
  state           the state directory exists (or can be created) and is
                  writable
  routes          docs databases and tool routes loaded, invalid entries,
                  inline route tests
  dry run         what each hook would do with a sample WebSearch, WebFetch
                  and (when Bash routes exist) Bash call

Doctor is offline but for a gateway in use: it calls no provider and fetches no page, and says
which providers would be called. With --live it runs the hook handlers
in-process on the sample calls, within the hooks' budgets, calling the
providers and fetching the sample URL.

What is not set up yet is a next step, marked NEXT and listed at the end
with what to do: no provider has a key yet, or the hooks are registered
for no agent yet (a Claude Code plugin counts as a registration).

Exit status: 0 when nothing is broken (warnings and next steps allowed),
1 when a check failed (invalid configuration, a hook binary missing, a
registration pointing at a missing binary, the state directory not
writable, failing route tests), 2 for a bad command line.`

const doctorExamples = `  webgate doctor
  webgate doctor --live                      # also call the providers once
  webgate doctor --live --url https://example.org/docs
  webgate doctor --json | jq '.checks[] | select(.status != "ok")'
  webgate doctor --config ./webgate.toml --project-dir ~/src/app`

// check is one line of the doctor's report.
type check struct {
	Section string `json:"section"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`
}

// The statuses of a check, from best to worst.
const (
	statusOK   = "ok"
	statusInfo = "info"
	statusWarn = "warn"
	statusFail = "fail"
	// statusNext marks what is not set up yet (no provider key at all, the
	// hooks registered nowhere): a next step, not a failure.
	statusNext = "next"
)

type doctorFlags struct {
	json, live             bool
	configFile, binDir     string
	projectDir, url, query string
	versionTimeout         time.Duration
	host                   hostEnv
}

type doctor struct {
	f      doctorFlags
	checks []check
	// The plugins found (see plugins), read once.
	pluginsFound bool
	pluginList   []setup.Plugin
	pluginErr    error
	// mem is the memory the checks read, opened once.
	mem *cliMemory
	// remote reports that this machine uses a team gateway, which holds
	// the providers' keys.
	remote bool
}

// add records a check. Every text is made safe for a terminal, secret-like values redacted, on
// the way in: a check quotes configuration keys, files and answers that
// may hold escape sequences or passwords.
func (d *doctor) add(section, name, status, detail, fix string) {
	clean := func(s string) string { return sanitize.Line(redact.String(s)) }
	d.checks = append(d.checks, check{Section: section, Name: clean(name), Status: status, Detail: clean(detail), Fix: clean(fix)})
}

func runDoctor(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("doctor", "[flags]", doctorDescription, doctorExamples, stderr)
	var f doctorFlags
	fs.BoolVar(&f.json, "json", false, "print the report as JSON")
	fs.BoolVar(&f.live, "live", false, "run the hooks on the sample calls for real: calls the providers and fetches --url")
	fs.StringVar(&f.configFile, "config", "", configUsage)
	fs.StringVar(&f.binDir, "bin-dir", "", "look for the hook binaries in this `directory` (default: next to webgate, else $PATH)")
	fs.StringVar(&f.projectDir, "project-dir", "", "project root whose settings are checked (default: the current directory)")
	fs.StringVar(&f.url, "url", "https://example.com/", "the `URL` of the sample WebFetch call")
	fs.StringVar(&f.query, "query", "golang context cancellation", "the `query` of the sample WebSearch call")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	f.host = currentHost()
	if f.projectDir == "" {
		f.projectDir = f.host.WorkDir
	}
	f.versionTimeout = 3 * time.Second
	d := &doctor{f: f}

	cfg, loadErr := f.host.loadConfig(f.configFile)
	if cfg == nil {
		cfg = config.Default()
	}
	d.mem = newCLIMemory(cfg)
	defer d.mem.close()
	secrets := cfg.Secrets()
	out := &scrubWriter{w: stdout, secrets: secrets}
	defer out.flush()

	d.checkConfig(cfg, loadErr)
	d.checkEnv(f.host.Env)
	d.remote = d.checkGateway(ctx)
	d.checkKeys(cfg)
	ws, wf := d.checkBinaries(ctx)
	d.checkRegistration(ws, wf)
	d.checkAnswer(cfg)
	d.checkLocalReading(ctx, cfg)
	d.checkState(cfg)
	d.checkWarm(cfg)
	d.checkStore(ctx, cfg)
	d.checkSharing(cfg)
	rs := loadRouteSet(cfg)
	d.checkRoutes(rs)
	d.dryRun(ctx, cfg, loadErr, rs)

	failed := slices.ContainsFunc(d.checks, func(c check) bool { return c.Status == statusFail })
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			OK         bool    `json:"ok"`
			Configured bool    `json:"configured"`
			Checks     []check `json:"checks"`
		}{!failed, !slices.ContainsFunc(d.checks, func(c check) bool { return c.Status == statusNext }), d.checks})
	} else {
		d.print(out)
	}
	if failed {
		return exitFail
	}
	return exitOK
}

// print writes the report as aligned sections.
func (d *doctor) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	section := ""
	counts := map[string]int{}
	for _, c := range d.checks {
		counts[c.Status]++
		if c.Section != section {
			if section != "" {
				fmt.Fprintln(tw)
			}
			section = c.Section
			fmt.Fprintf(tw, "%s\n", section)
		}
		fmt.Fprintf(tw, "  %-4s\t%s\t%s\n", strings.ToUpper(c.Status), c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(tw, "  \t\t→ %s\n", c.Fix)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	switch {
	case counts[statusFail] > 0:
		fmt.Fprintf(w, "%d failed, %d warning(s): webgate is not fully working; fix the FAIL lines above.\n", counts[statusFail], counts[statusWarn])
	case counts[statusNext] > 0:
		fmt.Fprintf(w, "No failures, %d warning(s): webgate is installed but not set up yet.\n", counts[statusWarn])
	case counts[statusWarn] > 0:
		fmt.Fprintf(w, "No failures, %d warning(s).\n", counts[statusWarn])
	default:
		fmt.Fprintln(w, "All checks passed.")
	}
	d.printNextSteps(w)
}

// printNextSteps lists what the NEXT lines ask for, numbered.
func (d *doctor) printNextSteps(w io.Writer) {
	n := 0
	for _, c := range d.checks {
		if c.Status != statusNext || c.Fix == "" {
			continue
		}
		if n == 0 {
			fmt.Fprintln(w, "\nNext steps:")
		}
		n++
		fmt.Fprintf(w, "  %d. %s\n", n, c.Fix)
	}
}

func (d *doctor) checkConfig(cfg *config.Config, loadErr error) {
	const sec = "Configuration"
	d.add(sec, "sources", statusOK, strings.Join(uniq(cfg.Sources), ", "), "")
	problems := config.Problems(loadErr)
	for _, p := range problems {
		d.add(sec, "invalid", statusFail, p, "correct that setting where the message says (see 'Settings' in the README); until then the hooks step aside")
	}
	// The gateway's OpenID Connect settings are checked as webgate serve
	// checks them before it starts.
	if o := cfg.Gateway.OIDC; o.Issuer != "" || o.Audience != "" {
		if err := gateway.CheckOIDC(o.Issuer, o.Audience); err != nil {
			problems = append(problems, "gateway."+err.Error())
			d.add(sec, "invalid", statusFail, "gateway."+err.Error(), "correct gateway.oidc.issuer and gateway.oidc.audience (see 'A gateway for teams' in the README); until then webgate serve does not start")
		}
	}
	if len(problems) == 0 {
		d.add(sec, "settings", statusOK, "no invalid settings", "")
	}
	// The team limits share the per-token limits' settings; a rate is
	// per token only.
	if cfg.Gateway.TeamLimits.RatePerMinute != 0 {
		d.add(sec, "unused", statusWarn, "gateway.team_limits.rate_per_minute ("+cfg.Origin("gateway.team_limits.rate_per_minute")+") is not used: a rate is per token",
			"set gateway.limits.rate_per_minute for each token's rate, or the team's requests_per_day and requests_per_month")
	}
	for _, l := range cfg.Ignored() {
		d.add(sec, "ignored", statusWarn, l, "give that setting an absolute path (or one starting with ~/); a relative one would name a place in the working directory of whatever runs webgate")
	}
	if cfg.Debug {
		d.add(sec, "debug", statusInfo, "debug is on ("+cfg.Origin("debug")+"): the hooks write traces to stderr", "")
	}
}

func uniq(in []string) []string {
	var out []string
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (d *doctor) checkKeys(cfg *config.Config) {
	const sec = "Keys"
	searchOrder, extractOrder := cfg.Search.Order(), cfg.Extract.Order()
	for _, n := range cfg.Registry().Names() {
		k := cfg.KeyCount(n)
		var in []string
		if i := slices.Index(searchOrder, n); i >= 0 {
			in = append(in, fmt.Sprintf("search #%d", i+1))
		}
		if i := slices.Index(extractOrder, n); i >= 0 {
			in = append(in, fmt.Sprintf("extraction #%d", i+1))
		}
		where := "in no order"
		if len(in) > 0 {
			where = "in order: " + strings.Join(in, ", ")
		}
		switch {
		case k > 0 && len(in) == 0:
			d.add(sec, n, statusWarn, fmt.Sprintf("%s, but %s", plural(k, "key"), where), "add "+n+" to search.providers or extract.providers, or remove its keys")
		case k > 0:
			d.add(sec, n, statusOK, fmt.Sprintf("%s (%s); %s", plural(k, "key"), cfg.Origin("providers."+n+".keys"), where), "")
		default:
			d.add(sec, n, statusInfo, "no keys; "+where+" (skipped)", "")
		}
	}
	if len(cfg.Configured()) == 0 && d.remote {
		d.add(sec, "providers", statusInfo, "no provider has a key here: the team gateway (see Gateway) holds them for what goes through it", "")
	} else if len(cfg.Configured()) == 0 {
		d.add(sec, "providers", statusNext, "no provider has a key yet: until one has, WebSearch steps aside to the native tool; WebFetch reads pages locally (see Local reading) and steps aside for pages that need a provider", keyStep())
	} else {
		if ps := cfg.SearchProviders(); len(ps) > 0 {
			d.add(sec, "search", statusOK, "mode "+cfg.Search.Mode+" via "+strings.Join(ps, ", "), "")
		} else {
			d.add(sec, "search", statusWarn, "no provider of the search order ("+strings.Join(searchOrder, ", ")+") has keys: WebSearch is not answered", "give keys to one of them, or set search.providers")
		}
		if ps := cfg.ExtractProviders(); len(ps) > 0 {
			d.add(sec, "extraction", statusOK, "via "+strings.Join(ps, ", "), "")
		} else {
			d.add(sec, "extraction", statusWarn, "no provider of the extraction order ("+strings.Join(extractOrder, ", ")+") has keys: WebFetch answers only the pages it reads locally", "give keys to one of them, or set extract.providers")
		}
	}
	// A base URL set by a source is worth a warning only for a provider
	// that will be called; SearXNG's is its instance, not an override.
	defaults := config.Default()
	for _, n := range cfg.Registry().Names() {
		key := "providers." + n + ".base_url"
		origin := cfg.Origin(key)
		if origin == "default" || n == config.SearXNG || (!cfg.Usable(n, true) && !cfg.Usable(n, false)) {
			continue
		}
		got, ok := cfg.Value(key)
		def, _ := defaults.Value(key)
		if !ok || strings.TrimRight(got, "/") == def {
			continue
		}
		d.add(sec, n+" base URL", statusWarn, fmt.Sprintf("%s, not the default %s (%s)", safeURL(got), def, origin), "unset it unless you mean to use another endpoint")
	}
}

// safeURL prints a URL without user information, query or fragment.
func safeURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// checkBinaries finds the hook binaries and asks each for its version.
func (d *doctor) checkBinaries(ctx context.Context) (ws, wf hookBinary) {
	const sec = "Hook binaries"
	ws = d.f.host.findHook("websearch", d.f.binDir)
	wf = d.f.host.findHook("webfetch", d.f.binDir)
	if ws.Path == "" && wf.Path == "" && d.f.binDir == "" {
		ws, wf = d.pluginHook("websearch"), d.pluginHook("webfetch")
	}
	for _, b := range []hookBinary{ws, wf} {
		if b.Path == "" {
			where := "next to webgate or on PATH"
			if d.f.binDir != "" {
				where = "in " + d.f.binDir
			}
			d.add(sec, b.Name, statusFail, "not found "+where, "build and install it: 'make install' or 'go install github.com/webgate-dev/webgate/cmd/"+b.Name+"@latest'")
			continue
		}
		v, err := hookVersion(ctx, b.Path, d.f.host, d.f.versionTimeout)
		switch {
		case err != nil:
			d.add(sec, b.Name, statusFail, fmt.Sprintf("%s (%s) does not run: %v", b.Path, b.Where, err), "reinstall it with 'make install'")
		case v == "":
			d.add(sec, b.Name, statusOK, fmt.Sprintf("%s (%s), executable; no version reported (this build does not support --version)", b.Path, b.Where), "")
		default:
			d.add(sec, b.Name, statusOK, fmt.Sprintf("%s (%s), executable, %s", b.Path, b.Where, v), "")
		}
	}
	d.checkWorker(ws)
	return ws, wf
}

// checkWorker checks the webgate-hook worker that the websearch and
// webfetch fronts run: next to them, or on PATH.
func (d *doctor) checkWorker(front hookBinary) {
	const sec = "Hook binaries"
	w := hookBinary{Name: "webgate-hook"}
	if front.Path != "" {
		w = d.f.host.findHook("webgate-hook", filepath.Dir(front.Path))
	}
	if w.Path == "" {
		w = d.f.host.findHook("webgate-hook", "")
	}
	if w.Path == "" {
		d.add(sec, "webgate-hook", statusFail, "the worker the hooks run was not found next to them or on PATH; without it every hook steps aside",
			"install it next to websearch and webfetch: 'make install' or 'go install github.com/webgate-dev/webgate/cmd/webgate-hook@latest'")
		return
	}
	d.add(sec, "webgate-hook", statusOK, fmt.Sprintf("%s (%s), the worker behind websearch and webfetch", w.Path, w.Where), "")
}

// hookVersion runs "BIN --version" with an empty stdin. A hook that does
// not know the flag reads the empty payload and exits 0 without output, so
// "" means "no version reported".
func hookVersion(ctx context.Context, bin string, h hostEnv, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Stdin = bytes.NewReader(nil)
	cmd.Env = h.Env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("no answer within %v", timeout)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return "", err
		}
	}
	line, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	if line == "" || strings.HasPrefix(line, "{") {
		return "", nil
	}
	return oneLineText(line), nil
}

// checkRegistration inspects each target's settings file.
func (d *doctor) checkRegistration(ws, wf hookBinary) {
	const sec = "Hook registration"
	base := setup.Options{
		Home:            d.f.host.Home,
		ClaudeConfigDir: d.f.host.getenv("CLAUDE_CONFIG_DIR"),
		ProjectDir:      d.f.projectDir,
		WebSearchBin:    ws.Path,
		WebFetchBin:     wf.Path,
	}
	registered := 0
	for _, tc := range []struct {
		target setup.Target
		scope  setup.Scope
	}{
		{setup.ClaudeCode, setup.User}, {setup.ClaudeCode, setup.Project},
		{setup.CopilotCLI, setup.User}, {setup.CopilotCLI, setup.Project},
	} {
		o := base
		o.Target, o.Scope = tc.target, tc.scope
		if d.checkHooks(o, "") {
			registered++
		}
	}
	d.add(sec, "copilot-vscode", statusInfo, "VS Code agent hooks read the Claude Code settings above (user and project)", "")
	registered += d.checkRuntimes(base)
	registered += d.checkPlugins()
	if registered == 0 {
		d.add(sec, "any target", statusNext, "the hooks are not registered for any agent yet", "register the hooks: 'webgate install --target claude-code' (or --target all), or install webgate's Claude Code plugin")
	}
}

// checkState checks that the state directory exists or can be created,
// and is writable, by creating and removing a temporary file.
func (d *doctor) checkState(cfg *config.Config) {
	const sec = "State"
	dir := cfg.StateDir
	if dir == "" {
		d.add(sec, "state_dir", statusFail, "no state directory (no home directory and no XDG_STATE_HOME)", "set state_dir in the config file or WEBGATE_STATE_DIR")
		return
	}
	target, note := dir, "exists"
	if info, err := os.Stat(dir); err != nil {
		parent := filepath.Dir(dir)
		for {
			if _, err := os.Stat(parent); err == nil || parent == filepath.Dir(parent) {
				break
			}
			parent = filepath.Dir(parent)
		}
		target, note = parent, "does not exist yet; it will be created on first use under "+parent
	} else if !info.IsDir() {
		d.add(sec, "state_dir", statusFail, dir+" is not a directory", "remove it or set state_dir elsewhere")
		return
	}
	f, err := os.CreateTemp(target, ".webgate-doctor-*")
	if err != nil {
		d.add(sec, "state_dir", statusFail, fmt.Sprintf("%s: not writable (%v)", dir, fileError(err)), "fix its permissions or set state_dir (WEBGATE_STATE_DIR) to a writable directory")
		return
	}
	f.Close()
	os.Remove(f.Name())
	d.add(sec, "state_dir", statusOK, dir+": "+note+", writable", "")
}

func (d *doctor) checkRoutes(rs routeSet) {
	const sec = "Routes"
	for _, w := range rs.Warnings {
		d.add(sec, "invalid", statusWarn, w, "fix or remove the entry; the others keep working")
	}
	if n := len(rs.Docs.Databases()); n > 0 {
		d.add(sec, "docs", statusOK, fmt.Sprintf("%s loaded from %s", plural(n, "database"), strings.Join(rs.DocsSources, ", ")), "")
	} else {
		d.add(sec, "docs", statusInfo, "no docs databases configured", "")
	}
	routes := rs.Tools.Routes()
	if len(routes) == 0 {
		d.add(sec, "tool routes", statusInfo, "no tool routes configured", "")
		return
	}
	d.add(sec, "tool routes", statusOK, fmt.Sprintf("%s loaded (%d WebFetch, %d Bash) from %s", plural(len(routes), "route"),
		rs.Tools.Count(routing.ToolWebFetch), rs.Tools.Count(routing.ToolBash), strings.Join(rs.RouteSources, ", ")), "")
	ran, failures := rs.Tools.RunTests()
	switch {
	case ran == 0:
		d.add(sec, "route tests", statusInfo, "no inline route tests", "")
	case len(failures) == 0:
		d.add(sec, "route tests", statusOK, fmt.Sprintf("%d passed", ran), "")
	default:
		for _, fl := range failures {
			d.add(sec, "route tests", statusFail, fl.String(), "")
		}
		d.add(sec, "route tests", statusFail, fmt.Sprintf("%d passed, %d failed", ran-len(failures), len(failures)), "'webgate routes test' shows each failure")
	}
}

// dryRun shows what each hook would do with a sample call: the hook's own
// plan for it, offline, or with --live the real handler's answer.
func (d *doctor) dryRun(ctx context.Context, cfg *config.Config, loadErr error, rs routeSet) {
	sec := "Dry run (offline: no provider called, nothing fetched)"
	if d.f.live {
		sec = "Live run (hooks run in-process on sample calls)"
	}
	type sample struct {
		name, tool, hook string
		input            map[string]string
	}
	samples := []sample{
		{"WebSearch", "WebSearch", "websearch", map[string]string{"query": d.f.query}},
		{"WebFetch", "WebFetch", "webfetch", map[string]string{"url": d.f.url, "prompt": "What is this page about?"}},
	}
	if rs.Tools.Count(routing.ToolBash) > 0 {
		cmd := "curl -s https://api.github.com/repos/golang/go"
		for _, rt := range rs.Tools.Routes() {
			if rt.Tool == routing.ToolBash {
				for _, tc := range rt.Tests {
					if strings.EqualFold(tc.Expect, "block") {
						cmd = tc.Input
						break
					}
				}
				break
			}
		}
		samples = append(samples, sample{"Bash", "Bash", "", map[string]string{"command": cmd}})
	}
	for _, s := range samples {
		payload := syntheticPayload(s.tool, s.input, "webgate-doctor")
		in, err := hooks.ParseInput(payload)
		if err != nil {
			d.add(sec, s.name, statusFail, err.Error(), "")
			continue
		}
		p := planCall(ctx, in, cfg, loadErr, hooks.PageSource{}, d.mem)
		decision := decisionWord(p)
		subject := fmt.Sprintf("%q", p.Input)
		if !d.f.live || s.hook == "" || p.Routed() {
			detail := subject + " → " + decision + ": " + p.Why
			switch {
			case decision == "depends":
				detail = subject + " → depends on the page: " + p.Why
			case len(p.Problems) > 0:
				detail = subject + " → pass: the hooks step aside while the configuration is invalid (see Configuration)"
			}
			if decision == "deny" && len(p.Providers) > 0 && !d.f.live {
				detail = subject + " → would call " + strings.Join(p.Providers, ", ") + " and deny with their results"
			}
			d.add(sec, s.name, statusInfo, detail, "")
			continue
		}
		stdout, stderr := liveRun(ctx, s.hook, cfg, loadErr, payload)
		dec, why := liveSummary(stdout, stderr)
		status := statusOK
		if dec == "pass" && len(p.Providers) > 0 && decision != "pass" && !strings.Contains(why, "fetch-readable") && !strings.Contains(why, "not HTML") {
			status = statusWarn
		}
		d.add(sec, s.name, status, subject+" → "+dec+": "+why, "")
	}
}
