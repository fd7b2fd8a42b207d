package setup

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Codex config.toml is edited as text: [scanTOML] finds where each
// statement (table header or key/value pair) starts and ends, and the
// editor replaces, inserts or removes whole lines. Every other byte of the
// file, comments and layout included, stays as it was. The scanner is not
// a validator: the file is first read by a real TOML parser, and the edited
// text is read again and compared before anything is written.

// tomlKind is the kind of a statement.
type tomlKind int

const (
	tomlPair       tomlKind = iota // key = value
	tomlTable                      // [table]
	tomlArrayTable                 // [[array.of.tables]]
)

// tomlStmt is one statement of a TOML document.
type tomlStmt struct {
	kind tomlKind
	// key is the header's key path, or the pair's key path relative to
	// its table.
	key []string
	// table is the key path of the table a pair belongs to (the last
	// header's; nil at the top level). It is nil for headers.
	table []string
	// start is the offset of the statement's first line; end is the
	// offset just past the end of line of its last line (or the end of
	// the document).
	start, end int
}

// path returns the statement's full key path: the header's, or the
// pair's table and key.
func (s tomlStmt) path() []string {
	if s.kind != tomlPair {
		return s.key
	}
	return append(append([]string(nil), s.table...), s.key...)
}

// errTOMLScan is wrapped by the errors of [scanTOML].
var errTOMLScan = errors.New("cannot read the TOML layout")

type tomlScanner struct {
	src []byte
	pos int
}

// scanTOML returns the statements of src in order.
func scanTOML(src []byte) ([]tomlStmt, error) {
	s := &tomlScanner{src: src}
	var stmts []tomlStmt
	var table []string
	for s.pos < len(src) {
		lineStart := s.pos
		s.space()
		if s.pos >= len(src) {
			break
		}
		switch c := src[s.pos]; {
		case c == '\n':
			s.pos++
			continue
		case c == '\r' && s.peekAt(1) == '\n':
			s.pos += 2
			continue
		case c == '#':
			s.comment()
			if err := s.endOfLine(); err != nil {
				return nil, err
			}
			continue
		case c == '[':
			kind := tomlTable
			s.pos++
			if s.peek() == '[' {
				kind = tomlArrayTable
				s.pos++
			}
			key, err := s.key()
			if err != nil {
				return nil, err
			}
			s.space()
			closing := "]"
			if kind == tomlArrayTable {
				closing = "]]"
			}
			if !bytes.HasPrefix(src[s.pos:], []byte(closing)) {
				return nil, s.fail("a table header without its closing bracket")
			}
			s.pos += len(closing)
			if err := s.endOfLine(); err != nil {
				return nil, err
			}
			stmts = append(stmts, tomlStmt{kind: kind, key: key, start: lineStart, end: s.pos})
			table = key
		default:
			key, err := s.key()
			if err != nil {
				return nil, err
			}
			s.space()
			if s.peek() != '=' {
				return nil, s.fail("a key without '='")
			}
			s.pos++
			s.space()
			if err := s.value(0); err != nil {
				return nil, err
			}
			if err := s.endOfLine(); err != nil {
				return nil, err
			}
			stmts = append(stmts, tomlStmt{kind: tomlPair, key: key, table: table, start: lineStart, end: s.pos})
		}
	}
	return stmts, nil
}

func (s *tomlScanner) peek() byte { return s.peekAt(0) }

func (s *tomlScanner) peekAt(n int) byte {
	if s.pos+n < len(s.src) {
		return s.src[s.pos+n]
	}
	return 0
}

// fail reports a position only (never the file's text: it can hold
// secrets).
func (s *tomlScanner) fail(what string) error {
	line := 1 + bytes.Count(s.src[:min(s.pos, len(s.src))], []byte("\n"))
	return fmt.Errorf("%w: %s on line %d", errTOMLScan, what, line)
}

// space skips spaces and tabs.
func (s *tomlScanner) space() {
	for s.pos < len(s.src) && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
		s.pos++
	}
}

// comment skips a comment up to (not including) its end of line.
func (s *tomlScanner) comment() {
	for s.pos < len(s.src) && s.src[s.pos] != '\n' && !(s.src[s.pos] == '\r' && s.peekAt(1) == '\n') {
		s.pos++
	}
}

// endOfLine skips spaces and a comment, then the end of line; the end of
// the document is one too.
func (s *tomlScanner) endOfLine() error {
	s.space()
	if s.peek() == '#' {
		s.comment()
	}
	switch {
	case s.pos >= len(s.src):
		return nil
	case s.src[s.pos] == '\n':
		s.pos++
		return nil
	case s.src[s.pos] == '\r' && s.peekAt(1) == '\n':
		s.pos += 2
		return nil
	}
	return s.fail("unexpected text after a statement")
}

// blank skips white space, ends of line and comments (inside arrays and
// inline tables).
func (s *tomlScanner) blank() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		case '#':
			s.comment()
		default:
			return
		}
	}
}

// key reads a dotted key and returns its decoded parts.
func (s *tomlScanner) key() ([]string, error) {
	var parts []string
	for {
		s.space()
		part, err := s.simpleKey()
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
		s.space()
		if s.peek() != '.' {
			return parts, nil
		}
		s.pos++
	}
}

func (s *tomlScanner) simpleKey() (string, error) {
	switch s.peek() {
	case '"':
		start := s.pos
		if err := s.basicString(); err != nil {
			return "", err
		}
		return decodeBasic(string(s.src[start+1 : s.pos-1]))
	case '\'':
		start := s.pos
		if err := s.literalString(); err != nil {
			return "", err
		}
		return string(s.src[start+1 : s.pos-1]), nil
	}
	start := s.pos
	for s.pos < len(s.src) && isBareKeyByte(s.src[s.pos]) {
		s.pos++
	}
	if s.pos == start {
		return "", s.fail("a key expected")
	}
	return string(s.src[start:s.pos]), nil
}

func isBareKeyByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// value skips one value; depth counts the arrays and inline tables it is
// inside.
func (s *tomlScanner) value(depth int) error {
	if depth > MaxSettingsDepth {
		return s.fail("values nested too deeply")
	}
	switch {
	case bytes.HasPrefix(s.src[s.pos:], []byte(`"""`)):
		return s.multiline('"')
	case bytes.HasPrefix(s.src[s.pos:], []byte(`'''`)):
		return s.multiline('\'')
	case s.peek() == '"':
		return s.basicString()
	case s.peek() == '\'':
		return s.literalString()
	case s.peek() == '[':
		return s.sequence(']', func() error { return s.value(depth + 1) }, "an array without its closing bracket")
	case s.peek() == '{':
		return s.sequence('}', func() error {
			if _, err := s.key(); err != nil {
				return err
			}
			s.space()
			if s.peek() != '=' {
				return s.fail("a key without '=' in an inline table")
			}
			s.pos++
			s.blank()
			return s.value(depth + 1)
		}, "an inline table without its closing brace")
	}
	// A number, boolean or date and time. A date may be followed by a
	// space and a time ("1979-05-27 07:32:00Z").
	start := s.pos
	s.scalar()
	if s.pos-start == 10 && s.peek() == ' ' && s.peekAt(1) >= '0' && s.peekAt(1) <= '9' && s.src[start+4] == '-' {
		s.pos++
		s.scalar()
	}
	if s.pos == start {
		return s.fail("a value expected")
	}
	return nil
}

func (s *tomlScanner) scalar() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\r', '\n', ',', ']', '}', '#':
			return
		}
		s.pos++
	}
}

func (s *tomlScanner) basicString() error {
	s.pos++
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case '\\':
			s.pos += 2
		case '"':
			s.pos++
			return nil
		case '\n':
			return s.fail("a string without its closing quote")
		default:
			s.pos++
		}
	}
	return s.fail("a string without its closing quote")
}

func (s *tomlScanner) literalString() error {
	s.pos++
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case '\'':
			s.pos++
			return nil
		case '\n':
			return s.fail("a string without its closing quote")
		}
		s.pos++
	}
	return s.fail("a string without its closing quote")
}

// multiline skips a multi-line string delimited by three q's; up to two
// more q's right before the closing delimiter belong to the string.
func (s *tomlScanner) multiline(q byte) error {
	delim := []byte{q, q, q}
	s.pos += 3
	for s.pos < len(s.src) {
		if q == '"' && s.src[s.pos] == '\\' {
			s.pos += 2
			continue
		}
		if bytes.HasPrefix(s.src[s.pos:], delim) {
			s.pos += 3
			for n := 0; n < 2 && s.peek() == q; n++ {
				s.pos++
			}
			return nil
		}
		s.pos++
	}
	return s.fail("a multi-line string without its closing quotes")
}

// decodeBasic decodes the escapes of a basic string's body.
func decodeBasic(body string) (string, error) {
	if !strings.Contains(body, `\`) {
		return body, nil
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", fmt.Errorf("%w: an escape at the end of a key", errTOMLScan)
		}
		switch body[i] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case '"', '\\':
			b.WriteByte(body[i])
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[body[i]]
			if i+1+n > len(body) {
				return "", fmt.Errorf("%w: a short escape in a key", errTOMLScan)
			}
			r, err := strconv.ParseUint(body[i+1:i+1+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				return "", fmt.Errorf("%w: an invalid escape in a key", errTOMLScan)
			}
			b.WriteRune(rune(r))
			i += n
		default:
			return "", fmt.Errorf("%w: an invalid escape in a key", errTOMLScan)
		}
	}
	return b.String(), nil
}

// tomlString returns s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// hasPrefix reports whether path starts with prefix.
func hasPrefix(path, prefix []string) bool {
	if len(path) < len(prefix) {
		return false
	}
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}

// lineEnding returns the end of line src uses: "\r\n" when its first line
// ends so, else "\n".
func lineEnding(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// lineKind reports whether line holds only white space (blank), or a
// comment and nothing else.
func lineKind(line []byte) (blank, comment bool) {
	t := bytes.TrimLeft(line, " \t")
	t = bytes.TrimRight(t, "\r\n")
	if len(bytes.TrimRight(t, " \t\r")) == 0 {
		return true, false
	}
	return false, t[0] == '#'
}

// sequence reads an array or an inline table from its opening mark to
// end: items read by item, separated by commas, with blank space between
// them; unclosed is what is said when an item is followed by anything else.
func (s *tomlScanner) sequence(end byte, item func() error, unclosed string) error {
	s.pos++
	for {
		s.blank()
		if s.peek() == end {
			s.pos++
			return nil
		}
		if err := item(); err != nil {
			return err
		}
		s.blank()
		switch s.peek() {
		case ',':
			s.pos++
		case end:
			s.pos++
			return nil
		default:
			return s.fail(unclosed)
		}
	}
}
