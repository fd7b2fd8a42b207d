package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/webgate-dev/webgate/cmd/internal/setup"
	"github.com/webgate-dev/webgate/config"
)

// keyStep says what to do when no provider has a key: the key variables of
// the default search order, and 'webgate setup' when this build has it.
func keyStep() string {
	var vars []string
	reg := config.Providers()
	for _, n := range config.Default().Search.Order() {
		if b, ok := reg.Lookup(n); ok && b.KeyEnv != "" {
			vars = append(vars, b.KeyEnv)
		}
	}
	step := "give a provider a key: export one of " + strings.Join(vars, ", ") + " in your shell profile (or set providers.NAME.keys in the config file)"
	if _, ok := lookup("setup"); ok {
		step += ", or run 'webgate setup'"
	}
	return step + "; then run 'webgate doctor' again"
}

// plugins returns webgate's Claude Code plugins, found as Claude Code
// records them under the configuration directory; they are looked for
// once per doctor run.
func (d *doctor) plugins() ([]setup.Plugin, error) {
	if !d.pluginsFound {
		d.pluginList, d.pluginErr = setup.FindPlugins(setup.Options{
			Home:            d.f.host.Home,
			ClaudeConfigDir: d.f.host.getenv("CLAUDE_CONFIG_DIR"),
			ProjectDir:      d.f.projectDir,
		})
		d.pluginsFound = true
	}
	return d.pluginList, d.pluginErr
}

// pluginHook returns the hook binary name as a Claude Code plugin built
// it, when no binary was found next to webgate or on PATH.
func (d *doctor) pluginHook(name string) hookBinary {
	ps, _ := d.plugins()
	for _, p := range ps {
		if p.Built && !p.Disabled {
			return hookBinary{Name: name, Path: filepath.Join(p.BinDir(), name), Where: "built by the Claude Code plugin " + p.ID}
		}
	}
	return hookBinary{Name: name}
}

// checkPlugins adds a "claude-code (plugin)" line for each webgate plugin
// Claude Code knows, and returns how many register the hooks.
func (d *doctor) checkPlugins() int {
	const sec = "Hook registration"
	ps, err := d.plugins()
	if err != nil {
		d.add(sec, "claude-code (plugin)", statusWarn, err.Error(), "")
	}
	registered := 0
	for _, p := range ps {
		name := "claude-code (plugin)"
		what := p.ID + " installed as a Claude Code plugin"
		switch {
		case p.Scope == "":
			what = p.ID + ": a Claude Code plugin loaded with --plugin-dir has run here"
		case p.ProjectPath != "":
			what += fmt.Sprintf(" (%s scope, project %s)", p.Scope, p.ProjectPath)
		default:
			what += " (" + p.Scope + " scope)"
		}
		if p.InstallPath != "" {
			what += " from " + p.InstallPath
		}
		if p.Disabled {
			d.add(sec, name, statusWarn, what+", but turned off in enabledPlugins", "claude plugin enable "+p.ID)
			continue
		}
		registered++
		switch {
		case p.BuildState == "building":
			d.add(sec, name, statusInfo, what+"; its hooks are being built (log: "+p.BuildLog()+")", "")
		case p.BuildState == "failed" && !p.Built:
			d.add(sec, name, statusWarn, what+"; the last build of its hooks failed, so they step aside", "read "+p.BuildLog()+"; the next session builds them again")
		case p.Built:
			d.add(sec, name, statusOK, what+"; its hooks are built in "+p.BinDir(), "")
		default:
			d.add(sec, name, statusOK, what+"; its hooks are built at the start of the next session", "")
		}
	}
	return registered
}
