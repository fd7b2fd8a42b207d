package setup

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/webgate-dev/webgate/internal/safefile"
)

// PluginName is the name of webgate's Claude Code plugin
// (.claude-plugin/plugin.json).
const PluginName = "webgate"

// Plugin is webgate's Claude Code plugin as Claude Code records it: an
// install from a marketplace (plugins/installed_plugins.json under the
// Claude Code configuration directory), or the data directory of a plugin
// that has run, such as one loaded with --plugin-dir (webgate@inline).
// The plugin registers webgate's hooks itself (hooks/hooks.json), so it is
// a registration as good as an entry in a settings file.
type Plugin struct {
	// ID is the plugin's identifier, "webgate@MARKETPLACE", or
	// "webgate@inline" for a plugin loaded with --plugin-dir.
	ID string
	// Scope is the install's scope (user, project, local, managed); empty
	// for a plugin known only from its data directory.
	Scope string
	// ProjectPath is the project of a project or local install.
	ProjectPath string
	// InstallPath is the plugin's directory; empty when unknown.
	InstallPath string
	// Version is the installed version, when recorded.
	Version string
	// Disabled is set when a settings file (user or project) turns the
	// plugin off in enabledPlugins.
	Disabled bool
	// DataDir is the plugin's data directory
	// (plugins/data/ID-with-dashes), where its launcher builds the hooks.
	DataDir string
	// Built reports that the hooks are built in DataDir/bin.
	Built bool
	// BuildState is the launcher's last build state: "building", "ready",
	// "failed", or empty when it never built.
	BuildState string
}

// BinDir returns the directory holding the hooks the plugin built.
func (p Plugin) BinDir() string { return filepath.Join(p.DataDir, "bin") }

// BuildLog returns the path of the plugin's build log.
func (p Plugin) BuildLog() string { return filepath.Join(p.DataDir, "build.log") }

// claudeDir returns the Claude Code configuration directory of o.
func claudeDir(o Options) string {
	if o.ClaudeConfigDir != "" {
		return o.ClaudeConfigDir
	}
	if o.Home == "" {
		return ""
	}
	return filepath.Join(o.Home, ".claude")
}

// pluginDataName is how Claude Code names a plugin's data directory: the
// identifier with every character outside a-z, A-Z, 0-9, _ and - replaced
// by -.
var pluginDataName = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// installEntry is one install of a plugin in installed_plugins.json.
type installEntry struct {
	Scope       string `json:"scope"`
	ProjectPath string `json:"projectPath"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
}

// FindPlugins returns webgate's Claude Code plugins under the Claude Code
// configuration directory of o (ClaudeConfigDir, else Home/.claude): each
// install recorded in plugins/installed_plugins.json whose name is
// [PluginName], and each plugins/data/webgate-* directory where a plugin
// built its hooks (a --plugin-dir plugin leaves only that). A missing
// record is no error; an unreadable or invalid one is, with the plugins
// found elsewhere.
func FindPlugins(o Options) ([]Plugin, error) {
	dir := claudeDir(o)
	if dir == "" {
		return nil, nil
	}
	var out []Plugin
	seen := map[string]bool{}
	record := filepath.Join(dir, "plugins", "installed_plugins.json")
	data, err := safefile.ReadFile(record, MaxSettingsBytes)
	var recErr error
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		recErr = settingsReadError(record, err)
	default:
		var f struct {
			Plugins map[string]json.RawMessage `json:"plugins"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			recErr = errors.New(record + ": " + ErrInvalidSettings.Error() + " (" + err.Error() + ")")
			break
		}
		ids := make([]string, 0, len(f.Plugins))
		for id := range f.Plugins {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			name, _, _ := strings.Cut(id, "@")
			if name != PluginName {
				continue
			}
			// Version 2 lists the installs of each plugin; version 1
			// had one.
			var entries []installEntry
			if json.Unmarshal(f.Plugins[id], &entries) != nil {
				var one installEntry
				if json.Unmarshal(f.Plugins[id], &one) != nil {
					continue
				}
				entries = []installEntry{one}
			}
			for _, e := range entries {
				p := Plugin{ID: id, Scope: e.Scope, ProjectPath: e.ProjectPath, InstallPath: e.InstallPath, Version: e.Version,
					DataDir: filepath.Join(dir, "plugins", "data", pluginDataName.ReplaceAllString(id, "-"))}
				out = append(out, p)
				seen[p.DataDir] = true
			}
		}
	}
	// Plugins that ran without an install record: --plugin-dir.
	dataDirs, _ := filepath.Glob(filepath.Join(dir, "plugins", "data", PluginName+"-*"))
	sort.Strings(dataDirs)
	for _, d := range dataDirs {
		if seen[d] {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "build.state")); err != nil {
			if _, err := os.Stat(filepath.Join(d, "bin")); err != nil {
				continue
			}
		}
		id := PluginName + "@" + strings.TrimPrefix(filepath.Base(d), PluginName+"-")
		out = append(out, Plugin{ID: id, DataDir: d})
	}
	disabled := enabledPluginsOff(o, dir)
	for i := range out {
		p := &out[i]
		p.Disabled = disabled[p.ID]
		b, _ := safefile.ReadFile(filepath.Join(p.DataDir, "build.state"), 64)
		p.BuildState = strings.TrimSpace(string(b))
		p.Built = isExec(filepath.Join(p.BinDir(), "websearch")) && isExec(filepath.Join(p.BinDir(), "webfetch")) && isExec(filepath.Join(p.BinDir(), "webgate-hook"))
	}
	return out, recErr
}

func isExec(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// enabledPluginsOff returns the plugin identifiers that the user settings
// or the project's settings turn off ("enabledPlugins": {"ID": false}).
func enabledPluginsOff(o Options, dir string) map[string]bool {
	files := []string{filepath.Join(dir, "settings.json")}
	if o.ProjectDir != "" {
		files = append(files, filepath.Join(o.ProjectDir, ".claude", "settings.json"), filepath.Join(o.ProjectDir, ".claude", "settings.local.json"))
	}
	off := map[string]bool{}
	for _, f := range files {
		data, err := safefile.ReadFile(f, MaxSettingsBytes)
		if err != nil {
			continue
		}
		var s struct {
			EnabledPlugins map[string]json.RawMessage `json:"enabledPlugins"`
		}
		if json.Unmarshal(data, &s) != nil {
			continue
		}
		for id, v := range s.EnabledPlugins {
			if string(v) == "false" {
				off[id] = true
			}
		}
	}
	return off
}
