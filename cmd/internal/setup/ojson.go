package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A settings document is read into *object, []any, str, json.Number, bool
// and nil values. Every string (keys included) and number keeps the exact
// text it was read from, and is written back with that text, so that a
// rewrite changes only what webgate adds, changes or removes: a lone
// surrogate escape, an escaped "/", 1e400 or 1.0 all survive as written.
// Values webgate creates are string, int, []any and *object, written by the
// standard encoder.
//
// A document read also keeps its layout: each object and array read
// records the text between its tokens (white space, the separators), and
// the writer puts back every byte of the file that belongs to a value or
// member webgate did not add, change or remove: line endings, indentation,
// a compact one-line object, a missing final newline. What webgate adds
// follows the layout found around it (see [layout]).

// member is one "key": value pair of an object.
type member struct {
	// key is the decoded key; raw is the key as read, quotes included, or
	// "" for a member webgate added.
	key, raw string
	val      any
	// at is where a member read was found in its object's text.
	at memberAt
}

// span is the text of a document from offset from up to offset to.
type span struct{ from, to int32 }

func (s span) of(doc string) string { return doc[s.from:s.to] }

// memberAt is where a member was read, by offsets into the document: its
// lead (the text between the preceding "{" or "," and the key) starts at
// lead, its key at key, its value runs from val to end, and its trail
// (the text between the value and the "," after it; empty for the last
// member, whose following white space is the object's close) ends at
// trail. arr is the layout of the value when it is an array.
type memberAt struct {
	lead, key, val, end, trail int32
	arr                        *arrSrc
}

// valSrc is a value as it was read: its value, its text, and for an array
// the text around its elements.
type valSrc struct {
	val  any
	text string
	arr  *arrSrc
}

// objSrc is the layout of an object read from a file.
type objSrc struct {
	doc string // the document it was read from
	// start and end are the offsets of its "{" and just after its "}".
	start, end int
	// n is the number of members read; close is the text between the last
	// member's value (or the "{") and the "}".
	n     int
	close span
	// lead and mid are those of the last member read, the model of a
	// member webgate adds.
	lead, mid span
}

// arrSrc is the layout of an array read from a file.
type arrSrc struct {
	doc   string
	elems []elemAt
	// vals are the elements read: the array's value as read, which the
	// edits replace and never change in place.
	vals  []any
	close span
}

// elemAt is where an element of an array was read: its lead (the text
// after the "[" or ",") starts at lead, its value runs from val to end,
// and its trail ends at trail. arr is the layout of the value when it is
// an array.
type elemAt struct {
	lead, val, end, trail int32
	arr                   *arrSrc
}

// object is a JSON object that keeps its members in the order they were
// read. A key may occur more than once, as a file may have it; as in
// JavaScript, the last occurrence is the one that counts, and the earlier
// ones are kept as they are.
type object struct {
	members []member
	// src is where the object was read, nil for an object webgate made.
	src *objSrc
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

// setKept gives the member named k the list kept of what it held, or
// removes the member when nothing of a list that held something is kept
// (an empty list the file had stays).
func (o *object) setKept(k string, kept []any, held int) {
	if len(kept) == 0 && held > 0 {
		o.del(k)
		return
	}
	o.set(k, kept)
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
	// One copy of the input as a string: every key, string, number and
	// stretch of layout read is a slice of it, not an allocation of its
	// own.
	if len(data) > math.MaxInt32 {
		return nil, errors.New("larger than 2 GiB")
	}
	p := &parser{data: data, src: string(data)}
	v, _, err := p.value(1)
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
	elems   []elemAt
	vals    []any
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

// at is the current position.
func (p *parser) at() int32 { return int32(p.pos) }

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
// level an object or array there would have. For an array it also
// returns the text around its elements.
func (p *parser) value(depth int) (any, *arrSrc, error) {
	p.space()
	if p.pos >= len(p.data) {
		return nil, nil, p.fail("looking for the beginning of a value")
	}
	var v any
	var err error
	switch c := p.data[p.pos]; {
	case c == '{':
		if depth > MaxSettingsDepth {
			return nil, nil, errTooDeep
		}
		v, err = p.object(depth)
	case c == '[':
		if depth > MaxSettingsDepth {
			return nil, nil, errTooDeep
		}
		return p.array(depth)
	case c == '"':
		v, err = p.str()
	case c == '-' || '0' <= c && c <= '9':
		v, err = p.number()
	case c == 't':
		v, err = true, p.literal("true")
	case c == 'f':
		v, err = false, p.literal("false")
	case c == 'n':
		v, err = nil, p.literal("null")
	default:
		return nil, nil, p.fail("looking for the beginning of a value")
	}
	return v, nil, err
}

func (p *parser) object(depth int) (any, error) {
	src := &objSrc{doc: p.src, start: p.pos}
	p.pos++ // {
	o := &object{src: src}
	lead := p.at()
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		src.close = span{lead, p.at()}
		p.pos++
		src.end = p.pos
		return o, nil
	}
	base := len(p.members)
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("looking for the beginning of an object key")
		}
		at := memberAt{lead: lead, key: p.at()}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("after an object key")
		}
		p.pos++
		p.space()
		at.val = p.at()
		v, arr, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		at.end, at.arr = p.at(), arr
		p.space()
		at.trail = p.at()
		more, ok := p.separator('}')
		if !ok {
			return nil, p.fail("after an object member")
		}
		if !more {
			src.close = span{at.end, at.trail}
			at.trail = at.end
		}
		p.members = append(p.members, member{key: k.val, raw: k.raw, val: v, at: at})
		if !more {
			o.members = pop(&p.members, base)
			src.n, src.end = len(o.members), p.pos
			src.lead, src.mid = span{at.lead, at.key}, span{at.key + int32(len(k.raw)), at.val}
			return o, nil
		}
		lead = p.at()
		p.space()
	}
}

func (p *parser) array(depth int) (any, *arrSrc, error) {
	p.pos++ // [
	src := &arrSrc{doc: p.src}
	lead := p.at()
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		src.close = span{lead, p.at()}
		p.pos++
		src.vals = []any{}
		return src.vals, src, nil
	}
	base := len(p.elems)
	for {
		at := elemAt{lead: lead, val: p.at()}
		v, arr, err := p.value(depth + 1)
		if err != nil {
			return nil, nil, err
		}
		at.end, at.arr = p.at(), arr
		p.space()
		at.trail = p.at()
		more, ok := p.separator(']')
		if !ok {
			return nil, nil, p.fail("after an array element")
		}
		if !more {
			src.close = span{at.end, at.trail}
			at.trail = at.end
		}
		p.elems = append(p.elems, at)
		p.vals = append(p.vals, v)
		if !more {
			src.elems = pop(&p.elems, base)
			src.vals = pop(&p.vals, base)
			return src.vals, src, nil
		}
		lead = p.at()
		p.space()
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

// layout is the style of a file: what webgate writes where the file has
// nothing to copy (a member added to an empty object, a new file) follows
// it.
type layout struct {
	// nl is the line ending ("\n" or "\r\n"); unit one level of
	// indentation ("  ", "\t", …); colon what goes between a key and its
	// value.
	nl, unit, colon string
	// multiline is false for a document written on one line: what is added
	// to it stays on that line.
	multiline bool
}

// defaultLayout is the layout of a new file: two-space indentation, "\n".
var defaultLayout = layout{nl: "\n", unit: "  ", colon: ": ", multiline: true}

// detectLayout finds the layout of a document's text. JSON text holds a
// line break only between tokens, so the first line break followed by
// indentation shows the indentation of the first level.
func detectLayout(text []byte) layout {
	l := defaultLayout
	if !bytes.ContainsAny(text, "\n") {
		l.multiline = false
		l.colon = ":"
	}
	if bytes.Contains(text, []byte("\r\n")) {
		l.nl = "\r\n"
	}
	for rest := text; ; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		n := 0
		for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
			n++
		}
		if n < len(rest) && rest[n] != '\r' && rest[n] != '\n' {
			if n > 0 {
				l.unit = string(rest[:n])
			}
			break
		}
	}
	return l
}

// encodeJSON writes v as [encodeJSONLimit] does, without a limit.
func encodeJSON(v any) []byte {
	b, _ := encodeJSONLimit(v, 0)
	return b
}

// encodeJSONLimit writes v, as read, with two-space indentation for what
// webgate added and a final newline, stopping with errTooLong once the
// output passes limit bytes (limit ≤ 0: no limit).
func encodeJSONLimit(v any, limit int) ([]byte, error) {
	w := &writer{limit: limit, lay: defaultLayout}
	w.value(v, nil, wctx{colon: w.lay.colon})
	if w.over || limit > 0 && w.b.Len() >= limit {
		return nil, errTooLong
	}
	w.b.WriteByte('\n')
	return w.b.Bytes(), nil
}

// utf8BOM is the byte order mark some editors put at the start of a
// UTF-8 file; it is kept, and not part of the JSON text.
const utf8BOM = "\xef\xbb\xbf"

// rewriteJSON returns the file before, read as root, with root's changes:
// every byte outside what webgate added, changed or removed stays as it
// was (a byte order mark, white space before and after the top-level
// value, a missing final newline). A file that was missing or blank is
// written anew in the default layout. It fails with errTooLong once the
// output passes limit bytes (limit ≤ 0: no limit).
func rewriteJSON(before []byte, root *object, limit int) ([]byte, error) {
	bom := ""
	if bytes.HasPrefix(before, []byte(utf8BOM)) {
		bom = utf8BOM
	}
	body := before[len(bom):]
	if root.src == nil || len(bytes.TrimSpace(body)) == 0 {
		b, err := encodeJSONLimit(root, limit)
		if err != nil || bom == "" {
			return b, err
		}
		return append([]byte(bom), b...), nil
	}
	w := &writer{limit: limit, lay: detectLayout(body)}
	w.b.Write(before[:len(bom)+root.src.start])
	w.value(root, nil, wctx{ind: lineIndent(body, root.src.start), colon: w.lay.colon})
	w.b.Write(body[root.src.end:])
	if w.over || limit > 0 && w.b.Len() > limit {
		return nil, errTooLong
	}
	return w.b.Bytes(), nil
}

// lineIndent returns the white space at the start of the line holding
// byte pos of text.
func lineIndent(text []byte, pos int) string {
	start := bytes.LastIndexByte(text[:pos], '\n') + 1
	end := start
	for end < pos && (text[end] == ' ' || text[end] == '\t') {
		end++
	}
	return string(text[start:end])
}

type writer struct {
	b     bytes.Buffer
	limit int
	over  bool
	lay   layout
}

// wctx is where a value is written: ind is the indentation of the line it
// starts on; compact says it is written on that line, as the container it
// is in, with sep after each comma and colon after each key.
type wctx struct {
	ind        string
	compact    bool
	sep, colon string
}

// value writes v; orig, when not nil, is the value that stood at its place
// in the file, whose text is kept as far as v is unchanged.
func (w *writer) value(v any, orig *valSrc, c wctx) {
	if w.over || w.limit > 0 && w.b.Len() > w.limit {
		w.over = true
		return
	}
	switch t := v.(type) {
	case *object:
		if t.src != nil {
			w.readObject(t, c)
		} else {
			w.newObject(t, c)
		}
		return
	case []any:
		if orig != nil && orig.arr != nil {
			w.readArray(t, orig.arr, c)
		} else {
			w.newArray(t, c)
		}
		return
	}
	if orig != nil && sameValue(orig.val, v) {
		w.b.WriteString(orig.text)
		return
	}
	b := &w.b
	switch t := v.(type) {
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

// sameValue reports whether v, a value webgate holds, is old, a value
// read from the file, so that old's text can stand for it.
func sameValue(old, v any) bool {
	switch n := v.(type) {
	case str:
		s, ok := old.(str)
		return ok && s.raw == n.raw
	case json.Number:
		m, ok := old.(json.Number)
		return ok && m == n
	case bool:
		b, ok := old.(bool)
		return ok && b == n
	case nil:
		return old == nil
	case string, int:
		return sameScalar(old, v)
	case *object:
		o, ok := old.(*object)
		return ok && o == n
	case []any:
		_, ok := old.([]any)
		return ok
	}
	return false
}

// fresh returns the text before a member or element of a container
// webgate made, written at c, and the context of its value; first says it
// follows the opening bracket.
func (w *writer) fresh(c wctx, first bool) (lead string, inner wctx) {
	if c.compact {
		if first {
			return "", c
		}
		return c.sep, c
	}
	inner = wctx{ind: c.ind + w.lay.unit, colon: c.colon}
	return w.lay.nl + inner.ind, inner
}

// within returns the context of a value that follows lead (the text
// before its key or itself) in a container written at c: on a line of
// its own when lead breaks the line, else compact, as lead is.
func within(c wctx, lead, colon string) wctx {
	i := strings.LastIndexByte(lead, '\n')
	if i < 0 {
		return wctx{ind: c.ind, compact: true, sep: lead, colon: colon}
	}
	return wctx{ind: strings.TrimLeft(lead[i+1:], "\r"), colon: colon}
}

// modelColon returns mid, the text between a key and its value, for the
// members webgate adds, unless it breaks the line.
func modelColon(mid, def string) string {
	if mid == "" || strings.ContainsAny(mid, "\r\n") {
		return def
	}
	return mid
}

func (w *writer) newObject(t *object, c wctx) {
	if len(t.members) == 0 {
		w.b.WriteString("{}")
		return
	}
	w.b.WriteByte('{')
	var inner wctx
	for i, m := range t.members {
		if i > 0 {
			w.b.WriteByte(',')
		}
		var lead string
		lead, inner = w.fresh(c, i == 0)
		w.newMember(lead, m, c.colon, inner)
		if w.over {
			return
		}
	}
	if !c.compact {
		w.b.WriteString(w.lay.nl + c.ind)
	}
	w.b.WriteByte('}')
}

func (w *writer) newArray(t []any, c wctx) {
	if len(t) == 0 {
		w.b.WriteString("[]")
		return
	}
	w.b.WriteByte('[')
	for i, e := range t {
		if i > 0 {
			w.b.WriteByte(',')
		}
		lead, inner := w.fresh(c, i == 0)
		w.b.WriteString(lead)
		w.value(e, nil, inner)
		if w.over {
			return
		}
	}
	if !c.compact {
		w.b.WriteString(w.lay.nl + c.ind)
	}
	w.b.WriteByte(']')
}

// newMember writes a member that was not read from the document: lead
// before it, its key, colon, and its value laid out by c.
func (w *writer) newMember(lead string, m member, colon string, c wctx) {
	w.b.WriteString(lead)
	w.key(m)
	w.b.WriteString(colon)
	w.value(m.val, nil, c)
}

func (w *writer) key(m member) {
	if m.raw != "" {
		w.b.WriteString(m.raw)
	} else {
		writeString(&w.b, m.key)
	}
}

// addAt returns the context in which members or elements webgate adds to
// a container read from the file are written: like the last one read
// (lead), or, in a container read empty, one level deeper than c on lines
// of their own (in a file of one line: compact). close is the text to
// put before the closing bracket.
func (w *writer) addAt(c wctx, n int, lead, colon, close string) (model wctx, modelLead, closing string) {
	if n > 0 {
		m := within(c, lead, colon)
		return m, lead, close
	}
	if !w.lay.multiline {
		return wctx{ind: c.ind, compact: true, colon: colon}, "", ""
	}
	m := wctx{ind: c.ind + w.lay.unit, colon: colon}
	return m, w.lay.nl + m.ind, w.lay.nl + c.ind
}

func (w *writer) readObject(t *object, c wctx) {
	src, doc := t.src, t.src.doc
	w.b.WriteByte('{')
	if len(t.members) == 0 {
		if src.n == 0 {
			w.b.WriteString(src.close.of(doc))
		}
		w.b.WriteByte('}')
		return
	}
	colon := modelColon(src.mid.of(doc), c.colon)
	model, modelLead, closing := w.addAt(c, src.n, src.lead.of(doc), colon, src.close.of(doc))
	for i, m := range t.members {
		if i > 0 {
			w.b.WriteByte(',')
		}
		if m.raw != "" {
			at := m.at
			lead := doc[at.lead:at.key]
			w.b.WriteString(lead)
			w.b.WriteString(doc[at.key:at.val])
			// A scalar or an object read writes its own text; an array
			// is matched to the elements read at its place.
			var orig *valSrc
			if at.arr != nil {
				orig = &valSrc{val: at.arr.vals, arr: at.arr}
			}
			w.value(m.val, orig, within(c, lead, colon))
			w.b.WriteString(doc[at.end:at.trail])
		} else {
			w.newMember(modelLead, m, model.colon, model)
		}
		if w.over {
			return
		}
	}
	w.b.WriteString(closing)
	w.b.WriteByte('}')
}

func (w *writer) readArray(t []any, src *arrSrc, c wctx) {
	doc := src.doc
	w.b.WriteByte('[')
	if len(t) == 0 {
		if len(src.elems) == 0 {
			w.b.WriteString(src.close.of(doc))
		}
		w.b.WriteByte(']')
		return
	}
	n := len(src.elems)
	lead := ""
	if n > 0 {
		lead = doc[src.elems[n-1].lead:src.elems[n-1].val]
	}
	model, modelLead, closing := w.addAt(c, n, lead, c.colon, src.close.of(doc))
	m := matcher{src: src}
	for i, v := range t {
		if i > 0 {
			w.b.WriteByte(',')
		}
		if j := m.find(v); j >= 0 {
			e := src.elems[j]
			lead := doc[e.lead:e.val]
			w.b.WriteString(lead)
			w.value(v, &valSrc{val: src.vals[j], text: doc[e.val:e.end], arr: e.arr}, within(c, lead, c.colon))
			w.b.WriteString(doc[e.end:e.trail])
		} else {
			w.b.WriteString(modelLead)
			w.value(v, nil, model)
		}
		if w.over {
			return
		}
	}
	w.b.WriteString(closing)
	w.b.WriteByte(']')
}

// matcher finds the element read that an element written was, each at
// most once: an object by identity, anything else by value among the
// next few elements read after the last one found. Every lookup is
// bounded, so that an array of many elements is matched in linear time.
type matcher struct {
	src  *arrSrc
	objs map[*object]int // the objects read, by index; made on first use
	used []bool
	next int // the element read after the last one found
}

// matchWindow is how far past the last element found a value is looked for.
const matchWindow = 8

func (m *matcher) find(v any) int {
	n := len(m.src.vals)
	if m.used == nil {
		m.used = make([]bool, n)
	}
	j := -1
	if o, ok := v.(*object); ok {
		if m.objs == nil {
			m.objs = make(map[*object]int)
			for i, r := range m.src.vals {
				if ro, ok := r.(*object); ok {
					m.objs[ro] = i
				}
			}
		}
		if i, ok := m.objs[o]; ok && !m.used[i] {
			j = i
		}
	} else {
		for i := m.next; i < n && i < m.next+matchWindow; i++ {
			if !m.used[i] && sameValue(m.src.vals[i], v) {
				j = i
				break
			}
		}
	}
	if j >= 0 {
		m.used[j] = true
		m.next = j + 1
	}
	return j
}

func writeString(b *bytes.Buffer, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b.Write(bytes.TrimRight(buf.Bytes(), "\n"))
}
