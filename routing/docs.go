package routing

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Database is a local documentation index reachable through an MCP tool.
// The JSON field names are those of the DocSearch hook's
// docsearch-config.json.
type Database struct {
	// Keywords trigger the route when one appears in a query as a whole
	// word. At least one is required.
	Keywords []string `json:"keywords" koanf:"keywords"`
	// Path is the index's location, passed to the MCP tool. Required.
	Path string `json:"path" koanf:"path"`
	// MCPToolName is the MCP tool that searches the index
	// ("mcp__docsearch__search"). Required.
	MCPToolName string `json:"mcp_tool_name" koanf:"mcp_tool_name"`
	// Description says what the index holds. Required.
	Description string `json:"description" koanf:"description"`
}

// validate reports what is wrong with d, or nil.
func (d Database) validate() error {
	var missing []string
	if len(cleanKeywords(d.Keywords)) == 0 {
		missing = append(missing, "keywords")
	}
	if strings.TrimSpace(d.Path) == "" {
		missing = append(missing, "path")
	}
	if strings.TrimSpace(d.MCPToolName) == "" {
		missing = append(missing, "mcp_tool_name")
	}
	if strings.TrimSpace(d.Description) == "" {
		missing = append(missing, "description")
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing or empty %s", strings.Join(missing, ", "))
	}
	return nil
}

func cleanKeywords(in []string) []string {
	var out []string
	for _, k := range in {
		k = strings.Join(strings.Fields(strings.ToLower(k)), " ")
		if k != "" {
			out = append(out, k)
		}
	}
	return out
}

// DocsRouter matches search queries against documentation databases. It is
// immutable after construction and safe for concurrent use.
type DocsRouter struct {
	dbs      []Database
	keywords [][]string
}

// NewDocsRouter returns a router over the valid databases, in the given
// order. Each invalid database is dropped and reported in warnings, which
// name it by position (and path, when it has one).
func NewDocsRouter(dbs []Database) (r *DocsRouter, warnings []error) {
	r = &DocsRouter{}
	for i, d := range dbs {
		if err := d.validate(); err != nil {
			name := fmt.Sprintf("docs database #%d", i+1)
			if d.Path != "" {
				name += " (" + d.Path + ")"
			}
			warnings = append(warnings, fmt.Errorf("%s dropped: %w", name, err))
			continue
		}
		r.dbs = append(r.dbs, d)
		r.keywords = append(r.keywords, cleanKeywords(d.Keywords))
	}
	return r, warnings
}

// Databases returns the valid databases, in order.
func (r *DocsRouter) Databases() []Database {
	if r == nil {
		return nil
	}
	return append([]Database(nil), r.dbs...)
}

// Match returns every database with a keyword that appears in query as a
// whole word, in configuration order.
func (r *DocsRouter) Match(query string) []Database {
	if r == nil || len(r.dbs) == 0 {
		return nil
	}
	q := strings.Join(strings.Fields(strings.ToLower(query)), " ")
	var out []Database
	for i, kws := range r.keywords {
		for _, kw := range kws {
			if containsWord(q, kw) {
				out = append(out, r.dbs[i])
				break
			}
		}
	}
	return out
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// containsWord reports whether kw occurs in s with word boundaries at its
// edges. A boundary is required only where the keyword's own edge character
// is a word character: "gitlab" needs non-word neighbours on both sides,
// while "c++" needs one only on its left and ".net" only on its right.
func containsWord(s, kw string) bool {
	first, _ := utf8.DecodeRuneInString(kw)
	last, _ := utf8.DecodeLastRuneInString(kw)
	for from := 0; from <= len(s)-len(kw); {
		i := strings.Index(s[from:], kw)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(kw)
		okLeft, okRight := true, true
		if isWordRune(first) && i > 0 {
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			okLeft = !isWordRune(prev)
		}
		if isWordRune(last) && end < len(s) {
			next, _ := utf8.DecodeRuneInString(s[end:])
			okRight = !isWordRune(next)
		}
		if !isWordRune(last) && end < len(s) {
			// "c++" must not match inside "c+++"; a repeated symbol is
			// part of another token.
			next, _ := utf8.DecodeRuneInString(s[end:])
			okRight = next != last
		}
		if okLeft && okRight {
			return true
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		from = i + size
	}
	return false
}

// ParseDocsConfig parses a DocSearch hook docsearch-config.json file:
// {"databases":[{"keywords":[…],"path":…,"mcp_tool_name":…,"description":…}]}.
func ParseDocsConfig(data []byte) ([]Database, error) {
	var f struct {
		Databases []Database `json:"databases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a docs configuration (want {\"databases\":[…]}): %w", err)
	}
	return f.Databases, nil
}

// DocsDenial is what a hook answers when a query matched databases.
type DocsDenial struct {
	// Reason is the short text the model receives as the tool result.
	Reason string
	// Context is the additional context with the MCP instructions.
	Context string
}

// DenyDocs renders the answer for a query that matched dbs.
func DenyDocs(query string, dbs []Database) DocsDenial {
	var b strings.Builder
	if len(dbs) == 1 {
		fmt.Fprintf(&b, "Search the local documentation index first: call the MCP tool %s for %q.", dbs[0].MCPToolName, dbs[0].Path)
	} else {
		fmt.Fprintf(&b, "Search the %d local documentation indexes first, with the MCP tools listed.", len(dbs))
	}
	b.WriteString(" If their results are not enough, repeat this exact WebSearch and it will run.")
	reason := b.String()

	b.Reset()
	fmt.Fprintf(&b, "The query %q matches local documentation:\n", query)
	for _, d := range dbs {
		fmt.Fprintf(&b, "- %s: call MCP tool `%s` with path %q (query: the same question)\n", d.Description, d.MCPToolName, d.Path)
	}
	if len(dbs) > 1 {
		b.WriteString("Call these tools in parallel, in one message.\n")
	}
	b.WriteString("If the local results do not answer the question, repeat the exact same WebSearch call (same query and domain lists); it will then run normally.")
	return DocsDenial{Reason: reason, Context: b.String()}
}

// Route decides a WebSearch call: deny is true when the call matched
// databases and the denial was recorded in st, so that an identical retry
// within the escape window goes through (Route then returns deny false and
// clears the memory). When the denial cannot be recorded (st is nil, or
// fails), Route does not deny and returns the error, so the agent is never
// trapped.
func (r *DocsRouter) Route(st State, sessionID string, c Call) (d DocsDenial, matched []Database, deny bool, err error) {
	matched = r.Match(c.Query)
	if len(matched) == 0 {
		return DocsDenial{}, nil, false, nil
	}
	if st == nil {
		return DocsDenial{}, matched, false, fmt.Errorf("%w: no state store", ErrState)
	}
	if released, _ := st.Release(sessionID, c); released {
		return DocsDenial{}, matched, false, nil
	}
	if err := st.Remember(sessionID, c); err != nil {
		return DocsDenial{}, matched, false, err
	}
	return DenyDocs(c.Query, matched), matched, true, nil
}
