package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// A settings document is read into *object, []any, str, json.Number, bool
// and nil values. Every string (keys included) and number keeps the exact
// text it was read from, and is written back with that text, so that a
// rewrite changes only what webgate adds, changes or removes: a lone
// surrogate escape, an escaped "/", 1e400 or 1.0 all survive as written.
// Values webgate creates are string, int, []any and *object, written by the
// standard encoder.

// member is one "key": value pair of an object.
type member struct {
	// key is the decoded key; raw is the key as read, quotes included, or
	// "" for a member webgate added.
	key, raw string
	val      any
}

// object is a JSON object that keeps its members in the order they were
// read. A key may occur more than once, as a file may have it; as in
// JavaScript, the last occurrence is the one that counts, and the earlier
// ones are kept as they are.
type object struct {
	members []member
}

func newObject() *object { return &object{} }

// last returns the index of the last member named k, or -1.
func (o *object) last(k string) int {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == k {
			return i
		}
	}
	return -1
}

// get returns the value of the member named k.
func (o *object) get(k string) (any, bool) {
	if i := o.last(k); i >= 0 {
		return o.members[i].val, true
	}
	return nil, false
}

// set gives the member named k the value v, adding the member at the end
// when there is none. A value read from the file that already equals v (a
// string or a number) is kept with its spelling.
func (o *object) set(k string, v any) {
	i := o.last(k)
	if i < 0 {
		o.members = append(o.members, member{key: k, val: v})
		return
	}
	if !sameScalar(o.members[i].val, v) {
		o.members[i].val = v
	}
}

// del removes every member named k.
func (o *object) del(k string) {
	kept := o.members[:0]
	for _, m := range o.members {
		if m.key != k {
			kept = append(kept, m)
		}
	}
	clear(o.members[len(kept):])
	o.members = kept
}

// names returns the keys whose values count (the last occurrence of each),
// in file order.
func (o *object) names() []string {
	seen := make(map[string]bool, len(o.members))
	out := make([]string, 0, len(o.members))
	for i := len(o.members) - 1; i >= 0; i-- {
		if k := o.members[i].key; !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// str is a JSON string as read: its decoded value and its exact text,
// quotes included.
type str struct{ val, raw string }

// text returns the value of a string, read or created.
func text(v any) (string, bool) {
	switch t := v.(type) {
	case str:
		return t.val, true
	case string:
		return t, true
	}
	return "", false
}

// textOf returns the string value of o's member k, "" when it has none or
// it is not a string.
func textOf(o *object, k string) string {
	v, _ := o.get(k)
	s, _ := text(v)
	return s
}

// sameScalar reports whether old, a value read from a file, is the string
// or integer v.
func sameScalar(old, v any) bool {
	switch n := v.(type) {
	case string:
		s, ok := old.(str)
		return ok && s.val == n
	case int:
		num, ok := old.(json.Number)
		if !ok {
			return false
		}
		if i, err := strconv.ParseInt(string(num), 10, 64); err == nil {
			return i == int64(n)
		}
		f, err := strconv.ParseFloat(string(num), 64)
		return err == nil && f == float64(n)
	}
	return false
}

// errTooDeep is the error of [parseJSON] for a document nested more than
// [MaxSettingsDepth] levels deep.
var errTooDeep = fmt.Errorf("objects and arrays are nested more than %d levels deep", MaxSettingsDepth)

// parseJSON decodes data, which must hold one JSON value, and nothing but
// white space after it. Objects and arrays nested more than
// [MaxSettingsDepth] deep fail with errTooDeep, before anything deeper is
// read. Strings are decoded as encoding/json decodes them (invalid UTF-8
// and lone surrogates become U+FFFD in the value; the text keeps them).
func parseJSON(data []byte) (any, error) {
	// One copy of the input as a string: every key, string and number read
	// is a slice of it, not an allocation of its own.
	p := &parser{data: data, src: string(data)}
	v, err := p.value(1)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.data) {
		return nil, p.fail("after the top-level value")
	}
	return v, nil
}

type parser struct {
	data []byte
	src  string // data as a string
	pos  int
	// The elements and members of the arrays and objects being read, the
	// innermost last; each is copied out, at its exact length, once read.
	elems   []any
	members []member
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// fail describes the byte at the current position (never more of the
// file: settings can hold secrets).
func (p *parser) fail(context string) error {
	if p.pos >= len(p.data) {
		return fmt.Errorf("unexpected end of JSON input %s (%s)", context, p.where(len(p.data)))
	}
	c := p.data[p.pos]
	q := strconv.QuoteRune(rune(c))
	if c >= 0x80 {
		q = fmt.Sprintf("byte %#02x", c)
	}
	return fmt.Errorf("invalid character %s %s (%s)", q, context, p.where(p.pos))
}

// where says where byte offset pos is, as an editor shows it: "line 3,
// column 7", both counted from 1, the column in characters.
func (p *parser) where(pos int) string {
	pos = min(pos, len(p.data))
	start := bytes.LastIndexByte(p.data[:pos], '\n') + 1
	line := 1 + bytes.Count(p.data[:start], []byte{'\n'})
	return fmt.Sprintf("line %d, column %d", line, 1+utf8.RuneCount(p.data[start:pos]))
}

// value reads the value at the current position; depth is the nesting
// level an object or array there would have.
func (p *parser) value(depth int) (any, error) {
	p.space()
	if p.pos >= len(p.data) {
		return nil, p.fail("looking for the beginning of a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		if depth > MaxSettingsDepth {
			return nil, errTooDeep
		}
		return p.object(depth)
	case c == '[':
		if depth > MaxSettingsDepth {
			return nil, errTooDeep
		}
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.fail("looking for the beginning of a value")
}

func (p *parser) object(depth int) (any, error) {
	p.pos++ // {
	o := newObject()
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return o, nil
	}
	base := len(p.members)
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("looking for the beginning of an object key")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("after an object key")
		}
		p.pos++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.members = append(p.members, member{key: k.val, raw: k.raw, val: v})
		more, ok := p.separator('}')
		if !ok {
			return nil, p.fail("after an object member")
		}
		if !more {
			o.members = pop(&p.members, base)
			return o, nil
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	p.pos++ // [
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return []any{}, nil
	}
	base := len(p.elems)
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.elems = append(p.elems, v)
		more, ok := p.separator(']')
		if !ok {
			return nil, p.fail("after an array element")
		}
		if !more {
			return pop(&p.elems, base), nil
		}
	}
}

// separator reads what follows an object member or an array element: a
// comma (more is true) or the closing byte (more is false), either
// consumed. ok is false for anything else, which is left unread.
func (p *parser) separator(closing byte) (more, ok bool) {
	p.space()
	if p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ',':
			p.pos++
			return true, true
		case closing:
			p.pos++
			return false, true
		}
	}
	return false, false
}

// pop returns a copy of the entries of the scratch stack *s from base
// on, the members or elements of the object or array just read, and
// truncates the stack to base.
func pop[T any](s *[]T, base int) []T {
	out := append([]T(nil), (*s)[base:]...)
	clear((*s)[base:])
	*s = (*s)[:base]
	return out
}

// str reads the string at the current position (its opening quote).
func (p *parser) str() (str, error) {
	start := p.pos
	p.pos++
	plain := true
	for {
		if p.pos >= len(p.data) {
			return str{}, p.fail("in a string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			raw := p.src[start:p.pos]
			if plain {
				return str{val: raw[1 : len(raw)-1], raw: raw}, nil
			}
			var val string
			if err := json.Unmarshal([]byte(raw), &val); err != nil {
				return str{}, fmt.Errorf("string at %s: %v", p.where(start), err)
			}
			return str{val: val, raw: raw}, nil
		case c == '\\':
			plain = false
			p.pos++
			if p.pos >= len(p.data) {
				return str{}, p.fail("in a string escape")
			}
			switch p.data[p.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos++
			case 'u':
				p.pos++
				for i := 0; i < 4; i++ {
					if p.pos >= len(p.data) || !isHex(p.data[p.pos]) {
						return str{}, p.fail("in a \\u escape")
					}
					p.pos++
				}
			default:
				return str{}, p.fail("in a string escape")
			}
		case c < 0x20:
			return str{}, p.fail("in a string")
		default:
			if c >= 0x80 {
				plain = false
			}
			p.pos++
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number reads the number at the current position.
func (p *parser) number() (any, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case digits() == 0:
		return nil, p.fail("in a number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.fail("after the decimal point of a number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.fail("in the exponent of a number")
		}
	}
	return json.Number(p.src[start:p.pos]), nil
}

func (p *parser) literal(word string) error {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		for i := 0; i < len(word) && p.pos < len(p.data) && p.data[p.pos] == word[i]; i++ {
			p.pos++
		}
		return p.fail("in the literal " + word)
	}
	p.pos += len(word)
	return nil
}

// errTooLong is the error of [encodeJSONLimit] when the output would pass
// its limit.
var errTooLong = errors.New("the rewritten file would pass the size limit")

// encodeJSON writes v with two-space indentation and a final newline,
// without escaping <, > and &. Strings and numbers read from a file are
// written as they were read.
func encodeJSON(v any) []byte {
	b, _ := encodeJSONLimit(v, 0)
	return b
}

// encodeJSONLimit is [encodeJSON] stopping with errTooLong once the output
// passes limit bytes (limit ≤ 0: no limit). A nested document re-indented
// can be many times larger than the file it was read from.
func encodeJSONLimit(v any, limit int) ([]byte, error) {
	w := &writer{limit: limit}
	w.value(v, "")
	if w.over || limit > 0 && w.b.Len() >= limit {
		return nil, errTooLong
	}
	w.b.WriteByte('\n')
	return w.b.Bytes(), nil
}

type writer struct {
	b     bytes.Buffer
	limit int
	over  bool
}

func (w *writer) value(v any, indent string) {
	if w.over || w.limit > 0 && w.b.Len() > w.limit {
		w.over = true
		return
	}
	b := &w.b
	switch t := v.(type) {
	case *object:
		if len(t.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		inner := indent + "  "
		for i, m := range t.members {
			b.WriteString(inner)
			if m.raw != "" {
				b.WriteString(m.raw)
			} else {
				writeString(b, m.key)
			}
			b.WriteString(": ")
			w.value(m.val, inner)
			if w.over {
				return
			}
			if i < len(t.members)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		inner := indent + "  "
		for i, e := range t {
			b.WriteString(inner)
			w.value(e, inner)
			if w.over {
				return
			}
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case str:
		b.WriteString(t.raw)
	case json.Number:
		b.WriteString(string(t))
	case string:
		writeString(b, t)
	case int:
		b.WriteString(strconv.Itoa(t))
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	default:
		data, err := json.Marshal(t)
		if err != nil {
			data = []byte("null")
		}
		b.Write(data)
	}
}

func writeString(b *bytes.Buffer, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b.Write(bytes.TrimRight(buf.Bytes(), "\n"))
}
