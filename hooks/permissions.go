package hooks

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/webgate-dev/webgate/internal/safefile"
)

// PermissionRule is a Claude Code permission rule that stops a native
// call: a deny rule refuses it, and an ask rule holds it for a prompt (in
// `claude -p`, a refusal). A hook's "allow" overrides neither, so under
// [AnswerReplace] a call one of them stops is answered with the deny
// answer instead.
type PermissionRule struct {
	// Rule is the rule as written ("WebSearch",
	// "WebFetch(domain:example.com)").
	Rule string
	// Kind is "deny" or "ask".
	Kind string
	// File is the settings file that holds it.
	File string
}

// maxSettingsBytes caps how much of one Claude Code settings file is
// read.
const maxSettingsBytes = 1 << 20

// ClaudeSettingsFiles returns the Claude Code settings files whose
// permission rules apply to a session in projectDir, most authoritative
// first: the managed policy file, the project's local and shared
// settings, and the user's settings in configDir (~/.claude, or
// CLAUDE_CONFIG_DIR). An empty directory contributes no file.
func ClaudeSettingsFiles(configDir, projectDir string) []string {
	var files []string
	switch runtime.GOOS {
	case "darwin":
		files = append(files, "/Library/Application Support/ClaudeCode/managed-settings.json")
	case "linux":
		files = append(files, "/etc/claude-code/managed-settings.json")
	}
	if projectDir != "" {
		files = append(files, filepath.Join(projectDir, ".claude", "settings.local.json"), filepath.Join(projectDir, ".claude", "settings.json"))
	}
	if configDir != "" {
		files = append(files, filepath.Join(configDir, "settings.json"))
	}
	return files
}

// StoppingRule returns the first deny or ask rule in files that stops a
// native call of tool (with pageURL, for WebFetch's domain rules). A
// missing or unreadable file has no rules. A rule for the tool whose
// specifier it cannot read counts as stopping it: the deny answer is
// always safe.
func StoppingRule(files []string, tool, pageURL string) (PermissionRule, bool) {
	for _, f := range files {
		b, err := safefile.ReadFile(f, maxSettingsBytes)
		if err != nil {
			continue
		}
		var s struct {
			Permissions struct {
				Deny []string `json:"deny"`
				Ask  []string `json:"ask"`
			} `json:"permissions"`
		}
		if json.Unmarshal(b, &s) != nil {
			continue
		}
		for _, kind := range []struct {
			name  string
			rules []string
		}{{"deny", s.Permissions.Deny}, {"ask", s.Permissions.Ask}} {
			for _, r := range kind.rules {
				if ruleStops(r, tool, pageURL) {
					return PermissionRule{Rule: r, Kind: kind.name, File: f}, true
				}
			}
		}
	}
	return PermissionRule{}, false
}

// ruleStops reports whether the permission rule r applies to a call of
// tool on pageURL.
func ruleStops(r, tool, pageURL string) bool {
	r = strings.TrimSpace(r)
	if r == tool {
		return true
	}
	spec, ok := strings.CutPrefix(r, tool+"(")
	if !ok || !strings.HasSuffix(spec, ")") {
		return false
	}
	spec = strings.TrimSuffix(spec, ")")
	if spec == "" || spec == "*" {
		return true
	}
	domain, ok := strings.CutPrefix(spec, "domain:")
	if !ok {
		return true
	}
	u, err := url.Parse(pageURL)
	if err != nil || u.Hostname() == "" {
		return true
	}
	host := strings.ToLower(u.Hostname())
	domain = strings.ToLower(domain)
	if sub, ok := strings.CutPrefix(domain, "*."); ok {
		return host == sub || strings.HasSuffix(host, "."+sub)
	}
	return host == domain
}
