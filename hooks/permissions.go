package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/webgate-dev/webgate/internal/safefile"
	"golang.org/x/net/idna"
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
	// Err is why File could not be read, when it could not: such a file
	// may hold a rule that stops the call, so it counts as one (Kind
	// "deny", Rule empty).
	Err error
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
// missing file (or one under a path that is not a directory) has no rules; a file that exists but cannot be read or
// parsed (larger than 1 MiB, not JSON, permissions of the wrong shape, not
// a regular file) may hold one, so it counts as stopping the call, with
// [PermissionRule.Err] saying why: the deny answer is always safe. So does
// a rule for the tool whose specifier it cannot read. A domain rule
// matches the page's host as Claude Code compares them: case, a trailing
// dot and the Unicode or ASCII (punycode) spelling of the name make no
// difference, and "*.example.com" covers example.com and every name under
// it.
func StoppingRule(files []string, tool, pageURL string) (PermissionRule, bool) {
	return findRule(files, tool, pageURL, true)
}

// DenyRule returns the first deny rule in files that forbids a call of
// tool on pageURL ("WebFetch(domain:example.com)" for a page of
// example.com), matched as [StoppingRule] matches it. The web fetch hook
// does not read a page such a rule forbids. Ask rules do not count (the
// user may allow the call), nor does a file that cannot be read (it is
// not known to forbid anything).
func DenyRule(files []string, tool, pageURL string) (PermissionRule, bool) {
	return findRule(files, tool, pageURL, false)
}

// findRule is [StoppingRule] (all) or [DenyRule].
func findRule(files []string, tool, pageURL string, all bool) (PermissionRule, bool) {
	for _, f := range files {
		b, err := safefile.ReadFile(f, maxSettingsBytes)
		if missing(err) {
			continue
		}
		if err != nil {
			if !all {
				continue
			}
			return PermissionRule{Kind: "deny", File: f, Err: err}, true
		}
		var s struct {
			Permissions struct {
				Deny []string `json:"deny"`
				Ask  []string `json:"ask"`
			} `json:"permissions"`
		}
		// A byte order mark is no reason to lose the user's rules.
		if err := json.Unmarshal(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), &s); err != nil {
			if !all {
				continue
			}
			return PermissionRule{Kind: "deny", File: f, Err: fmt.Errorf("not a settings file webgate can read: %w", err)}, true
		}
		for _, kind := range []struct {
			name  string
			rules []string
		}{{"deny", s.Permissions.Deny}, {"ask", s.Permissions.Ask}} {
			if !all && kind.name != "deny" {
				continue
			}
			for _, r := range kind.rules {
				if ruleStops(r, tool, pageURL) {
					return PermissionRule{Rule: r, Kind: kind.name, File: f}, true
				}
			}
		}
	}
	return PermissionRule{}, false
}

// missing reports whether err says there is no file at the path: none
// there, or a path through something that is not a directory (the team
// gateway pins the settings directories to such a path).
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// String describes the rule for a diagnostic: `the deny rule "WebFetch"
// in /path/settings.json`, or, for a file that could not be read,
// `/path/settings.json, which could not be read (…) and may hold a deny
// or ask rule,`.
func (r PermissionRule) String() string {
	if r.Err != nil {
		return fmt.Sprintf("%s, which could not be read (%v) and may hold a deny or ask rule,", r.File, r.Err)
	}
	return fmt.Sprintf("the %s rule %q in %s", r.Kind, r.Rule, r.File)
}

// ruleStops reports whether the permission rule r applies to a call of
// tool on pageURL. Spaces around the tool name, inside the parentheses and
// around the domain are ignored.
func ruleStops(r, tool, pageURL string) bool {
	name, spec, hasSpec := strings.Cut(strings.TrimSpace(r), "(")
	if strings.TrimSpace(name) != tool {
		return false
	}
	if !hasSpec {
		return true
	}
	spec, ok := strings.CutSuffix(strings.TrimSpace(spec), ")")
	if !ok {
		return true // a rule for the tool that cannot be read
	}
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "*" {
		return true
	}
	key, domain, ok := strings.Cut(spec, ":")
	if !ok || !strings.EqualFold(strings.TrimSpace(key), "domain") {
		return true
	}
	domain = strings.TrimSpace(domain)
	u, err := url.Parse(pageURL)
	if err != nil || u.Hostname() == "" {
		return true
	}
	host, ok := ruleHost(u.Hostname())
	if !ok {
		return true
	}
	if domain == "*" {
		return true
	}
	if sub, wild := strings.CutPrefix(domain, "*."); wild {
		sub, ok := ruleHost(sub)
		return !ok || host == sub || strings.HasSuffix(host, "."+sub)
	}
	d, ok := ruleHost(domain)
	return !ok || host == d
}

// ruleHost returns host as a domain rule and a URL's host are compared:
// lower case, without a trailing dot, in its ASCII (punycode) form. It
// reports false for a name that cannot be put in that form, or one that
// still holds a wildcard, which the caller takes as a rule that may stop
// the call.
func ruleHost(host string) (string, bool) {
	h := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	if h == "" || strings.Contains(h, "*") {
		return "", false
	}
	if a, err := hostIDNA.ToASCII(h); err == nil {
		return strings.ToLower(a), true
	}
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			return "", false
		}
	}
	return h, true // an ASCII name the IDNA rules refuse ("a_b.example") is compared as it is
}

// hostIDNA maps a name to its ASCII form as a URL's host is mapped
// (UTS #46, non-transitional, as browsers and Node do).
var hostIDNA = idna.New(idna.MapForLookup(), idna.Transitional(false))
