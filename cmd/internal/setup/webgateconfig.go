package setup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/safefile"
)

// ConfigSetting is one string setting of webgate's own TOML configuration
// file.
type ConfigSetting struct {
	// Key is the setting's dotted key, as in the README's settings
	// reference: "providers.tavily.keys". Every part is a bare TOML key.
	Key string
	// Value is the string to set. It may be a secret: no error or note of
	// this package repeats it.
	Value string
}

// ErrConfigEdit is wrapped by the errors of [PlanConfig] about a change
// that cannot be made by editing the file's text safely.
var ErrConfigEdit = errors.New("cannot edit the configuration file")

// ConfigEdit is a computed change of webgate's TOML configuration file:
// some settings set, every other byte of the file kept. It holds secrets
// (the keys set), so it has no diff and is never printed.
type ConfigEdit struct {
	// Path is the file's path.
	Path string
	// Before is the file's content, nil when it does not exist.
	Before []byte
	// After is the content to write.
	After []byte
}

// Changed reports whether applying the edit would change the file.
func (e *ConfigEdit) Changed() bool { return e.Before == nil || !bytes.Equal(e.Before, e.After) }

// PlanConfig reads the TOML file at path (a missing file is an empty one)
// and computes it with each setting set, in order. The file is edited as
// text, as a Codex config.toml is: a setting already present has its
// statement replaced (a comment at the end of its line goes with it), a
// new one is added after the last line of its table, or in a new table at
// the end of the file; every other byte stays as it was. The edited text is parsed again and must
// hold exactly the old settings with the new values, or nothing is
// planned. A file that is not valid TOML, or that defines a setting's
// table inline (providers.tavily = { … }), is refused with an error
// wrapping [ErrConfigEdit] or [ErrInvalidTOML] that gives a line number
// but no text of the file.
func PlanConfig(path string, settings []ConfigSetting) (*ConfigEdit, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, settingsReadError(path, err)
	}
	e := &ConfigEdit{Path: path, Before: data}
	out := data
	for _, s := range settings {
		if out, err = setTOMLString(out, strings.Split(s.Key, "."), s.Value); err != nil {
			return nil, fmt.Errorf("%s: %w; it was left untouched", path, err)
		}
	}
	if out == nil {
		out = []byte{}
	}
	e.After = out
	return e, nil
}

// Apply writes the edit with mode 0600 (the file holds keys): first a
// backup of an existing file next to it ([BackupName], mode 0600), then
// the new content, atomically; a more open mode of an existing file is
// narrowed to 0600 before the new content is written. The directory is
// created with mode 0700 when missing. A symbolic link is written
// through. A file changed since the edit was planned is left alone with
// an error. It returns the backup's path ("" when there was no file or no
// change).
func (e *ConfigEdit) Apply(now func() time.Time) (backup string, err error) {
	if !e.Changed() {
		return "", nil
	}
	target, err := writeTarget(e.Path, e.Before, 0o700)
	if err != nil {
		return "", err
	}
	if e.Before != nil {
		if now == nil {
			now = time.Now
		}
		if backup, err = writeBackup(target, e.Before, 0o600, now); err != nil {
			return "", fmt.Errorf("writing backup: %w", err)
		}
		if info, err := os.Stat(target); err == nil && info.Mode().Perm() != 0o600 {
			if err := os.Chmod(target, 0o600); err != nil {
				return backup, err
			}
		}
	}
	return backup, safefile.WriteFile(target, e.After, 0o600)
}

// setTOMLString returns src with the setting at path set to value.
func setTOMLString(src []byte, path []string, value string) ([]byte, error) {
	if len(path) == 0 || strings.Join(path, "") == "" {
		return nil, fmt.Errorf("%w: an empty key", ErrConfigEdit)
	}
	doc := map[string]any{}
	var stmts []tomlStmt
	if len(bytes.TrimSpace(src)) > 0 {
		var err error
		if doc, err = parseTOML(src); err != nil {
			return nil, fmt.Errorf("%w (%s)", ErrInvalidTOML, tomlErrorPlace(err))
		}
		if stmts, err = scanTOML(src); err != nil {
			return nil, fmt.Errorf("%w (%v)", ErrInvalidTOML, err)
		}
	}
	eol := lineEnding(src)
	table, leaf := path[:len(path)-1], path[len(path)-1]
	line := func(s tomlStmt) int { return 1 + bytes.Count(src[:s.start], []byte("\n")) }
	pair := func(key []string) string { return tomlKey(key) + " = " + tomlString(value) + eol }

	var out []byte
	switch at, how := placeSetting(stmts, path); how {
	case placeReplace:
		s := stmts[at]
		seg := src[s.start:s.end]
		indent := seg[:len(seg)-len(bytes.TrimLeft(seg, " \t"))]
		text := string(indent) + pair(s.key)
		if !endsWithNewline(src[:s.end]) {
			text = strings.TrimSuffix(text, eol)
		}
		out = splice(src, s.start, s.end, text)
	case placeConflict:
		s := stmts[at]
		return nil, fmt.Errorf("%w: %s is defined on line %d in a way webgate does not edit (an inline table, an array of tables or a value); set it there by hand", ErrConfigEdit, strings.Join(path[:len(s.path())], "."), line(s))
	case placeAfter:
		s := stmts[at]
		text := pair(append(append([]string(nil), path[len(s.table):len(path)-1]...), leaf))
		if !endsWithNewline(src[:s.end]) {
			text = eol + text
		}
		out = splice(src, s.end, s.end, text)
	case placeAfterHeader:
		s := stmts[at]
		text := pair([]string{leaf})
		if !endsWithNewline(src[:s.end]) {
			text = eol + text
		}
		out = splice(src, s.end, s.end, text)
	default: // a new table at the end
		var b strings.Builder
		if len(src) > 0 {
			if !endsWithNewline(src) {
				b.WriteString(eol)
			}
			if !endsWithBlankLine(src) {
				b.WriteString(eol)
			}
		}
		if len(table) > 0 {
			b.WriteString("[" + tomlKey(table) + "]" + eol)
			b.WriteString(pair([]string{leaf}))
			out = splice(src, len(src), len(src), b.String())
		} else {
			// A top-level setting goes before the first table.
			pos := len(src)
			for _, s := range stmts {
				if s.kind != tomlPair {
					pos = s.start
					break
				}
			}
			text := pair([]string{leaf})
			if pos == len(src) && len(src) > 0 && !endsWithNewline(src) {
				text = eol + text
			}
			out = splice(src, pos, pos, text)
		}
	}

	got, err := parseTOML(out)
	if err != nil {
		return nil, fmt.Errorf("%w: the edited file would not be valid TOML", ErrConfigEdit)
	}
	want := withSetting(doc, path, value)
	if want == nil || !sameTOML(want, got) {
		return nil, fmt.Errorf("%w: the edit would not set %s alone", ErrConfigEdit, strings.Join(path, "."))
	}
	return out, nil
}

// How a setting is placed in a file.
const (
	placeAppend      = iota // a new table at the end
	placeReplace            // the statement at the index sets it: replace it
	placeConflict           // the statement at the index defines it otherwise
	placeAfter              // insert after the pair at the index (a dotted key of the same table)
	placeAfterHeader        // insert after the last pair of the table whose header is at the index
)

// placeSetting decides where the setting at path goes among stmts, and
// the index of the statement it is placed by.
func placeSetting(stmts []tomlStmt, path []string) (int, int) {
	table := path[:len(path)-1]
	header, lastOfHeader, dotted := -1, -1, -1
	for i, s := range stmts {
		p := s.path()
		switch {
		case s.kind == tomlPair && equalPath(p, path):
			return i, placeReplace
		case s.kind == tomlPair && hasPrefix(path, p):
			// A value (an inline table, or a scalar) where a table of the
			// path should be.
			return i, placeConflict
		case s.kind == tomlArrayTable && hasPrefix(path, p):
			return i, placeConflict
		case s.kind == tomlTable && equalPath(p, table):
			header, lastOfHeader = i, i
		case s.kind == tomlPair && header >= 0 && equalPath(s.table, table) && lastOfHeader >= header:
			lastOfHeader = i
		case s.kind == tomlPair && hasPrefix(p, table) && len(s.table) < len(table) && hasPrefix(table, s.table):
			// A dotted key defines the table (providers.tavily.base_url at
			// the top, or tavily.base_url under [providers]).
			dotted = i
		}
	}
	switch {
	case header >= 0:
		return lastOfHeader, placeAfterHeader
	case dotted >= 0:
		return dotted, placeAfter
	}
	return -1, placeAppend
}

// withSetting returns a deep copy of doc with the string value at path,
// or nil when a value that is not a table stands in the way.
func withSetting(doc map[string]any, path []string, value string) map[string]any {
	out := copyTable(doc)
	m := out
	for _, k := range path[:len(path)-1] {
		next, ok := m[k]
		if !ok {
			t := map[string]any{}
			m[k] = t
			m = t
			continue
		}
		t, ok := next.(map[string]any)
		if !ok {
			return nil
		}
		t = copyTable(t)
		m[k] = t
		m = t
	}
	m[path[len(path)-1]] = value
	return out
}

func copyTable(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// splice returns src with src[start:end] replaced by text, in a new slice.
func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

// tomlKey writes a key path, quoting the parts that are not bare keys.
func tomlKey(path []string) string {
	parts := make([]string, len(path))
	for i, k := range path {
		bare := k != ""
		for j := 0; j < len(k); j++ {
			if !isBareKeyByte(k[j]) {
				bare = false
				break
			}
		}
		if bare {
			parts[i] = k
		} else {
			parts[i] = tomlString(k)
		}
	}
	return strings.Join(parts, ".")
}

// tomlErrorPlace returns where a TOML parser's error is, without the text
// around it (which may hold a key).
func tomlErrorPlace(err error) string {
	type positioned interface{ Position() (row, column int) }
	var p positioned
	if errors.As(err, &p) {
		row, col := p.Position()
		return fmt.Sprintf("line %d, column %d", row, col)
	}
	return "the parser gives no position"
}
