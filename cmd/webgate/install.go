package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/webgate-dev/webgate/cmd/internal/setup"
	"github.com/webgate-dev/webgate/internal/safefile"
)

// stringList is a repeatable flag whose values may also be
// comma-separated; blank entries are dropped.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*s = append(*s, p)
		}
	}
	return nil
}

type setupFlags struct {
	target, scope, binDir, projectDir string
	gateway, gatewayTokenEnv          string
	dryRun, sessionStart, bashRoutes  bool
	mcpTools                          stringList
}

func (f *setupFlags) register(fs *flag.FlagSet, install bool) {
	where := "where to register"
	if !install {
		where = "where to remove them from"
	}
	fs.StringVar(&f.target, "target", "claude-code", where+": claude-code, copilot-cli, copilot-vscode, gemini-cli, codex or all")
	fs.StringVar(&f.scope, "scope", "user", "user (your settings) or project (the project's settings)")
	fs.StringVar(&f.projectDir, "project-dir", "", "project root for --scope project (default: the current directory)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the change as a diff and write nothing")
	if install {
		fs.StringVar(&f.binDir, "bin-dir", "", "directory holding the websearch and webfetch binaries, and webgate for codex (default: next to webgate, else $PATH)")
		fs.Var(&f.mcpTools, "mcp-tool", "an MCP search tool to accompany with provider results, e.g. mcp__ccs-websearch__WebSearch (repeatable)")
		fs.BoolVar(&f.sessionStart, "session-start", false, "also register the SessionStart hook that lists docs indexes and tool routes")
		fs.BoolVar(&f.bashRoutes, "tool-routes", false, "also run the webfetch hook on Bash, so tool routes apply to Bash commands")
		fs.StringVar(&f.gateway, "gateway", "", "register HTTP hooks that post to the team gateway at `URL` (webgate serve) instead of the hook binaries (claude-code and copilot-cli)")
		fs.StringVar(&f.gatewayTokenEnv, "gateway-token-env", setup.DefaultGatewayTokenEnv, "with --gateway: the environment variable `NAME` the runtime reads the token from (the token is never written)")
	}
}

// targets returns the targets --target names. "all" is Claude Code and
// Copilot CLI, plus Gemini CLI and Codex where they are in use (the
// directory of the settings file the install would write exists) when
// installing, and every target when uninstalling; o, the install's
// options, says where those settings files are.
func (f *setupFlags) targets(o setup.Options, install bool) ([]setup.Target, error) {
	if f.target == "all" {
		ts := []setup.Target{setup.ClaudeCode, setup.CopilotCLI}
		if install && f.gateway != "" {
			return ts, nil // the runtimes with HTTP hooks
		}
		for _, t := range []setup.Target{setup.GeminiCLI, setup.Codex} {
			o.Target = t
			path, _ := setup.SettingsPath(o)
			if !install || settingsDirExists(t, path) {
				ts = append(ts, t)
			}
		}
		return ts, nil
	}
	for _, t := range setup.Targets {
		if string(t) == f.target {
			return []setup.Target{t}, nil
		}
	}
	return nil, fmt.Errorf("unknown --target %q (want claude-code, copilot-cli, copilot-vscode, gemini-cli, codex or all)", f.target)
}

func (f *setupFlags) options(h hostEnv) (setup.Options, error) {
	var o setup.Options
	switch f.scope {
	case "user":
		o.Scope = setup.User
	case "project":
		o.Scope = setup.Project
	default:
		return o, fmt.Errorf("unknown --scope %q (want user or project)", f.scope)
	}
	if h.Home == "" && o.Scope == setup.User {
		return o, errors.New("cannot find your home directory")
	}
	o.Home = h.Home
	o.ClaudeConfigDir = h.getenv("CLAUDE_CONFIG_DIR")
	o.GeminiHome = h.getenv("GEMINI_CLI_HOME")
	o.CodexHome = h.getenv("CODEX_HOME")
	o.ProjectDir = f.projectDir
	if o.ProjectDir == "" {
		o.ProjectDir = h.WorkDir
	}
	o.MCPTools = f.mcpTools
	o.SessionStart = f.sessionStart
	o.BashRoutes = f.bashRoutes
	if f.gateway != "" {
		if err := setup.CheckGatewayURL(f.gateway); err != nil {
			return o, err
		}
		if !envName(f.gatewayTokenEnv) {
			return o, fmt.Errorf("--gateway-token-env %q is not an environment variable name", f.gatewayTokenEnv)
		}
		o.Gateway, o.GatewayTokenEnv = f.gateway, f.gatewayTokenEnv
	}
	return o, nil
}

// findHookBinaries locates the websearch and webfetch binaries: in dir when
// given, else next to the running webgate binary (exeDir), else on $PATH.
func findHookBinaries(dir, exeDir string) (ws, wf string, err error) {
	var dirs []string
	if dir != "" {
		dirs = []string{dir}
	} else if exeDir != "" {
		dirs = []string{exeDir}
	}
	find := func(name string) string {
		for _, d := range dirs {
			p := filepath.Join(d, name)
			if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
				abs, _ := filepath.Abs(p)
				return abs
			}
		}
		if dir == "" {
			if p, err := exec.LookPath(name); err == nil {
				abs, _ := filepath.Abs(p)
				return abs
			}
		}
		return ""
	}
	ws, wf = find("websearch"), find("webfetch")
	if ws != "" && wf != "" && find("webgate-hook") == "" {
		return "", "", fmt.Errorf("found websearch and webfetch but not the webgate-hook worker they run; build all three with 'make install' (or 'go install ./cmd/webgate ./cmd/websearch ./cmd/webfetch ./cmd/webgate-hook')")
	}
	if ws == "" || wf == "" {
		where := "next to webgate or on $PATH"
		if dir != "" {
			where = "in " + dir
		}
		return "", "", fmt.Errorf("the websearch and webfetch hook binaries were not found %s; build them with 'make install' (or 'go install ./cmd/webgate ./cmd/websearch ./cmd/webfetch ./cmd/webgate-hook') or pass --bin-dir", where)
	}
	return ws, wf, nil
}

// webgateExecutable returns the path of the running webgate binary; tests
// replace it.
var webgateExecutable = os.Executable

// findWebgateBinary locates the webgate binary Codex is to start as an MCP
// server: in dir when given, else the running binary, named by its $PATH
// entry when that is the same file (a link on $PATH survives upgrades
// that move the file it points at).
func findWebgateBinary(dir string) (string, error) {
	if dir != "" {
		p := filepath.Join(dir, "webgate")
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return filepath.Abs(p)
		}
		return "", fmt.Errorf("the webgate binary was not found in %s", dir)
	}
	exe, err := webgateExecutable()
	if err != nil {
		return "", fmt.Errorf("cannot tell where the webgate binary is (%v); pass --bin-dir", err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return "", err
	}
	if p, err := exec.LookPath("webgate"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			a, errA := os.Stat(abs)
			b, errB := os.Stat(exe)
			if errA == nil && errB == nil && os.SameFile(a, b) {
				return abs, nil
			}
		}
	}
	return exe, nil
}

// keptExtras describes what merged registers beyond the flags in o.
func keptExtras(o, merged setup.Options) []string {
	var out []string
	for _, m := range merged.MCPTools {
		if !slices.Contains(o.MCPTools, m) {
			out = append(out, "--mcp-tool "+m)
		}
	}
	if merged.BashRoutes && !o.BashRoutes {
		out = append(out, "--tool-routes")
	}
	if merged.SessionStart && !o.SessionStart {
		out = append(out, "--session-start")
	}
	return out
}

func installCommand() command {
	return command{name: "install", summary: "Register webgate with Claude Code, Copilot CLI, VS Code, Gemini CLI or Codex", run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return runSetup(args, stdout, stderr, true)
	}}
}

func uninstallCommand() command {
	return command{name: "uninstall", summary: "Remove webgate's hooks or MCP server (and only those) from the settings", run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return runSetup(args, stdout, stderr, false)
	}}
}

func runSetup(args []string, stdout, stderr io.Writer, install bool) int {
	name := "install"
	if !install {
		name = "uninstall"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f setupFlags
	f.register(fs, install)
	fs.Usage = func() {
		w := fs.Output()
		if install {
			fmt.Fprint(w, `Usage: webgate install [--target T] [--scope user|project] [--dry-run]
                       [--tool-routes] [--session-start] [--mcp-tool NAME] [--bin-dir DIR]
                       [--gateway URL [--gateway-token-env NAME]]

With --gateway URL, Claude Code and Copilot CLI get HTTP hooks that post each
payload to the team gateway's hook endpoints (URL/v1/hooks/websearch and
/v1/hooks/webfetch) with "Authorization: Bearer $WEBGATE_GATEWAY_TOKEN": the
settings name the variable (allowedEnvVars), never the token, and no hook
binary or provider key is needed on this machine.

Registers the websearch and webfetch hooks by merging them into the target's
settings file (for Codex, webgate's MCP server: 'webgate mcp'). Everything
else in the file is kept, a backup is written next to it first, and running
it twice changes nothing. Duplicate webgate entries are collapsed; entries
of the older Node hooks are reported.

A re-run keeps what an earlier install registered (--tool-routes,
--session-start, --mcp-tool) and adds what its flags ask for; 'webgate
uninstall' removes it all.
--session-start also needs hooks.session_start = true in the configuration,
and an --mcp-tool other than the defaults needs hooks.websearch.mcp_tool_names.

Targets:
  claude-code     ~/.claude/settings.json (or .claude/settings.json with --scope project)
  copilot-cli     ~/.copilot/hooks/webgate.json (or .github/hooks/webgate.json)
  copilot-vscode  VS Code agent hooks read the Claude Code settings files
  gemini-cli      ~/.gemini/settings.json (or .gemini/settings.json)
  codex           [mcp_servers.webgate] in ~/.codex/config.toml (or
                  .codex/config.toml); CODEX_HOME moves the user file
  all             claude-code and copilot-cli, and gemini-cli and codex where
                  their settings directory exists (uninstall: every target)

Examples:
  webgate install --target claude-code --dry-run
  webgate install --target claude-code
  webgate install --target all --scope project
  webgate install --target codex --dry-run
  webgate install --mcp-tool mcp__ccs-websearch__WebSearch
  webgate install --tool-routes --session-start
  webgate install --target all --gateway https://gateway.example:8787

Flags:
`)
		} else {
			fmt.Fprint(w, `Usage: webgate uninstall [--target T] [--scope user|project] [--dry-run]

Removes webgate's hook entries, and only those, from the target's settings
file (for codex, the [mcp_servers.webgate] table and its sub-tables); a
backup is written first.

Examples:
  webgate uninstall --target claude-code --dry-run
  webgate uninstall --target all

Flags:
`)
		}
		printFlags(w, fs)
	}
	usageLines.Store(fs, "[--target T] [--scope user|project] [--dry-run]")
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(stdout) // help asked for is output, as for every command
			fs.Usage()
			return exitOK
		}
	}
	if err := parseQuietly(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "webgate %s: unexpected argument %q\n", name, fs.Arg(0))
		return exitUsage
	}
	host := currentHost()
	o, optErr := f.options(host)
	// A bad --target is reported before a bad scope.
	targets, err := f.targets(o, install)
	if err == nil {
		err = optErr
	}
	if err != nil {
		fmt.Fprintf(stderr, "webgate %s: %v\n", name, err)
		return exitUsage
	}
	if install && o.Gateway != "" {
		// HTTP hooks need no binary on this machine.
	} else if install {
		if slices.ContainsFunc(targets, func(t setup.Target) bool { return t != setup.Codex }) {
			o.WebSearchBin, o.WebFetchBin, err = findHookBinaries(f.binDir, host.ExeDir)
			if err != nil {
				fmt.Fprintf(stderr, "webgate install: %v\n", err)
				return exitFail
			}
		}
		if slices.Contains(targets, setup.Codex) {
			if o.WebgateBin, err = findWebgateBinary(f.binDir); err != nil {
				fmt.Fprintf(stderr, "webgate install: %v\n", err)
				return exitFail
			}
		}
	}
	code := exitOK
	if !applyTargets(name, o, targets, install, f.dryRun, stdout, stderr) {
		code = exitFail
	}
	if install && code == exitOK && o.Gateway != "" {
		fmt.Fprintf(stdout, "The hooks post to %s with the token from $%s, which the settings name but do not hold: set it (webgate token create prints one) where the agent runs.\n", o.Gateway, o.GatewayTokenEnv)
	}
	if install && code == exitOK && !f.dryRun {
		fmt.Fprintln(stdout, "Next: run 'webgate doctor' to check keys, configuration and the hooks.")
	}
	return code
}

// applyTargets installs (or, with install false, uninstalls) webgate for
// each target with the options o, as the command name: it shows the file,
// what is kept from an earlier install, the notes and what it found, then
// writes the change (or, with dryRun, shows it). It reports whether every
// target went well.
func applyTargets(name string, o setup.Options, targets []setup.Target, install, dryRun bool, stdout, stderr io.Writer) bool {
	ok := true
	for _, t := range targets {
		to := o
		to.Target = t
		var kept []string
		var p *setup.Plan
		var err error
		if install {
			// Keep what an earlier install registered (MCP tools,
			// SessionStart, Bash); uninstall drops it all.
			if r, err := setup.Inspect(to); err == nil {
				merged := r.InstallOptions(to)
				kept = keptExtras(to, merged)
				to = merged
			}
			p, err = setup.PlanInstall(to)
		} else {
			p, err = setup.PlanUninstall(to)
		}
		if err != nil {
			fmt.Fprintf(stderr, "webgate %s: %s: %v\n", name, t, err)
			ok = false
			continue
		}
		fmt.Fprintf(stdout, "%s: %s\n", t, p.Path)
		if target, err := safefile.ResolveLinks(p.Path); err == nil && target != p.Path {
			fmt.Fprintf(stdout, "  a symbolic link to %s: that file is the one read and written, and the link is kept\n", target)
		}
		if len(kept) > 0 {
			fmt.Fprintf(stdout, "  kept from the earlier install: %s ('webgate uninstall' removes them)\n", strings.Join(kept, ", "))
		}
		for _, n := range p.Notes {
			fmt.Fprintf(stdout, "  note: %s\n", n)
		}
		for _, fnd := range p.Found {
			fmt.Fprintf(stdout, "  found: %s\n", fnd)
		}
		switch {
		case !p.Changed():
			if install {
				fmt.Fprintln(stdout, "  already up to date")
			} else {
				fmt.Fprintln(stdout, "  nothing to remove")
			}
		case dryRun:
			fmt.Fprint(stdout, indent(p.Diff(), "  "))
			fmt.Fprintln(stdout, "  (dry run: nothing written)")
		default:
			backup, err := p.Apply(nil)
			if err != nil {
				fmt.Fprintf(stderr, "webgate %s: %s: %v\n", name, p.Path, err)
				ok = false
				continue
			}
			if backup != "" {
				fmt.Fprintf(stdout, "  backup: %s\n", backup)
			}
			what := "hooks"
			if t == setup.Codex {
				what = "MCP server"
			}
			if install {
				fmt.Fprintf(stdout, "  %s registered\n", what)
			} else {
				fmt.Fprintf(stdout, "  %s removed\n", what)
			}
		}
	}
	return ok
}

func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix) + "\n"
}

// envName reports whether s is a portable environment variable name.
func envName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
