package routing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The tools a [ToolRoute] can apply to.
const (
	ToolWebFetch = "WebFetch"
	ToolBash     = "Bash"
)

// ToolRoute sends a tool call to a better tool.
type ToolRoute struct {
	// Name identifies the route in diagnostics.
	Name string `json:"name" koanf:"name"`
	// Tool is the tool the route applies to: "WebFetch" (matched against
	// tool_input.url) or "Bash" (matched against tool_input.command).
	// Empty means WebFetch.
	Tool string `json:"tool" koanf:"tool"`
	// Pattern is a regular expression (RE2 syntax), matched
	// case-insensitively anywhere in the value.
	Pattern string `json:"pattern" koanf:"pattern"`
	// Message tells the agent exactly what to call instead. It is the whole
	// reason the agent receives in normal mode.
	Message string `json:"message" koanf:"message"`
	// Tests are inline cases checked by [ToolRouter.RunTests].
	Tests []RouteTest `json:"tests,omitempty" koanf:"tests"`
}

// RouteTest is one inline test case of a route.
type RouteTest struct {
	// Input is a URL (WebFetch) or command (Bash).
	Input string `json:"input" koanf:"input"`
	// Expect is "block" (this route must match) or "allow" (no route may
	// match).
	Expect string `json:"expect" koanf:"expect"`
	// Contains, when set with "block", must appear in the message of the
	// route that matched.
	Contains string `json:"contains,omitempty" koanf:"contains"`
}

// compiledRoute is a usable route: its index in the router's routes and
// its compiled pattern. The pattern is compiled on first use, and only for
// a value that contains every one of the route's literals (see
// [scanPattern]); a pattern outside the scanned subset is compiled by
// [NewToolRouter] itself. It is small, so that a router of a thousand
// routes touches little memory.
type compiledRoute struct {
	index       int32 // in ToolRouter.all
	bash        bool  // the tool is Bash, not WebFetch
	first, last int32 // the route's literals in ToolRouter.ends
	once        sync.Once
	re          *regexp.Regexp
}

// ToolRouter matches tool calls against routes, first match wins. It is
// immutable after construction (patterns are compiled on first use, once)
// and safe for concurrent use.
type ToolRouter struct {
	all    []ToolRoute     // the routes given
	routes []compiledRoute // never copied once built: each holds a sync.Once
	// lits holds every route's literals one after another; literal k
	// ends at ends[k] and starts where literal k-1 ends.
	lits []byte
	ends []int32
}

// NewToolRouter checks routes and returns a router over the usable ones. A
// route with an unknown tool, no message or a pattern that does not compile
// is skipped and reported in warnings; the others keep working.
//
// Building a router is cheap even with thousands of routes: a pattern
// within a plain subset of RE2 (which always compiles) is compiled only
// when a value could match it, that is when the value contains, compared
// case-insensitively, every literal the pattern requires; other patterns
// are compiled at once. The router keeps routes rather than a copy: the
// caller must not change them afterwards.
func NewToolRouter(routes []ToolRoute) (r *ToolRouter, warnings []error) {
	r = &ToolRouter{all: routes, routes: make([]compiledRoute, 0, len(routes))}
	size := 0
	for i := range routes {
		size += len(routes[i].Pattern)
	}
	// Literals are never longer than their pattern.
	set := literalSet{runs: make([]byte, 0, size), ends: make([]int32, 0, 2*len(routes))}
	for i := range r.all {
		rt := &r.all[i]
		name := rt.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		bash := false
		switch rt.Tool {
		case "", ToolWebFetch:
		case ToolBash:
			bash = true
		default:
			warnings = append(warnings, fmt.Errorf("tool route %s skipped: unknown tool %q (want WebFetch or Bash)", name, rt.Tool))
			continue
		}
		if strings.TrimSpace(rt.Message) == "" {
			warnings = append(warnings, fmt.Errorf("tool route %s skipped: empty message", name))
			continue
		}
		if strings.TrimSpace(rt.Pattern) == "" {
			warnings = append(warnings, fmt.Errorf("tool route %s skipped: empty pattern", name))
			continue
		}
		first, ok := set.scan(rt.Pattern)
		var re *regexp.Regexp
		if !ok {
			var err error
			if re, err = regexp.Compile("(?i)" + rt.Pattern); err != nil {
				warnings = append(warnings, fmt.Errorf("tool route %s skipped: pattern does not compile: %v", name, err))
				continue
			}
		}
		r.routes = append(r.routes, compiledRoute{index: int32(i), bash: bash, first: int32(first), last: int32(len(set.ends)), re: re})
	}
	r.lits, r.ends = set.runs, set.ends
	return r, warnings
}

// route returns c's route as given, its name and tool filled in.
func (r *ToolRouter) route(c *compiledRoute) ToolRoute {
	rt := r.all[c.index]
	if rt.Name == "" {
		rt.Name = fmt.Sprintf("#%d", c.index+1)
	}
	if rt.Tool == "" {
		rt.Tool = ToolWebFetch
	}
	return rt
}

// regexp returns c's compiled pattern, or nil if it does not compile
// (which [scanPattern] rules out for the patterns it accepts).
func (r *ToolRouter) regexp(c *compiledRoute) *regexp.Regexp {
	c.once.Do(func() {
		if c.re == nil {
			c.re, _ = regexp.Compile("(?i)" + r.all[c.index].Pattern)
		}
	})
	return c.re
}

// mayMatch reports whether folded, a value folded with [foldString],
// contains every literal of c.
func (r *ToolRouter) mayMatch(c *compiledRoute, folded []byte) bool {
	for k := c.first; k < c.last; k++ {
		start := int32(0)
		if k > 0 {
			start = r.ends[k-1]
		}
		if !bytes.Contains(folded, r.lits[start:r.ends[k]]) {
			return false
		}
	}
	return true
}

// Routes returns the usable routes (those whose pattern compiles), in
// order.
func (r *ToolRouter) Routes() []ToolRoute {
	if r == nil {
		return nil
	}
	out := make([]ToolRoute, len(r.routes))
	for i := range r.routes {
		out[i] = r.route(&r.routes[i])
	}
	return out
}

// Count returns how many usable routes apply to tool, without building
// them as [ToolRouter.Routes] does.
func (r *ToolRouter) Count(tool string) int {
	if r == nil {
		return 0
	}
	n := 0
	for i := range r.routes {
		if r.routes[i].bash == (tool == ToolBash) && (tool == ToolBash || tool == ToolWebFetch) {
			n++
		}
	}
	return n
}

// Match returns the first route for tool whose pattern matches value.
func (r *ToolRouter) Match(tool, value string) (ToolRoute, bool) {
	if r == nil || value == "" || tool != ToolWebFetch && tool != ToolBash {
		return ToolRoute{}, false
	}
	bash := tool == ToolBash
	var folded []byte
	for i := range r.routes {
		c := &r.routes[i]
		if c.bash != bash {
			continue
		}
		if c.first < c.last {
			if folded == nil {
				folded = []byte(foldString(value))
			}
			if !r.mayMatch(c, folded) {
				continue
			}
		}
		if re := r.regexp(c); re != nil && re.MatchString(value) {
			return r.route(c), true
		}
	}
	return ToolRoute{}, false
}

// Reason renders the denial reason for a matched route: the message alone in
// normal mode; in debug mode also the route name, the matched value (cut to
// 200 characters) and the pattern.
func (rt ToolRoute) Reason(value string, debug bool) string {
	if !debug {
		return rt.Message
	}
	if r := []rune(value); len(r) > 200 {
		value = string(r[:200]) + "…"
	}
	return fmt.Sprintf("%s\n\n[webgate debug] route=%s tool=%s matched=%q pattern=%s", rt.Message, rt.Name, rt.Tool, value, rt.Pattern)
}

// TestFailure is one inline test case that did not hold.
type TestFailure struct {
	Route string
	Test  RouteTest
	// Problem says what happened instead.
	Problem string
}

// String renders the failure on one line, naming the route, the input, the
// expectation and what happened.
func (f TestFailure) String() string {
	return fmt.Sprintf("route %s: input %q expected %s: %s", f.Route, f.Test.Input, f.Test.Expect, f.Problem)
}

// RunTests checks every inline test of every compiled route against the
// whole router (first match wins, as in a real call) and returns the number
// of cases run and the failures.
func (r *ToolRouter) RunTests() (ran int, failures []TestFailure) {
	for i := range r.routes {
		c := r.route(&r.routes[i])
		for _, tc := range c.Tests {
			ran++
			got, ok := r.Match(c.Tool, tc.Input)
			switch strings.ToLower(tc.Expect) {
			case "block":
				switch {
				case !ok:
					failures = append(failures, TestFailure{c.Name, tc, "no route matched"})
				case tc.Contains != "" && !strings.Contains(got.Message, tc.Contains):
					failures = append(failures, TestFailure{c.Name, tc, fmt.Sprintf("route %s matched but its message lacks %q", got.Name, tc.Contains)})
				}
			case "allow":
				if ok {
					failures = append(failures, TestFailure{c.Name, tc, fmt.Sprintf("route %s matched", got.Name)})
				}
			default:
				failures = append(failures, TestFailure{c.Name, tc, fmt.Sprintf("expect must be block or allow, not %q", tc.Expect)})
			}
		}
	}
	return ran, failures
}

// ParseToolRoutes parses a Tool Routing hook tool-routes.json file:
// {"routes":{"name":{"pattern":…,"message":…}}}. Its routes apply to
// WebFetch; they are returned sorted by name, since JSON objects carry no
// order (a "tool" or "tests" field, when present, is honoured).
func ParseToolRoutes(data []byte) ([]ToolRoute, error) {
	var f struct {
		Routes map[string]ToolRoute `json:"routes"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a tool routes file (want {\"routes\":{\"name\":{\"pattern\",\"message\"}}}): %w", err)
	}
	names := make([]string, 0, len(f.Routes))
	for n := range f.Routes {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]ToolRoute, 0, len(names))
	for _, n := range names {
		rt := f.Routes[n]
		rt.Name = n
		if rt.Tool == "" {
			rt.Tool = ToolWebFetch
		}
		out = append(out, rt)
	}
	return out, nil
}

// SessionIndex renders a compact index of the docs databases and tool
// routes, one line each, for a SessionStart hook's additional context. It
// returns "" when there is nothing to tell.
func SessionIndex(docs *DocsRouter, tools *ToolRouter) string {
	var b strings.Builder
	if dbs := docs.Databases(); len(dbs) > 0 {
		b.WriteString("Local documentation indexes (search them before the web):\n")
		for _, d := range dbs {
			fmt.Fprintf(&b, "- %s: MCP tool %s, path %s; keywords: %s\n", d.Description, d.MCPToolName, d.Path, strings.Join(cleanKeywords(d.Keywords), ", "))
		}
	}
	if rs := tools.Routes(); len(rs) > 0 {
		b.WriteString("Tool routes (use the named tool instead):\n")
		for _, rt := range rs {
			msg := strings.Join(strings.Fields(rt.Message), " ")
			if r := []rune(msg); len(r) > 160 {
				msg = string(r[:160]) + "…"
			}
			fmt.Fprintf(&b, "- %s %s: %s\n", rt.Tool, rt.Name, msg)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
