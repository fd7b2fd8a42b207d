package pdf

import (
	"bufio"
	"io"
	"strconv"
)

// Bounds of the content-stream lexer.
const (
	maxToken = 1 << 20 // bytes of one string, name or number
	maxArray = 1 << 16 // elements of one array
	maxNest  = 32      // arrays and dictionaries inside one another
)

type operandKind int

const (
	kindNumber operandKind = iota
	kindString
	kindName
	kindArray
	kindOther // dictionaries, booleans, null: read and ignored
)

// operand is one token of a content stream: an operator, or an operand.
type operand struct {
	isOperator bool
	name       string // the operator
	kind       operandKind
	num        float64
	str        string // a string's bytes, a name without its slash
	arr        []operand
}

// lexer reads the tokens of a content stream. It never fails: malformed
// input ends the stream or is skipped.
type lexer struct {
	r   *bufio.Reader
	buf []byte
}

func newLexer(r io.Reader) *lexer {
	return &lexer{r: bufio.NewReaderSize(r, 32<<10)}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// skipSpace skips white space and comments; it returns false at the end.
func (l *lexer) skipSpace() bool {
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return false
		}
		if isSpace(c) {
			continue
		}
		if c == '%' {
			for {
				c, err := l.r.ReadByte()
				if err != nil {
					return false
				}
				if c == '\n' || c == '\r' {
					break
				}
			}
			continue
		}
		_ = l.r.UnreadByte()
		return true
	}
}

// next returns the next operator or operand; false at the end.
func (l *lexer) next() (operand, bool) {
	return l.token(0)
}

func (l *lexer) token(depth int) (operand, bool) {
	for {
		if !l.skipSpace() {
			return operand{}, false
		}
		c, _ := l.r.ReadByte()
		switch {
		case c == '(':
			return operand{kind: kindString, str: l.literal()}, true
		case c == '<':
			n, err := l.r.Peek(1)
			if err == nil && n[0] == '<' {
				_, _ = l.r.ReadByte()
				l.skipDict(depth + 1)
				return operand{kind: kindOther}, true
			}
			return operand{kind: kindString, str: l.hex()}, true
		case c == '[':
			return operand{kind: kindArray, arr: l.array(depth + 1)}, true
		case c == '/':
			return operand{kind: kindName, str: l.word()}, true
		case c == ']' || c == '>' || c == ')' || c == '{' || c == '}':
			continue // stray delimiter
		case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
			_ = l.r.UnreadByte()
			w := l.word()
			f, err := strconv.ParseFloat(w, 64)
			if err != nil {
				return operand{kind: kindOther}, true
			}
			return operand{kind: kindNumber, num: f}, true
		default:
			_ = l.r.UnreadByte()
			w := l.word()
			switch w {
			case "true", "false", "null", "":
				if w == "" {
					_, _ = l.r.ReadByte()
					continue
				}
				return operand{kind: kindOther}, true
			}
			return operand{isOperator: true, name: w}, true
		}
	}
}

// word reads regular characters up to white space or a delimiter.
func (l *lexer) word() string {
	l.buf = l.buf[:0]
	for len(l.buf) < maxToken {
		c, err := l.r.ReadByte()
		if err != nil {
			break
		}
		if isSpace(c) || isDelim(c) {
			_ = l.r.UnreadByte()
			break
		}
		l.buf = append(l.buf, c)
	}
	return string(l.buf)
}

// literal reads a (string) after its opening parenthesis.
func (l *lexer) literal() string {
	l.buf = l.buf[:0]
	nest := 1
	for len(l.buf) < maxToken {
		c, err := l.r.ReadByte()
		if err != nil {
			break
		}
		switch c {
		case '(':
			nest++
		case ')':
			if nest--; nest == 0 {
				return string(l.buf)
			}
		case '\\':
			e, err := l.r.ReadByte()
			if err != nil {
				return string(l.buf)
			}
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if n, err := l.r.Peek(1); err == nil && n[0] == '\n' {
					_, _ = l.r.ReadByte()
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for i := 0; i < 2; i++ {
						n, err := l.r.Peek(1)
						if err != nil || n[0] < '0' || n[0] > '7' {
							break
						}
						_, _ = l.r.ReadByte()
						v = v*8 + int(n[0]-'0')
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		l.buf = append(l.buf, c)
	}
	return string(l.buf)
}

// hex reads a <hex string> after its opening bracket.
func (l *lexer) hex() string {
	l.buf = l.buf[:0]
	var hi byte
	half := false
	for len(l.buf) < maxToken {
		c, err := l.r.ReadByte()
		if err != nil || c == '>' {
			break
		}
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			continue
		}
		if half {
			l.buf = append(l.buf, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		l.buf = append(l.buf, hi<<4)
	}
	return string(l.buf)
}

// array reads the elements of an array after its opening bracket.
func (l *lexer) array(depth int) []operand {
	var out []operand
	for {
		if !l.skipSpace() {
			return out
		}
		c, _ := l.r.ReadByte()
		if c == ']' {
			return out
		}
		_ = l.r.UnreadByte()
		if depth > maxNest {
			_, _ = l.r.ReadByte()
			continue
		}
		op, ok := l.token(depth)
		if !ok {
			return out
		}
		if op.isOperator {
			// An operator inside an array: the array was not closed.
			return out
		}
		if len(out) < maxArray {
			out = append(out, op)
		}
	}
}

// skipDict reads a dictionary after its opening "<<" and forgets it.
func (l *lexer) skipDict(depth int) {
	for {
		if !l.skipSpace() {
			return
		}
		c, _ := l.r.ReadByte()
		if c == '>' {
			if n, err := l.r.Peek(1); err == nil && n[0] == '>' {
				_, _ = l.r.ReadByte()
			}
			return
		}
		_ = l.r.UnreadByte()
		if depth > maxNest {
			_, _ = l.r.ReadByte()
			continue
		}
		op, ok := l.token(depth)
		if !ok || op.isOperator {
			return
		}
	}
}

// skipInlineImage skips an inline image's parameters and data, from after
// BI to after EI.
func (l *lexer) skipInlineImage() {
	// Parameters up to ID.
	for {
		op, ok := l.next()
		if !ok {
			return
		}
		if op.isOperator && op.name == "ID" {
			break
		}
		if op.isOperator && op.name == "EI" {
			return
		}
	}
	// Binary data up to white space, "EI", then white space or a
	// delimiter (or the end).
	last := [3]byte{' ', ' ', ' '}
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return
		}
		if isSpace(last[0]) && last[1] == 'E' && last[2] == 'I' && (isSpace(c) || isDelim(c)) {
			return
		}
		last[0], last[1], last[2] = last[1], last[2], c
	}
}
