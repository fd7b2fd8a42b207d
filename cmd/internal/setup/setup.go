// Package setup registers webgate with the agent runtimes and removes it
// again: its hooks in the settings files of Claude Code, GitHub Copilot CLI,
// VS Code and Gemini CLI, and its MCP server (webgate mcp) in the
// config.toml of Codex CLI. It merges: everything else in a settings file
// is kept byte for byte (order, spelling, line endings, indentation, a
// one-line object, a missing final newline, a byte order mark), what is
// added follows the file's indentation and line ending, a backup is
// written before any change,
// and running an install twice changes nothing. A Codex config.toml is
// edited as text: only the lines of webgate's [mcp_servers.webgate] table
// change, and comments and layout elsewhere stay byte for byte. A
// settings path that is a symbolic link is written through, except in the
// project scope when it leads out of the project ([ErrOutsideProject]); a
// path that is
// not a regular file, and a file larger or more deeply nested than any
// settings file needs ([MaxSettingsBytes], [MaxSettingsDepth]), are
// refused with an error and never rewritten.
package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/internal/safefile"
)

// Target is an agent whose hook settings setup can edit.
type Target string

// The targets.
const (
	ClaudeCode    Target = "claude-code"
	CopilotCLI    Target = "copilot-cli"
	CopilotVSCode Target = "copilot-vscode"
	// GeminiCLI registers the hooks in Gemini CLI's settings.json
	// (BeforeTool for google_web_search and web_fetch).
	GeminiCLI Target = "gemini-cli"
	// Codex registers webgate's MCP server (webgate mcp) in Codex CLI's
	// config.toml; Codex's own web search runs where no hook sees it.
	Codex Target = "codex"
)

// Targets lists every target.
var Targets = []Target{ClaudeCode, CopilotCLI, CopilotVSCode, GeminiCLI, Codex}

// Scope is where a registration applies.
type Scope string

// The scopes.
const (
	User    Scope = "user"
	Project Scope = "project"
)

// Options says what to register and where.
type Options struct {
	Target Target
	Scope  Scope
	// Home is the user's home directory; ClaudeConfigDir, when set,
	// replaces Home/.claude (CLAUDE_CONFIG_DIR).
	Home, ClaudeConfigDir string
	// GeminiHome, when set, replaces Home for Gemini CLI's user settings,
	// GeminiHome/.gemini/settings.json (GEMINI_CLI_HOME).
	GeminiHome string
	// CodexHome, when set, replaces Home/.codex for Codex's user
	// config.toml (CODEX_HOME).
	CodexHome string
	// ProjectDir is the project root for the project scope.
	ProjectDir string
	// WebSearchBin and WebFetchBin are the absolute paths of the hook
	// binaries.
	WebSearchBin, WebFetchBin string
	// WebgateBin is the absolute path of the webgate binary, which Codex
	// starts as an MCP server ("webgate mcp").
	WebgateBin string
	// MCPTools are MCP search tools (such as mcp__ccs-websearch__WebSearch;
	// path.Match globs allowed) to accompany with provider-backed results on
	// PostToolUse and PostToolUseFailure, in Claude Code settings (and so
	// VS Code). Copilot CLI cannot take either answer from a command hook.
	MCPTools []string
	// SessionStart registers the SessionStart hook that tells the agent
	// about configured documentation indexes and tool routes.
	SessionStart bool
	// BashRoutes registers the webfetch hook for Bash too, so that tool
	// routes apply to Bash commands (Claude Code matcher "WebFetch|Bash").
	BashRoutes bool
	// SearchTimeout and FetchTimeout are the hook timeouts in seconds
	// written into the settings; defaults 30 and 45.
	SearchTimeout, FetchTimeout int
	// Gateway, when set, is the base URL of a team gateway (webgate
	// serve): Claude Code and Copilot CLI then get HTTP hooks that post
	// each payload to its hook endpoints instead of command hooks, and
	// the hook binaries are not needed. The token is read by the runtime
	// from the environment variable GatewayTokenEnv (default
	// [DefaultGatewayTokenEnv]), which the registration names; the token
	// itself is never written.
	Gateway         string
	GatewayTokenEnv string
	// Now stamps backup names; nil means time.Now.
	Now func() time.Time
}

func (o *Options) defaults() {
	if o.SearchTimeout <= 0 {
		o.SearchTimeout = 30
	}
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = 45
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Scope == "" {
		o.Scope = User
	}
}

// SettingsPath returns the settings file a target uses in a scope.
func SettingsPath(o Options) (string, error) {
	var project []string // below the project directory
	var user string      // in the user's scope; "" without a home directory
	in := func(dir string, elem ...string) string {
		if dir == "" {
			return ""
		}
		return filepath.Join(append([]string{dir}, elem...)...)
	}
	switch o.Target {
	case ClaudeCode, CopilotVSCode:
		project, user = []string{".claude", "settings.json"}, in(claudeDir(o), "settings.json")
	case CopilotCLI:
		project, user = []string{".github", "hooks", "webgate.json"}, in(o.Home, ".copilot", "hooks", "webgate.json")
	case GeminiCLI:
		home := o.GeminiHome
		if home == "" {
			home = o.Home
		}
		project, user = []string{".gemini", "settings.json"}, in(home, ".gemini", "settings.json")
	case Codex:
		project, user = []string{".codex", "config.toml"}, in(o.CodexHome, "config.toml")
		if o.CodexHome == "" {
			user = in(o.Home, ".codex", "config.toml")
		}
	default:
		return "", fmt.Errorf("unknown target %q (want claude-code, copilot-cli, copilot-vscode, gemini-cli, codex or all)", o.Target)
	}
	if o.Scope == Project {
		if o.ProjectDir == "" {
			return "", errors.New("no project directory")
		}
		return in(o.ProjectDir, project...), nil
	}
	if user == "" {
		return "", errors.New("no home directory")
	}
	return user, nil
}

// ErrOutsideProject is wrapped by the error of an install or uninstall in
// the project scope whose settings path resolves, through a symbolic link
// in the project (the file or a directory above it), to a file outside the
// project directory: a repository does not choose which of the user's files
// webgate edits. Nothing is written. In the user scope such links (a
// dotfiles manager's) are followed.
var ErrOutsideProject = errors.New("the project's settings path leads outside the project")

// checkInProject returns an error wrapping [ErrOutsideProject] when o is
// in the project scope and path, with its symbolic links followed (those
// of directories not created yet, and a dangling link's target, included),
// is not inside o.ProjectDir (its own links followed).
func checkInProject(o Options, path string) error {
	if o.Scope != Project {
		return nil
	}
	root, err := resolvePath(o.ProjectDir)
	if err != nil {
		return err
	}
	target, err := resolvePath(path)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s: %w: it resolves to %s, outside the project directory %s (a symbolic link in the project leads there); webgate edits a project's settings only inside the project, and wrote nothing — replace the link with a file, or register in the user scope", path, ErrOutsideProject, target, root)
	}
	return nil
}

// resolvePath returns path with every symbolic link followed: the links of
// its last element (up to a dangling link's missing target) by
// [safefile.ResolveLinks], and those of the directories above it that
// exist. A directory that is a dangling link is an error.
func resolvePath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	target, err := safefile.ResolveLinks(abs)
	if err != nil {
		return "", err
	}
	dir, err := resolveDir(filepath.Dir(target))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(target)), nil
}

// resolveDir returns dir with its links followed, the elements that do not
// exist yet kept as they are.
func resolveDir(dir string) (string, error) {
	r, err := filepath.EvalSymlinks(dir)
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if _, lerr := os.Lstat(dir); lerr == nil {
		return "", fmt.Errorf("%s: a symbolic link to a directory that does not exist", dir)
	}
	parent := filepath.Dir(dir)
	if parent == dir {
		return dir, nil
	}
	rp, err := resolveDir(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(dir)), nil
}

// Plan is a computed change to one settings file.
type Plan struct {
	Target Target
	Path   string
	// Before is the file's content, nil when it does not exist.
	Before []byte
	// After is the content to write.
	After []byte
	// Found lists problems seen in the existing file: duplicate webgate
	// entries (collapsed into one), entries of the older Node hooks
	// (reported, kept), entries pointing at a binary that does not exist.
	Found []string
	// Notes are facts the user should know about the target.
	Notes []string
}

// Changed reports whether applying the plan would change the file.
func (p *Plan) Changed() bool { return string(p.Before) != string(p.After) }

// Diff returns a unified diff of the change, or "" when there is none.
func (p *Plan) Diff() string { return unifiedDiff(p.Path, p.Before, p.After) }

// Apply writes the plan: first a backup of the existing file next to it
// (name.<UTC time>.bak, see [BackupName]), then the new
// content, atomically. A settings path that is a symbolic link (a chain of
// them, or one whose target does not exist yet) is written through: the
// link stays, its final target gets the new content and keeps its mode,
// and the backup goes beside the target. A plan whose After is nil (an
// uninstall that empties a file webgate created) removes the file, after
// its backup. A file changed since the plan was made, or that is not
// a regular file, is left alone with an error. It returns the backup's
// path ("" when there was no file or no change).
func (p *Plan) Apply(now func() time.Time) (backup string, err error) {
	if !p.Changed() {
		return "", nil
	}
	target, err := writeTarget(p.Path, p.Before, 0o755)
	if err != nil {
		return "", err
	}
	mode := os.FileMode(0o644)
	if p.Before != nil {
		if info, err := os.Stat(target); err == nil {
			mode = info.Mode().Perm()
		}
		if now == nil {
			now = time.Now
		}
		if backup, err = writeBackup(target, p.Before, mode, now); err != nil {
			return "", fmt.Errorf("writing backup: %w", err)
		}
	}
	if p.After == nil {
		return backup, os.Remove(target)
	}
	return backup, safefile.WriteFile(target, p.After, mode)
}

// writeTarget returns the file a planned write of path goes to (through
// symbolic links), in a directory created with dirMode when missing, and
// fails when the file no longer holds before (nil: when it exists now).
func writeTarget(path string, before []byte, dirMode os.FileMode) (string, error) {
	target, err := safefile.ResolveLinks(path)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(target), dirMode); err != nil {
		return "", err
	}
	current, err := readFile(target)
	if err != nil {
		return "", settingsReadError(path, err)
	}
	if (current == nil) != (before == nil) || !bytes.Equal(current, before) {
		return "", fmt.Errorf("%s changed since it was read; nothing was written, run the command again", path)
	}
	return target, nil
}

// BackupName returns the name of the n-th backup of path made at t, the
// one naming scheme of every backup webgate writes: path.<UTC time>.bak
// (settings.json.20260102T030405Z.bak), then path.<UTC time>.N.bak for
// N = 1, 2, … when backups within the same second meet. The names sort by
// time.
func BackupName(path string, t time.Time, n int) string {
	stamp := t.UTC().Format("20060102T150405Z")
	if n == 0 {
		return fmt.Sprintf("%s.%s.bak", path, stamp)
	}
	return fmt.Sprintf("%s.%s.%d.bak", path, stamp, n)
}

// writeBackup writes data next to path under the first [BackupName] no file
// has yet, so that two changes within one second never overwrite an
// earlier backup. The backup belongs to path's owner and group, as the
// rewritten file does (see [safefile.WriteFile]); when this process may
// not give it to a different owner, no backup is left and the error wraps
// [safefile.ErrOwner], before the file itself is touched.
func writeBackup(path string, data []byte, mode os.FileMode, now func() time.Time) (string, error) {
	uid, gid, owned := -1, -1, false
	if fi, err := os.Stat(path); err == nil {
		uid, gid, owned = safefile.FileOwner(fi)
	}
	t := now()
	for n := 0; ; n++ {
		name := BackupName(path, t, n)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, os.ErrExist) && n < 1000 {
			continue
		}
		if err != nil {
			return "", err
		}
		if fi, err := f.Stat(); err == nil && owned {
			if u, g, _ := safefile.FileOwner(fi); (u != uid || g != gid) && f.Chown(uid, gid) != nil && u != uid {
				f.Close()
				os.Remove(name)
				return "", fmt.Errorf("%s: %w: it belongs to uid %d and this process (uid %d) cannot give files back to that owner; run as that user", path, safefile.ErrOwner, uid, os.Geteuid())
			}
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return "", err
		}
		return name, f.Close()
	}
}

// ErrInvalidSettings is wrapped by errors about a settings file that is not
// valid JSON; such a file is never touched.
var ErrInvalidSettings = errors.New("settings file is not valid JSON")

// The limits of a settings file webgate reads. Settings files are a few
// kilobytes; a larger or more deeply nested file is refused with an error
// wrapping [ErrSettingsLimit] and never rewritten.
const (
	// MaxSettingsBytes is the largest settings file read: 4 MiB.
	MaxSettingsBytes = 4 << 20
	// MaxSettingsDepth is the deepest nesting of objects and arrays read:
	// 64 levels, the top-level object being the first.
	MaxSettingsDepth = 64
)

// ErrSettingsLimit is wrapped by errors about a settings file larger or
// more deeply nested than webgate reads ([MaxSettingsBytes],
// [MaxSettingsDepth]), or whose rewritten form would be; such a file is
// never touched.
var ErrSettingsLimit = errors.New("settings file exceeds webgate's limits")

// maxWrittenBytes is the largest settings file webgate writes: 16 MiB,
// room for webgate's entries in a file within [MaxSettingsBytes].
const maxWrittenBytes = 4 * MaxSettingsBytes

// readFile returns the content of the regular file at path, nil (and no
// error) when there is none. It never blocks on a FIFO and reads at most
// one byte more than [MaxSettingsBytes].
func readFile(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, MaxSettingsBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, safefile.ErrTooLarge):
		return nil, errTooLarge
	case err != nil:
		return nil, err
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

var errTooLarge = fmt.Errorf("larger than %d MiB", MaxSettingsBytes>>20)

// settingsReadError words an error of [readFile] for the user.
func settingsReadError(path string, err error) error {
	var pe *fs.PathError
	switch {
	case errors.Is(err, errTooLarge):
		return fmt.Errorf("%s: %w: it is %v, the most webgate reads of a settings file; it was left untouched", path, ErrSettingsLimit, err)
	case errors.Is(err, safefile.ErrNotRegular) && errors.As(err, &pe):
		return fmt.Errorf("%s: %w; webgate reads and writes settings only in a regular file (or a symbolic link to one), and left it untouched", path, pe.Err)
	}
	return err
}

// readSettings returns the file's bytes (nil when missing) and its parsed
// top-level object.
func readSettings(path string) ([]byte, *object, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, nil, settingsReadError(path, err)
	}
	if data == nil {
		return nil, newObject(), nil
	}
	// A byte order mark is not JSON, but editors write one; it is kept.
	body := bytes.TrimPrefix(data, []byte(utf8BOM))
	if len(bytes.TrimSpace(body)) == 0 {
		return data, newObject(), nil
	}
	v, err := parseJSON(body)
	if errors.Is(err, errTooDeep) {
		return nil, nil, fmt.Errorf("%s: %w: its %v, the most webgate reads; it was left untouched", path, ErrSettingsLimit, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w (%v); it was left untouched", path, ErrInvalidSettings, err)
	}
	o, ok := v.(*object)
	if !ok {
		return nil, nil, fmt.Errorf("%s: %w (the top level is not an object); it was left untouched", path, ErrInvalidSettings)
	}
	return data, o, nil
}

// writtenAnew reports whether the settings text data is exactly what
// webgate writes for its content into a file that did not exist: the
// layout of a file webgate created, never edited since.
func writtenAnew(data []byte) bool {
	v, err := parseJSON(data)
	if err != nil {
		return false
	}
	fresh, err := encodeJSONLimit(bare(v), maxWrittenBytes)
	return err == nil && bytes.Equal(fresh, data)
}

// bare returns a copy of the value v, as read, that has forgotten how it
// was written: written out it takes the default layout of a new file.
func bare(v any) any {
	switch t := v.(type) {
	case *object:
		o := newObject()
		for _, m := range t.members {
			o.members = append(o.members, member{key: m.key, val: bare(m.val)})
		}
		return o
	case []any:
		l := make([]any, len(t))
		for i := range t {
			l[i] = bare(t[i])
		}
		return l
	case str:
		return t.val
	}
	return v
}

func tooLongError(path string) error {
	return fmt.Errorf("%s: %w: rewritten it would be larger than %d MiB, the most webgate writes of a settings file; it was left untouched", path, ErrSettingsLimit, maxWrittenBytes>>20)
}

// PlanInstall computes the registration of webgate for o.Target: its hooks,
// or for [Codex] its MCP server.
func PlanInstall(o Options) (*Plan, error) { return plan(o, true) }

// PlanUninstall computes the removal of webgate's hooks (and only those),
// or for [Codex] of its MCP server's table, for o.Target.
func PlanUninstall(o Options) (*Plan, error) { return plan(o, false) }

func plan(o Options, install bool) (*Plan, error) {
	o.defaults()
	if o.Target == Codex {
		return planCodex(o, install)
	}
	path, err := SettingsPath(o)
	if err != nil {
		return nil, err
	}
	if err := checkInProject(o, path); err != nil {
		return nil, err
	}
	if install && o.Gateway != "" {
		if o.Target != ClaudeCode && o.Target != CopilotCLI {
			return nil, fmt.Errorf("%s has no HTTP hooks; --gateway works with claude-code and copilot-cli", o.Target)
		}
		if err := CheckGatewayURL(o.Gateway); err != nil {
			return nil, err
		}
	} else if install {
		for _, b := range []string{o.WebSearchBin, o.WebFetchBin} {
			if !filepath.IsAbs(b) {
				return nil, fmt.Errorf("hook binary path %q is not absolute", b)
			}
		}
	}
	before, root, err := readSettings(path)
	if err != nil {
		return nil, settingsError(o.Target, err)
	}
	// The file as webgate would write it unchanged, to tell a change of
	// content from a change of layout.
	read, err := rewriteJSON(before, root, maxWrittenBytes)
	if err != nil {
		return nil, tooLongError(path)
	}
	p := &Plan{Target: o.Target, Path: path, Before: before}
	switch o.Target {
	case CopilotCLI:
		editCopilot(root, o, install, p)
	case GeminiCLI:
		if err := editGemini(root, o, install, p); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	default:
		editClaude(root, o, install, p)
		if install {
			for _, n := range o.MCPTools {
				if !gate.MatchName(gate.DefaultMCPTools, n) {
					p.Notes = append(p.Notes, fmt.Sprintf("%s is not one of the web search hook's default MCP tools; add it to hooks.websearch.mcp_tool_names (WEBGATE_HOOKS_WEBSEARCH_MCP_TOOL_NAMES) too, or the hook ignores it.", n))
				}
			}
		}
		if o.Target == CopilotVSCode {
			p.Notes = append(p.Notes, "VS Code agent hooks read Claude Code settings files (.claude/settings.json, ~/.claude/settings.json); they ignore matchers and run every hook for every tool, and webgate's hooks ignore the tools they do not handle.")
		}
	}
	after, err := rewriteJSON(before, root, maxWrittenBytes)
	if err != nil {
		return nil, tooLongError(path)
	}
	p.After = after
	switch {
	case before != nil && bytes.Equal(after, read):
		// Nothing changed but, perhaps, the layout: keep the file as it is.
		p.After = before
	case len(root.members) == 0 && (before == nil || !install && (o.Target == CopilotCLI || writtenAnew(before))):
		// No file, and nothing to write; or an uninstall that empties a
		// file webgate created: Copilot CLI's webgate.json (named for
		// webgate), or a settings file that holds only webgate's entries
		// exactly as an install writes a new file. It goes rather than a
		// "{}" where there was none before the install. Any other
		// settings file (one the user wrote) keeps an empty object.
		p.After = nil
	}
	return p, nil
}
