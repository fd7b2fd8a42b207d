package routing

import (
	"fmt"
	"regexp"
	"testing"
)

// largeRoutes returns n routes alternating WebFetch and Bash, each naming
// its own site, as a large configuration file would.
func largeRoutes(n int) []ToolRoute {
	routes := make([]ToolRoute, n)
	for i := range routes {
		tool := ToolWebFetch
		if i%2 == 1 {
			tool = ToolBash
		}
		routes[i] = ToolRoute{
			Name:    fmt.Sprint("route", i),
			Tool:    tool,
			Pattern: fmt.Sprintf(`^https?://(www\.)?site%d\.example/(issues|pulls)/[0-9]+`, i),
			Message: fmt.Sprintf("Use the site%d MCP server instead.", i),
		}
	}
	return routes
}

// BenchmarkToolRouter_1000Routes times what one hook call does with 1000
// tool routes: build the router and match one value, either the URL of
// route #990 (a WebFetch route near the end), a Bash command matching
// route #997, or a Bash command no route matches. "compile-all" is the
// cost of compiling every pattern, which building the router avoids.
func BenchmarkToolRouter_1000Routes(b *testing.B) {
	routes := largeRoutes(1000)
	cases := []struct{ name, tool, value, want string }{
		{"webfetch-route990", ToolWebFetch, "https://site990.example/issues/42", "route990"},
		{"bash-route997", ToolBash, "https://www.site997.example/pulls/7", "route997"},
		{"bash-unrouted", ToolBash, "ls -la", ""},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				r, _ := NewToolRouter(routes)
				got, _ := r.Match(c.tool, c.value)
				if got.Name != c.want {
					b.Fatalf("matched %q, want %q", got.Name, c.want)
				}
			}
		})
	}
	b.Run("match-only", func(b *testing.B) {
		r, _ := NewToolRouter(routes)
		for b.Loop() {
			r.Match(ToolWebFetch, "https://site990.example/issues/42")
		}
	})
	b.Run("compile-all", func(b *testing.B) {
		for b.Loop() {
			for _, rt := range routes {
				regexp.MustCompile("(?i)" + rt.Pattern)
			}
		}
	})
}
