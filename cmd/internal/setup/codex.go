package setup

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/knadh/koanf/parsers/toml/v2"
)

// CodexServerName is the name webgate's MCP server is registered under in
// a Codex config.toml: the table [mcp_servers.webgate]. Codex offers its
// tools to the model as the namespace "mcp__webgate".
const CodexServerName = "webgate"

// codexTable is the key path of webgate's table.
var codexTable = []string{"mcp_servers", CodexServerName}

// ErrInvalidTOML is wrapped by errors about a Codex config.toml that is not
// valid TOML, or that defines webgate's server in a form webgate does not
// edit (dotted keys, an inline table, an array of tables); such a file is
// never touched.
var ErrInvalidTOML = errors.New("config file is not valid TOML")

// codexArgs are the arguments Codex starts the webgate binary with.
var codexArgs = []string{"mcp"}

// codexTOML is a Codex config.toml as read: its bytes (nil when missing),
// the statements found in them, and the parsed document.
type codexTOML struct {
	path  string
	data  []byte
	stmts []tomlStmt
	doc   map[string]any
}

// readCodex reads and parses the config.toml at path.
func readCodex(path string) (*codexTOML, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, settingsReadError(path, err)
	}
	c := &codexTOML{path: path, data: data, doc: map[string]any{}}
	if len(data) == 0 {
		return c, nil
	}
	if c.doc, err = parseTOML(data); err != nil {
		return nil, fmt.Errorf("%s: %w (%v); it was left untouched", path, ErrInvalidTOML, err)
	}
	if c.stmts, err = scanTOML(data); err != nil {
		return nil, fmt.Errorf("%s: %w (%v); it was left untouched", path, ErrInvalidTOML, err)
	}
	return c, nil
}

func parseTOML(data []byte) (map[string]any, error) {
	doc, err := toml.Parser().Unmarshal(data)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		doc = map[string]any{}
	}
	return doc, nil
}

// codexServer returns the parsed [mcp_servers.webgate] table, nil when there
// is none (or it is not a table).
func codexServer(doc map[string]any) map[string]any {
	servers, _ := doc["mcp_servers"].(map[string]any)
	s, _ := servers[CodexServerName].(map[string]any)
	return s
}

// conflict returns a description of a statement that defines webgate's
// server other than as a [mcp_servers.webgate] table (with its
// sub-tables), or that makes adding such a table impossible; "" when there
// is none.
func (c *codexTOML) conflict() string {
	for _, s := range c.stmts {
		path := s.path()
		line := 1 + bytes.Count(c.data[:s.start], []byte("\n"))
		switch {
		case s.kind == tomlArrayTable && (hasPrefix(path, codexTable) || hasPrefix(codexTable, path)):
			return fmt.Sprintf("an array of tables [[%s]] on line %d", strings.Join(path, "."), line)
		case s.kind == tomlPair && hasPrefix(codexTable, path):
			return fmt.Sprintf("an inline table (%s = {…}) on line %d", strings.Join(path, "."), line)
		case s.kind == tomlPair && hasPrefix(path, codexTable) && !hasPrefix(s.table, codexTable):
			return fmt.Sprintf("a dotted key (%s) on line %d", strings.Join(path, "."), line)
		}
	}
	return ""
}

// region is the part of the file a table occupies: from its header's
// line to the end of its last statement, with the comment lines that
// directly follow it. Comments after a blank line belong to what comes
// next.
func (c *codexTOML) region(header int) (start, end int) {
	start = c.stmts[header].start
	end = c.stmts[header].end
	next := len(c.data)
	for _, s := range c.stmts[header+1:] {
		if s.kind != tomlPair {
			next = s.start
			break
		}
		end = s.end
	}
	// Between end and next there are only blank lines and comments.
	trailer := end
	for pos := end; pos < next; {
		le := bytes.IndexByte(c.data[pos:next], '\n')
		lineEnd := next
		if le >= 0 {
			lineEnd = pos + le + 1
		}
		if blank, _ := lineKind(c.data[pos:lineEnd]); blank {
			return start, pos
		}
		pos = lineEnd
		trailer = lineEnd
	}
	if next == len(c.data) {
		return start, trailer
	}
	// Comments right above the next header (no blank line between) are
	// about that header.
	return start, end
}

// planCodex computes the change of the Codex config.toml for o.
func planCodex(o Options, install bool) (*Plan, error) {
	path, err := SettingsPath(o)
	if err != nil {
		return nil, err
	}
	if err := checkInProject(o, path); err != nil {
		return nil, err
	}
	if install && !filepath.IsAbs(o.WebgateBin) {
		return nil, fmt.Errorf("webgate binary path %q is not absolute", o.WebgateBin)
	}
	c, err := readCodex(path)
	if err != nil {
		return nil, err
	}
	p := &Plan{Target: Codex, Path: path, Before: c.data, After: c.data}
	current := codexServer(c.doc)
	if current == nil && !install {
		return p, nil
	}
	if why := c.conflict(); why != "" {
		return nil, fmt.Errorf("%s: %w: webgate's MCP server is defined by %s; webgate edits only a [mcp_servers.%s] table, so change that by hand; the file was left untouched", path, ErrInvalidTOML, why, CodexServerName)
	}
	eol := lineEnding(c.data)
	var after []byte
	if install {
		after = c.install(o, current, eol, p)
	} else {
		after = c.uninstall()
	}
	if err := verifyCodex(c.doc, after, o, install); err != nil {
		return nil, fmt.Errorf("%s: %v; the file was left untouched", path, err)
	}
	if c.data == nil && len(after) == 0 || !install && len(bytes.TrimSpace(after)) == 0 {
		// Nothing left: no file rather than an empty one.
		after = nil
	}
	p.After = after
	if install {
		if current != nil {
			if cmd, _ := current["command"].(string); cmd != "" && cmd != o.WebgateBin {
				if _, err := os.Stat(cmd); err != nil {
					p.Found = append(p.Found, fmt.Sprintf("[mcp_servers.%s] pointed at %s, which does not exist", CodexServerName, cmd))
				}
			}
			if _, ok := current["url"]; ok {
				p.Found = append(p.Found, fmt.Sprintf("[mcp_servers.%s] had a url (a streamable HTTP server); it was replaced by the webgate binary", CodexServerName))
			}
			if enabled, ok := current["enabled"].(bool); ok && !enabled {
				p.Found = append(p.Found, fmt.Sprintf("[mcp_servers.%s] has enabled = false, so Codex does not start it; kept as it is", CodexServerName))
			}
		}
		p.Notes = append(p.Notes,
			"Codex starts MCP servers with a few environment variables only (HOME, PATH and the like): keep webgate's keys and settings in its configuration file (~/.config/webgate/config.toml), not only in environment variables.",
			"Codex's own web_search runs on OpenAI's side, where no hook sees it; the model finds webgate's tools as mcp__webgate (web_search, web_fetch).")
		if o.Scope == Project {
			p.Notes = append(p.Notes, "Codex reads a project's .codex/config.toml only when the project is trusted.")
		}
	}
	return p, nil
}

// install returns the file with webgate's table registered: a new table
// (after the other MCP servers, else at the end), or the existing one with
// its command and args set and every other line kept.
func (c *codexTOML) install(o Options, current map[string]any, eol string, p *Plan) []byte {
	commandLine := "command = " + tomlString(o.WebgateBin) + eol
	argsLine := "args = [" + tomlString(codexArgs[0]) + "]" + eol
	header := -1
	firstSub, lastServer := -1, -1
	for i, s := range c.stmts {
		switch {
		case s.kind == tomlTable && equalPath(s.key, codexTable):
			header = i
		case s.kind == tomlTable && hasPrefix(s.key, codexTable):
			if firstSub < 0 {
				firstSub = i
			}
		}
		if s.kind == tomlTable && len(s.key) >= 2 && s.key[0] == "mcp_servers" {
			lastServer = i
		}
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	if header >= 0 {
		_, end := c.region(header)
		var haveCommand, haveArgs bool
		for _, s := range c.stmts[header+1:] {
			if s.start >= end || s.kind != tomlPair {
				break
			}
			if len(s.key) != 1 {
				continue
			}
			switch s.key[0] {
			case "command":
				haveCommand = true
				if cmd, _ := current["command"].(string); cmd != o.WebgateBin {
					edits = append(edits, edit{s.start, s.end, commandLine})
				}
			case "args":
				haveArgs = true
				if !sameStrings(current["args"], codexArgs) {
					edits = append(edits, edit{s.start, s.end, argsLine})
				}
			case "url":
				edits = append(edits, edit{s.start, s.end, ""})
			}
		}
		add := ""
		if !haveCommand {
			add += commandLine
		}
		if !haveArgs {
			add += argsLine
		}
		if add != "" {
			at := c.stmts[header].end
			if at == len(c.data) && !endsWithNewline(c.data) {
				add = eol + add
			}
			edits = append(edits, edit{at, at, add})
		}
	} else {
		table := "[mcp_servers." + CodexServerName + "]" + eol + commandLine + argsLine
		switch {
		case firstSub >= 0:
			// Sub-tables such as [mcp_servers.webgate.env] exist: put the
			// table right above the first of them.
			at := c.stmts[firstSub].start
			edits = append(edits, edit{at, at, table + eol})
		case lastServer >= 0:
			_, at := c.region(lastServer)
			text := eol + table
			if at > 0 && !endsWithNewline(c.data[:at]) {
				text = eol + text
			}
			if rest := c.data[at:]; len(rest) > 0 {
				if blank, _ := lineKind(firstLine(rest)); !blank {
					text += eol
				}
			}
			edits = append(edits, edit{at, at, text})
		default:
			at := len(c.data)
			text := table
			if at > 0 {
				switch {
				case !endsWithNewline(c.data):
					text = eol + eol + text
				case !endsWithBlankLine(c.data):
					text = eol + text
				}
			}
			edits = append(edits, edit{at, at, text})
		}
	}
	out := append([]byte(nil), c.data...)
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		out = append(out[:e.start:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	if len(c.data) > 0 && !endsWithNewline(c.data) {
		// A file without a final newline gets none: what was added at
		// its end ends as the file did, and an uninstall gives it back.
		out = bytes.TrimSuffix(out, []byte(eol))
	}
	return out
}

// uninstall returns the file without webgate's table and its sub-tables.
func (c *codexTOML) uninstall() []byte {
	type cut struct{ start, end int }
	var cuts []cut
	for i, s := range c.stmts {
		if s.kind == tomlTable && hasPrefix(s.key, codexTable) {
			start, end := c.region(i)
			cuts = append(cuts, cut{start, end})
		}
	}
	out := append([]byte(nil), c.data...)
	for i := len(cuts) - 1; i >= 0; i-- {
		start, end := cuts[i].start, cuts[i].end
		before, rest := out[:start], out[end:]
		// Do not leave two blank lines (or a blank line at either end of
		// the file) where the table was.
		restBlank := len(rest) == 0
		if !restBlank {
			restBlank, _ = lineKind(firstLine(rest))
		}
		switch {
		case start == 0 && len(rest) > 0 && restBlank:
			rest = rest[len(firstLine(rest)):]
		case endsWithBlankLine(before) && restBlank:
			before = before[:len(before)-len(lastLine(before))]
		}
		out = append(append([]byte(nil), before...), rest...)
	}
	if len(cuts) > 0 && len(c.data) > 0 && !endsWithNewline(c.data) {
		// The table was at the end of a file without a final newline
		// (install writes it so): the lines before it end the file the
		// same way.
		out = bytes.TrimRight(out, "\r\n")
	}
	return out
}

// verifyCodex reads the edited file again and checks that it says what
// was meant: webgate's server as registered (or gone), and everything else
// exactly as before.
func verifyCodex(before map[string]any, after []byte, o Options, install bool) error {
	doc, err := parseTOML(after)
	if err != nil {
		return fmt.Errorf("the edited file would not be valid TOML (%v)", err)
	}
	got := codexServer(doc)
	if install {
		if got == nil {
			return errors.New("the edited file would lack webgate's server")
		}
		if cmd, _ := got["command"].(string); cmd != o.WebgateBin || !sameStrings(got["args"], codexArgs) {
			return errors.New("the edited file would not start webgate's server as meant")
		}
		was := codexServer(before)
		if !sameTOML(withoutKeys(was, "command", "args", "url"), withoutKeys(got, "command", "args", "url")) {
			return errors.New("the edit would change other settings of webgate's server")
		}
	} else if got != nil {
		return errors.New("the edited file would still hold webgate's server")
	}
	if !sameTOML(withoutServer(before), withoutServer(doc)) {
		return errors.New("the edit would change settings other than webgate's server")
	}
	return nil
}

// withoutServer returns a copy of doc without webgate's server (and
// without mcp_servers when nothing else is left in it).
func withoutServer(doc map[string]any) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		out[k] = v
	}
	if servers, ok := out["mcp_servers"].(map[string]any); ok {
		rest := withoutKeys(servers, CodexServerName)
		if len(rest) == 0 {
			delete(out, "mcp_servers")
		} else {
			out["mcp_servers"] = rest
		}
	}
	return out
}

func withoutKeys(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// sameTOML compares parsed TOML values; NaN equals NaN.
func sameTOML(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameTOML(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameTOML(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	}
	return fmt.Sprintf("%T %#v", a, a) == fmt.Sprintf("%T %#v", b, b)
}

func sameStrings(v any, want []string) bool {
	list, ok := v.([]any)
	if !ok || len(list) != len(want) {
		return false
	}
	for i, w := range want {
		if s, _ := list[i].(string); s != w {
			return false
		}
	}
	return true
}

func equalPath(a, b []string) bool { return len(a) == len(b) && hasPrefix(a, b) }

func endsWithNewline(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\n' }

// endsWithBlankLine reports whether b ends with a blank line (an end of
// line right after another, white space between them allowed).
func endsWithBlankLine(b []byte) bool {
	if !endsWithNewline(b) {
		return false
	}
	last := lastLine(b)
	if len(last) == len(b) {
		return false
	}
	blank, _ := lineKind(last)
	return blank
}

// firstLine returns b's first line with its end of line.
func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1]
	}
	return b
}

// lastLine returns b's last line with its end of line; b ends with one.
func lastLine(b []byte) []byte {
	i := bytes.LastIndexByte(b[:len(b)-1], '\n')
	return b[i+1:]
}

// inspectCodex reads the Codex config.toml of o and reports webgate's
// server in it.
func inspectCodex(o Options) (*Registration, error) {
	path, err := SettingsPath(o)
	if err != nil {
		return nil, err
	}
	c, err := readCodex(path)
	if err != nil {
		return nil, err
	}
	r := &Registration{Target: Codex, Path: path, Exists: c.data != nil}
	s := codexServer(c.doc)
	if s == nil {
		return r, nil
	}
	srv := &RegisteredServer{Name: CodexServerName, Enabled: true}
	srv.Command, _ = s["command"].(string)
	if list, ok := s["args"].([]any); ok {
		for _, a := range list {
			if str, ok := a.(string); ok {
				srv.Args = append(srv.Args, str)
			}
		}
	}
	if enabled, ok := s["enabled"].(bool); ok {
		srv.Enabled = enabled
	}
	if _, ok := s["url"]; ok {
		srv.URL = true
	}
	if env, ok := s["env"].(map[string]any); ok {
		for k := range env {
			srv.Env = append(srv.Env, k)
		}
		slices.Sort(srv.Env)
	}
	if list, ok := s["env_vars"].([]any); ok {
		for _, v := range list {
			switch e := v.(type) {
			case string:
				srv.Env = append(srv.Env, e)
			case map[string]any:
				if n, ok := e["name"].(string); ok {
					srv.Env = append(srv.Env, n)
				}
			}
		}
	}
	if srv.Command != "" {
		if _, err := os.Stat(srv.Command); err != nil {
			srv.Missing = true
		}
	}
	r.Server = srv
	return r, nil
}
