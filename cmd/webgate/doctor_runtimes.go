package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/webgate-dev/webgate/cmd/internal/setup"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/safefile"
)

// checkRuntimes adds the registration checks of Gemini CLI (its hooks)
// and Codex (webgate's MCP server), user and project scope, to the "Hook
// registration" section, and returns how many of them are registered.
func (d *doctor) checkRuntimes(base setup.Options) int {
	base.GeminiHome = d.f.host.getenv("GEMINI_CLI_HOME")
	base.CodexHome = d.f.host.getenv("CODEX_HOME")
	registered := 0
	for _, scope := range []setup.Scope{setup.User, setup.Project} {
		o := base
		o.Target, o.Scope = setup.GeminiCLI, scope
		if d.checkHooks(o, " (BeforeTool: google_web_search, web_fetch)") {
			registered++
		}
	}
	for _, scope := range []setup.Scope{setup.User, setup.Project} {
		o := base
		o.Target, o.Scope = setup.Codex, scope
		if d.checkCodex(o) {
			registered++
		}
	}
	return registered
}

// runtimeCheckName and runtimeInstall name a target's line and the command
// that registers webgate there.
func (d *doctor) runtimeCheckName(o setup.Options) (name, install string) {
	name = fmt.Sprintf("%s (%s)", o.Target, o.Scope)
	install = fmt.Sprintf("webgate install --target %s --scope %s", o.Target, o.Scope)
	if o.Scope == setup.Project && d.f.projectDir != "" {
		install += " --project-dir " + d.f.projectDir
	}
	return name, install
}

// inspect reads the registration of o's target ([setup.Inspect]) with the
// name of its line and the command that registers webgate there; it
// reports a file it cannot read as a FAIL line in sec and returns ok false.
func (d *doctor) inspect(sec string, o setup.Options) (r *setup.Registration, name, install string, ok bool) {
	name, install = d.runtimeCheckName(o)
	r, err := setup.Inspect(o)
	if err != nil {
		d.inspectFailed(sec, name, err)
		return nil, name, install, false
	}
	return r, name, install, true
}

// inspectFailed reports an error of setup.Inspect as a FAIL line.
func (d *doctor) inspectFailed(sec, name string, err error) {
	fix := ""
	switch {
	case errors.Is(err, setup.ErrInvalidSettings):
		fix = "fix the file by hand; webgate install leaves it untouched until it is valid JSON"
	case errors.Is(err, setup.ErrInvalidTOML):
		fix = "fix the file by hand (codex itself refuses to start with it); webgate install leaves it untouched until webgate's server is a valid [mcp_servers.webgate] table"
	case errors.Is(err, setup.ErrSettingsLimit):
		fix = "settings files are a few kilobytes: find out where this one came from and fix it by hand; webgate install never rewrites it"
	case errors.Is(err, safefile.ErrNotRegular):
		fix = "make it a regular file (or a symbolic link to one); webgate never opens anything else there"
	}
	d.add(sec, name, statusFail, err.Error(), fix)
}

// checkHooks checks webgate's hooks in one settings file (Claude Code,
// Copilot CLI or Gemini CLI) and reports whether they are registered;
// events names the hooks on the line of a registration that is as it
// should be ("" for none).
func (d *doctor) checkHooks(o setup.Options, events string) bool {
	const sec = "Hook registration"
	r, name, install, ok := d.inspect(sec, o)
	if !ok {
		return false
	}
	problems := 0
	for _, dup := range r.Duplicates() {
		d.add(sec, name, statusWarn, "duplicated: "+dup+" in "+r.Path+" (each call runs twice)", install+" (collapses them)")
		problems++
	}
	for _, h := range r.MissingBinaries() {
		d.add(sec, name, statusFail, fmt.Sprintf("%s %s entry points at %s, which does not exist", h.Event, h.Binary, h.Path), install)
		problems++
	}
	for _, l := range r.Foreign {
		// Not webgate's: install and uninstall leave it as it is.
		d.add(sec, name, statusInfo, l+" (in "+r.Path+")", "")
	}
	for _, l := range r.Legacy {
		d.add(sec, name, statusWarn, l+" in "+r.Path+"; it runs alongside webgate", "remove that entry from "+r.Path+" once webgate works")
		problems++
	}
	switch {
	case r.Registered():
		io := r.InstallOptions(o)
		if g := r.Gateway(); g != "" {
			// HTTP hooks to a gateway: compared with what install
			// --gateway would write.
			io.Gateway = g
		}
		if (io.Gateway != "" || o.WebSearchBin != "" && o.WebFetchBin != "") && problems == 0 {
			if p, err := setup.PlanInstall(io); err == nil && p.Changed() {
				d.add(sec, name, statusWarn, "registered in "+r.Path+", but not as 'webgate install' would write it now (other binaries, matchers or timeouts)", install+" --dry-run   # shows the difference")
				return true
			}
		}
		if problems == 0 {
			d.add(sec, name, statusOK, "registered in "+r.Path+events, "")
		}
		return true
	case len(r.Hooks) > 0:
		d.add(sec, name, statusWarn, "partly registered in "+r.Path+": missing "+strings.Join(r.Absent(), ", "), install)
	case r.Exists:
		d.add(sec, name, statusInfo, "not registered ("+r.Path+" has no webgate hooks)", "to use webgate there: "+install)
	default:
		d.add(sec, name, statusInfo, "not registered (no "+r.Path+")", "to use webgate there: "+install)
	}
	return false
}

// checkCodex checks webgate's MCP server in one Codex config.toml and
// reports whether it is registered.
func (d *doctor) checkCodex(o setup.Options) bool {
	const sec = "Hook registration"
	r, name, install, ok := d.inspect(sec, o)
	if !ok {
		return false
	}
	s := r.Server
	switch {
	case s == nil && r.Exists:
		d.add(sec, name, statusInfo, "not registered ("+r.Path+" has no [mcp_servers."+setup.CodexServerName+"])", "to use webgate there: "+install)
		return false
	case s == nil:
		d.add(sec, name, statusInfo, "not registered (no "+r.Path+")", "to use webgate there: "+install)
		return false
	case !r.Registered():
		d.add(sec, name, statusWarn, "[mcp_servers."+setup.CodexServerName+"] in "+r.Path+" does not start 'webgate mcp'", install)
		return false
	case s.Missing:
		d.add(sec, name, statusFail, fmt.Sprintf("[mcp_servers.%s] starts %s, which does not exist", setup.CodexServerName, s.Command), install)
		return false
	}
	detail := "MCP server registered in " + r.Path + " (tools mcp__" + setup.CodexServerName + ": web_search, web_fetch)"
	switch {
	case !s.Enabled:
		d.add(sec, name, statusWarn, "[mcp_servers."+setup.CodexServerName+"] in "+r.Path+" has enabled = false: Codex does not start it", "set enabled = true there, or remove that line")
	case !sameWebgate(s.Command):
		d.add(sec, name, statusWarn, detail+", but it starts "+s.Command+", not this webgate", install+" --dry-run   # shows the difference")
	default:
		d.add(sec, name, statusOK, detail, "")
	}
	if names := unforwardedEnv(d.f.host, s.Env); len(names) > 0 {
		d.add(sec, name, statusWarn, "Codex starts webgate mcp without these variables, which webgate reads here: "+strings.Join(names, ", "),
			"put those settings in webgate's configuration file (~/.config/webgate/config.toml, or the file WEBGATE_CONFIG names), or list them in env_vars = [...] under [mcp_servers."+setup.CodexServerName+"]")
	}
	return true
}

// sameWebgate reports whether path is the running webgate binary (or
// cannot be compared with it).
func sameWebgate(path string) bool {
	exe, err := webgateExecutable()
	if err != nil {
		return true
	}
	a, errA := os.Stat(path)
	b, errB := os.Stat(exe)
	if errA != nil || errB != nil {
		return true
	}
	return os.SameFile(a, b)
}

// unforwardedEnv returns the names of the variables set in h that change
// what webgate does (its own WEBGATE_ ones, the older CLAUDE_WEB_HOOKS_
// ones, the providers' key variables, XDG_CONFIG_HOME and XDG_STATE_HOME)
// and that an MCP server Codex starts does not get: Codex passes only a
// few variables such as HOME and PATH, plus those named in forwarded.
func unforwardedEnv(h hostEnv, forwarded []string) []string {
	keyVars := map[string]bool{"XDG_CONFIG_HOME": true, "XDG_STATE_HOME": true}
	for _, b := range config.Providers().All() {
		if b.KeyEnv != "" {
			keyVars[b.KeyEnv] = true
		}
	}
	var out []string
	for _, kv := range h.Env {
		n, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(v) == "" || slices.Contains(forwarded, n) || slices.Contains(out, n) {
			continue
		}
		if keyVars[n] || strings.HasPrefix(n, "WEBGATE_") || strings.HasPrefix(n, "CLAUDE_WEB_HOOKS_") {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
