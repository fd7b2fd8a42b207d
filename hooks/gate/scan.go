package gate

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/safefile"
)

// configFacts is what the front learns from the configuration file: not
// its settings (it does not parse it) but whether it may set what would
// make an event relevant. Every fact errs on the side of true.
type configFacts struct {
	// toolNames: the file may set tool names ("tool_names", which
	// "mcp_tool_names" contains).
	toolNames bool
	// mcpToolNames: the file may set MCP tool names.
	mcpToolNames bool
	// bashRoutes: the file may configure a tool route for Bash, or name a
	// routes file (whose routes the front does not read).
	bashRoutes bool
	// answer: the file may set the answer style (hooks.answer), which
	// makes PostToolUse of the native web tools relevant.
	answer bool
	// budget is the shortest hook budget the file may set
	// (hooks.websearch.budget or hooks.webfetch.budget, whichever hook),
	// or 0 when it sets none the scan can read. The front bounds its wait
	// for stdin by it ([stdinWait]).
	budget time.Duration
	// scanned records that a piece was scanned: the next one begins with
	// the end of it.
	scanned bool
}

// scanWindow is how much of the file the front holds at once: it reads the
// file in pieces rather than whole, so that a configuration of a thousand
// routes (some 200 KB) costs no more memory than a small one.
const scanWindow = 32 << 10

// scanOverlap is how much of one piece is kept before the next: more than
// the longest word looked for, so that none is missed across pieces.
const scanOverlap = 64

// scanConfig reads a configuration file from r and returns its facts.
func scanConfig(r io.Reader) (configFacts, error) {
	return scanPieces(r, scanWindow)
}

// scanPieces is scanConfig with pieces of size bytes (tests vary it).
func scanPieces(r io.Reader, size int) (configFacts, error) {
	var f configFacts
	buf := make([]byte, scanOverlap+size)
	n := 0       // bytes held in buf
	escapes := 0 // where in buf to go on looking for escapes
	for {
		m, err := io.ReadFull(r, buf[n:])
		n += m
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return configFacts{}, err
		}
		next := f.scan(buf[:n], escapes, eof)
		if eof {
			return f, nil
		}
		// Keep the end of this piece before the next.
		n = copy(buf, buf[n-scanOverlap:n])
		escapes = max(next-(len(buf)-scanOverlap), 0)
	}
}

// scanConfigFile opens the regular file at path (refusing anything else,
// as safefile.ReadFile does) and scans it; a file larger than
// safefile.MaxBytes fails, as the worker does not read it either.
func scanConfigFile(path string) (configFacts, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return configFacts{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return configFacts{}, err
	}
	if fi.Size() > safefile.MaxBytes {
		return configFacts{}, safefile.ErrTooLarge
	}
	return scanConfig(io.LimitReader(f, safefile.MaxBytes))
}

// scan adds the facts of window, a piece of the file whose first
// scanOverlap bytes (unless it is the first) were scanned with the piece
// before; eof says whether the file ends with it. Escapes are looked for
// from window[escapes:] on, where the piece before left off (a backslash
// escapes the next one, so the search cannot start just anywhere); scan
// returns where the next piece must go on.
func (f *configFacts) scan(window []byte, escapes int, eof bool) (next int) {
	f.toolNames = f.toolNames || bytes.Contains(window, []byte("tool_names"))
	f.mcpToolNames = f.mcpToolNames || bytes.Contains(window, []byte("mcp_tool_names"))
	// The routing package takes the tool "Bash" exactly, so a Bash route
	// spells it (or escapes it); routes.config or docs.config may name a
	// routes file.
	f.bashRoutes = f.bashRoutes || bytes.Contains(window, []byte(toolBash)) || mayHaveKey(window, "config", eof)
	f.answer = f.answer || bytes.Contains(window, []byte("answer"))
	found, next := hasEscape(window, escapes, eof)
	f.bashRoutes = f.bashRoutes || found
	f.answer = f.answer || found
	if d := shortestBudget(window, f.scanned, eof); d > 0 && (f.budget == 0 || d < f.budget) {
		f.budget = d
	}
	f.scanned = true
	return next
}

// shortestBudget returns the shortest duration window sets a key named
// "budget" to in TOML, YAML or JSON ("budget = \"5s\"", "budget: 5",
// "\"budget\": \"5s\"", a dotted "hooks.websearch.budget = 5"), as the
// configuration reads a duration (a number of seconds, or a Go duration),
// or 0 when it sets none. Only the hooks' budgets are durations (a
// provider's budget is a table); a value the scan cannot read, or one the
// piece cuts off, is skipped: the wait then keeps its upper bound. A key
// that begins in the last scanOverlap bytes of a piece (but the last) is
// left to the next piece, which holds the byte before it; so a piece that
// follows another (cont) skips a key at its very start, which the piece
// before has read.
func shortestBudget(window []byte, cont, eof bool) time.Duration {
	var shortest time.Duration
	for from := 0; ; {
		i := bytes.Index(window[from:], []byte("budget"))
		if i < 0 {
			return shortest
		}
		start := from + i
		from = start + 1
		if cont && start == 0 || !eof && start > len(window)-scanOverlap {
			continue
		}
		if start > 0 && isWordByte(window[start-1]) {
			continue // token_budget
		}
		j := start + len("budget")
		if j < len(window) && (window[j] == '"' || window[j] == '\'') {
			j++
		}
		j = skipBlanks(window, j)
		if j >= len(window) || window[j] != '=' && window[j] != ':' {
			continue
		}
		j = skipBlanks(window, j+1)
		if j >= len(window) {
			continue
		}
		var value []byte
		if q := window[j]; q == '"' || q == '\'' {
			k := bytes.IndexAny(window[j+1:], string(q)+"\n")
			if k < 0 || window[j+1+k] != q {
				continue
			}
			value = window[j+1 : j+1+k]
		} else {
			k := j
			for k < len(window) && strings.IndexByte(" \t\r\n,}]#", window[k]) < 0 {
				k++
			}
			if k == len(window) && !eof {
				continue // cut off by the end of the piece
			}
			value = window[j:k]
		}
		if d, ok := scanDuration(string(value)); ok && d > 0 && (shortest == 0 || d < shortest) {
			shortest = d
		}
	}
}

// scanDuration reads a duration as the configuration does: a number of
// seconds, or a Go duration ("1m30s").
func scanDuration(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(f) || f <= 0 || f > float64(math.MaxInt64)/float64(time.Second) {
			return 0, false
		}
		return time.Duration(f * float64(time.Second)), true
	}
	d, err := time.ParseDuration(v)
	return d, err == nil
}

func skipBlanks(window []byte, j int) int {
	for j < len(window) && (window[j] == ' ' || window[j] == '\t') {
		j++
	}
	return j
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// toolBash is the tool of Bash routes, as the routing package spells it
// (routing.ToolBash, which it takes exactly).
const toolBash = "Bash"

// undecided reports, for a look-ahead that began at start and ran to the
// end of window, whether the next piece will look again (it holds the
// start) rather than this one having to answer yes.
func undecided(window []byte, start int, eof bool) bool {
	return !eof && start >= len(window)-scanOverlap
}

// mayHaveKey reports whether window may set key in TOML, YAML or JSON: key
// followed (past a closing quote, spaces and line breaks) by anything but
// what continues a word or a path, as in "~/.config/x" or "config.toml".
func mayHaveKey(window []byte, key string, eof bool) bool {
	for from := 0; ; {
		i := bytes.Index(window[from:], []byte(key))
		if i < 0 {
			return false
		}
		start := from + i
		j := start + len(key)
		for j < len(window) && strings.IndexByte("\"' \t\r\n", window[j]) >= 0 {
			j++
		}
		switch {
		case j == len(window):
			return !undecided(window, start, eof)
		case !isPathByte(window[j]):
			return true
		}
		from = start + 1
	}
}

func isPathByte(c byte) bool {
	return isWordByte(c) || c == '/' || c == '.'
}

// hasEscape reports whether window[from:] holds an escape that could
// spell a word without its letters ("\u0042ash" in TOML or JSON, "\x42ash"
// in YAML) or join a word across lines (a backslash ending a line inside a
// string). It also returns where a search in the rest of the file must go
// on: past the end, or at a backslash it could not decide on.
func hasEscape(window []byte, from int, eof bool) (bool, int) {
	for i := from; ; {
		k := bytes.IndexByte(window[i:], '\\')
		if k < 0 {
			return false, len(window)
		}
		start := i + k
		i = start + 1
		j := i
		for j < len(window) && (window[j] == ' ' || window[j] == '\t') {
			j++
		}
		if j == len(window) {
			if undecided(window, start, eof) {
				return false, start
			}
			return !eof, start
		}
		switch window[j] {
		case '\r', '\n':
			return true, j
		case 'u', 'U', 'x':
			if j == i {
				return true, j
			}
		case '\\':
			if j == i {
				i++ // an escaped backslash
			}
		}
	}
}
